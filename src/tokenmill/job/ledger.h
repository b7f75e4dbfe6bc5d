// Ledger: one worker's side of the job-store protocol (docs/protocol.md): claiming tasks with
// leases, renewing and releasing them, and recording results, failures and heartbeats.
// Every decision between workers is a create-if-absent (the first claim of a task, each takeover
// as the next attempt's lease key, done and failed records): the one conditional write that all
// stores, Ceph RGW included, perform atomically.
//
// Thread-safety: thread-safe. Worker threads call Acquire / Complete / Fail / Release; a renewal
// thread calls RenewDue.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/job/free_tasks.h"
#include "tokenmill/job/protocol.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

struct LedgerOptions {
  uint32_t lease_seconds = 60;
  uint32_t max_attempts = 3;
  uint32_t max_expiries = 10;
  // Consecutive claim conflicts after which the local view is refreshed by listing. Default: 4.
  uint32_t conflicts_before_refresh = 4;
  // Held leases read per waiting round (to find expired ones). Default: 16.
  uint32_t lease_probes_per_round = 16;
  // The work of each task, by id (TaskWork): once this ledger has won a claim, larger tasks are
  // claimed first (FreeTasks). Its first claim is at random among all tasks believed free, so
  // that a fleet of workers starting at once spreads over the job instead of all trying its few
  // largest tasks. Empty: every task alike.
  std::vector<uint64_t> task_work;
};

// Counters of coordination requests made through the ledger.
struct LedgerCounters {
  uint64_t claims = 0;           // create-if-absent and takeover attempts
  uint64_t claim_conflicts = 0;  // claims that found the task taken
  uint64_t renewals = 0;
  uint64_t records = 0;      // done, error, failed records and lease state changes
  uint64_t listings = 0;     // list requests, one per page of 1000 keys
  uint64_t lease_reads = 0;  // reads of leases and done records (probes, fencing)
};

class Ledger {
 public:
  enum class Outcome {
    kClaimed,      // *task and *attempt are set
    kWait,         // nothing claimable now; other workers hold live leases
    kAllDone,      // every task has a done record
    kAllFinished,  // every task is done or failed, and some failed
  };

  // `store` must outlive the ledger.
  Ledger(Storage* store, StorePaths paths, uint64_t task_count, std::string holder,
         LedgerOptions options);

  // Tries to claim a task (a fresh one, or a released or expired lease).
  StatusOr<Outcome> Acquire(uint64_t* task, uint32_t* attempt);

  // Acquire's common case in two steps, so that a worker can start on a task while its claim is
  // in flight (a create-if-absent: a few fsyncs on a folder store, a request or more on a
  // bucket). TakeFreeCandidate picks a task for which no lease was seen, or nullopt when none is
  // believed free (then Acquire: it also takes over expired leases and tells when the job is
  // over). ClaimCandidate(task), once per candidate, tries to create its first lease: true if
  // this ledger now holds it (attempt 1), false if another worker does (a conflict, counted as
  // Acquire counts them).
  std::optional<uint64_t> TakeFreeCandidate();
  StatusOr<bool> ClaimCandidate(uint64_t task);

  // Renews every held lease whose last renewal is older than lease_seconds / 3. Leases found
  // taken over are marked lost.
  Status RenewDue();

  // True if the lease of `task` was lost (taken over); the task must be abandoned.
  bool Lost(uint64_t task) const;

  // Fencing before publishing: no later attempt's lease exists and no done record exists.
  // Returns FailedPrecondition if not.
  Status CheckStillHolder(uint64_t task);

  // Creates the done record. AlreadyExists means another attempt recorded it first (not an error
  // for the caller: the output bytes are the same). The lease is forgotten either way.
  Status Complete(uint64_t task, const DoneRecord& record);

  // Records a failed attempt; releases the lease or marks the task failed for good after
  // max_attempts. Returns true in *failed_for_good when it did.
  Status Fail(uint64_t task, const ErrorRecord& error, bool* failed_for_good);

  // Gives the lease back (SIGTERM): the next worker can take it at once.
  Status Release(uint64_t task);

  // Tasks currently held by this ledger.
  std::vector<uint64_t> Held() const;
  // The lease this ledger holds on `task` (attempt, failures and expiries so far), if any.
  std::optional<LeaseRecord> HeldLeaseRecord(uint64_t task) const;

  LedgerCounters counters() const;
  const std::string& holder() const { return holder_; }

 private:
  struct HeldLease {
    LeaseRecord record;
    std::string generation;
    int64_t renewed_at_ms = 0;
    bool lost = false;
  };

  Status Refresh();
  // Tries to take over `task` whose latest lease (attempt record.attempt) was read as `record`.
  StatusOr<bool> TryTakeover(uint64_t task, const LeaseRecord& record);
  StatusOr<bool> TryCreate(uint64_t task);
  // Creates the lease key of record.attempt (create-if-absent; resolves unknown outcomes).
  // Returns its generation, or AlreadyExists when another worker created that attempt first.
  StatusOr<std::string> CreateLease(uint64_t task, const LeaseRecord& record);
  // Rewrites this worker's own lease key (attempt record.attempt) from `generation`. Only the
  // holder of an attempt ever writes its key, so the compare-and-swap never races.
  StatusOr<std::string> WriteOwnLease(uint64_t task, const LeaseRecord& record,
                                      const std::string& generation);
  // CreateIfAbsentResolved / CompareAndSwapResolved (storage.h), counting their read-backs.
  static constexpr int kResolveAttempts = 5;
  StatusOr<std::string> CreateResolved(const std::string& url, const std::string& body);
  StatusOr<std::string> SwapResolved(const std::string& url, const std::string& body,
                                     const std::string& generation);
  // Creates failed/T.json and counts the task as failed.
  Status RecordFailed(uint64_t task, const std::string& reason, const LeaseRecord& record);
  // True if the attempt after `attempt` exists, i.e. the lease was taken over.
  StatusOr<bool> Superseded(uint64_t task, uint32_t attempt);
  uint64_t NextSeq(uint64_t at_least);  // requires mu_

  Storage* store_;
  StorePaths paths_;
  const uint64_t task_count_;
  const std::string holder_;
  const LedgerOptions options_;

  mutable std::mutex mu_;
  FreeTasks free_;               // believed free (no lease)
  bool won_a_claim_ = false;     // a lease was held: larger tasks first (task_work)
  std::set<uint64_t> claiming_;  // taken from free_, claim not decided yet
  // Lease exists, no done / failed record seen: task -> latest attempt seen.
  std::map<uint64_t, uint32_t> held_by_others_;
  std::set<uint64_t> finished_;  // done or failed
  uint64_t done_count_ = 0;
  uint64_t failed_count_ = 0;
  uint32_t consecutive_conflicts_ = 0;
  std::map<uint64_t, HeldLease> held_;
  std::mt19937_64 rng_;
  uint64_t seq_ = 0;
  LedgerCounters counters_;
};

}  // namespace tokenmill
