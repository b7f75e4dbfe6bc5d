#include "tokenmill/base/cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

namespace tokenmill {
namespace {

TEST(AvailableCpus, FollowsTheAffinityMask) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  const uint32_t n = AvailableCpus();
  EXPECT_EQ(n, static_cast<uint32_t>(CPU_COUNT(&all)));
  // Restricted to one CPU (as `taskset -c` or a cgroup would), the count follows.
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  EXPECT_EQ(AvailableCpus(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
  EXPECT_EQ(AvailableCpus(), n);
}

}  // namespace
}  // namespace tokenmill
