#include "tokenmill/base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace tokenmill {

void ParallelFor(size_t n, int threads, const std::function<void(size_t)>& fn) {
  const size_t workers = std::min(n, static_cast<size_t>(std::max(threads, 1)));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  for (size_t k = 1; k < workers; ++k) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace tokenmill
