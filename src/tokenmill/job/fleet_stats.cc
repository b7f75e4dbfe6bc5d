#include "tokenmill/job/fleet_stats.h"

#include <algorithm>
#include <map>

namespace tokenmill {
namespace {

// The smallest "round" bucket width that fits `span_ms` into `max_buckets` buckets.
int64_t BucketWidth(int64_t span_ms, size_t max_buckets) {
  static constexpr int64_t kSteps[] = {100,      200,      500,     1000,    2000,    5000,
                                       10000,    15000,    30000,   60000,   120000,  300000,
                                       600000,   900000,   1800000, 3600000, 7200000, 10800000,
                                       21600000, 43200000, 86400000};
  const int64_t want = (span_ms + static_cast<int64_t>(max_buckets) - 1) /
                       static_cast<int64_t>(std::max<size_t>(max_buckets, 1));
  for (int64_t s : kSteps) {
    if (s >= want) return s;
  }
  return (want + 86400000 - 1) / 86400000 * 86400000;
}

}  // namespace

FleetStats ComputeFleet(const FleetInputs& in) {
  FleetStats f;
  f.failed_attempts = in.error_records;
  f.takeovers = in.takeovers;
  f.expiries = in.other_expiries;
  std::map<std::string, WorkerFleet> workers;
  int64_t start = INT64_MAX, end = INT64_MIN;
  for (const DoneRecord* d : in.done) {
    f.task_ms.Add(static_cast<uint64_t>(std::max<int64_t>(0, d->elapsed_ms)));
    if (d->attempt > 1) ++f.retried_tasks;
    f.expiries += d->expiries;
    WorkerFleet& w = workers[d->holder];
    w.id = d->holder;
    ++w.tasks;
    w.bytes_in += d->stats.bytes_in;
    w.busy_ms += std::max<int64_t>(0, d->elapsed_ms);
    start = std::min(start, d->finished_at_ms - std::max<int64_t>(0, d->elapsed_ms));
    end = std::max(end, d->finished_at_ms);
  }
  for (const auto& hb : in.heartbeats) {
    WorkerFleet& w = workers[hb.id];
    w.id = hb.id;
    w.host = hb.host;
    w.storage_retries = hb.retries;
    w.exited = hb.exited;
    f.storage_retries += hb.retries;
  }
  if (!in.done.empty()) {
    f.start_ms = start;
    f.bucket_ms = BucketWidth(std::max<int64_t>(1, end - start), in.max_buckets);
    f.buckets = static_cast<size_t>((end - start) / f.bucket_ms + 1);
    for (auto& [id, w] : workers) w.mb_per_s.assign(f.buckets, 0.0);
    // Each task's input bytes are spread evenly over its run time.
    for (const DoneRecord* d : in.done) {
      const int64_t run = std::max<int64_t>(1, d->elapsed_ms);
      const int64_t t0 = d->finished_at_ms - run, t1 = d->finished_at_ms;
      const double rate = static_cast<double>(d->stats.bytes_in) / static_cast<double>(run);
      std::vector<double>& series = workers[d->holder].mb_per_s;
      for (int64_t b = (std::max(t0, start) - start) / f.bucket_ms;
           b < static_cast<int64_t>(f.buckets); ++b) {
        const int64_t lo = start + b * f.bucket_ms, hi = lo + f.bucket_ms;
        const int64_t overlap = std::min(hi, t1) - std::max(lo, t0);
        if (overlap <= 0) {
          if (lo >= t1) break;
          continue;
        }
        series[static_cast<size_t>(b)] += rate * static_cast<double>(overlap);
      }
    }
    const double seconds = static_cast<double>(f.bucket_ms) / 1000.0;
    for (auto& [id, w] : workers) {
      for (double& v : w.mb_per_s) v = v / 1e6 / seconds;
    }
  }
  for (auto& [id, w] : workers) f.workers.push_back(std::move(w));
  return f;
}

}  // namespace tokenmill
