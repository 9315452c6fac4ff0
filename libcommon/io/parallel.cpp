#include "io/parallel.h"

namespace msdt {

unsigned resolve_jobs(std::optional<long long> requested) {
  if (requested && *requested > 0)
    return static_cast<unsigned>(std::min<long long>(*requested, 1024));
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) task(i);
  };
  unsigned workers = static_cast<unsigned>(std::min<size_t>(std::max(1u, jobs), n));
  if (workers <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (unsigned t = 1; t < workers; ++t) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
}

}  // namespace msdt
