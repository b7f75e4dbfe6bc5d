#include "tokenmill/base/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tokenmill {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceIntoItsOwnSlot) {
  for (int threads : {0, 1, 3, 16}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}}) {
      std::vector<int> runs(n, 0);
      ParallelFor(n, threads, [&](size_t i) { ++runs[i]; });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i], 1) << i << " of " << n;
    }
  }
}

TEST(ParallelFor, UsesAtMostTheThreadsAskedForTheCallersAmongThem) {
  std::mutex mu;
  std::set<std::thread::id> seen;
  std::atomic<int> running{0}, most{0};
  ParallelFor(64, 4, [&](size_t) {
    const int now = running.fetch_add(1) + 1;
    int m = most.load();
    while (now > m && !most.compare_exchange_weak(m, now)) {
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      seen.insert(std::this_thread::get_id());
    }
    std::this_thread::yield();
    running.fetch_sub(1);
  });
  EXPECT_LE(most.load(), 4);
  EXPECT_LE(seen.size(), 4u);
  // One thread: everything on the caller's.
  std::set<std::thread::id> one;
  ParallelFor(10, 1, [&](size_t) { one.insert(std::this_thread::get_id()); });
  EXPECT_EQ(one, std::set<std::thread::id>{std::this_thread::get_id()});
}

}  // namespace
}  // namespace tokenmill
