#include "tokenmill/base/cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

// A folder laid out like / for CgroupCpuLimit: /proc/self/{mountinfo,cgroup} and cgroup files.
class FakeRoot {
 public:
  // `rel` starts with '/', as the path it stands for.
  void Write(std::string_view rel, std::string_view text) const { dir_.Write(rel.substr(1), text); }
  // A cgroup v1 folder's CFS quota and period.
  void WriteV1Quota(const std::string& dir, std::string_view quota,
                    std::string_view period = "100000\n") const {
    Write(dir + "/cpu.cfs_quota_us", quota);
    Write(dir + "/cpu.cfs_period_us", period);
  }
  const std::string& path() const { return dir_.path(); }

 private:
  testing::TempDir dir_{"tokenmill-cpus"};
};

constexpr const char* kV2Mount =
    "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
    "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate\n";

TEST(CgroupCpuLimit, V2TakesTheSmallestQuotaUpTheTree) {
  FakeRoot root;
  root.Write("/proc/self/mountinfo", kV2Mount);
  root.Write("/proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  root.Write("/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "150000 100000\n");  // 1.5: 2
  root.Write("/sys/fs/cgroup/kubepods/pod1/cpu.max", "max 100000\n");
  root.Write("/sys/fs/cgroup/kubepods/cpu.max", "400000 100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 2u);
  root.Write("/sys/fs/cgroup/kubepods/cpu.max", "50000 100000\n");  // half a CPU: 1
  EXPECT_EQ(CgroupCpuLimit(root.path()), 1u);
}

TEST(CgroupCpuLimit, NoLimitOrNothingReadableIsZero) {
  FakeRoot root;
  EXPECT_EQ(CgroupCpuLimit(root.path()), 0u);  // no /proc files at all
  root.Write("/proc/self/mountinfo", kV2Mount);
  root.Write("/proc/self/cgroup", "0::/user.slice\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 0u);  // no cpu.max
  root.Write("/sys/fs/cgroup/user.slice/cpu.max", "max 100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 0u);
  for (const char* bad : {"", "abc 100000", "100000", "100000 0", "-5 100000", "1 2 3"}) {
    root.Write("/sys/fs/cgroup/user.slice/cpu.max", bad);
    EXPECT_EQ(CgroupCpuLimit(root.path()), 0u) << bad;
  }
}

TEST(CgroupCpuLimit, V1CfsQuotaOnTheCpuHierarchy) {
  FakeRoot root;
  root.Write("/proc/self/mountinfo",
             "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
             "35 24 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
             "36 24 0:31 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n");
  root.Write("/proc/self/cgroup", "4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n0::/\n");
  root.WriteV1Quota("/sys/fs/cgroup/cpu,cpuacct/docker/abc", "-1\n");
  root.WriteV1Quota("/sys/fs/cgroup/cpu,cpuacct/docker", "250000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 3u);
}

TEST(CgroupCpuLimit, AContainersOwnCgroupMountedAsTheRoot) {
  // Inside a container without a cgroup namespace, the mount's root is the container's cgroup,
  // and /proc/self/cgroup names the same folder: the limit is read at the mount point.
  FakeRoot root;
  root.Write("/proc/self/mountinfo",
             "40 30 0:30 /docker/abc /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpu\n");
  root.Write("/proc/self/cgroup", "3:cpu:/docker/abc\n");
  root.WriteV1Quota("/sys/fs/cgroup/cpu", "400000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 4u);
  // A path outside the mounted folder (another namespace): the mount's own limit still holds.
  root.Write("/proc/self/cgroup", "3:cpu:/../other\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 4u);
}

TEST(CgroupCpuLimit, MountPointsWithEscapedCharacters) {
  FakeRoot root;
  root.Write("/proc/self/mountinfo",
             "30 22 0:26 / /sys/fs/cgroup\\040v2 rw - cgroup2 cgroup2 rw\n");
  root.Write("/proc/self/cgroup", "0::/job\n");
  root.Write("/sys/fs/cgroup v2/job/cpu.max", "800000 100000\n");
  EXPECT_EQ(CgroupCpuLimit(root.path()), 8u);
}

TEST(AvailableCpus, FollowsTheAffinityMaskAndTheCgroupLimit) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  const uint32_t limit = CgroupCpuLimit();
  auto expected = [&](uint32_t affinity) {
    return limit > 0 ? std::min(affinity, limit) : affinity;
  };
  const uint32_t n = AvailableCpus();
  EXPECT_EQ(n, expected(static_cast<uint32_t>(CPU_COUNT(&all))));
  // Restricted to one CPU (as `taskset -c` or a cpuset would), the count follows.
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
