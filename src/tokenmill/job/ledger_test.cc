#include "tokenmill/job/ledger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "tokenmill/storage/fault_injection_storage.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

class LedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = StorageFor(root_);
    ASSERT_TRUE(s.ok());
    store_ = *s;
  }

  Ledger Make(const std::string& holder, uint64_t tasks, LedgerOptions o = {}) {
    return Ledger(store_, StorePaths(root_ + "/job"), tasks, holder, o);
  }

  static DoneRecord Done(uint64_t t) {
    DoneRecord d;
    d.task = t;
    return d;
  }

  testing::TempDir tmp_{"tokenmill-ledger"};
  const std::string root_ = tmp_.path();
  Storage* store_ = nullptr;
};

TEST_F(LedgerTest, ClaimsEveryTaskOnceThenAllDone) {
  Ledger a = Make("a", 5);
  Ledger b = Make("b", 5);
  std::set<uint64_t> seen;
  for (int i = 0; i < 5; ++i) {
    Ledger& l = (i % 2) ? a : b;
    uint64_t t = 99;
    uint32_t attempt = 0;
    auto o = l.Acquire(&t, &attempt);
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    ASSERT_EQ(*o, Ledger::Outcome::kClaimed);
    EXPECT_EQ(attempt, 1u);
    EXPECT_TRUE(seen.insert(t).second) << "task " << t << " claimed twice";
    ASSERT_TRUE(l.CheckStillHolder(t).ok());
    ASSERT_TRUE(l.Complete(t, Done(t)).ok());
  }
  uint64_t t;
  uint32_t attempt;
  EXPECT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kAllDone);
  EXPECT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kAllDone);
}

// The two steps of a claim made while the task already runs: a candidate in flight is not handed
// out again, even once a listing shows it without a lease; of two ledgers, exactly one wins it.
TEST_F(LedgerTest, ACandidateInFlightIsGivenOnceAndWonByOneLedger) {
  Ledger a = Make("a", 2);
  Ledger b = Make("b", 2);
  const std::optional<uint64_t> x = a.TakeFreeCandidate();
  ASSERT_TRUE(x.has_value());
  uint64_t t = 99;
  uint32_t attempt = 0;
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  const uint64_t y = t;
  EXPECT_NE(y, *x);
  EXPECT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kWait);  // listed x: still in flight
  EXPECT_FALSE(a.TakeFreeCandidate().has_value());

  std::optional<uint64_t> c;
  while ((c = b.TakeFreeCandidate()).has_value() && *c != *x) {
    auto held_by_a = b.ClaimCandidate(*c);
    ASSERT_TRUE(held_by_a.ok()) << held_by_a.status().ToString();
    EXPECT_FALSE(*held_by_a);
  }
  ASSERT_EQ(c, x);
  auto won_a = a.ClaimCandidate(*x);
  auto won_b = b.ClaimCandidate(*x);
  ASSERT_TRUE(won_a.ok() && won_b.ok());
  EXPECT_TRUE(*won_a);
  EXPECT_FALSE(*won_b);
  EXPECT_GE(b.counters().claim_conflicts, 1u);
  EXPECT_FALSE(a.Lost(*x));
  EXPECT_TRUE(b.Lost(*x));
  for (const uint64_t task : {*x, y}) {
    ASSERT_TRUE(a.CheckStillHolder(task).ok());
    ASSERT_TRUE(a.Complete(task, Done(task)).ok());
  }
  EXPECT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kAllDone);
  EXPECT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kAllDone);
}

TEST_F(LedgerTest, LargerTasksAreClaimedFirstOnceAClaimIsWon) {
  // Task 3 reads ten times the bytes of the others. A worker's first claim is at random among
  // all tasks (a fleet starting at once spreads out); from then on the largest comes first.
  LedgerOptions o;
  o.task_work = {100, 100, 100, 1000, 100, 100, 100, 100};
  std::set<uint64_t> firsts;
  for (int i = 0; i < 16; ++i) {
    Ledger l = Make("w" + std::to_string(i), 8, o);
    firsts.insert(*l.TakeFreeCandidate());
  }
  EXPECT_GT(firsts.size(), 2u);

  // Once it has won a claim, a worker takes the large task next (unless that was its first).
  Ledger a = Make("a", 8, o);
  uint64_t t = 99;
  uint32_t attempt = 0;
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  const uint64_t first = t;
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  ASSERT_NE(first, 3u) << "this test needs a holder whose first pick is another task";
  EXPECT_EQ(t, 3u);
  // A second worker, whose view does not know a's claims, goes on past a's tasks.
  Ledger b = Make("b", 8, o);
  std::set<uint64_t> taken = {first, t};
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
    EXPECT_TRUE(taken.insert(t).second) << "task " << t << " claimed twice";
  }
  EXPECT_EQ(taken.size(), 8u);
}

// A claim that fails (the store is down) leaves its task believed free, to be claimed later.
TEST_F(LedgerTest, AFailedClaimOfACandidateLeavesItFree) {
  FaultInjectionStorage faulty(store_);
  Ledger a(&faulty, StorePaths(root_ + "/job"), 1, "a", {});
  const int f = faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                                 .url_contains = "leases/",
                                 .status = Status::PermissionDenied("AccessDenied (test)")});
  const std::optional<uint64_t> candidate = a.TakeFreeCandidate();
  ASSERT_EQ(candidate, std::optional<uint64_t>(0));
  auto won = a.ClaimCandidate(0);
  ASSERT_FALSE(won.ok());
  EXPECT_TRUE(won.status().Is(StatusCode::kPermissionDenied)) << won.status().ToString();
  EXPECT_EQ(faulty.fired(f), 1u);
  EXPECT_EQ(a.TakeFreeCandidate(), std::optional<uint64_t>(0));
  won = a.ClaimCandidate(0);
  ASSERT_TRUE(won.ok()) << won.status().ToString();
  EXPECT_TRUE(*won);
  EXPECT_EQ(a.Held(), std::vector<uint64_t>{0});
}

TEST_F(LedgerTest, LiveLeaseMeansWaitAndReleaseHandsOver) {
  Ledger a = Make("a", 1);
  Ledger b = Make("b", 1);
  uint64_t t;
  uint32_t attempt;
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  EXPECT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kWait);
  ASSERT_TRUE(a.Release(0).ok());
  ASSERT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  EXPECT_EQ(attempt, 2u);
}

TEST_F(LedgerTest, ExpiredLeaseIsTakenOverAndTheOldHolderIsFenced) {
  LedgerOptions o;
  o.lease_seconds = 1;
  Ledger a = Make("a", 1, o);
  Ledger b = Make("b", 1, o);
  uint64_t t;
  uint32_t attempt;
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  // Each attempt has its own lease key.
  EXPECT_TRUE(store_->Stat(root_ + "/job/leases/000000-0001").ok());
  EXPECT_EQ(store_->Stat(root_ + "/job/leases/000000-0002").status().code(), StatusCode::kNotFound);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  EXPECT_EQ(attempt, 2u);
  auto taken = store_->Read(root_ + "/job/leases/000000-0002");
  ASSERT_TRUE(taken.ok());
  auto rec = LeaseRecordFromJson(*taken);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->holder, "b");
  EXPECT_EQ(rec->attempt, 2u);
  EXPECT_EQ(rec->expiries, 1u);
  // a wakes up: it still finds its own key, but its renewal sees the next one: the lease is
  // lost, and it may not publish.
  EXPECT_TRUE(a.RenewDue().ok());
  EXPECT_TRUE(a.Lost(0));
  EXPECT_EQ(a.CheckStillHolder(0).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(b.RenewDue().ok());
  EXPECT_FALSE(b.Lost(0));
  ASSERT_TRUE(b.CheckStillHolder(0).ok());
  ASSERT_TRUE(b.Complete(0, Done(0)).ok());
  // A second done record for the same task can never be written.
  Ledger c = Make("c", 1, o);
  EXPECT_EQ(*c.Acquire(&t, &attempt), Ledger::Outcome::kAllDone);
}

TEST_F(LedgerTest, ConcurrentTakeoversHaveExactlyOneWinner) {
  LedgerOptions o;
  o.lease_seconds = 1;
  for (int round = 0; round < 5; ++round) {
    const std::string job = root_ + "/race-" + std::to_string(round);
    Ledger dead(store_, StorePaths(job), 1, "dead", o);
    uint64_t t;
    uint32_t attempt;
    ASSERT_EQ(*dead.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    constexpr int kRacers = 12;
    std::atomic<int> ready{0};
    std::atomic<int> winners{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kRacers; ++i) {
      threads.emplace_back([&, i] {
        Ledger l(store_, StorePaths(job), 1, "racer" + std::to_string(i), o);
        ++ready;
        while (ready.load() < kRacers) std::this_thread::yield();
        uint64_t task;
        uint32_t att;
        auto r = l.Acquire(&task, &att);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        if (*r == Ledger::Outcome::kClaimed) {
          EXPECT_EQ(att, 2u);
          ++winners;
        } else {
          EXPECT_EQ(*r, Ledger::Outcome::kWait);
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(winners.load(), 1) << "round " << round;
  }
}

TEST_F(LedgerTest, RenewalKeepsTheLease) {
  LedgerOptions o;
  o.lease_seconds = 3;
  Ledger a = Make("a", 1, o);
  Ledger b = Make("b", 1, o);
  uint64_t t;
  uint32_t attempt;
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ASSERT_TRUE(a.RenewDue().ok());
  }
  EXPECT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kWait);
  EXPECT_FALSE(a.Lost(0));
  EXPECT_GT(a.counters().renewals, 0u);
  EXPECT_TRUE(a.CheckStillHolder(0).ok());
}

TEST_F(LedgerTest, FailuresCountTowardMaxAttempts) {
  LedgerOptions o;
  o.max_attempts = 2;
  Ledger a = Make("a", 2, o);
  uint64_t t;
  uint32_t attempt;
  bool for_good = false;
  std::set<uint64_t> failed_tasks;
  for (int round = 0; round < 10; ++round) {
    auto r = a.Acquire(&t, &attempt);
    ASSERT_TRUE(r.ok());
    if (*r == Ledger::Outcome::kAllFinished) break;
    ASSERT_EQ(*r, Ledger::Outcome::kClaimed);
    if (t == 1) {
      ASSERT_TRUE(a.Complete(t, Done(t)).ok());
      continue;
    }
    ErrorRecord e{t, attempt, "a", "truncated gzip", "/x.gz", 0, 0};
    ASSERT_TRUE(a.Fail(t, e, &for_good).ok());
    if (for_good) failed_tasks.insert(t);
  }
  EXPECT_EQ(failed_tasks, std::set<uint64_t>{0});
  Ledger b = Make("b", 2, o);
  EXPECT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kAllFinished);
  EXPECT_TRUE(store_->Stat(root_ + "/job/errors/000000-001.json").ok());
  EXPECT_TRUE(store_->Stat(root_ + "/job/errors/000000-002.json").ok());
  EXPECT_TRUE(store_->Stat(root_ + "/job/failed/000000.json").ok());
}

TEST_F(LedgerTest, TooManyExpiriesFailTheTask) {
  LedgerOptions o;
  o.lease_seconds = 1;
  o.max_expiries = 1;
  uint64_t t;
  uint32_t attempt;
  Ledger a = Make("a", 1, o);
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Ledger b = Make("b", 1, o);
  ASSERT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);  // expiries = 1
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Ledger c = Make("c", 1, o);
  EXPECT_EQ(*c.Acquire(&t, &attempt), Ledger::Outcome::kAllFinished);  // expiries 2 > 1
  EXPECT_TRUE(store_->Stat(root_ + "/job/failed/000000.json").ok());
}

TEST_F(LedgerTest, AFailedLeaseWithoutItsFailedRecordStillFinishesTheJob) {
  // The worker that failed the task died between the lease and the failed record.
  LeaseRecord rec;
  rec.task = 0;
  rec.holder = "dead";
  rec.attempt = 2;
  rec.state = LeaseState::kFailed;
  rec.expiries = 11;
  ASSERT_TRUE(store_->CreateIfAbsent(root_ + "/job/leases/000000-0001", "{}").ok());
  ASSERT_TRUE(store_->CreateIfAbsent(root_ + "/job/leases/000000-0002", ToJson(rec)).ok());
  Ledger b = Make("b", 1);
  uint64_t t;
  uint32_t attempt;
  EXPECT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kAllFinished);
  EXPECT_TRUE(store_->Stat(root_ + "/job/failed/000000.json").ok());
}

TEST_F(LedgerTest, ConcurrentLedgersNeverDoubleATask) {
  constexpr uint64_t kTasks = 300;
  constexpr int kWorkers = 8;
  std::atomic<int> completed{0};
  std::atomic<int> doubled{0};
  std::vector<std::thread> threads;
  std::mutex mu;
  std::multiset<uint64_t> claimed;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      Ledger l = Make("w" + std::to_string(w), kTasks);
      for (;;) {
        uint64_t t;
        uint32_t attempt;
        auto r = l.Acquire(&t, &attempt);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        if (*r == Ledger::Outcome::kAllDone) break;
        if (*r == Ledger::Outcome::kWait) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          continue;
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          claimed.insert(t);
        }
        Status s = l.Complete(t, Done(t));
        if (s.ok())
          ++completed;
        else if (s.Is(StatusCode::kAlreadyExists))
          ++doubled;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(completed.load(), static_cast<int>(kTasks));
  EXPECT_EQ(doubled.load(), 0);
  EXPECT_EQ(claimed.size(), kTasks);
  for (uint64_t t = 0; t < kTasks; ++t) EXPECT_EQ(claimed.count(t), 1u) << t;
}

// Lost replies: the write took effect but the worker saw an unknown outcome (a timeout, a 500).
// The ledger reads the object back and recognises its own write.
TEST_F(LedgerTest, LostRepliesOfClaimTakeoverRenewalAndDoneAreResolvedByReadingBack) {
  FaultInjectionStorage faulty(store_);
  const Status lost = Status::UnknownOutcome("reply lost (test)");
  LedgerOptions o;
  o.lease_seconds = 3;
  Ledger a(&faulty, StorePaths(root_ + "/job"), 1, "a", o);
  uint64_t t;
  uint32_t attempt;
  int f = faulty.AddFault(
      {.op = StorageOp::kCreateIfAbsent, .url_contains = "leases/", .status = lost, .after = true});
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  EXPECT_EQ(faulty.fired(f), 1u);
  EXPECT_TRUE(a.CheckStillHolder(0).ok());

  // A renewal whose reply is lost still counts as a renewal.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  f = faulty.AddFault({.op = StorageOp::kCompareAndSwap, .status = lost, .after = true});
  ASSERT_TRUE(a.RenewDue().ok());
  EXPECT_EQ(faulty.fired(f), 1u);
  EXPECT_FALSE(a.Lost(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(a.RenewDue().ok());  // from the generation the read-back found
  EXPECT_FALSE(a.Lost(0));

  // a releases; b's takeover reply is lost: b still holds attempt 2.
  ASSERT_TRUE(a.Release(0).ok());
  Ledger b(&faulty, StorePaths(root_ + "/job"), 1, "b", o);
  f = faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                       .url_contains = "leases/000000-0002",
                       .status = lost,
                       .after = true});
  ASSERT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);
  EXPECT_EQ(attempt, 2u);
  EXPECT_EQ(faulty.fired(f), 1u);

  // The done record's reply is lost: still recorded once, as b's.
  f = faulty.AddFault(
      {.op = StorageOp::kCreateIfAbsent, .url_contains = "done/", .status = lost, .after = true});
  ASSERT_TRUE(b.CheckStillHolder(0).ok());
  EXPECT_TRUE(b.Complete(0, Done(0)).ok());
  EXPECT_EQ(faulty.fired(f), 1u);
  EXPECT_EQ(*b.Acquire(&t, &attempt), Ledger::Outcome::kAllDone);
}

// A conditional write that never reached the store but reported an unknown outcome: the
// read-back finds nothing, and the claim is tried again (the condition protects the retry).
TEST_F(LedgerTest, UnknownOutcomeOfAWriteThatDidNotHappenIsTriedAgain) {
  FaultInjectionStorage faulty(store_);
  Ledger a(&faulty, StorePaths(root_ + "/job"), 1, "a", {});
  uint64_t t;
  uint32_t attempt;
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                   .url_contains = "leases/",
                   .status = Status::UnknownOutcome("timeout (test)"),
                   .after = false});
  ASSERT_EQ(*a.Acquire(&t, &attempt), Ledger::Outcome::kClaimed);  // the second try wins
  EXPECT_EQ(faulty.calls(StorageOp::kCreateIfAbsent), 2u);
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                   .url_contains = "done/",
                   .status = Status::UnknownOutcome("timeout (test)"),
                   .after = false});
  ASSERT_TRUE(a.Complete(0, Done(0)).ok());
  EXPECT_EQ(faulty.calls(StorageOp::kCreateIfAbsent), 4u);
  EXPECT_TRUE(store_->Stat(root_ + "/job/done/000000.json").ok());
}

// Many workers over a store that loses replies and fails requests at random: every task is done
// exactly once, and no two workers ever hold the same task's lease at the same time.
TEST_F(LedgerTest, RandomStoreFaultsNeverLoseOrDoubleATask) {
  constexpr uint64_t kTasks = 60;
  constexpr int kWorkers = 6;
  FaultInjectionStorage faulty(store_, 42);
  // The threads' interleaving decides how many calls of each kind are made, so the faults that
  // must fire in every run are those of the many claims and done records, and the first listing
  // and the first stat (before their random faults, which may or may not fire).
  const std::vector<int> faults = {
      faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                       .probability = 0.1,
                       .status = Status::UnknownOutcome("reply lost (test)"),
                       .after = true}),
      faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                       .probability = 0.1,
                       .status = Status::UnknownOutcome("timeout (test)")}),
      faulty.AddFault({.op = StorageOp::kList,
                       .nth = 1,
                       .status = Status::Unavailable("503 Slow Down (test)")}),
      faulty.AddFault({.op = StorageOp::kStat,
                       .nth = 1,
                       .status = Status::Unavailable("connection reset (test)")}),
  };
  faulty.AddFault({.op = StorageOp::kList,
                   .probability = 0.1,
                   .status = Status::Unavailable("503 Slow Down (test)")});
  faulty.AddFault({.op = StorageOp::kStat,
                   .probability = 0.05,
                   .status = Status::Unavailable("connection reset (test)")});
  std::mutex mu;
  std::map<uint64_t, std::string> holding;  // task -> worker holding it now
  std::multiset<uint64_t> completed;
  int overlaps = 0;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      const std::string me = "w" + std::to_string(w);
      Ledger l(&faulty, StorePaths(root_ + "/job"), kTasks, me, {});
      for (int errors = 0; errors < 1000;) {
        uint64_t t;
        uint32_t attempt;
        auto r = l.Acquire(&t, &attempt);
        if (!r.ok()) {
          ++errors;  // a failed request: the worker loop retries
          continue;
        }
        if (*r == Ledger::Outcome::kAllDone) return;
        if (*r == Ledger::Outcome::kWait) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!holding.emplace(t, me).second) ++overlaps;
        }
        Status s = l.CheckStillHolder(t);
        while (!s.ok() && s.Is(StatusCode::kUnavailable)) s = l.CheckStillHolder(t);
        ASSERT_TRUE(s.ok()) << s.ToString();
        {
          std::lock_guard<std::mutex> lock(mu);
          holding.erase(t);
        }
        s = l.Complete(t, Done(t));
        std::lock_guard<std::mutex> lock(mu);
        if (s.ok())
          completed.insert(t);
        else
          ADD_FAILURE() << me << " task " << t << ": " << s.ToString();
      }
      ADD_FAILURE() << me << " gave up after 1000 failed requests";
    });
  }
  for (auto& th : threads) th.join();
  for (int id : faults) EXPECT_GT(faulty.fired(id), 0u) << "fault " << id << " never fired";
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(completed.size(), kTasks);
  for (uint64_t t = 0; t < kTasks; ++t) EXPECT_EQ(completed.count(t), 1u) << t;
}

}  // namespace
}  // namespace tokenmill
