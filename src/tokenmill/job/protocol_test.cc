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

TEST(Records, TaskFollowingInputsOnlyWhenPresent) {
  TaskDef t;
  t.id = 0;
  t.url = "/in/a.txt";
  t.end = t.size = 10;
  // A task of one range keeps the record layout it always had.
  EXPECT_EQ(ToJson(t),
            R"({"begin":0,"compressed":false,"end":10,"id":0,"size":10,"url":"/in/a.txt"})");
  t.following = {{"/in/b.txt.gz", 7, true}, {"/in/c.txt", 3, false}};
  const std::string json = ToJson(t);
  EXPECT_NE(json.find(R"("following":[{"compressed":true,"size":7,"url":"/in/b.txt.gz"})"),
            std::string::npos)
      << json;
  auto back = TaskDefFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->following.size(), 2u);
  EXPECT_EQ(back->following[0].url, "/in/b.txt.gz");
  EXPECT_TRUE(back->following[0].compressed);
  EXPECT_EQ(back->following[1].size, 3u);
  EXPECT_EQ(back->InputBytes(), 20u);
  EXPECT_EQ(ToJson(*back), json);
  EXPECT_EQ(TaskDefFromJson(R"({"id":0,"url":"/a","following":"x"})").status().code(),
            StatusCode::kDataLoss);
}

TEST(Records, DoneRecordCarriesContentAndFleetFigures) {
  DoneRecord d;
  d.task = 7;
  ContentStatsCollector c(10);
  c.AddDocument("abc 中", 3);
  const uint32_t ids[] = {1, 1, 2};
  c.OnTokens(ids);
  c.AddExample(5);
  d.content = c.Finish({{"bert.masked_tokens", 2}});
  d.failures = 1;
  d.expiries = 2;
  auto back = DoneRecordFromJson(ToJson(d));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->content, d.content);
  EXPECT_EQ(back->failures, 1u);
  EXPECT_EQ(back->expiries, 2u);
  // A record written before content statistics existed still reads, with none.
  auto old = DoneRecordFromJson(R"({"task":3,"holder":"h","attempt":1,"shards":[],)"
                                R"("stats":{"tokens":9},"elapsed_ms":5,"finished_at_ms":6})");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->content.tasks, 0u);
  EXPECT_EQ(old->stats.tokens, 9u);
  // Malformed statistics make the record malformed, naming it.
  auto bad = DoneRecordFromJson(R"({"task":3,"content":{"histograms":{"x":{"count":1}}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("done"), std::string::npos);
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
