#include "tokenmill/job/protocol.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace tokenmill {

NLOHMANN_JSON_SERIALIZE_ENUM(LeaseState, {{LeaseState::kLeased, "leased"},
                                          {LeaseState::kReleased, "released"},
                                          {LeaseState::kFailed, "failed"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TaskInput, url, size, compressed)

// By hand, so that "following" appears only when a task has such inputs (the records of every
// other job keep their bytes).
void to_json(nlohmann::json& j, const TaskDef& v) {
  j = nlohmann::json{{"id", v.id},   {"url", v.url},   {"begin", v.begin},
                     {"end", v.end}, {"size", v.size}, {"compressed", v.compressed}};
  if (!v.following.empty()) j["following"] = v.following;
}

void from_json(const nlohmann::json& j, TaskDef& v) {
  const TaskDef d;
  v.id = j.value("id", d.id);
  v.url = j.value("url", d.url);
  v.begin = j.value("begin", d.begin);
  v.end = j.value("end", d.end);
  v.size = j.value("size", d.size);
  v.compressed = j.value("compressed", d.compressed);
  v.following = j.value("following", d.following);
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TokenizerFileRecord, role, name, bytes, sha256)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(JobRecord, format_version, tokenmill_version,
                                                spec_json, spec_digest, tokenizer_files,
                                                tokenizer_digest, task_count, tasks_sha256,
                                                input_bytes, created_at_ms, special_ids_known,
                                                bos_id, eod_id)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LeaseRecord, task, holder, attempt, expires_at_ms,
                                                state, failures, expiries, seq)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TaskStats, documents, lines, tokens, unk_tokens,
                                                examples, truncated_tokens, dropped_bytes,
                                                skipped_records, empty_documents, bytes_in,
                                                masked_tokens, masked_as_mask, masked_as_original,
                                                masked_as_random, masked_words, random_next)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ShardEntry, name, bytes, sha256, examples, tokens)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DoneRecord, task, holder, attempt, shards, stats,
                                                content, elapsed_ms, finished_at_ms, failures,
                                                expiries, token_labels)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ErrorRecord, task, attempt, holder, message, file,
                                                offset, at_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkerHeartbeat, id, host, pid, threads,
                                                write_behind, started_at_ms, last_seen_ms, exited,
                                                error, tasks_done, tasks_failed, stats, claims,
                                                claim_conflicts, renewals, records, listings,
                                                lease_reads, retries, heartbeats)

namespace {

std::string Num(uint64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*llu", width, static_cast<unsigned long long>(v));
  return buf;
}

// True if `j` holds a number that is not an integer anywhere. Every number of a record is an
// integer, and converting a float out of an integer's range is undefined behaviour.
bool HasFloat(const nlohmann::json& j) {
  if (j.is_number_float()) return true;
  if (j.is_structured()) {
    for (const auto& v : j) {
      if (HasFloat(v)) return true;
    }
  }
  return false;
}

template <typename T>
StatusOr<T> Parse(std::string_view json, const char* what) {
  try {
    nlohmann::json j = nlohmann::json::parse(json);
    if (HasFloat(j)) {
      return Status::DataLoss(std::string("malformed ") + what +
                              " record: a number is not an integer (or is too large)");
    }
    return j.get<T>();
  } catch (const std::exception& e) {
    return Status::DataLoss(std::string("malformed ") + what + " record: " + e.what());
  }
}

template <typename T>
std::string Dump(const T& v) {
  return nlohmann::json(v).dump();
}

}  // namespace

std::string StorePaths::Job() const { return root_ + "/job.json"; }
std::string StorePaths::Tasks() const { return root_ + "/tasks.jsonl"; }
std::string StorePaths::TokenizerFile(std::string_view role, std::string_view name) const {
  return root_ + "/tokenizer/" + std::string(role) + "-" + std::string(name);
}
std::string StorePaths::LeasesPrefix() const { return root_ + "/leases/"; }
std::string StorePaths::Lease(uint64_t t, uint32_t a) const {
  return LeasesPrefix() + Num(t, 6) + "-" + Num(a, 4);
}
std::string StorePaths::DonePrefix() const { return root_ + "/done/"; }
std::string StorePaths::Done(uint64_t t) const { return DonePrefix() + Num(t, 6) + ".json"; }
std::string StorePaths::ErrorsPrefix() const { return root_ + "/errors/"; }
std::string StorePaths::Error(uint64_t t, uint32_t a) const {
  return ErrorsPrefix() + Num(t, 6) + "-" + Num(a, 3) + ".json";
}
std::string StorePaths::FailedPrefix() const { return root_ + "/failed/"; }
std::string StorePaths::Failed(uint64_t t) const { return FailedPrefix() + Num(t, 6) + ".json"; }
std::string StorePaths::WorkersPrefix() const { return root_ + "/workers/"; }
std::string StorePaths::Worker(std::string_view id) const {
  return WorkersPrefix() + std::string(id) + ".json";
}
std::string StorePaths::LaunchesPrefix() const { return root_ + "/launches/"; }

int64_t StorePaths::TaskFromLocation(std::string_view location) {
  const size_t slash = location.rfind('/');
  std::string_view name = slash == std::string_view::npos ? location : location.substr(slash + 1);
  size_t i = 0;
  int64_t v = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') {
    v = v * 10 + (name[i] - '0');
    ++i;
  }
  if (i == 0) return -1;
  return v;
}

int64_t StorePaths::AttemptFromLocation(std::string_view location) {
  const size_t slash = location.rfind('/');
  std::string_view name = slash == std::string_view::npos ? location : location.substr(slash + 1);
  const size_t dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0) return -1;
  size_t i = dash + 1;
  int64_t v = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && v < (int64_t{1} << 40)) {
    v = v * 10 + (name[i] - '0');
    ++i;
  }
  if (i == dash + 1) return -1;
  return v;
}

TaskStats& TaskStats::operator+=(const TaskStats& o) {
  documents += o.documents;
  lines += o.lines;
  tokens += o.tokens;
  unk_tokens += o.unk_tokens;
  examples += o.examples;
  truncated_tokens += o.truncated_tokens;
  dropped_bytes += o.dropped_bytes;
  skipped_records += o.skipped_records;
  empty_documents += o.empty_documents;
  bytes_in += o.bytes_in;
  masked_tokens += o.masked_tokens;
  masked_as_mask += o.masked_as_mask;
  masked_as_original += o.masked_as_original;
  masked_as_random += o.masked_as_random;
  masked_words += o.masked_words;
  random_next += o.random_next;
  return *this;
}

uint64_t TaskDef::InputBytes() const {
  uint64_t bytes = end - begin;
  for (const TaskInput& in : following) bytes += in.size;
  return bytes;
}

std::string ToJson(const TaskDef& v) { return Dump(v); }
std::string ToJson(const JobRecord& v) { return nlohmann::json(v).dump(2) + "\n"; }
std::string ToJson(const LeaseRecord& v) { return Dump(v); }
std::string ToJson(const DoneRecord& v) { return Dump(v); }
std::string ToJson(const ErrorRecord& v) { return Dump(v); }
std::string ToJson(const WorkerHeartbeat& v) { return Dump(v); }
std::string ToJson(const TaskStats& v) { return Dump(v); }

StatusOr<TaskDef> TaskDefFromJson(std::string_view j) { return Parse<TaskDef>(j, "task"); }
StatusOr<JobRecord> JobRecordFromJson(std::string_view j) { return Parse<JobRecord>(j, "job"); }
StatusOr<LeaseRecord> LeaseRecordFromJson(std::string_view j) {
  return Parse<LeaseRecord>(j, "lease");
}
StatusOr<DoneRecord> DoneRecordFromJson(std::string_view j) { return Parse<DoneRecord>(j, "done"); }
StatusOr<ErrorRecord> ErrorRecordFromJson(std::string_view j) {
  return Parse<ErrorRecord>(j, "error");
}
StatusOr<WorkerHeartbeat> WorkerHeartbeatFromJson(std::string_view j) {
  return Parse<WorkerHeartbeat>(j, "worker");
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tokenmill
