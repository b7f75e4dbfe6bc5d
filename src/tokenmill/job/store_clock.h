// The worker's clock against the job store's. A lease carries its holder's wall-clock expiry and
// other workers judge it by their own clocks (docs/protocol.md, "Leases and claims"), so a worker
// whose clock runs ahead would take over leases that are alive, and one whose clock runs behind
// would leave its leases live for that much longer after it stops. Each worker therefore compares
// its clock with the store's at start, from the modification time the store gives its first
// heartbeat record, and refuses to work when they are too far apart; then again every few
// minutes (WorkerOptions::clock_check_ms), stopping when a clock has been stepped since.
#pragma once

#include <cstdint>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

// How far this machine's clock is from the store's, as far as one write tells: the object was
// written between `before_ms` and `after_ms` by this machine's clock, and the store dated it
// `modified_ms`, rounded down by up to `resolution_ms` (object stores give whole seconds).
// Positive: this machine's clock is ahead by at least that much; negative: behind by at least
// minus that; 0: they may agree.
int64_t ClockSkewMs(int64_t before_ms, int64_t after_ms, int64_t modified_ms,
                    int64_t resolution_ms);

// The largest skew a job with leases of `lease_seconds` allows: a quarter of a lease (a holder
// renews every third of one, so a lease then never looks expired to another worker while its
// holder renews it).
int64_t AllowedClockSkewMs(uint32_t lease_seconds);

// Stats `url`, which this process wrote between `before_ms` and `after_ms` (NowMs), and returns
// FailedPrecondition, saying by how much and what to do, when this machine's clock is further
// from the store's than AllowedClockSkewMs. A store that gives no modification time passes; so
// does a failed Stat, with a warning (the check must not stop a worker on a transient error).
Status CheckClockAgainstStore(Storage& store, std::string_view url, int64_t before_ms,
                              int64_t after_ms, uint32_t lease_seconds);

}  // namespace tokenmill
