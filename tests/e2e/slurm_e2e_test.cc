// `tokenmill launch slurm` against a real Slurm cluster (label "slurm").
//
// CI starts a single-node cluster with scripts/slurm.sh and sets SLURM_CONF; without a cluster the
// tests skip, unless TOKENMILL_REQUIRE_SLURM=1, when they fail. Each test plans a job over the
// repo's sample data (or the shared corpus), launches it as a job array through sbatch, waits for
// it with squeue (there is no sacct), and checks that `finalize` succeeds and that the shards are
// byte-identical to a single-worker run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tokenmill/launch/launcher.h"
#include "tokenmill/launch/names.h"
#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

constexpr const char* kBinary = TOKENMILL_BINARY;
constexpr auto kJobTimeout = std::chrono::seconds(240);

// Why Slurm cannot be used here, or empty.
std::string SlurmMissing() {
  const char* conf = std::getenv("SLURM_CONF");
  if (conf == nullptr || *conf == '\0') return "SLURM_CONF is not set";
  for (const char* tool : {"sbatch", "squeue", "scancel", "sinfo"}) {
    if (FindExecutable(tool).empty()) return std::string(tool) + " is not on PATH";
  }
  auto sinfo = RunProcess({"sinfo", "-h", "-o", "%T"});
  if (!sinfo.ok() || sinfo->exit_code != 0) return "sinfo cannot reach the cluster";
  if (sinfo->out.find("idle") == std::string::npos &&
      sinfo->out.find("mixed") == std::string::npos &&
      sinfo->out.find("alloc") == std::string::npos) {
    return "no node is up (sinfo: " + sinfo->out + ")";
  }
  return "";
}

#define REQUIRE_SLURM()                                                                        \
  do {                                                                                         \
    std::string missing = SlurmMissing();                                                      \
    if (!missing.empty()) {                                                                    \
      const char* require = std::getenv("TOKENMILL_REQUIRE_SLURM");                            \
      if (require != nullptr && std::string(require) == "1") {                                 \
        FAIL() << "TOKENMILL_REQUIRE_SLURM=1 but " << missing;                                 \
      }                                                                                        \
      GTEST_SKIP() << "no Slurm cluster (" << missing                                          \
                   << "): start one with `bash scripts/slurm.sh && source /tmp/slurm/env.sh`"; \
    }                                                                                          \
  } while (0)

// Runs a tokenmill command; fails the test (with its output) unless it exits 0.
ProcessResult Tokenmill(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kBinary};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = RunProcess(argv);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  EXPECT_EQ(r->exit_code, 0) << ShellCommandLine(argv) << "\n" << r->out << r->err;
  return *r;
}

// A job over `inputs` whose output goes to <dir>/<name>; returns the job file.
std::string WriteJob(const TempDir& dir, const std::string& name,
                     const std::vector<std::string>& inputs, const std::string& task_size,
                     int lease_seconds) {
  std::string paths;
  for (const std::string& in : inputs) paths += (paths.empty() ? "\"" : ", \"") + in + "\"";
  std::string job = "[input]\npaths = [" + paths +
                    "]\nformat = \"text\"\n\n"
                    "[tokenizer]\npath = \"" TOKENMILL_SOURCE_DIR
                    "/data/vocab/bert-base-chinese/vocab.txt\"\nlowercase = true\n"
                    "compat = \"huggingface\"\n\n"
                    "[examples]\nkind = \"electra\"\nmax_seq_length = 128\nseed = 7\n\n"
                    "[output]\npath = \"" +
                    dir.Join(name) +
                    "\"\nformat = \"tfrecord\"\nshard_size = \"256KiB\"\n\n"
                    "[job]\ntask_size = \"" +
                    task_size + "\"\nlease_seconds = " + std::to_string(lease_seconds) + "\n";
  std::string path = dir.Join(name + ".toml");
  WriteFile(path, job);
  return path;
}

// The job's output files (shards), relative to the output folder, without the job store, the
// logs and the manifest (which names the store and times).
std::map<std::string, std::string> Shards(const std::string& out) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(out)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = fs::relative(entry.path(), out).string();
    if (rel.rfind("_job/", 0) == 0 || rel.rfind("logs/", 0) == 0) continue;
    if (rel.find("manifest") != std::string::npos) continue;
    files[rel] = ReadFile(entry.path().string());
  }
  return files;
}

void ExpectSameShards(const std::string& expected_out, const std::string& actual_out) {
  auto expected = Shards(expected_out);
  auto actual = Shards(actual_out);
  ASSERT_FALSE(expected.empty()) << "no shards in " << expected_out;
  EXPECT_EQ(expected.size(), actual.size());
  for (const auto& [name, bytes] : expected) {
    auto it = actual.find(name);
    if (it == actual.end()) {
      ADD_FAILURE() << name << " is missing from " << actual_out;
      continue;
    }
    EXPECT_TRUE(it->second == bytes) << name << " differs";
  }
}

// The job id from `tokenmill launch slurm` output ("slurm job <id>" on a line of its own).
std::string JobIdFrom(const std::string& out) {
  std::string text = "\n" + out;
  size_t at = text.find("\nslurm job ");
  if (at == std::string::npos) return "";
  size_t start = at + 11, end = text.find('\n', start);
  std::string id = text.substr(start, end == std::string::npos ? end : end - start);
  return IsDigits(id) ? id : "";
}

// The states of the job's array tasks still known to squeue (pending/running/completing).
std::string ActiveStates(const std::string& job_id) {
  auto r = RunProcess({"squeue", "-h", "-j", job_id, "-o", "%i %T"});
  if (!r.ok()) return "";
  return r->out;
}

// Waits until no task of the job is pending or running.
bool WaitForJob(const std::string& job_id) {
  auto deadline = std::chrono::steady_clock::now() + kJobTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ActiveStates(job_id).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

nlohmann::json StatusJson(const std::string& store) {
  ProcessResult r = Tokenmill({"status", store, "--json"});
  return nlohmann::json::parse(r.out, nullptr, false);
}

std::string Logs(const std::string& dir) {
  std::string text;
  if (!fs::exists(dir)) return text;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".log") continue;
    text += "==> " + entry.path().string() + "\n" + ReadFile(entry.path().string());
  }
  return text;
}

// The processes of `tokenmill work <store>` on this machine (the test cluster is one node).
std::vector<pid_t> WorkerPids(const std::string& store) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (!IsDigits(name)) continue;
    std::string cmdline = ReadFile(entry.path().string() + "/cmdline");
    std::vector<std::string> argv;
    for (size_t start = 0; start < cmdline.size();) {
      size_t end = cmdline.find('\0', start);
      if (end == std::string::npos) end = cmdline.size();
      argv.push_back(cmdline.substr(start, end - start));
      start = end + 1;
    }
    if (argv.size() >= 3 && argv[1] == "work" && argv[2] == store) {
      pids.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return pids;
}

// Waits until `count` worker processes of `store` are stopped (state T in /proc/<pid>/stat).
bool WaitUntilStopped(const std::string& store, size_t count) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<pid_t> pids = WorkerPids(store);
    size_t stopped = 0;
    for (pid_t pid : pids) {
      std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
      size_t paren = stat.rfind(')');  // the state follows the command name in parentheses
      if (paren != std::string::npos && paren + 2 < stat.size() &&
          (stat[paren + 2] == 'T' || stat[paren + 2] == 't')) {
        ++stopped;
      }
    }
    if (pids.size() == count && stopped == count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Cancels the whole job when the test ends, whatever happened.
class ScopedCancel {
 public:
  void Add(const std::string& id) { ids_.push_back(id); }
  ~ScopedCancel() {
    for (const auto& id : ids_) (void)RunProcess({"scancel", id});
  }

 private:
  std::vector<std::string> ids_;
};

TEST(SlurmE2eTest, JobArrayMatchesASingleWorker) {
  REQUIRE_SLURM();
  TempDir dir;
  const std::vector<std::string> inputs = {TOKENMILL_SOURCE_DIR "/data/sample/*.txt",
                                           TOKENMILL_SOURCE_DIR "/data/sample/*.txt.gz"};
  // The reference: one worker, in this process's machine.
  std::string ref_job = WriteJob(dir, "ref", inputs, "128KiB", 60);
  Tokenmill({"plan", ref_job});
  Tokenmill({"work", dir.Join("ref/_job"), "--threads", "1"});
  Tokenmill({"finalize", dir.Join("ref/_job")});

  std::string job = WriteJob(dir, "slurm", inputs, "128KiB", 60);
  const std::string store = dir.Join("slurm/_job");
  Tokenmill({"plan", job});
  ProcessResult launched = Tokenmill(
      {"launch", "slurm", store, "--workers", "3", "--cpus-per-task", "1", "--binary", kBinary});
  std::string id = JobIdFrom(launched.out);
  ASSERT_FALSE(id.empty()) << "no `slurm job <id>` line in:\n" << launched.out;
  ScopedCancel cancel;
  cancel.Add(id);
  EXPECT_NE(launched.out.find("tokenmill status " + store), std::string::npos) << launched.out;

  ASSERT_TRUE(WaitForJob(id)) << "job " << id << " still active after " << kJobTimeout.count()
                              << " s:\n"
                              << ActiveStates(id) << Logs(dir.Join("slurm/logs"));
  nlohmann::json status = StatusJson(store);
  ASSERT_TRUE(status.is_object());
  EXPECT_EQ(status.value("complete", false), true) << status.dump(2) << "\n"
                                                   << Logs(dir.Join("slurm/logs"));
  Tokenmill({"finalize", store});
  ExpectSameShards(dir.Join("ref"), dir.Join("slurm"));

  // One log per array task, beside the store; and the launch is recorded in the store.
  for (int task = 0; task < 3; ++task) {
    std::string log = dir.Join("slurm/logs/tokenmill-" + id + "_" + std::to_string(task) + ".log");
    EXPECT_TRUE(fs::exists(log)) << log;
  }
  auto records = ListLaunchRecords(store);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 1u);
  EXPECT_EQ((*records)[0].launcher, "slurm");
  EXPECT_EQ((*records)[0].number, 1);
  EXPECT_EQ((*records)[0].details.value("slurm_job_id", ""), id);
  EXPECT_EQ((*records)[0].workers, 3);
}

TEST(SlurmE2eTest, CancelledTasksLoseNothing) {
  REQUIRE_SLURM();
  TempDir dir;
  // The shared corpus (28 MB) keeps the workers busy long enough to cancel them midway (a
  // third of it went by, between the status read and the cancel, once loading got faster); the
  // repo's sample is the fallback.
  std::vector<std::string> inputs;
  std::string task_size;
  const std::string corpus = TOKENMILL_SOURCE_DIR "/../shared/data/corpus";
  if (fs::exists(corpus + "/part-00.txt")) {
    inputs = {corpus + "/part-0*"};  // 28.2 MB: about 80 tasks
    task_size = "256KiB";
  } else {
    inputs = {TOKENMILL_SOURCE_DIR "/data/sample/*.txt",
              TOKENMILL_SOURCE_DIR "/data/sample/*.txt.gz"};
    task_size = "48KiB";  // 1.8 MB: about 25 tasks
  }
  std::string ref_job = WriteJob(dir, "ref", inputs, task_size, 5);
  Tokenmill({"plan", ref_job});
  Tokenmill({"work", dir.Join("ref/_job"), "--threads", "2"});
  Tokenmill({"finalize", dir.Join("ref/_job")});

  std::string job = WriteJob(dir, "slurm", inputs, task_size, 5);
  const std::string store = dir.Join("slurm/_job");
  Tokenmill({"plan", job});
  ProcessResult first = Tokenmill(
      {"launch", "slurm", store, "--workers", "2", "--cpus-per-task", "1", "--binary", kBinary});
  std::string id = JobIdFrom(first.out);
  ASSERT_FALSE(id.empty()) << first.out;
  ScopedCancel cancel;
  cancel.Add(id);

  // As soon as both tasks run and some work is done, freeze them (SIGSTOP), so that what the
  // store says is still true when they are cancelled: without it the rest of the job can finish
  // between the status read and the cancel on a busy machine. Then kill task 0 hard (its leases
  // must expire) and cancel task 1 as a user would (scancel sends SIGCONT, then SIGTERM: it gives
  // its leases back).
  auto deadline = std::chrono::steady_clock::now() + kJobTimeout;
  bool frozen = false;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string states = ActiveStates(id);
    if (states.empty()) break;  // finished before we could cancel anything
    int running = 0;
    for (size_t pos = 0; (pos = states.find("RUNNING", pos)) != std::string::npos; ++pos) ++running;
    nlohmann::json status = StatusJson(store);
    if (running == 2 && status.is_object() && status["tasks"].value("done", 0) >= 1) {
      auto stop = RunProcess({"scancel", "--signal=STOP", "--full", id});
      ASSERT_TRUE(stop.ok() && stop->exit_code == 0) << (stop.ok() ? stop->err : "");
      frozen = WaitUntilStopped(store, 2);
      if (!frozen && !ActiveStates(id).empty()) {
        ADD_FAILURE() << "SIGSTOP did not stop both workers of job " << id;
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  nlohmann::json at_cancel = StatusJson(store);
  const bool midway = frozen && !at_cancel.value("complete", true);
  if (frozen) {
    std::fprintf(stderr, "cancelling with %d of %d tasks done\n",
                 at_cancel["tasks"].value("done", 0), at_cancel["tasks"].value("total", 0));
  }
  auto kill = RunProcess({"scancel", "--signal=KILL", "--full", id + "_0"});
  ASSERT_TRUE(kill.ok());
  auto term = RunProcess({"scancel", id + "_1"});
  ASSERT_TRUE(term.ok());
  ASSERT_TRUE(WaitForJob(id)) << ActiveStates(id);
  nlohmann::json after_cancel = StatusJson(store);
  if (midway) {
    EXPECT_FALSE(after_cancel.value("complete", true)) << after_cancel.dump(2);
    // Task 1 woke up to SIGTERM and stopped cleanly: its summary is the last thing it logs.
    std::string log1 = ReadFile(dir.Join("slurm/logs/tokenmill-" + id + "_1.log"));
    EXPECT_NE(log1.find("tokenmill: worker done:"), std::string::npos) << log1;
  } else {
    std::fprintf(stderr, "note: the job finished before its tasks could be cancelled midway\n");
  }

  // A relaunched array takes over: what was leased by the killed task after its lease expires.
  ProcessResult second = Tokenmill(
      {"launch", "slurm", store, "--workers", "2", "--cpus-per-task", "1", "--binary", kBinary});
  std::string id2 = JobIdFrom(second.out);
  ASSERT_FALSE(id2.empty()) << second.out;
  cancel.Add(id2);
  ASSERT_TRUE(WaitForJob(id2)) << ActiveStates(id2) << Logs(dir.Join("slurm/logs"));
  nlohmann::json status = StatusJson(store);
  EXPECT_EQ(status.value("complete", false), true) << status.dump(2) << "\n"
                                                   << Logs(dir.Join("slurm/logs"));
  Tokenmill({"finalize", store});
  ExpectSameShards(dir.Join("ref"), dir.Join("slurm"));
  auto records = ListLaunchRecords(store);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[1].details.value("slurm_job_id", ""), id2);
}

}  // namespace
}  // namespace tokenmill::launch
