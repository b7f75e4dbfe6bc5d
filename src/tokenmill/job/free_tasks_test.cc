#include "tokenmill/job/free_tasks.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace tokenmill {
namespace {

// Takes every task, in the order Take gives them.
std::vector<uint64_t> Drain(FreeTasks& free, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> order;
  while (!free.empty()) order.push_back(free.Take(rng));
  return order;
}

TEST(FreeTasksTest, LargerClassesFirstEveryTaskOnce) {
  // Work 1000 for tasks 0..9, 10 for 10..29, 0 for 30..39, 5000 for task 40.
  std::vector<uint64_t> work(41, 0);
  for (int t = 0; t < 10; ++t) work[t] = 1000;
  for (int t = 10; t < 30; ++t) work[t] = 10;
  work[40] = 5000;
  FreeTasks free(work);
  for (uint64_t t = 0; t < 41; ++t) free.Add(t);
  EXPECT_EQ(free.size(), 41u);
  const std::vector<uint64_t> order = Drain(free, 7);
  ASSERT_EQ(order.size(), 41u);
  EXPECT_EQ(std::set<uint64_t>(order.begin(), order.end()).size(), 41u);
  EXPECT_EQ(order[0], 40u);
  for (size_t i = 1; i <= 10; ++i) EXPECT_LT(order[i], 10u) << i;
  for (size_t i = 11; i <= 30; ++i) EXPECT_TRUE(order[i] >= 10 && order[i] < 30) << i;
  for (size_t i = 31; i < 41; ++i) EXPECT_TRUE(order[i] >= 30 && order[i] < 40) << i;
}

TEST(FreeTasksTest, WithinAClassThePickIsAtRandom) {
  // Work within a factor of two is one class: its tasks come in an order that depends on the
  // seed, so that workers spread over them.
  const std::vector<uint64_t> work = {1024, 1500, 2047, 1100, 1800, 1300, 1999, 1025};
  std::set<std::vector<uint64_t>> orders;
  std::set<uint64_t> firsts;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    FreeTasks free(work);
    for (uint64_t t = 0; t < work.size(); ++t) free.Add(t);
    const std::vector<uint64_t> order = Drain(free, seed);
    orders.insert(order);
    firsts.insert(order[0]);
  }
  EXPECT_GT(orders.size(), 50u);
  EXPECT_EQ(firsts.size(), work.size());  // each task comes first for some seed
}

TEST(FreeTasksTest, WithoutWorkEveryTaskIsAlike) {
  std::set<uint64_t> firsts;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    FreeTasks free;
    for (uint64_t t = 0; t < 4; ++t) free.Add(t);
    firsts.insert(Drain(free, seed)[0]);
  }
  EXPECT_EQ(firsts.size(), 4u);
}

TEST(FreeTasksTest, TasksAddedBackAndClear) {
  FreeTasks free({8, 8, 1});
  free.Add(2);
  std::mt19937_64 rng(1);
  EXPECT_EQ(free.Take(rng), 2u);  // the only free task, whatever its class
  EXPECT_TRUE(free.empty());
  free.Add(0);
  free.Add(2);
  EXPECT_EQ(free.Take(rng), 0u);
  free.Add(1);  // beside 2: the larger comes first
  EXPECT_EQ(free.Take(rng), 1u);
  free.Add(0);
  free.Clear();
  EXPECT_TRUE(free.empty());
  EXPECT_EQ(free.size(), 0u);
  free.Add(5);  // beyond the work given: no work
  EXPECT_EQ(free.Take(rng), 5u);
}

TEST(FreeTasksTest, NotLargestFirstThePickIsAmongAll) {
  // One large task beside 15 small ones: taken first by every seed when largest first, by few
  // seeds otherwise; every task comes first for some seed, and draining still gives each once.
  std::vector<uint64_t> work(16, 10);
  work[5] = 100000;
  std::set<uint64_t> firsts;
  int large_first = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    FreeTasks any(work);
    FreeTasks largest(work);
    for (uint64_t t = 0; t < work.size(); ++t) {
      any.Add(t);
      largest.Add(t);
    }
    std::mt19937_64 rng(seed);
    const uint64_t first = any.Take(rng, /*largest_first=*/false);
    firsts.insert(first);
    large_first += first == 5;
    EXPECT_EQ(largest.Take(rng, /*largest_first=*/true), 5u);
    std::set<uint64_t> rest;
    while (!any.empty()) rest.insert(any.Take(rng, /*largest_first=*/false));
    EXPECT_EQ(rest.size(), 15u);
    EXPECT_EQ(rest.count(first), 0u);
  }
  EXPECT_EQ(firsts.size(), 16u);
  EXPECT_LT(large_first, 60);  // 25 expected of 400
}

TEST(TaskWorkTest, CountsCompressedBytesFourTimes) {
  TaskDef plain;
  plain.begin = 100;
  plain.end = 1100;
  EXPECT_EQ(TaskWork(plain), 1000u);
  TaskDef gz;
  gz.end = gz.size = 1000;
  gz.compressed = true;
  EXPECT_EQ(TaskWork(gz), 4000u);
  TaskDef google;  // the objects that follow the range count too
  google.end = 10;
  google.following.push_back(TaskInput{"x", 5, false});
  EXPECT_EQ(TaskWork(google), 15u);
  TaskDef huge;
  huge.end = UINT64_MAX / 2;
  huge.compressed = true;
  EXPECT_EQ(TaskWork(huge), UINT64_MAX);
}

}  // namespace
}  // namespace tokenmill
