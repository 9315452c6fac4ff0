// The one worker pool of msdt: every tool that works on several inputs at once (`-j`) goes
// through these two functions, so worker counts, ordering and memory bounds behave the same
// everywhere.
//
// * parallel_for: items in any order, for work whose results go straight to their own files.
// * ordered_parallel: results handed back on the calling thread in item order, with at most
//   `window` results computed ahead of the one being consumed, so that output order is the input
//   order whatever the number of workers and memory stays bounded by the items in flight.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace msdt {

// The worker count for `-j N`: N when given and positive, otherwise every core.
unsigned resolve_jobs(std::optional<long long> requested);

// Calls task(i) for every i in [0, n) on min(jobs, n) threads (the caller's thread among them
// when jobs <= 1). Returns when every task has returned. Tasks must not throw.
void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& task);

// Calls produce(i) for every i in [0, n) on up to `jobs` threads and consume(i, result) on the
// calling thread in increasing i. At most `window` results (at least jobs) exist at once.
// produce must not throw; consume may, and then the workers are stopped before it propagates.
template <class Result, class Produce, class Consume>
void ordered_parallel(size_t n, unsigned jobs, size_t window, Produce produce, Consume consume) {
  if (jobs <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) consume(i, produce(i));
    return;
  }
  window = std::max<size_t>(window, jobs);
  std::mutex mutex;
  std::condition_variable ready, room;
  std::deque<std::optional<Result>> results;  // results[k] is item `base + k`
  size_t base = 0, next = 0;
  bool stop = false;
  auto worker = [&] {
    std::unique_lock lock(mutex);
    for (;;) {
      room.wait(lock, [&] { return stop || next >= n || next < base + window; });
      if (stop || next >= n) return;
      size_t i = next++;
      if (results.size() <= i - base) results.resize(i - base + 1);
      lock.unlock();
      Result value = produce(i);
      lock.lock();
      results[i - base] = std::move(value);
      if (i == base) ready.notify_one();
    }
  };
  unsigned threads_wanted = static_cast<unsigned>(std::min<size_t>(jobs, n));
  std::vector<std::thread> threads;
  threads.reserve(threads_wanted);
  for (unsigned t = 0; t < threads_wanted; ++t) threads.emplace_back(worker);
  auto finish = [&] {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    room.notify_all();
    for (auto& thread : threads) thread.join();
  };
  try {
    for (size_t i = 0; i < n; ++i) {
      std::optional<Result> value;
      {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return !results.empty() && results.front().has_value(); });
        value = std::move(results.front());
        results.pop_front();
        ++base;
      }
      room.notify_all();
      consume(i, std::move(*value));
    }
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

}  // namespace msdt
