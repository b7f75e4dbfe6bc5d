#include "tokenmill/launch/launcher.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "tokenmill/launch/test_util.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::launch {
namespace {

using testing::TempDir;

TEST(LaunchOptionsTest, Validates) {
  EXPECT_TRUE(ValidateLaunchOptions({"/x", 1, false}).ok());
  EXPECT_TRUE(ValidateLaunchOptions({"/x", kMaxWorkers, false}).ok());
  Status none = ValidateLaunchOptions({"", 1, false});
  EXPECT_TRUE(none.Is(StatusCode::kInvalidArgument));
  EXPECT_NE(none.message().find("STORE"), std::string::npos);
  Status zero = ValidateLaunchOptions({"/x", 0, false});
  EXPECT_NE(zero.message().find("--workers 0"), std::string::npos);
  EXPECT_FALSE(ValidateLaunchOptions({"/x", kMaxWorkers + 1, false}).ok());
}

TEST(CanonicalStoreTest, MakesLocalPathsAbsolute) {
  EXPECT_EQ(*CanonicalStore("gs://b/job/"), "gs://b/job");
  EXPECT_EQ(*CanonicalStore("s3://b/job"), "s3://b/job");
  EXPECT_EQ(*CanonicalStore("/data/x/../job/"), "/data/job");
  EXPECT_EQ(*CanonicalStore("file:///data/job"), "/data/job");
  auto rel = CanonicalStore("out/_job");
  ASSERT_TRUE(rel.ok());
  EXPECT_EQ((*rel)[0], '/');
  EXPECT_NE(rel->find("/out/_job"), std::string::npos);
  EXPECT_FALSE(CanonicalStore("").ok());
  EXPECT_TRUE(IsRemoteStore("gs://b/x"));
  EXPECT_FALSE(IsRemoteStore("/b/x"));
}

TEST(DefaultLaunchNameTest, IsAValidShortName) {
  std::string name = DefaultLaunchName("gs://bucket/job");
  EXPECT_EQ(name.rfind("tokenmill-" + StoreTag("gs://bucket/job") + "-", 0), 0u);
  EXPECT_EQ(name.size(), 29u);
  EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"), std::string::npos);
  EXPECT_NE(StoreTag("gs://a/x"), StoreTag("gs://a/y"));
}

TEST(LaunchRecordTest, RecordsAreNumberedPerLauncherAndListed) {
  TempDir dir;
  std::string store = dir.Join("_job");
  auto empty = ListLaunchRecords(store);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ(FormatLaunchRecords(*empty), "");

  LaunchRecord slurm;
  slurm.launcher = "slurm";
  slurm.workers = 8;
  slurm.details = {{"slurm_job_id", "1234"}, {"log_dir", "/x/logs"}};
  auto first = RecordLaunch(store, slurm);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->number, 1);
  EXPECT_EQ(first->url, store + "/launches/slurm-1.json");
  EXPECT_EQ(first->time.size(), 20u);  // 2026-11-30T06:00:00Z
  auto second = RecordLaunch(store, slurm);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->number, 2);
  LaunchRecord gce;
  gce.launcher = "gce";
  gce.workers = 3;
  gce.details = {{"group", "tokenmill-g"}, {"zone", "us-central1-a"}};
  auto third = RecordLaunch(store, gce);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->number, 1);

  // Something that is not a record in the folder is ignored.
  auto storage = StorageFor(store);
  ASSERT_TRUE(storage.ok());
  ASSERT_TRUE((*storage)->Write(store + "/launches/notes.txt", "hello").ok());
  ASSERT_TRUE((*storage)->Write(store + "/launches/broken-1.json", "{not json").ok());

  auto listed = ListLaunchRecords(store);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 3u);
  std::multiset<std::string> names;
  for (const auto& r : *listed) names.insert(r.launcher + "-" + std::to_string(r.number));
  EXPECT_EQ(names, (std::multiset<std::string>{"slurm-1", "slurm-2", "gce-1"}));
  for (const auto& r : *listed) {
    if (r.launcher == "slurm") {
      EXPECT_EQ(r.details.value("slurm_job_id", ""), "1234");
    }
    EXPECT_FALSE(r.host.empty());
  }

  std::string text = FormatLaunchRecords(*listed);
  EXPECT_EQ(text.rfind("launches:\n", 0), 0u);
  EXPECT_NE(text.find("slurm-2"), std::string::npos);
  EXPECT_NE(text.find("8 workers  slurm job 1234, logs: /x/logs"), std::string::npos);
  EXPECT_NE(text.find("gce group tokenmill-g (zone us-central1-a)"), std::string::npos);

  nlohmann::json json = LaunchRecordsToJson(*listed);
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 3u);
  EXPECT_TRUE(json[0].contains("url"));

  // A record can be updated in place.
  LaunchRecord g = *third;
  g.details["torn_down"] = "2026-11-30T07:00:00Z";
  Status updated = UpdateLaunchRecord(g);
  ASSERT_TRUE(updated.ok()) << updated.ToString();
  auto again = ListLaunchRecords(store);
  ASSERT_TRUE(again.ok());
  bool found = false;
  for (const auto& r : *again) {
    if (r.launcher == "gce") {
      found = true;
      EXPECT_EQ(r.details.value("torn_down", ""), "2026-11-30T07:00:00Z");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_NE(FormatLaunchRecords(*again).find("torn down"), std::string::npos);
}

TEST(LaunchRecordTest, ConcurrentLaunchesGetDistinctNumbers) {
  TempDir dir;
  std::string store = dir.Join("_job");
  constexpr int kThreads = 8;
  std::vector<int> numbers(kThreads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      LaunchRecord r;
      r.launcher = "local";
      r.workers = i + 1;
      auto written = RecordLaunch(store, r);
      if (written.ok()) numbers[i] = written->number;
    });
  }
  for (auto& t : threads) t.join();
  std::set<int> distinct(numbers.begin(), numbers.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(distinct.count(0), 0u);
  auto listed = ListLaunchRecords(store);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), static_cast<size_t>(kThreads));
}

TEST(LaunchRecordTest, RejectsBadLauncherNames) {
  TempDir dir;
  LaunchRecord r;
  r.launcher = "../x";
  EXPECT_TRUE(RecordLaunch(dir.Join("_job"), r).status().Is(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace tokenmill::launch
