#include "io/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace msdt {
namespace {

TEST(ResolveJobs, PositiveIsKeptOtherwiseAllCores) {
  EXPECT_EQ(resolve_jobs(3), 3u);
  EXPECT_GE(resolve_jobs(std::nullopt), 1u);
  EXPECT_EQ(resolve_jobs(0), resolve_jobs(std::nullopt));
  EXPECT_EQ(resolve_jobs(-4), resolve_jobs(std::nullopt));
}

TEST(ParallelFor, EveryItemOnceForAnyWorkerCount) {
  for (unsigned jobs : {0u, 1u, 2u, 7u}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{5}, size_t{1000}}) {
      std::vector<std::atomic<int>> hits(n);
      parallel_for(n, jobs, [&](size_t i) { hits[i].fetch_add(1); });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << jobs << " " << n << " " << i;
    }
  }
}

TEST(OrderedParallel, ConsumesInOrderWithBoundedLookAhead) {
  for (unsigned jobs : {1u, 2u, 4u, 8u}) {
    const size_t n = 500, window = 6;
    std::atomic<size_t> produced{0};
    std::vector<size_t> order;
    size_t max_ahead = 0;
    ordered_parallel<std::string>(
        n, jobs, window,
        [&](size_t i) {
          produced.fetch_add(1);
          if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
          return std::to_string(i);
        },
        [&](size_t i, std::string value) {
          EXPECT_EQ(value, std::to_string(i));
          order.push_back(i);
          // Items produced but not yet consumed never exceed the window (plus the one in hand).
          max_ahead = std::max(max_ahead, produced.load() - order.size());
        });
    ASSERT_EQ(order.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(order[i], i);
    EXPECT_LE(max_ahead, std::max<size_t>(window, jobs)) << jobs;
  }
}

TEST(OrderedParallel, AThrowingConsumerStopsTheWorkers) {
  std::atomic<size_t> produced{0};
  EXPECT_THROW(
      ordered_parallel<int>(
          100000, 4, 8, [&](size_t i) { return produced.fetch_add(1), static_cast<int>(i); },
          [&](size_t i, int) {
            if (i == 10) throw std::runtime_error("stop");
          }),
      std::runtime_error);
  EXPECT_LT(produced.load(), 100u);
}

}  // namespace
}  // namespace msdt
