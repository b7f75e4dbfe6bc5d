// The CPUs this process may run on.
#pragma once

#include <cstdint>

namespace tokenmill {

// The number of CPUs this process may run on (sched_getaffinity: a cgroup's or taskset's
// limit), at least 1.
uint32_t AvailableCpus();

}  // namespace tokenmill
