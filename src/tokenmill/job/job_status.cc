#include "tokenmill/job/job_status.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tokenmill/base/parallel_for.h"
#include "tokenmill/base/units.h"
#include "tokenmill/job/finalize.h"
#include "tokenmill/job/planner.h"

namespace tokenmill {
namespace {

std::string FormatDuration(double seconds) {
  if (seconds < 0) return "?";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

std::string FormatCount(double v) {
  char buf[32];
  if (v >= 1e9)
    std::snprintf(buf, sizeof(buf), "%.2f G", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof(buf), "%.2f M", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof(buf), "%.1f k", v / 1e3);
  else
    std::snprintf(buf, sizeof(buf), "%.0f ", v);
  return buf;
}

}  // namespace

Status ForEachDoneRecord(Storage& store, const std::vector<std::string>& urls, int parallelism,
                         const std::function<Status(size_t, DoneRecord&)>& fn) {
  constexpr size_t kAtOnce = 1024;
  std::vector<StatusOr<DoneRecord>> read;
  for (size_t first = 0; first < urls.size(); first += kAtOnce) {
    const size_t count = std::min(kAtOnce, urls.size() - first);
    read.assign(count, Status::Internal("not read"));
    ParallelFor(count, parallelism, [&](size_t k) {
      const std::string& url = urls[first + k];
      StatusOr<std::string> data = store.Read(url);
      if (!data.ok()) {
        read[k] = data.status();
        return;
      }
      read[k] = DoneRecordFromJson(*data);
      if (!read[k].ok()) read[k] = read[k].status().WithContext(url);
    });
    for (size_t k = 0; k < count; ++k) {
      if (!read[k].ok()) return read[k].status();
      TM_RETURN_IF_ERROR(fn(first + k, *read[k]));
    }
  }
  return Status::Ok();
}

int StoreRequestParallelism(std::string_view location) { return IsUrl(location) ? 32 : 4; }

StatusReader::StatusReader(Storage* store, std::string store_location)
    : store_(store), paths_(std::move(store_location)) {}

StatusOr<JobStatus> StatusReader::Read() {
  if (!have_job_) {
    TM_ASSIGN_OR_RETURN(job_, ReadJobRecord(*store_, paths_));
    TM_ASSIGN_OR_RETURN(tasks_, ReadTasks(*store_, paths_, job_));
    have_job_ = true;
  }
  JobStatus st;
  st.store = paths_.root();
  st.total = job_.task_count;
  st.input_bytes = job_.input_bytes;
  st.created_at_ms = job_.created_at_ms;
  st.job = job_;

  // Leases first: a task that finishes while we read is then seen as done, not as leased.
  TM_ASSIGN_OR_RETURN(auto lease_list, store_->List(paths_.LeasesPrefix()));
  TM_ASSIGN_OR_RETURN(auto done_list, store_->List(paths_.DonePrefix()));
  TM_ASSIGN_OR_RETURN(auto failed_list, store_->List(paths_.FailedPrefix()));
  std::set<uint64_t> done, failed;
  std::vector<uint64_t> new_tasks;
  std::vector<std::string> new_urls;
  for (const auto& o : done_list) {
    const int64_t t = StorePaths::TaskFromLocation(o.url);
    if (t < 0 || static_cast<uint64_t>(t) >= st.total) continue;
    done.insert(t);
    if (!done_.count(t)) {
      new_tasks.push_back(t);
      new_urls.push_back(o.url);
    }
  }
  // Done records never change: only the new ones are read, several at a time. Each one's content
  // statistics are summed, then dropped, and its labels kept once per id, not per record.
  TM_RETURN_IF_ERROR(ForEachDoneRecord(*store_, new_urls, StoreRequestParallelism(paths_.root()),
                                       [&](size_t i, DoneRecord& record) {
                                         content_.Add(record.content);
                                         record.content = ContentStats();
                                         for (auto& [id, label] : record.token_labels) {
                                           token_labels_.emplace(id, std::move(label));
                                         }
                                         record.token_labels.clear();
                                         done_[new_tasks[i]] = std::move(record);
                                         return Status::Ok();
                                       }));
  int64_t last_finish = 0;
  for (uint64_t t : done) {
    st.stats += done_[t].stats;
    last_finish = std::max(last_finish, done_[t].finished_at_ms);
  }
  // Per file and per shard, in task order (the order of the inputs).
  FleetInputs fleet;
  std::map<std::string, size_t> file_index;
  for (const auto& task : tasks_) {
    auto [it, added] = file_index.emplace(task.url, st.files.size());
    if (added) {
      FileStats file;
      file.url = task.url;
      st.files.push_back(std::move(file));
    }
    FileStats& file = st.files[it->second];
    ++file.tasks;
    auto d = done_.find(task.id);
    if (d == done_.end() || !done.count(task.id)) continue;
    ++file.tasks_done;
    file.stats += d->second.stats;
    for (const auto& shard : d->second.shards) {
      st.shards.push_back({task.id, shard});
      st.bytes_out += shard.bytes;
    }
    fleet.done.push_back(&d->second);
  }
  st.content = content_.Total();
  for (const TokenCount& top : st.content.top_tokens) {
    if (auto it = token_labels_.find(top.id); it != token_labels_.end()) {
      st.token_labels.emplace(top.id, it->second);
    }
  }
  for (const auto& o : failed_list) {
    const int64_t t = StorePaths::TaskFromLocation(o.url);
    if (t < 0 || static_cast<uint64_t>(t) >= st.total || done.count(t)) continue;
    failed.insert(t);
    FailedTask f;
    f.task = t;
    f.file = tasks_[t].url;
    f.offset = tasks_[t].begin;
    auto data = store_->Read(o.url);
    if (data.ok()) {
      try {
        const nlohmann::json failed_record = nlohmann::json::parse(*data);
        f.reason = failed_record.value("reason", "");
        fleet.other_expiries += failed_record.value("expiries", uint64_t{0});
      } catch (...) {
        f.reason = "unreadable failed record";
      }
    }
    st.failures.push_back(std::move(f));
  }
  {
    TM_ASSIGN_OR_RETURN(auto errors, store_->List(paths_.ErrorsPrefix()));
    fleet.error_records = errors.size();
    for (auto& f : st.failures) {
      for (const auto& e : errors) {
        if (StorePaths::TaskFromLocation(e.url) != static_cast<int64_t>(f.task)) continue;
        ++f.attempts;
        auto data = store_->Read(e.url);
        if (!data.ok()) continue;
        auto rec = ErrorRecordFromJson(*data);
        if (rec.ok()) f.last_error = rec->message;  // listing is sorted: the last attempt wins
      }
    }
  }
  const int64_t now = NowMs();
  // task -> (its latest attempt, that attempt's lease)
  std::map<uint64_t, std::pair<int64_t, const ObjectInfo*>> latest;
  for (const auto& o : lease_list) {
    const int64_t t = StorePaths::TaskFromLocation(o.url);
    const int64_t a = StorePaths::AttemptFromLocation(o.url);
    if (t >= 0 && a > 1 && static_cast<uint64_t>(t) < st.total) ++fleet.takeovers;
    if (t < 0 || a < 1 || static_cast<uint64_t>(t) >= st.total || done.count(t) ||
        failed.count(t)) {
      continue;
    }
    auto& [attempt, lease] = latest[t];
    if (a > attempt) {
      attempt = a;
      lease = &o;
    }
  }
  for (const auto& [t, latest_lease] : latest) {
    const ObjectInfo* o = latest_lease.second;
    auto data = store_->Read(o->url);
    if (!data.ok()) continue;
    auto rec = LeaseRecordFromJson(*data);
    if (rec.ok() && rec->state == LeaseState::kLeased && rec->expires_at_ms > now) ++st.leased;
    if (rec.ok()) fleet.other_expiries += rec->expiries;
  }
  st.done = done.size();
  st.failed = failed.size();
  st.pending = st.total - st.done - st.failed - st.leased;
  st.complete = st.done == st.total;
  st.finished = st.done + st.failed == st.total;

  TM_ASSIGN_OR_RETURN(auto workers, store_->List(paths_.WorkersPrefix()));
  for (const auto& o : workers) {
    auto data = store_->Read(o.url);
    if (!data.ok()) continue;
    auto hb = WorkerHeartbeatFromJson(*data);
    if (!hb.ok()) continue;
    if (!hb->exited && now - hb->last_seen_ms < 30000) ++st.live_workers;
    st.retries += hb->retries;
    st.workers.push_back(std::move(hb).value());
  }
  fleet.heartbeats = st.workers;
  st.fleet = ComputeFleet(fleet);
  const double elapsed = (std::max(last_finish, now) - job_.created_at_ms) / 1000.0;
  if (elapsed > 0 && st.stats.bytes_in > 0) {
    st.throughput_bps = st.stats.bytes_in / elapsed;
    const double remaining = static_cast<double>(st.input_bytes) - st.stats.bytes_in;
    st.eta_seconds = st.complete ? 0 : std::max(0.0, remaining) / st.throughput_bps;
  }
  return st;
}

std::string FormatStatusText(const JobStatus& s) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "job %s\n"
                "tasks: %llu total, %llu pending, %llu leased, %llu done, %llu failed%s\n",
                s.store.c_str(), (unsigned long long)s.total, (unsigned long long)s.pending,
                (unsigned long long)s.leased, (unsigned long long)s.done,
                (unsigned long long)s.failed,
                s.complete ? " (complete)" : (s.finished ? " (finished with failures)" : ""));
  out += buf;
  std::snprintf(buf, sizeof(buf),
                "data: %s of %s in, %llu documents, %llu tokens, %llu examples, %llu [UNK], "
                "%llu dropped bytes\n",
                FormatBytes(s.stats.bytes_in).c_str(), FormatBytes(s.input_bytes).c_str(),
                (unsigned long long)s.stats.documents, (unsigned long long)s.stats.tokens,
                (unsigned long long)s.stats.examples, (unsigned long long)s.stats.unk_tokens,
                (unsigned long long)s.stats.dropped_bytes);
  out += buf;
  if (s.stats.masked_tokens > 0) {
    const double m = static_cast<double>(s.stats.masked_tokens);
    const double n = static_cast<double>(std::max<uint64_t>(s.stats.examples, 1));
    std::snprintf(buf, sizeof(buf),
                  "bert: %llu masked tokens (%.1f%% [MASK], %.1f%% kept, %.1f%% random) in %llu "
                  "words, %.1f%% random next sentences\n",
                  (unsigned long long)s.stats.masked_tokens, 100.0 * s.stats.masked_as_mask / m,
                  100.0 * s.stats.masked_as_original / m, 100.0 * s.stats.masked_as_random / m,
                  (unsigned long long)s.stats.masked_words, 100.0 * s.stats.random_next / n);
    out += buf;
  }
  std::snprintf(buf, sizeof(buf), "speed: %s/s, ETA %s\n", FormatBytes(s.throughput_bps).c_str(),
                FormatDuration(s.eta_seconds).c_str());
  out += buf;
  std::snprintf(buf, sizeof(buf), "workers: %u live, %zu seen, %llu storage retries\n",
                s.live_workers, s.workers.size(), (unsigned long long)s.retries);
  out += buf;
  for (const auto& w : s.workers) {
    if (!w.error.empty()) out += "worker " + w.id + " (" + w.host + ") stopped: " + w.error + "\n";
  }
  for (const auto& f : s.failures) {
    out += "failed task " + std::to_string(f.task) + ": " + f.reason;
    if (!f.last_error.empty() && f.reason.find(f.last_error) == std::string::npos) {
      out += " (last error: " + f.last_error + ")";
    }
    out += "\n";
  }
  return out;
}

std::string FormatStatusJson(const JobStatus& s) {
  nlohmann::json j;
  j["store"] = s.store;
  j["tasks"] = {{"total", s.total},
                {"pending", s.pending},
                {"leased", s.leased},
                {"done", s.done},
                {"failed", s.failed}};
  j["documents"] = s.stats.documents;
  j["lines"] = s.stats.lines;
  j["tokens"] = s.stats.tokens;
  j["unk_tokens"] = s.stats.unk_tokens;
  j["examples"] = s.stats.examples;
  j["bytes_in"] = s.stats.bytes_in;
  j["input_bytes"] = s.input_bytes;
  j["dropped_bytes"] = s.stats.dropped_bytes;
  if (s.stats.masked_tokens > 0) {
    j["bert"] = {{"masked_tokens", s.stats.masked_tokens},
                 {"masked_as_mask", s.stats.masked_as_mask},
                 {"masked_as_original", s.stats.masked_as_original},
                 {"masked_as_random", s.stats.masked_as_random},
                 {"masked_words", s.stats.masked_words},
                 {"random_next", s.stats.random_next}};
  }
  j["throughput_bytes_per_second"] = s.throughput_bps;
  j["eta_seconds"] = s.eta_seconds;
  j["live_workers"] = s.live_workers;
  j["retries"] = s.retries;
  j["complete"] = s.complete;
  j["finished"] = s.finished;
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : s.failures) {
    failures.push_back({{"task", f.task},
                        {"reason", f.reason},
                        {"last_error", f.last_error},
                        {"file", f.file},
                        {"offset", f.offset},
                        {"attempts", f.attempts}});
  }
  j["failures"] = failures;
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& w : s.workers) {
    workers.push_back({{"id", w.id},
                       {"host", w.host},
                       {"tasks_done", w.tasks_done},
                       {"exited", w.exited},
                       {"error", w.error},
                       {"claims", w.claims},
                       {"claim_conflicts", w.claim_conflicts},
                       {"renewals", w.renewals},
                       {"records", w.records},
                       {"listings", w.listings},
                       {"lease_reads", w.lease_reads},
                       {"retries", w.retries},
                       {"heartbeats", w.heartbeats}});
  }
  j["workers"] = workers;
  // Every figure of the report (docs/report.md): the manifest's totals over the done tasks, the
  // content statistics, per file and per shard; then the timing-dependent fleet figures.
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& [key, value] : ManifestTotals(s.stats, s.shards.size(), s.bytes_out)) {
    totals[key] = value;
  }
  j["totals"] = totals;
  j["content"] = s.content;
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : s.files) {
    files.push_back({{"url", f.url},
                     {"tasks", f.tasks},
                     {"tasks_done", f.tasks_done},
                     {"documents", f.stats.documents},
                     {"tokens", f.stats.tokens},
                     {"unk_tokens", f.stats.unk_tokens},
                     {"truncated_tokens", f.stats.truncated_tokens},
                     {"examples", f.stats.examples},
                     {"dropped_bytes", f.stats.dropped_bytes},
                     {"bytes_in", f.stats.bytes_in}});
  }
  j["files"] = files;
  nlohmann::json shards = nlohmann::json::array();
  for (const auto& sh : s.shards) {
    shards.push_back({{"name", sh.shard.name},
                      {"task", sh.task},
                      {"bytes", sh.shard.bytes},
                      {"examples", sh.shard.examples},
                      {"tokens", sh.shard.tokens}});
  }
  j["shards"] = shards;
  const FleetStats& f = s.fleet;
  nlohmann::json fleet_workers = nlohmann::json::array();
  for (const auto& w : f.workers) {
    fleet_workers.push_back({{"id", w.id},
                             {"host", w.host},
                             {"tasks", w.tasks},
                             {"bytes_in", w.bytes_in},
                             {"busy_ms", w.busy_ms},
                             {"storage_retries", w.storage_retries},
                             {"exited", w.exited},
                             {"mb_per_s", w.mb_per_s}});
  }
  j["fleet"] = {{"task_ms", f.task_ms},
                {"retried_tasks", f.retried_tasks},
                {"failed_attempts", f.failed_attempts},
                {"takeovers", f.takeovers},
                {"expiries", f.expiries},
                {"storage_retries", f.storage_retries},
                {"start_ms", f.start_ms},
                {"bucket_ms", f.bucket_ms},
                {"workers", fleet_workers}};
  return j.dump();
}

std::string FormatProgressLine(const JobStatus& s, double tokens_per_second) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "tasks %llu/%llu%s | %s / %s | %stok/s | ETA %s",
                (unsigned long long)s.done, (unsigned long long)s.total,
                s.failed ? (" (" + std::to_string(s.failed) + " failed)").c_str() : "",
                FormatBytes(s.stats.bytes_in).c_str(), FormatBytes(s.input_bytes).c_str(),
                FormatCount(tokens_per_second).c_str(), FormatDuration(s.eta_seconds).c_str());
  return buf;
}

}  // namespace tokenmill
