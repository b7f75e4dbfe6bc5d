#include "tokenmill/job/fleet_stats.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

DoneRecord Done(const std::string& holder, int64_t finished, int64_t elapsed, uint64_t bytes,
                uint32_t attempt = 1, uint32_t expiries = 0) {
  DoneRecord d;
  d.holder = holder;
  d.finished_at_ms = finished;
  d.elapsed_ms = elapsed;
  d.stats.bytes_in = bytes;
  d.attempt = attempt;
  d.expiries = expiries;
  return d;
}

TEST(FleetStatsTest, ThroughputSpreadsEachTaskOverItsRunTime) {
  // Worker a: 10 MB over [0, 10 s); worker b: 4 MB over [5 s, 7 s).
  const DoneRecord d1 = Done("a", 10000, 10000, 10'000'000);
  const DoneRecord d2 = Done("b", 7000, 2000, 4'000'000, 2, 1);
  FleetInputs in;
  in.done = {&d1, &d2};
  WorkerHeartbeat hb;
  hb.id = "b";
  hb.host = "host-b";
  hb.retries = 3;
  in.heartbeats = {hb};
  in.error_records = 1;
  in.takeovers = 1;
  in.max_buckets = 10;
  const FleetStats f = ComputeFleet(in);
  EXPECT_EQ(f.bucket_ms, 1000);
  EXPECT_EQ(f.start_ms, 0);
  ASSERT_EQ(f.workers.size(), 2u);
  EXPECT_EQ(f.workers[0].id, "a");
  EXPECT_EQ(f.workers[1].host, "host-b");
  double total_a = 0, total_b = 0;
  for (double v : f.workers[0].mb_per_s) total_a += v;
  for (double v : f.workers[1].mb_per_s) total_b += v;
  EXPECT_NEAR(total_a, 10.0, 1e-9);  // 1 s buckets: the MB/s values add up to the MB
  EXPECT_NEAR(total_b, 4.0, 1e-9);
  EXPECT_NEAR(f.workers[0].mb_per_s[3], 1.0, 1e-9);
  EXPECT_NEAR(f.workers[1].mb_per_s[5], 2.0, 1e-9);
  EXPECT_NEAR(f.workers[1].mb_per_s[4], 0.0, 1e-9);
  EXPECT_EQ(f.retried_tasks, 1u);
  EXPECT_EQ(f.expiries, 1u);
  EXPECT_EQ(f.takeovers, 1u);
  EXPECT_EQ(f.failed_attempts, 1u);
  EXPECT_EQ(f.storage_retries, 3u);
  EXPECT_EQ(f.task_ms.count(), 2u);
  EXPECT_EQ(f.workers[0].busy_ms, 10000);
}

TEST(FleetStatsTest, LongJobsUseRoundBuckets) {
  const DoneRecord d = Done("a", 3'600'000, 3'600'000, 1);
  FleetInputs in;
  in.done = {&d};
  const FleetStats f = ComputeFleet(in);
  EXPECT_EQ(f.bucket_ms, 60000);  // one hour in 60 one-minute buckets
  EXPECT_LE(f.buckets, 61u);
  EXPECT_TRUE(ComputeFleet(FleetInputs{}).workers.empty());
}

}  // namespace
}  // namespace tokenmill
