// The CPUs this process may use: its affinity mask, and the CPU time its cgroups allow.
#pragma once

#include <cstdint>
#include <string>

namespace tokenmill {

// The number of CPUs this process may run on (sched_getaffinity: taskset, cpusets), lowered to
// the CPU time its cgroups allow (a container's CPU limit: cgroup v2 cpu.max, v1 cfs quota),
// rounded up; at least 1. A container limited to 4 CPUs on a 64-core host gets 4, not 64.
uint32_t AvailableCpus();

// The CPUs' worth of time the cgroups of this process allow (quota / period, rounded up, the
// smallest along the cgroup and its ancestors), or 0 when none is set or nothing can be read.
// `root` is prepended to every path read (/proc/self/mountinfo, /proc/self/cgroup and the
// cgroup files): "" for this system, a folder laid out like it in tests.
uint32_t CgroupCpuLimit(const std::string& root = "");

}  // namespace tokenmill
