// FinalizeJob on a job run here: what it asks of the store, and its checks of the shards.
#include "tokenmill/job/finalize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenmill/job/content_stats.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/job_status.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/job/worker.h"
#include "tokenmill/storage/storage.h"
#include "tokenmill/testing/scoped_env.h"
#include "tokenmill/testing/small_job.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

// A job planned and worked to its end by one worker of one thread.
struct WorkedJob {
  std::string store;
  uint64_t task_count = 0;
  uint64_t tasks_done = 0;
};

StatusOr<WorkedJob> PlanAndWork(const JobSpec& spec, const std::string& scratch_dir) {
  TM_ASSIGN_OR_RETURN(PlanResult plan, PlanJob(spec, {}));
  WorkerOptions options;
  options.store = plan.store;
  options.threads = 1;
  options.scratch_dir = scratch_dir;
  TM_ASSIGN_OR_RETURN(auto worker, RunWorker(options));
  return WorkedJob{plan.store, plan.job.task_count, worker.tasks_done};
}

class FinalizeTest : public ::testing::Test {
 protected:
  static constexpr int kFiles = 6;  // one task each

  void SetUp() override {
    const std::string toml = testing::SmallElectraJob(dir_, kFiles, 200);
    auto spec = ParseJobSpec(toml, "job.toml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = *spec;
    auto job = PlanAndWork(*spec, dir_ + "/scratch");
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    ASSERT_EQ(job->task_count, uint64_t{kFiles});
    ASSERT_EQ(job->tasks_done, uint64_t{kFiles});
    store_ = job->store;
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

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Replace(std::string* text, const std::string& from, const std::string& to) {
  const size_t at = text->find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text->replace(at, from.size(), to);
}

// --merge of Megatron shards in an output folder given as a path or as a URL (read as a bucket
// is): each shard is read once, and with --verify checked by that same read; a changed byte stops
// the merge before the manifest, and the scratch folder goes either way.
class FinalizeMergeTest : public ::testing::TestWithParam<bool> {};

TEST_P(FinalizeMergeTest, ReadsEachShardOnceAndChecksItOnTheWay) {
  const bool url = GetParam();
  testing::TempDir tmp("tm_finalize_merge");
  const std::string dir = tmp.path();
  std::string toml = testing::SmallElectraJob(dir, 3, 2000);
  Replace(&toml, "kind = \"electra\"", "kind = \"gpt\"\neod_token = \"[SEP]\"");
  if (url) Replace(&toml, "path = \"" + dir + "/out\"", "path = \"file://" + dir + "/out\"");
  Replace(&toml, "format = \"tfrecord\"", "format = \"megatron\"");
  auto spec = ParseJobSpec(toml, "job.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto job = PlanAndWork(*spec, dir + "/worker-scratch");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  const std::string store = job->store;
  ASSERT_EQ(IsUrl(store), url) << store;

  fs::create_directory(dir + "/scratch");
  testing::ScopedEnv tmpdir("TMPDIR", dir + "/scratch");
  auto storage = StorageFor(store);
  ASSERT_TRUE(storage.ok());
  auto bytes_read = [&](const FinalizeOptions& o) -> StatusOr<uint64_t> {
    const uint64_t before = (*storage)->counters().bytes_read;
    auto result = FinalizeJob(store, o);
    if (!result.ok()) return result.status();
    return (*storage)->counters().bytes_read - before;
  };
  // What finalize reads besides the shards: the job's record and the tasks' done records.
  auto records = bytes_read({});
  ASSERT_TRUE(records.ok()) << records.status().ToString();

  std::vector<fs::path> bins;
  uint64_t shard_bytes = 0;
  for (const auto& e : fs::directory_iterator(dir + "/out")) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("part-")) continue;
    shard_bytes += fs::file_size(e.path());
    if (name.ends_with(".bin")) bins.push_back(e.path());
  }
  std::sort(bins.begin(), bins.end());
  ASSERT_EQ(bins.size(), 3u);

  auto merged = bytes_read({.merge = true, .verify = true});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(*merged, *records + shard_bytes);  // each shard once, not once more to check it
  std::string concatenated;
  for (const auto& bin : bins) concatenated += ReadFile(bin);
  EXPECT_EQ(ReadFile(dir + "/out/merged.bin"), concatenated);
  const std::string merged_idx = ReadFile(dir + "/out/merged.idx");
  EXPECT_TRUE(fs::is_empty(dir + "/scratch"));

  // The same merge without --verify: the same files.
  fs::remove(dir + "/out/merged.bin");
  fs::remove(dir + "/out/merged.idx");
  ASSERT_TRUE(FinalizeJob(store, {.merge = true}).ok());
  EXPECT_EQ(ReadFile(dir + "/out/merged.bin"), concatenated);
  EXPECT_EQ(ReadFile(dir + "/out/merged.idx"), merged_idx);

  // One byte changed, the size kept: found by the merge's read, nothing published.
  std::string changed = ReadFile(bins[1]);
  changed[changed.size() / 2] ^= 0x01;
  std::ofstream(bins[1], std::ios::binary | std::ios::trunc) << changed;
  for (const char* name : {"manifest.json", "merged.bin", "merged.idx"}) {
    fs::remove(dir + "/out/" + name);
  }
  auto bad = FinalizeJob(store, {.merge = true, .verify = true});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().Is(StatusCode::kDataLoss)) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find(bins[1].filename().string() +
                                        " does not match the sha256 in its done record"),
            std::string::npos)
      << bad.status().ToString();
  EXPECT_FALSE(fs::exists(dir + "/out/manifest.json"));
  EXPECT_FALSE(fs::exists(dir + "/out/merged.bin"));
  EXPECT_TRUE(fs::is_empty(dir + "/scratch"));
  // Without --verify only the sizes are checked: the merge goes on.
  EXPECT_TRUE(FinalizeJob(store, {.merge = true}).ok());
  EXPECT_TRUE(fs::is_empty(dir + "/scratch"));
}

INSTANTIATE_TEST_SUITE_P(PathOrUrl, FinalizeMergeTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Url" : "Path";
                         });

// More tasks than finalize and `status` read at once (1,024): every record is counted once, its
// shards listed and its content summed, across the batches.
TEST(FinalizeManyTasksTest, EveryRecordCountsOnceAcrossBatches) {
  constexpr int kTasks = 1100;
  testing::TempDir tmp("tm_finalize_many");
  const std::string dir = tmp.path();
  auto spec = ParseJobSpec(testing::SmallElectraJob(dir, kTasks, 3), "job.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto job = PlanAndWork(*spec, dir + "/scratch");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ASSERT_EQ(job->task_count, uint64_t{kTasks});
  auto result = FinalizeJob(job->store, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->shards, uint64_t{kTasks});
  EXPECT_EQ(result->totals.documents, uint64_t{kTasks});
  EXPECT_EQ(result->totals.lines, uint64_t{3 * kTasks});
  EXPECT_EQ(result->content.tasks, uint64_t{kTasks});
  EXPECT_EQ(result->content.histogram(kLineChars).count(), uint64_t{3 * kTasks});
  auto storage = StorageFor(job->store);
  ASSERT_TRUE(storage.ok());
  StatusReader reader(*storage, job->store);
  auto status = reader.Read();
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(status->complete);
  EXPECT_EQ(status->shards.size(), size_t{kTasks});
  EXPECT_EQ(status->stats.documents, uint64_t{kTasks});
  EXPECT_EQ(status->content, result->content);
}

}  // namespace
}  // namespace tokenmill
