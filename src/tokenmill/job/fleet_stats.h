// FleetStats: how the workers of a job behaved (docs/report.md, "Fleet statistics"): task run
// times, input MB/s over time per worker, failed attempts, lease takeovers and expiries, storage
// retries. Unlike ContentStats these depend on timing and on who ran what, so they are kept
// apart: in the report's fleet section and `status --json`, never in the manifest.
// Thread-safety: plain values and a function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenmill/job/content_stats.h"
#include "tokenmill/job/protocol.h"

namespace tokenmill {

struct WorkerFleet {
  std::string id;
  std::string host;
  uint64_t tasks = 0;     // done records it wrote
  uint64_t bytes_in = 0;  // input bytes of those tasks
  int64_t busy_ms = 0;    // sum of their run times
  uint64_t storage_retries = 0;
  bool exited = false;
  std::vector<double> mb_per_s;  // one value per time bucket of FleetStats
};

struct FleetStats {
  Histogram task_ms;             // run time of the attempt that completed each done task
  uint64_t retried_tasks = 0;    // done tasks completed by an attempt after the first
  uint64_t failed_attempts = 0;  // error records
  uint64_t takeovers = 0;        // lease keys of attempts after the first
  uint64_t expiries = 0;         // leases that expired and were taken over
  uint64_t storage_retries = 0;  // reported by the workers' heartbeats
  // The time axis of the MB/s series: bucket i covers [start_ms + i * bucket_ms, + bucket_ms).
  int64_t start_ms = 0;
  int64_t bucket_ms = 0;
  size_t buckets = 0;
  std::vector<WorkerFleet> workers;  // sorted by id
};

struct FleetInputs {
  std::vector<const DoneRecord*> done;
  std::vector<WorkerHeartbeat> heartbeats;
  uint64_t error_records = 0;
  uint64_t takeovers = 0;
  uint64_t other_expiries = 0;  // of tasks not done (from their leases or failed records)
  size_t max_buckets = 60;      // Default: 60 points per series
};

FleetStats ComputeFleet(const FleetInputs& in);

}  // namespace tokenmill
