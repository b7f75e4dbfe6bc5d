#include "tokenmill/job/ledger.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenmill/base/log.h"

namespace tokenmill {

Ledger::Ledger(Storage* store, StorePaths paths, uint64_t task_count, std::string holder,
               LedgerOptions options)
    : store_(store),
      paths_(std::move(paths)),
      task_count_(task_count),
      holder_(std::move(holder)),
      options_(options),
      free_(options_.task_work),
      rng_(std::hash<std::string>()(holder_)) {
  for (uint64_t t = 0; t < task_count_; ++t) free_.Add(t);
}

LedgerCounters Ledger::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

std::vector<uint64_t> Ledger::Held() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint64_t> out;
  for (const auto& [t, h] : held_) out.push_back(t);
  return out;
}

std::optional<LeaseRecord> Ledger::HeldLeaseRecord(uint64_t task) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(task);
  if (it == held_.end()) return std::nullopt;
  return it->second.record;
}

bool Ledger::Lost(uint64_t task) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(task);
  return it == held_.end() || it->second.lost;
}

StatusOr<std::string> Ledger::CreateResolved(const std::string& url, const std::string& body) {
  uint64_t read_backs = 0;
  auto created = CreateIfAbsentResolved(*store_, url, body, kResolveAttempts, &read_backs);
  std::lock_guard<std::mutex> lock(mu_);
  counters_.lease_reads += read_backs;
  return created;
}

StatusOr<std::string> Ledger::SwapResolved(const std::string& url, const std::string& body,
                                           const std::string& generation) {
  uint64_t read_backs = 0;
  auto swapped =
      CompareAndSwapResolved(*store_, url, body, generation, kResolveAttempts, &read_backs);
  std::lock_guard<std::mutex> lock(mu_);
  counters_.lease_reads += read_backs;
  return swapped;
}

uint64_t Ledger::NextSeq(uint64_t at_least) {
  seq_ = std::max(at_least, seq_) + 1;
  return seq_;
}

StatusOr<std::string> Ledger::CreateLease(uint64_t task, const LeaseRecord& record) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.claims;
  }
  return CreateResolved(paths_.Lease(task, record.attempt), ToJson(record));
}

StatusOr<std::string> Ledger::WriteOwnLease(uint64_t task, const LeaseRecord& record,
                                            const std::string& generation) {
  return SwapResolved(paths_.Lease(task, record.attempt), ToJson(record), generation);
}

StatusOr<bool> Ledger::Superseded(uint64_t task, uint32_t attempt) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.lease_reads;
  }
  auto next = store_->Stat(paths_.Lease(task, attempt + 1));
  if (next.ok()) return true;
  if (next.status().Is(StatusCode::kNotFound)) return false;
  return next.status();
}

StatusOr<bool> Ledger::TryCreate(uint64_t task) {
  LeaseRecord rec;
  rec.task = task;
  rec.holder = holder_;
  rec.attempt = 1;
  rec.expires_at_ms = NowMs() + int64_t{options_.lease_seconds} * 1000;
  rec.state = LeaseState::kLeased;
  {
    std::lock_guard<std::mutex> lock(mu_);
    rec.seq = NextSeq(0);
  }
  auto generation = CreateLease(task, rec);
  if (!generation.ok()) {
    if (generation.status().Is(StatusCode::kAlreadyExists)) return false;
    return generation.status();
  }
  std::lock_guard<std::mutex> lock(mu_);
  held_[task] = HeldLease{rec, *generation, NowMs(), false};
  won_a_claim_ = true;
  return true;
}

StatusOr<bool> Ledger::TryTakeover(uint64_t task, const LeaseRecord& record) {
  LeaseRecord next = record;
  const bool expired = record.state == LeaseState::kLeased;
  next.holder = holder_;
  next.attempt = record.attempt + 1;
  next.state = LeaseState::kLeased;
  next.expires_at_ms = NowMs() + int64_t{options_.lease_seconds} * 1000;
  if (expired) next.expiries = record.expiries + 1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    next.seq = NextSeq(record.seq);
  }
  if (next.expiries > options_.max_expiries) {
    // The failed record first: a worker that dies in between leaves a task that the next prober
    // fails again, never one that nobody finishes.
    TM_RETURN_IF_ERROR(RecordFailed(task,
                                    "the lease expired " + std::to_string(next.expiries) +
                                        " times (its workers were killed or froze each time); "
                                        "max_expiries is " +
                                        std::to_string(options_.max_expiries),
                                    next));
    next.state = LeaseState::kFailed;
    next.expires_at_ms = 0;
    auto created = CreateLease(task, next);
    if (!created.ok() && !created.status().Is(StatusCode::kAlreadyExists)) {
      return created.status();
    }
    return false;
  }
  auto generation = CreateLease(task, next);
  if (!generation.ok()) {
    if (!generation.status().Is(StatusCode::kAlreadyExists)) return generation.status();
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.claim_conflicts;
    uint32_t& latest = held_by_others_[task];
    latest = std::max(latest, next.attempt);
    return false;
  }
  if (expired) {
    LogInfo("task " + std::to_string(task) + ": took over an expired lease of " + record.holder +
            " (attempt " + std::to_string(next.attempt) + ")");
  }
  std::lock_guard<std::mutex> lock(mu_);
  held_by_others_.erase(task);
  held_[task] = HeldLease{next, *generation, NowMs(), false};
  won_a_claim_ = true;
  return true;
}

Status Ledger::RecordFailed(uint64_t task, const std::string& reason, const LeaseRecord& record) {
  nlohmann::json failed = {{"task", task},
                           {"reason", reason},
                           {"holder", holder_},
                           {"failures", record.failures},
                           {"expiries", record.expiries}};
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.records;
  }
  auto created = store_->CreateIfAbsent(paths_.Failed(task), failed.dump());
  if (!created.ok() && !created.status().Is(StatusCode::kAlreadyExists) &&
      !created.status().Is(StatusCode::kUnknownOutcome)) {
    return created.status();
  }
  if (created.ok()) LogError("task " + std::to_string(task) + " failed for good: " + reason);
  std::lock_guard<std::mutex> lock(mu_);
  held_by_others_.erase(task);
  if (finished_.insert(task).second) ++failed_count_;
  return Status::Ok();
}

Status Ledger::Refresh() {
  // Counted as an object store bills them: one request per page of 1000 keys.
  auto list = [&](const std::string& prefix) -> StatusOr<std::vector<ObjectInfo>> {
    auto objects = store_->List(prefix);
    std::lock_guard<std::mutex> lock(mu_);
    counters_.listings +=
        objects.ok() ? 1 + (objects->size() > 0 ? (objects->size() - 1) / 1000 : 0) : 1;
    return objects;
  };
  TM_ASSIGN_OR_RETURN(auto leases, list(paths_.LeasesPrefix()));
  TM_ASSIGN_OR_RETURN(auto done, list(paths_.DonePrefix()));
  TM_ASSIGN_OR_RETURN(auto failed, list(paths_.FailedPrefix()));
  std::vector<char> state(task_count_, 0);       // 0 free, 1 leased, 2 done, 3 failed
  std::vector<uint32_t> latest(task_count_, 0);  // the latest attempt's lease seen
  // The task a listed object belongs to, or -1 for names outside this job's tasks.
  auto task_of = [&](const ObjectInfo& o) -> int64_t {
    const int64_t t = StorePaths::TaskFromLocation(o.url);
    return t >= 0 && static_cast<uint64_t>(t) < task_count_ ? t : -1;
  };
  for (const auto& o : leases) {
    const int64_t t = task_of(o);
    const int64_t a = StorePaths::AttemptFromLocation(o.url);
    if (t < 0 || a < 1 || a > UINT32_MAX) continue;
    state[t] = 1;
    latest[t] = std::max(latest[t], static_cast<uint32_t>(a));
  }
  for (const auto& o : failed) {
    if (const int64_t t = task_of(o); t >= 0) state[t] = 3;
  }
  for (const auto& o : done) {  // done wins over failed
    if (const int64_t t = task_of(o); t >= 0) state[t] = 2;
  }
  std::lock_guard<std::mutex> lock(mu_);
  free_.Clear();
  held_by_others_.clear();
  finished_.clear();
  done_count_ = failed_count_ = 0;
  for (uint64_t t = 0; t < task_count_; ++t) {
    switch (state[t]) {
      case 0:
        if (!held_.count(t) && !claiming_.count(t)) free_.Add(t);
        break;
      case 1:
        if (!held_.count(t)) held_by_others_[t] = latest[t];
        break;
      case 2:
        finished_.insert(t);
        ++done_count_;
        break;
      default:
        finished_.insert(t);
        ++failed_count_;
        break;
    }
  }
  consecutive_conflicts_ = 0;
  return Status::Ok();
}

std::optional<uint64_t> Ledger::TakeFreeCandidate() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.empty()) return std::nullopt;
  const uint64_t candidate = free_.Take(rng_, /*largest_first=*/won_a_claim_);
  claiming_.insert(candidate);
  return candidate;
}

StatusOr<bool> Ledger::ClaimCandidate(uint64_t task) {
  StatusOr<bool> won = TryCreate(task);
  bool refresh = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    claiming_.erase(task);
    if (won.ok() && *won) {
      consecutive_conflicts_ = 0;
      return true;
    }
    if (!won.ok()) {
      // Undecided: believed free again (a later claim resolves it by reading back).
      free_.Add(task);
      return won.status();
    }
    ++counters_.claim_conflicts;
    uint32_t& known = held_by_others_[task];
    known = std::max<uint32_t>(known, 1);
    refresh = ++consecutive_conflicts_ >= options_.conflicts_before_refresh;
  }
  if (refresh) TM_RETURN_IF_ERROR(Refresh());
  return false;
}

StatusOr<Ledger::Outcome> Ledger::Acquire(uint64_t* task, uint32_t* attempt) {
  auto claimed = [&](uint64_t t) {
    std::lock_guard<std::mutex> lock(mu_);
    *task = t;
    *attempt = held_[t].record.attempt;
    consecutive_conflicts_ = 0;
    return Outcome::kClaimed;
  };
  for (;;) {
    if (const std::optional<uint64_t> candidate = TakeFreeCandidate()) {
      TM_ASSIGN_OR_RETURN(bool won, ClaimCandidate(*candidate));
      if (won) return claimed(*candidate);
      continue;
    }

    // Nothing believed free: look at the whole job.
    TM_RETURN_IF_ERROR(Refresh());
    std::vector<std::pair<uint64_t, uint32_t>> probes;  // task, latest attempt seen
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (done_count_ + failed_count_ == task_count_) {
        return failed_count_ > 0 ? Outcome::kAllFinished : Outcome::kAllDone;
      }
      if (!free_.empty()) continue;
      probes.assign(held_by_others_.begin(), held_by_others_.end());
      std::shuffle(probes.begin(), probes.end(), rng_);
      if (probes.size() > options_.lease_probes_per_round) {
        probes.resize(options_.lease_probes_per_round);
      }
    }
    for (auto [t, attempt] : probes) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++counters_.lease_reads;
      }
      const std::string url = paths_.Lease(t, attempt);
      auto current = store_->Read(url);
      if (!current.ok()) {
        if (current.status().Is(StatusCode::kNotFound) && attempt == 1) {
          TM_ASSIGN_OR_RETURN(bool won, TryCreate(t));
          if (won) return claimed(t);
          continue;
        }
        if (current.status().Is(StatusCode::kNotFound)) continue;  // deleted by hand
        return current.status();
      }
      auto rec = LeaseRecordFromJson(*current);
      if (!rec.ok()) return rec.status().WithContext(url);
      rec->attempt = attempt;  // the key decides, whatever the body says
      if (rec->state == LeaseState::kFailed) {
        // Its failed record is missing from the listing (written after it, or its writer died
        // in between): make sure it exists, so that the job can finish.
        TM_RETURN_IF_ERROR(RecordFailed(
            t, "the lease of attempt " + std::to_string(attempt) + " is marked failed", *rec));
        continue;
      }
      const bool released = rec->state == LeaseState::kReleased;
      const bool expired = rec->state == LeaseState::kLeased && rec->expires_at_ms < NowMs();
      if (!released && !expired) continue;
      // A done record may exist for an expired lease: its holder finished but never came back.
      auto done = store_->Stat(paths_.Done(t));
      if (done.ok()) continue;
      TM_ASSIGN_OR_RETURN(bool won, TryTakeover(t, *rec));
      if (won) return claimed(t);
    }
    // Probing may have failed the last open tasks for good (too many expiries).
    std::lock_guard<std::mutex> lock(mu_);
    if (done_count_ + failed_count_ == task_count_) {
      return failed_count_ > 0 ? Outcome::kAllFinished : Outcome::kAllDone;
    }
    return Outcome::kWait;
  }
}

Status Ledger::RenewDue() {
  const int64_t now = NowMs();
  const int64_t interval = int64_t{options_.lease_seconds} * 1000 / 3;
  std::vector<std::pair<uint64_t, HeldLease>> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [t, h] : held_) {
      if (!h.lost && now - h.renewed_at_ms >= interval) due.emplace_back(t, h);
    }
  }
  Status first_error;
  for (auto& [t, h] : due) {
    LeaseRecord next = h.record;
    next.expires_at_ms = NowMs() + int64_t{options_.lease_seconds} * 1000;
    {
      std::lock_guard<std::mutex> lock(mu_);
      next.seq = NextSeq(next.seq);
      ++counters_.renewals;
    }
    // Renew first, then look for a takeover: a worker that read the lease as expired before
    // the renewal may still have created the next attempt.
    auto written = WriteOwnLease(t, next, h.generation);
    StatusOr<bool> superseded = written.ok() ? Superseded(t, next.attempt) : StatusOr<bool>(false);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = held_.find(t);
    if (it == held_.end()) continue;  // completed meanwhile
    HeldLease& held = it->second;
    Status error;
    if (written.ok()) {
      held.record = next;
      held.generation = *written;
      if (!superseded.ok()) {
        error = superseded.status();
      } else if (!*superseded) {
        held.renewed_at_ms = NowMs();
        continue;
      }
    } else if (!written.status().Is(StatusCode::kFailedPrecondition) &&
               !written.status().Is(StatusCode::kNotFound)) {
      error = written.status();
    }
    if (error.ok()) {  // taken over, or our own key changed under us
      held.lost = true;
      LogWarning("task " + std::to_string(t) + ": lease lost to another worker; abandoning it");
      continue;
    }
    if (NowMs() >= held.record.expires_at_ms) held.lost = true;
    if (first_error.ok()) first_error = error;
  }
  return first_error;
}

Status Ledger::CheckStillHolder(uint64_t task) {
  uint32_t attempt = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = held_.find(task);
    if (it == held_.end() || it->second.lost) {
      return Status::FailedPrecondition("lease of task " + std::to_string(task) + " was lost");
    }
    attempt = it->second.record.attempt;
    ++counters_.lease_reads;  // the done record; Superseded counts the lease
  }
  TM_ASSIGN_OR_RETURN(bool superseded, Superseded(task, attempt));
  if (superseded) {
    std::lock_guard<std::mutex> lock(mu_);
    held_[task].lost = true;
    return Status::FailedPrecondition("lease of task " + std::to_string(task) +
                                      " was taken over by another worker");
  }
  auto done = store_->Stat(paths_.Done(task));
  if (done.ok()) {
    return Status::FailedPrecondition("task " + std::to_string(task) + " is already done");
  }
  if (!done.status().Is(StatusCode::kNotFound)) return done.status();
  return Status::Ok();
}

Status Ledger::Complete(uint64_t task, const DoneRecord& record) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.records;
  }
  auto created = CreateResolved(paths_.Done(task), ToJson(record));
  const Status result = created.status();
  std::lock_guard<std::mutex> lock(mu_);
  held_.erase(task);
  if (result.ok() || result.Is(StatusCode::kAlreadyExists)) {
    if (finished_.insert(task).second) ++done_count_;
  }
  return result;
}

Status Ledger::Fail(uint64_t task, const ErrorRecord& error, bool* failed_for_good) {
  *failed_for_good = false;
  HeldLease h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = held_.find(task);
    if (it == held_.end()) return Status::FailedPrecondition("task not held");
    h = it->second;
    counters_.records += 2;
  }
  auto created = store_->CreateIfAbsent(paths_.Error(task, h.record.attempt), ToJson(error));
  if (!created.ok() && !created.status().Is(StatusCode::kAlreadyExists) &&
      !created.status().Is(StatusCode::kUnknownOutcome)) {
    return created.status();
  }
  LeaseRecord next = h.record;
  next.failures = h.record.failures + 1;
  if (next.failures >= options_.max_attempts) {
    *failed_for_good = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_.erase(task);
    }
    TM_RETURN_IF_ERROR(RecordFailed(
        task, "failed " + std::to_string(next.failures) + " attempts; last: " + error.message,
        next));
    next.state = LeaseState::kFailed;
  } else {
    next.state = LeaseState::kReleased;
  }
  next.expires_at_ms = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    next.seq = NextSeq(next.seq);
    held_.erase(task);
    if (next.state == LeaseState::kReleased) held_by_others_[task] = next.attempt;
  }
  auto written = WriteOwnLease(task, next, h.generation);
  if (!written.ok() && !written.status().Is(StatusCode::kFailedPrecondition)) {
    return written.status();
  }
  return Status::Ok();
}

Status Ledger::Release(uint64_t task) {
  HeldLease h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = held_.find(task);
    if (it == held_.end()) return Status::Ok();
    h = it->second;
    held_.erase(it);
    ++counters_.records;
    if (h.lost) return Status::Ok();
  }
  LeaseRecord next = h.record;
  next.state = LeaseState::kReleased;
  next.expires_at_ms = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    next.seq = NextSeq(next.seq);
  }
  auto written = WriteOwnLease(task, next, h.generation);
  if (!written.ok() && !written.status().Is(StatusCode::kFailedPrecondition)) {
    return written.status();
  }
  return Status::Ok();
}

}  // namespace tokenmill
