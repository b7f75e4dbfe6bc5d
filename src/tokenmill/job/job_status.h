// JobStatus: what `tokenmill status` and `run`'s progress bar show, read from a job store.
// Thread-safety: StatusReader is used by one thread; it caches done records between calls so
// that `status --watch` and the progress bar read each done record once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/job/content_stats.h"
#include "tokenmill/job/fleet_stats.h"
#include "tokenmill/job/protocol.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

struct FailedTask {
  uint64_t task = 0;
  std::string reason;
  std::string last_error;  // message of the last error record, naming file and offset
  std::string file;        // the task's input and where the task begins in it
  uint64_t offset = 0;
  uint64_t attempts = 0;  // error records of the task
};

// The done tasks of one input file (a file is cut into one or more tasks).
struct FileStats {
  std::string url;
  uint64_t tasks = 0, tasks_done = 0;
  TaskStats stats;  // sum over its done tasks
};

// A shard listed by a done record, with the task that wrote it.
struct ShardStats {
  uint64_t task = 0;
  ShardEntry shard;
};

struct JobStatus {
  std::string store;
  uint64_t total = 0, pending = 0, leased = 0, done = 0, failed = 0;
  TaskStats stats;            // sum over done tasks
  uint64_t input_bytes = 0;   // all tasks
  double throughput_bps = 0;  // input bytes per second since the job was planned
  double eta_seconds = -1;    // -1: unknown
  uint32_t live_workers = 0;
  std::vector<WorkerHeartbeat> workers;
  uint64_t retries = 0;  // storage retries reported by workers
  std::vector<FailedTask> failures;
  bool complete = false;  // every task done
  bool finished = false;  // every task done or failed
  // What the report shows (docs/report.md). Content: determined by the done tasks' input.
  ContentStats content;            // merged over done tasks, top tokens trimmed to kTopTokens
  std::vector<FileStats> files;    // in input order
  std::vector<ShardStats> shards;  // by task, then in the order the task wrote them
  uint64_t bytes_out = 0;          // of those shards
  // The text of content.top_tokens as reports show it (VisibleToken), from the done records;
  // ids whose records carry none (written by older workers) are missing.
  std::map<uint32_t, std::string> token_labels;
  // Timing-dependent.
  FleetStats fleet;
  int64_t created_at_ms = 0;  // when the job was planned
  JobRecord job;
};

// Reads and parses the done records at `urls`, `parallelism` reads at a time (an object store
// answers each in tens of milliseconds: one at a time, 10,000 tasks would take minutes), and calls
// fn(i, record) for urls[i], in the order of `urls`. At most 1,024 records are held at once (each
// carries its task's content statistics, about 13 KB): fn may move from its record. Stops at the
// first error, of a read (naming its url) or of fn, in that order.
Status ForEachDoneRecord(Storage& store, const std::vector<std::string>& urls, int parallelism,
                         const std::function<Status(size_t, DoneRecord&)>& fn);
// How many independent requests (reads of records, deletes) to make at a time on a store at
// `location`: 32 for a bucket, 4 for a folder.
int StoreRequestParallelism(std::string_view location);

class StatusReader {
 public:
  StatusReader(Storage* store, std::string store_location);
  StatusOr<JobStatus> Read();

 private:
  Storage* store_;
  StorePaths paths_;
  bool have_job_ = false;
  JobRecord job_;
  std::vector<TaskDef> tasks_;
  std::map<uint64_t, DoneRecord> done_;
  ContentStatsSum content_;                                 // of every record in done_
  std::unordered_map<uint32_t, std::string> token_labels_;  // of every record in done_
};

// Human-readable report (several lines).
std::string FormatStatusText(const JobStatus& status);
// One JSON object: {"tasks": {"total","pending","leased","done","failed"}, "documents",
// "tokens", "examples", "bytes_in", "complete", ..., "totals" (as the manifest's), "content",
// "files", "shards", "fleet"}: every figure the report shows (docs/report.md).
std::string FormatStatusJson(const JobStatus& status);
// One line for progress displays: "tasks 12/40 | 35.2 MB | 1.2 M tok/s | ETA 0:42".
std::string FormatProgressLine(const JobStatus& status, double tokens_per_second);

}  // namespace tokenmill
