// The job-store protocol's records and layout (docs/protocol.md is the specification).
//
// Every record is JSON. Parsing errors name the object. Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/job/content_stats.h"

namespace tokenmill {

// Changes whenever the bytes of any output could change for the same job (tokenizer rules,
// builders, writers, the PRNG) or the job-store layout changes (2: one lease key per attempt).
// Workers refuse jobs planned with another value.
inline constexpr int kDataFormatVersion = 2;

// Where each record lives under the store root.
class StorePaths {
 public:
  explicit StorePaths(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }
  std::string Job() const;
  std::string Tasks() const;
  std::string TokenizerFile(std::string_view role, std::string_view name) const;
  std::string LeasesPrefix() const;
  // The lease of one attempt at a task; attempt 1 is the first claim, each takeover creates the
  // next one.
  std::string Lease(uint64_t task, uint32_t attempt) const;
  std::string DonePrefix() const;
  std::string Done(uint64_t task) const;
  std::string ErrorsPrefix() const;
  std::string Error(uint64_t task, uint32_t attempt) const;
  std::string FailedPrefix() const;
  std::string Failed(uint64_t task) const;
  std::string WorkersPrefix() const;
  std::string Worker(std::string_view worker_id) const;
  std::string LaunchesPrefix() const;

  // The task number at the end of a lease / done / failed / error location, or -1.
  static int64_t TaskFromLocation(std::string_view location);
  // The attempt number of a lease or error location ("<task>-<attempt>"), or -1.
  static int64_t AttemptFromLocation(std::string_view location);

 private:
  std::string root_;
};

// A whole input object that a task reads after its first one.
struct TaskInput {
  std::string url;
  uint64_t size = 0;  // the object's size
  bool compressed = false;
};

struct TaskDef {
  uint64_t id = 0;
  std::string url;
  uint64_t begin = 0;
  uint64_t end = 0;   // exclusive; for compressed inputs: the object's size
  uint64_t size = 0;  // the object's size
  bool compressed = false;
  // Whole objects read after [begin, end) of url, in this order, as one stream of documents.
  // Only the single task of an `[examples] compat = "google"` job has any (the script reads all
  // its input files into one list of documents); absent from the JSON record when empty.
  std::vector<TaskInput> following;

  // The raw bytes the task reads: its range plus the following objects.
  uint64_t InputBytes() const;
};

struct TokenizerFileRecord {
  std::string role;
  std::string name;
  uint64_t bytes = 0;
  std::string sha256;
};

struct JobRecord {
  int format_version = kDataFormatVersion;
  std::string tokenmill_version;
  std::string spec_json;  // canonical JobSpec::ToJson()
  std::string spec_digest;
  std::vector<TokenizerFileRecord> tokenizer_files;
  std::string tokenizer_digest;
  uint64_t task_count = 0;
  std::string tasks_sha256;
  uint64_t input_bytes = 0;
  int64_t created_at_ms = 0;
  // GPT jobs: the BOS and end-of-document ids the examples carry (-1: none), found when the job
  // was planned, so that finalize writes them to the manifest without loading the tokenizer.
  // False in the records of jobs planned before tokenmill kept them (finalize then loads it).
  bool special_ids_known = false;
  int64_t bos_id = -1;
  int64_t eod_id = -1;
};

enum class LeaseState { kLeased, kReleased, kFailed };

struct LeaseRecord {
  uint64_t task = 0;
  std::string holder;
  uint32_t attempt = 0;
  int64_t expires_at_ms = 0;
  LeaseState state = LeaseState::kLeased;
  uint32_t failures = 0;
  uint32_t expiries = 0;
  uint64_t seq = 0;  // bumped on every write so that no two bodies are equal
};

// Counts of one task (or a sum of tasks). Only content-determined figures.
struct TaskStats {
  uint64_t documents = 0;
  uint64_t lines = 0;
  uint64_t tokens = 0;
  uint64_t unk_tokens = 0;
  uint64_t examples = 0;
  uint64_t truncated_tokens = 0;
  uint64_t dropped_bytes = 0;  // invalid UTF-8 bytes dropped or replaced
  uint64_t skipped_records = 0;
  uint64_t empty_documents = 0;
  uint64_t bytes_in = 0;
  // BERT (0 for other kinds): masked LM predictions, how their inputs were replaced ([MASK], the
  // original token, a random word), the whole words they cover, random next sentences.
  uint64_t masked_tokens = 0;
  uint64_t masked_as_mask = 0;
  uint64_t masked_as_original = 0;
  uint64_t masked_as_random = 0;
  uint64_t masked_words = 0;
  uint64_t random_next = 0;
  TaskStats& operator+=(const TaskStats& o);
};

struct ShardEntry {
  std::string name;  // relative to the output folder
  uint64_t bytes = 0;
  std::string sha256;
  uint64_t examples = 0;
  uint64_t tokens = 0;
};

struct DoneRecord {
  uint64_t task = 0;
  std::string holder;
  uint32_t attempt = 0;
  std::vector<ShardEntry> shards;
  TaskStats stats;
  ContentStats content;  // determined by the task's input (docs/report.md)
  // Fleet figures (timing-dependent): run time of this attempt, when it ended, and the failed
  // attempts and lease expiries the task had before it (from its lease).
  int64_t elapsed_ms = 0;
  int64_t finished_at_ms = 0;
  uint32_t failures = 0;
  uint32_t expiries = 0;
  // The text of each of content.top_tokens, as the report shows it (VisibleToken: valid UTF-8),
  // by id: the report labels the job's top tokens from these without loading the tokenizer.
  // Empty in the records of workers that did not write them.
  std::map<uint32_t, std::string> token_labels;
};

struct ErrorRecord {
  uint64_t task = 0;
  uint32_t attempt = 0;
  std::string holder;
  std::string message;
  std::string file;
  uint64_t offset = 0;
  int64_t at_ms = 0;
};

struct WorkerHeartbeat {
  std::string id;
  std::string host;
  int64_t pid = 0;
  uint32_t threads = 0;
  bool write_behind = false;  // WorkerOptions::write_behind as decided
  int64_t started_at_ms = 0;
  int64_t last_seen_ms = 0;
  bool exited = false;
  // Why the worker stopped, when an error stopped it (its clock off, the store unreachable for
  // good...); "" otherwise. `status` shows it, so that the reason is in the store, not only in a
  // machine's log.
  std::string error;
  uint64_t tasks_done = 0;
  uint64_t tasks_failed = 0;
  TaskStats stats;
  // Coordination requests made by this worker.
  uint64_t claims = 0, claim_conflicts = 0, renewals = 0, records = 0, listings = 0,
           lease_reads = 0, retries = 0, heartbeats = 0;
};

std::string ToJson(const TaskDef& v);
std::string ToJson(const JobRecord& v);
std::string ToJson(const LeaseRecord& v);
std::string ToJson(const DoneRecord& v);
std::string ToJson(const ErrorRecord& v);
std::string ToJson(const WorkerHeartbeat& v);
std::string ToJson(const TaskStats& v);

StatusOr<TaskDef> TaskDefFromJson(std::string_view json);
StatusOr<JobRecord> JobRecordFromJson(std::string_view json);
StatusOr<LeaseRecord> LeaseRecordFromJson(std::string_view json);
StatusOr<DoneRecord> DoneRecordFromJson(std::string_view json);
StatusOr<ErrorRecord> ErrorRecordFromJson(std::string_view json);
StatusOr<WorkerHeartbeat> WorkerHeartbeatFromJson(std::string_view json);

// Milliseconds since the Unix epoch (wall clock; leases assume roughly synchronised clocks).
int64_t NowMs();

}  // namespace tokenmill
