// RunWorker's claims made while the task runs, the job's tokenizer checked against its digests,
// and RemoveStaleScratch: the scratch folders that killed workers of this host left behind.
#include "tokenmill/job/worker.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tokenmill/job/finalize.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/job/protocol.h"
#include "tokenmill/storage/fault_injection_storage.h"
#include "tokenmill/testing/planned_job.h"
#include "tokenmill/testing/small_job.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

using testing::PlanSmallJob;

// The first claim is lost to another worker while the task already runs: that run is dropped
// unpublished, and the next claim is made before its task starts (the worker's view was stale).
// Each task is done once; the two lost ones by the worker's takeovers once the other releases
// them.
TEST(WorkerClaimTest, ATaskStartsWhileItsClaimIsMadeAndIsDroppedWhenTheClaimIsLost) {
  testing::TempDir tmp("tm_worker_claim");
  const std::string dir = tmp.path();
  constexpr int kFiles = 4;
  const std::string store = PlanSmallJob(dir, kFiles);
  ASSERT_FALSE(store.empty());
  auto base = StorageFor(store);
  ASSERT_TRUE(base.ok());
  FaultInjectionStorage faulty(*base);
  const std::string scratch = dir + "/scratch";
  auto task_running = [&] {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(scratch, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().filename().string().starts_with("task-")) return true;
    }
    return false;
  };
  std::atomic<bool> ran_during_first_claim{false};
  std::atomic<bool> ran_during_second_claim{false};
  std::vector<std::string> stolen;  // the lease keys of the lost claims
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                   .url_contains = "/leases/",
                   .times = 2,
                   .status = Status::AlreadyExists("created by another worker (test)"),
                   .on_fire = [&](StorageOp, std::string_view url) {
                     if (stolen.empty()) {
                       // The task's folder appears while the claim is still undecided.
                       const auto until =
                           std::chrono::steady_clock::now() + std::chrono::seconds(20);
                       while (!ran_during_first_claim && std::chrono::steady_clock::now() < until) {
                         ran_during_first_claim = task_running();
                         std::this_thread::sleep_for(std::chrono::milliseconds(1));
                       }
                     } else {
                       std::this_thread::sleep_for(std::chrono::milliseconds(50));
                       ran_during_second_claim = task_running();
                     }
                     // The other worker gives the task back (as at SIGTERM), so that it can be
                     // taken over.
                     LeaseRecord other;
                     other.task = static_cast<uint64_t>(StorePaths::TaskFromLocation(url));
                     other.holder = "other";
                     other.attempt = 1;
                     other.state = LeaseState::kReleased;
                     stolen.emplace_back(url);
                     ASSERT_TRUE((*base)->CreateIfAbsent(url, ToJson(other)).ok());
                   }});
  WorkerOptions options;
  options.store = store;
  options.threads = 1;
  options.scratch_dir = scratch;
  options.wrap_store = [&](Storage*) -> Storage* { return &faulty; };
  auto worker = RunWorker(options);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  EXPECT_TRUE(ran_during_first_claim);
  EXPECT_FALSE(ran_during_second_claim);
  EXPECT_EQ(worker->tasks_done, uint64_t{kFiles});
  EXPECT_EQ(worker->ledger.claim_conflicts, 2u);
  ASSERT_EQ(stolen.size(), 2u);
  for (const std::string& key : stolen) {
    const auto task = static_cast<uint64_t>(StorePaths::TaskFromLocation(key));
    auto done = (*base)->Read(StorePaths(store).Done(task));
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    auto record = DoneRecordFromJson(*done);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->attempt, 2u) << key;
    EXPECT_NE(record->holder, "other");
  }
  auto finalized = FinalizeJob(store, {.verify = true});
  ASSERT_TRUE(finalized.ok()) << finalized.status().ToString();
  EXPECT_EQ(finalized->shards, uint64_t{kFiles});
}

// A pid that no longer runs: a child that has exited and been waited for.
pid_t DeadPid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

class StaleScratchTest : public ::testing::Test {
 protected:
  // A folder with a partial shard in a task folder, last touched `age` ago.
  std::string Make(const std::string& name, std::chrono::seconds age) {
    const std::string path = dir_ + "/" + name;
    fs::create_directories(path + "/task-3-1");
    std::ofstream(path + "/task-3-1/part-000003-000.tfrecord") << "partial";
    fs::last_write_time(path, fs::file_time_type::clock::now() - age);
    return path;
  }
  testing::TempDir tmp_{"tm_scratch"};
  const std::string dir_ = tmp_.path();
};

// The job's tokenizer comes from the store's copy of its files, each checked against its digest
// in job.json: a copy changed after planning stops the worker before any task, naming the file.
TEST(JobTokenizerTest, AStoreCopyThatNoLongerMatchesItsDigestStopsTheWorker) {
  testing::TempDir tmp("tm_job_tokenizer");
  const std::string dir = tmp.path();
  const std::string store = PlanSmallJob(dir, 2);
  ASSERT_FALSE(store.empty());
  auto storage = StorageFor(store);
  ASSERT_TRUE(storage.ok());
  const StorePaths paths(store);
  auto job = ReadJobRecord(**storage, paths);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  auto spec = JobSpec::FromJson(job->spec_json);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto loaded = LoadJobTokenizer(**storage, paths, *job, spec->tokenizer);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_GT((*loaded)->vocab_size(), 0u);

  ASSERT_FALSE(job->tokenizer_files.empty());
  const auto& rec = job->tokenizer_files[0];
  const std::string copy = paths.TokenizerFile(rec.role, rec.name);
  auto data = (*storage)->Read(copy);
  ASSERT_TRUE(data.ok());
  ASSERT_TRUE((*storage)->Write(copy, *data + "extra\n").ok());
  auto changed = LoadJobTokenizer(**storage, paths, *job, spec->tokenizer);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(changed.status().message().find(copy), std::string::npos)
      << changed.status().ToString();
  EXPECT_NE(changed.status().message().find("--fresh"), std::string::npos);

  WorkerOptions options;
  options.store = store;
  options.threads = 1;
  options.scratch_dir = dir + "/scratch";
  auto worker = RunWorker(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_EQ(worker.status().code(), StatusCode::kDataLoss) << worker.status().ToString();
  EXPECT_EQ((*storage)->Stat(paths.Done(0)).status().code(), StatusCode::kNotFound)
      << "no task ran";
}

TEST_F(StaleScratchTest, RemovesOnlyOldFoldersOfThisHostsDeadWorkers) {
  const auto old = std::chrono::hours(2);
  const std::string dead = std::to_string(DeadPid());
  const std::string live = std::to_string(::getpid());
  const std::string gone = Make("tokenmill-node7-" + dead + "-00beef", old);
  const std::string running = Make("tokenmill-node7-" + live + "-00beef", old);
  const std::string recent = Make("tokenmill-node7-" + dead + "-00cafe", std::chrono::seconds(5));
  const std::string other_host = Make("tokenmill-node8-" + dead + "-00beef", old);
  const std::string not_ours = Make("tokenmill-node7-" + dead + "-notes", old);
  const std::string other_name = Make("tm-node7-" + dead + "-00beef", old);
  std::ofstream(dir_ + "/tokenmill-node7-" + dead + "-00face") << "a file, not a folder";

  EXPECT_EQ(RemoveStaleScratch(dir_, "node7"), 1);
  EXPECT_FALSE(fs::exists(gone));
  EXPECT_TRUE(fs::exists(running + "/task-3-1/part-000003-000.tfrecord"));
  EXPECT_TRUE(fs::exists(recent));
  EXPECT_TRUE(fs::exists(other_host));
  EXPECT_TRUE(fs::exists(not_ours));
  EXPECT_TRUE(fs::exists(other_name));
  EXPECT_TRUE(fs::exists(dir_ + "/tokenmill-node7-" + dead + "-00face"));
  EXPECT_EQ(RemoveStaleScratch(dir_, "node7"), 0);
}

TEST_F(StaleScratchTest, AMissingParentRemovesNothing) {
  EXPECT_EQ(RemoveStaleScratch(dir_ + "/none", "node7"), 0);
}

}  // namespace
}  // namespace tokenmill
