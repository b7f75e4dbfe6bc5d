#include "tokenmill/job/store_clock.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include "tokenmill/base/log.h"

namespace tokenmill {
namespace {

// "15 s", "0.75 s", "599.001 s".
std::string Seconds(int64_t ms) {
  std::string s = std::to_string(ms / 1000);
  if (int64_t frac = ms % 1000; frac != 0) {
    char digits[8];
    std::snprintf(digits, sizeof digits, ".%03d", static_cast<int>(frac));
    std::string tail = digits;
    while (tail.back() == '0') tail.pop_back();
    s += tail;
  }
  return s + " s";
}

}  // namespace

int64_t ClockSkewMs(int64_t before_ms, int64_t after_ms, int64_t modified_ms,
                    int64_t resolution_ms) {
  // The write happened at a store time in [modified_ms, modified_ms + resolution_ms) and at a
  // local time in [before_ms, after_ms].
  if (before_ms > modified_ms + resolution_ms) return before_ms - (modified_ms + resolution_ms);
  if (after_ms < modified_ms) return after_ms - modified_ms;
  return 0;
}

int64_t AllowedClockSkewMs(uint32_t lease_seconds) { return int64_t{lease_seconds} * 1000 / 4; }

Status CheckClockAgainstStore(Storage& store, std::string_view url, int64_t before_ms,
                              int64_t after_ms, uint32_t lease_seconds) {
  StatusOr<ObjectInfo> info = store.Stat(url);
  if (!info.ok()) {
    LogWarning("cannot compare this machine's clock with the job store's: " +
               info.status().ToString());
    return Status::Ok();
  }
  if (info->modified_ms == 0) return Status::Ok();
  const int64_t skew = ClockSkewMs(before_ms, after_ms, info->modified_ms, 1000);
  const int64_t allowed = AllowedClockSkewMs(lease_seconds);
  if (skew >= -allowed && skew <= allowed) return Status::Ok();
  const std::string fix =
      " Synchronise this machine's clock (chrony, systemd-timesyncd or ntpd) and start the worker "
      "again; with lease_seconds = " +
      std::to_string(lease_seconds) + " the clocks may differ by " + Seconds(allowed) + " at most.";
  if (skew > 0) {
    return Status::FailedPrecondition(
        "this machine's clock is at least " + Seconds(skew) + " ahead of the job store's (" +
        std::string(url) + " was dated by the store " + Seconds(skew) +
        " before this machine wrote it): the leases of running workers would look expired to "
        "this worker, which would take their tasks over." +
        fix);
  }
  return Status::FailedPrecondition(
      "this machine's clock is at least " + Seconds(-skew) + " behind the job store's (" +
      std::string(url) + " was dated by the store " + Seconds(-skew) +
      " after this machine wrote it): if this worker stopped, its leases would hold its tasks " +
      Seconds(-skew) + " longer than they should, and it would see expired leases as live." + fix);
}

}  // namespace tokenmill
