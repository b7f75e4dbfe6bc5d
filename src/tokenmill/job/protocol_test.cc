#include "tokenmill/job/protocol.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(StorePaths, LayoutAndTaskNumbers) {
  StorePaths p("s3://b/job");
  EXPECT_EQ(p.Lease(7, 1), "s3://b/job/leases/000007-0001");
  EXPECT_EQ(p.Lease(7, 12345), "s3://b/job/leases/000007-12345");
  EXPECT_EQ(p.Done(123456), "s3://b/job/done/123456.json");
  EXPECT_EQ(p.Error(3, 2), "s3://b/job/errors/000003-002.json");
  EXPECT_EQ(StorePaths::TaskFromLocation(p.Lease(42, 3)), 42);
  EXPECT_EQ(StorePaths::TaskFromLocation(p.Lease(1234567, 3)), 1234567);
  EXPECT_EQ(StorePaths::AttemptFromLocation(p.Lease(42, 3)), 3);
  EXPECT_EQ(StorePaths::AttemptFromLocation(p.Lease(42, 12345)), 12345);
  EXPECT_EQ(StorePaths::AttemptFromLocation(p.Error(5, 2)), 2);
  EXPECT_EQ(StorePaths::AttemptFromLocation("/x/leases/000042"), -1);
  EXPECT_EQ(StorePaths::AttemptFromLocation("/x/leases/000042-"), -1);
  EXPECT_EQ(StorePaths::AttemptFromLocation("/x/leases/-7"), -1);
  EXPECT_EQ(StorePaths::TaskFromLocation(p.Done(9)), 9);
  EXPECT_EQ(StorePaths::TaskFromLocation(p.Error(5, 1)), 5);
  EXPECT_EQ(StorePaths::TaskFromLocation("/x/leases/abc"), -1);
}

TEST(Records, RoundTrip) {
  LeaseRecord l{12, "host-1-abc", 3, 1700000000000, LeaseState::kReleased, 1, 2, 99};
  auto back = LeaseRecordFromJson(ToJson(l));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->holder, "host-1-abc");
  EXPECT_EQ(back->state, LeaseState::kReleased);
  EXPECT_EQ(back->seq, 99u);
  EXPECT_EQ(ToJson(*back), ToJson(l));

  DoneRecord d;
  d.task = 4;
  d.shards.push_back({"part-000004-000.tfrecord", 100, "ab", 3, 50});
  d.stats.tokens = 50;
  auto db = DoneRecordFromJson(ToJson(d));
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->shards.at(0).name, "part-000004-000.tfrecord");
  EXPECT_EQ(db->stats.tokens, 50u);

  EXPECT_FALSE(LeaseRecordFromJson("{not json").ok());
  EXPECT_EQ(LeaseRecordFromJson("{not json").status().code(), StatusCode::kDataLoss);
}

TEST(TaskStats, Sum) {
  TaskStats a, b;
  a.tokens = 5;
  b.tokens = 7;
  b.examples = 2;
  a += b;
  EXPECT_EQ(a.tokens, 12u);
  EXPECT_EQ(a.examples, 2u);
}

}  // namespace
}  // namespace tokenmill
