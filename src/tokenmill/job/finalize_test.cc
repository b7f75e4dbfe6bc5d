// FinalizeJob on a job run here: what it asks of the store, and its checks of the shards.
#include "tokenmill/job/finalize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/job/worker.h"
#include "tokenmill/storage/storage.h"
#include "tokenmill/testing/small_job.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

class FinalizeTest : public ::testing::Test {
 protected:
  static constexpr int kFiles = 6;  // one task each

  void SetUp() override {
    const std::string toml = testing::SmallElectraJob(dir_, kFiles, 200);
    auto spec = ParseJobSpec(toml, "job.toml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = *spec;
    auto plan = PlanJob(*spec, {});
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_EQ(plan->job.task_count, uint64_t{kFiles});
    store_ = plan->store;
    WorkerOptions options;
    options.store = store_;
    options.threads = 1;
    options.scratch_dir = dir_ + "/scratch";
    auto worker = RunWorker(options);
    ASSERT_TRUE(worker.ok()) << worker.status().ToString();
    ASSERT_EQ(worker->tasks_done, uint64_t{kFiles});
  }

  testing::TempDir tmp_{"tm_finalize"};
  const std::string dir_ = tmp_.path();
  std::string store_;
  JobSpec spec_;
};

TEST_F(FinalizeTest, ReadsEachDoneRecordOnceAndListsTheShardsInsteadOfAskingForEach) {
  auto storage = StorageFor(store_);
  ASSERT_TRUE(storage.ok());
  const StorageCounters before = (*storage)->counters();
  auto result = FinalizeJob(store_, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const StorageCounters after = (*storage)->counters();
  EXPECT_GE(result->shards, uint64_t{kFiles});
  // The job record and one read per done record; no read (or stat) per shard.
  EXPECT_EQ(after.reads - before.reads, uint64_t{1 + kFiles});
  // The done records, the shards, the output's incomplete writes.
  EXPECT_LE(after.lists - before.lists, 3u);
  EXPECT_TRUE(fs::exists(dir_ + "/out/manifest.json"));
}

TEST_F(FinalizeTest, AMissingOrResizedShardIsNamed) {
  std::vector<fs::path> shards;
  for (const auto& e : fs::directory_iterator(dir_ + "/out")) {
    if (e.path().filename().string().starts_with("part-")) shards.push_back(e.path());
  }
  std::sort(shards.begin(), shards.end());
  ASSERT_GE(shards.size(), 2u);
  fs::remove(shards[0]);
  auto missing = FinalizeJob(store_, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().Is(StatusCode::kDataLoss)) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find(shards[0].filename().string() +
                                            " listed by task records is missing"),
            std::string::npos)
      << missing.status().ToString();
  EXPECT_FALSE(fs::exists(dir_ + "/out/manifest.json"));

  std::ofstream(shards[0]) << "short";
  auto resized = FinalizeJob(store_, {});
  ASSERT_FALSE(resized.ok());
  EXPECT_NE(resized.status().message().find(shards[0].filename().string() +
                                            " has 5 bytes but its done record says"),
            std::string::npos)
      << resized.status().ToString();
}

// --fresh: the old store (its done records, leases, workers, job record) and the old shards go,
// files of other names stay, and the job is planned anew.
TEST_F(FinalizeTest, AFreshPlanDeletesTheOldStoreAndShardsOnly) {
  ASSERT_TRUE(FinalizeJob(store_, {}).ok());
  std::ofstream(dir_ + "/out/notes.txt") << "mine";
  ASSERT_TRUE(fs::exists(store_ + "/done"));
  PlanOptions fresh;
  fresh.fresh = true;
  auto plan = PlanJob(spec_, fresh);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_FALSE(plan->resumed);
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(dir_ + "/out")) {
    if (e.is_regular_file()) left.push_back(fs::relative(e.path(), dir_ + "/out").string());
  }
  for (const std::string& name : left) {
    EXPECT_FALSE(name.starts_with("part-") || name == "manifest.json") << name;
    EXPECT_EQ(name.find("done/"), std::string::npos) << name;
    EXPECT_EQ(name.find("workers/"), std::string::npos) << name;
    EXPECT_EQ(name.find("leases/"), std::string::npos) << name;
  }
  EXPECT_TRUE(fs::exists(dir_ + "/out/notes.txt"));
  EXPECT_TRUE(fs::exists(store_ + "/tasks.jsonl"));
  auto storage = StorageFor(store_);
  ASSERT_TRUE(storage.ok());
  EXPECT_TRUE((*storage)->Read(store_ + "/job.json").ok());  // the new job's record
}

}  // namespace
}  // namespace tokenmill
