// Launchers: starting N copies of `tokenmill work STORE` somewhere, and the launch records.
//
// Workers coordinate only through the job store, so a launcher has one job: start the workers
// (local processes, a Slurm job array, a Kubernetes Indexed Job, a group of GCE VMs) and let
// them end. Each launch is recorded in the store as <STORE>/launches/<launcher>-<n>.json, so that
// `tokenmill status` can say what was started where (ListLaunchRecords, FormatLaunchRecords).
// The launchers themselves live in local_pool.h, slurm.h, k8s.h and gce.h.
// Thread-safety: the free functions are thread-safe; LaunchRecord is a value.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill::launch {

// Upper bound on --workers for every launcher (a Slurm array, an Indexed Job or a VM group of
// this size is already far beyond what a job store needs).
inline constexpr int kMaxWorkers = 10000;

// What every launcher needs.
struct LaunchOptions {
  std::string store;     // the job store written by `tokenmill plan` (local path, s3:// or gs://)
  int workers = 1;       // how many workers to start. Default: 1
  bool dry_run = false;  // print what would be done, start nothing. Default: false
};

// One launch, as stored in <STORE>/launches/<launcher>-<number>.json.
struct LaunchRecord {
  std::string launcher;   // "local", "slurm", "k8s" or "gce"
  int number = 0;         // n in <launcher>-<n>.json, assigned by RecordLaunch
  int workers = 0;        // how many workers were started
  std::string time;       // UTC, RFC 3339 ("2026-11-30T06:00:00Z"), set by RecordLaunch
  int64_t unix_time = 0;  // the same instant in seconds, set by RecordLaunch
  std::string host;       // the machine that launched, set by RecordLaunch
  // Launcher-specific identifiers: {"slurm_job_id": "123"}, {"job_name": ...,
  // "namespace": ...}, {"group": ..., "template": ..., "zone": ..., "project": ...},
  // {"pids": [...]}; also "log_dir" where the workers' logs are.
  nlohmann::json details = nlohmann::json::object();
  std::string url;  // where the record is stored (set when written or listed)

  nlohmann::json ToJson() const;
  static StatusOr<LaunchRecord> FromJson(const nlohmann::json& json, std::string_view url);
};

// Validates the common options: a store is given, 1 <= workers <= kMaxWorkers.
Status ValidateLaunchOptions(const LaunchOptions& options);

// The store location in the form workers elsewhere can use: URLs unchanged, a local path made
// absolute and normalised ("file://" removed). InvalidArgument for an empty store.
StatusOr<std::string> CanonicalStore(std::string_view store);

// True for s3:// and gs:// stores (the only kind machines without a shared disk can reach).
bool IsRemoteStore(std::string_view store);

// Eight hex digits identifying a store, for default job and group names.
std::string StoreTag(std::string_view store);

// Writes `record` as <store>/launches/<launcher>-<n>.json with the next free n (created only if
// absent, so concurrent launches never overwrite each other), filling in number, time, unix_time,
// host and url. Returns the record as written.
StatusOr<LaunchRecord> RecordLaunch(std::string_view store, LaunchRecord record);

// Rewrites an existing record (e.g. to mark a GCE group torn down). REQUIRES: record.url is set.
Status UpdateLaunchRecord(const LaunchRecord& record);

// Every launch record of the store, oldest first (by time, then launcher and number). An empty
// list if nothing was launched. Records that cannot be parsed are skipped with a warning.
StatusOr<std::vector<LaunchRecord>> ListLaunchRecords(std::string_view store);

// Text for `tokenmill status`, one line per launch:
//   "launches:\n  slurm-1  2026-11-30T06:00:00Z  8 workers  slurm job 1234  logs: /x/logs\n"
// Empty if there are no records.
std::string FormatLaunchRecords(const std::vector<LaunchRecord>& records);

// The records as a JSON array (for `tokenmill status --json`, key "launches").
nlohmann::json LaunchRecordsToJson(const std::vector<LaunchRecord>& records);

// A default name for a launch's job or group: tokenmill-<StoreTag>-<yymmddhhmm> (UTC), 29
// characters, valid as a Kubernetes Job name and a GCE resource name. Reads nothing.
std::string DefaultLaunchName(std::string_view store);

// The current time as RFC 3339 UTC.
std::string NowRfc3339();

}  // namespace tokenmill::launch
