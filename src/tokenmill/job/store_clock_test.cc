// The worker's clock against the job store's: the bounds one write gives, the check of a real
// folder store, and a worker that refuses to start when the store's clock is minutes away.
#include "tokenmill/job/store_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "tokenmill/job/protocol.h"
#include "tokenmill/job/worker.h"
#include "tokenmill/storage/fault_injection_storage.h"
#include "tokenmill/testing/planned_job.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

TEST(ClockSkewTest, BoundsFromOneWrite) {
  // Written between 10.000 s and 10.200 s here; the store dated it 10 s (whole seconds).
  EXPECT_EQ(ClockSkewMs(10'000, 10'200, 10'000, 1000), 0);
  // Stored at 9 s: the store's time was in [9, 10) while ours was in [10, 10.2]: maybe equal.
  EXPECT_EQ(ClockSkewMs(10'000, 10'200, 9'000, 1000), 0);
  // Stored at 8 s: ours is ahead by at least 1 s.
  EXPECT_EQ(ClockSkewMs(10'000, 10'200, 8'000, 1000), 1'000);
  // Stored at 12 s: ours is behind by at least 1.8 s.
  EXPECT_EQ(ClockSkewMs(10'000, 10'200, 12'000, 1000), -1'800);
  // Millisecond dates (a folder store): no rounding.
  EXPECT_EQ(ClockSkewMs(10'000, 10'200, 9'990, 1), 9);
  EXPECT_EQ(ClockSkewMs(10'000, 10'200, 10'100, 1), 0);
}

TEST(ClockSkewTest, AQuarterOfALeaseIsAllowed) {
  EXPECT_EQ(AllowedClockSkewMs(60), 15'000);
  EXPECT_EQ(AllowedClockSkewMs(3), 750);
}

class StoreClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = StorageFor(tmp_.path());
    ASSERT_TRUE(s.ok());
    base_ = *s;
  }
  // Writes an object and checks the clock against the store through `store`.
  Status WriteAndCheck(Storage& store, uint32_t lease_seconds) {
    const std::string url = tmp_.path() + "/workers/w.json";
    const int64_t before = NowMs();
    EXPECT_TRUE(store.Write(url, "{}").ok());
    return CheckClockAgainstStore(store, url, before, NowMs(), lease_seconds);
  }
  testing::TempDir tmp_{"tm_store_clock"};
  Storage* base_ = nullptr;
};

TEST_F(StoreClockTest, AFolderStoreAgreesWithThisMachine) {
  EXPECT_TRUE(WriteAndCheck(*base_, 3).ok());
}

TEST_F(StoreClockTest, AClockMinutesAheadOrBehindIsRefusedWithTheFix) {
  FaultInjectionStorage shifted(base_);
  shifted.SetClockOffset(-10 * 60'000);  // the store ten minutes behind: this machine ahead
  const Status ahead = WriteAndCheck(shifted, 60);
  EXPECT_EQ(ahead.code(), StatusCode::kFailedPrecondition);
  // 599 s and a little less: the bound gives up the write's own duration and the second that
  // whole-second dates may have rounded away.
  EXPECT_NE(ahead.message().find("clock is at least 59"), std::string::npos) << ahead.message();
  EXPECT_NE(ahead.message().find("ahead of the job store's"), std::string::npos);
  EXPECT_NE(ahead.message().find("take their tasks over"), std::string::npos);
  EXPECT_NE(ahead.message().find("chrony"), std::string::npos);
  EXPECT_NE(ahead.message().find("lease_seconds = 60 the clocks may differ by 15 s"),
            std::string::npos)
      << ahead.message();

  shifted.SetClockOffset(10 * 60'000);
  const Status behind = WriteAndCheck(shifted, 60);
  EXPECT_EQ(behind.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(behind.message().find("behind the job store's"), std::string::npos) << behind.message();
  const Status short_lease = WriteAndCheck(shifted, 3);
  EXPECT_NE(short_lease.message().find("lease_seconds = 3 the clocks may differ by 0.75 s"),
            std::string::npos)
      << short_lease.message();

  // Within a quarter of the lease: accepted either way.
  shifted.SetClockOffset(-14'000);
  EXPECT_TRUE(WriteAndCheck(shifted, 60).ok());
  shifted.SetClockOffset(14'000);
  EXPECT_TRUE(WriteAndCheck(shifted, 60).ok());
}

TEST_F(StoreClockTest, AFailedStatOrAStoreWithoutDatesPasses) {
  FaultInjectionStorage faulty(base_);
  faulty.AddFault({.op = StorageOp::kStat, .status = Status::Unavailable("test")});
  faulty.SetClockOffset(-10 * 60'000);
  EXPECT_TRUE(WriteAndCheck(faulty, 60).ok());
  // No modification time (0) is not shifted, and passes.
  const std::string url = tmp_.path() + "/never-written";
  EXPECT_TRUE(CheckClockAgainstStore(*base_, url, NowMs(), NowMs(), 60).ok());
}

// A worker's last record in the store.
StatusOr<WorkerHeartbeat> ReadWorkerRecord(Storage& store, const StorePaths& paths,
                                           const std::string& worker_id) {
  TM_ASSIGN_OR_RETURN(std::string json, store.Read(paths.Worker(worker_id)));
  return WorkerHeartbeatFromJson(json);
}

// A worker whose clock is ten minutes ahead of the store's stops before its first claim, says
// why, and leaves its heartbeat record marked as exited; the job is untouched.
TEST(WorkerClockTest, AWorkerMinutesAheadOfTheStoreClaimsNothing) {
  testing::TempDir tmp("tm_worker_clock");
  const std::string store = testing::PlanSmallJob(tmp.path(), 2);
  ASSERT_FALSE(store.empty());
  auto base = StorageFor(store);
  ASSERT_TRUE(base.ok());
  FaultInjectionStorage shifted(*base);
  shifted.SetClockOffset(-10 * 60'000);
  WorkerOptions options;
  options.store = store;
  options.threads = 1;
  options.worker_id = "skewed";
  options.scratch_dir = tmp.path() + "/scratch";
  options.wrap_store = [&](Storage*) -> Storage* { return &shifted; };
  auto worker = RunWorker(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_EQ(worker.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(worker.status().message().find("ahead of the job store's"), std::string::npos)
      << worker.status().message();
  EXPECT_EQ(shifted.calls(StorageOp::kCreateIfAbsent), 0u);  // no claim
  const StorePaths paths(store);
  auto record = ReadWorkerRecord(**base, paths, "skewed");
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_TRUE(record->exited);
  EXPECT_NE(record->error.find("FailedPrecondition: this machine's clock is at least"),
            std::string::npos)
      << record->error;

  // In step with the store, the same worker does the job.
  shifted.SetClockOffset(0);
  auto again = RunWorker(options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->tasks_done, 2u);
}

// A clock stepped while the worker runs (here: the store's moved ten minutes back while the
// worker's first claim is in flight) is caught by the next check: the worker claims nothing
// more, gives back what it holds, and fails with the reason.
TEST(WorkerClockTest, AClockSteppedDuringTheJobStopsTheWorker) {
  testing::TempDir tmp("tm_worker_clock_step");
  const std::string store = testing::PlanSmallJob(tmp.path(), 3);
  ASSERT_FALSE(store.empty());
  auto base = StorageFor(store);
  ASSERT_TRUE(base.ok());
  FaultInjectionStorage shifted(*base);
  shifted.AddFault({.op = StorageOp::kCreateIfAbsent,
                    .url_contains = "/leases/",
                    .status = Status::AlreadyExists("created by another worker (test)"),
                    .on_fire = [&](StorageOp, std::string_view) {
                      // The claim waits until a clock check has begun since the step (its Stat;
                      // one in flight may already see it), and a little more for it to end,
                      // however slow the machine (sanitizers, a loaded CI host).
                      const uint64_t stats = shifted.calls(StorageOp::kStat);
                      shifted.SetClockOffset(-10 * 60'000);
                      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
                      while (shifted.calls(StorageOp::kStat) == stats &&
                             std::chrono::steady_clock::now() < until) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(5));
                      }
                      std::this_thread::sleep_for(std::chrono::milliseconds(300));
                    }});
  WorkerOptions options;
  options.store = store;
  options.threads = 1;
  options.worker_id = "stepped";
  options.scratch_dir = tmp.path() + "/scratch";
  options.clock_check_ms = 20;
  options.wrap_store = [&](Storage*) -> Storage* { return &shifted; };
  auto worker = RunWorker(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_EQ(worker.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(worker.status().message().find("ahead of the job store's"), std::string::npos)
      << worker.status().message();
  EXPECT_EQ(shifted.calls(StorageOp::kCreateIfAbsent), 1u);  // nothing claimed after the step
  const StorePaths paths(store);
  auto done = (*base)->List(paths.DonePrefix());
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->empty());
  // The reason is in the worker's last record, for `status`.
  auto record = ReadWorkerRecord(**base, paths, "stepped");
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_TRUE(record->exited);
  EXPECT_NE(record->error.find("ahead of the job store's"), std::string::npos) << record->error;

  shifted.ClearFaults();
  shifted.SetClockOffset(0);
  auto again = RunWorker(options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->tasks_done, 3u);
}

}  // namespace
}  // namespace tokenmill
