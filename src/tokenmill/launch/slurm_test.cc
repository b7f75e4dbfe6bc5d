#include "tokenmill/launch/slurm.h"

#include <gtest/gtest.h>

#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

using testing::ReadFile;
using testing::ScopedEnv;
using testing::TempDir;

SlurmOptions Basic(const TempDir& dir) {
  SlurmOptions o;
  o.store = dir.Join("out/_job");
  o.workers = 4;
  o.binary = FindExecutable("true");
  return o;
}

TEST(SlurmOptionsTest, DefaultsBesideALocalStore) {
  TempDir dir;
  auto o = ResolveSlurmOptions(Basic(dir));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->log_dir, dir.Join("out/logs"));
  EXPECT_EQ(o->binary, FindExecutable("true"));
  EXPECT_EQ(o->store, dir.Join("out/_job"));
}

TEST(SlurmOptionsTest, DefaultLogDirForARemoteStoreIsInTheCurrentFolder) {
  TempDir dir;
  SlurmOptions in = Basic(dir);
  in.store = "s3://bucket/job";
  auto o = ResolveSlurmOptions(in);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->log_dir, (std::filesystem::current_path() / "tokenmill-logs").string());
}

TEST(SlurmOptionsTest, BadOptionsNameTheFlag) {
  TempDir dir;
  auto check = [&](auto mutate, const std::string& needle) {
    SlurmOptions o = Basic(dir);
    mutate(o);
    auto r = ResolveSlurmOptions(o);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  check([](SlurmOptions& o) { o.workers = 0; }, "--workers");
  check([](SlurmOptions& o) { o.cpus_per_task = 0; }, "--cpus-per-task");
  check([](SlurmOptions& o) { o.time = "an hour"; }, "--time");
  check([](SlurmOptions& o) { o.partition = "debug; rm -rf /"; }, "--partition");
  check([](SlurmOptions& o) { o.log_dir = "/tmp/my logs"; }, "--log-dir");
  check([](SlurmOptions& o) { o.log_dir = "/tmp/100%"; }, "--log-dir");
  check([](SlurmOptions& o) { o.binary = "/nonexistent/tokenmill"; }, "--binary");
  check([](SlurmOptions& o) { o.store = ""; }, "STORE");
  for (const char* t : {"30", "1:30", "01:00:00", "2-00", "2-12:00", "1-00:00:00", "UNLIMITED"}) {
    SlurmOptions o = Basic(dir);
    o.time = t;
    EXPECT_TRUE(ResolveSlurmOptions(o).ok()) << t;
  }
}

TEST(SbatchScriptTest, AnArrayOfExecedWorkers) {
  TempDir dir;
  SlurmOptions in = Basic(dir);
  in.partition = "debug";
  in.time = "2:00:00";
  in.cpus_per_task = 4;
  auto o = ResolveSlurmOptions(in);
  ASSERT_TRUE(o.ok());
  std::string s = SbatchScript(*o);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(s.find("#SBATCH --array=0-3\n"), std::string::npos);
  EXPECT_NE(s.find("#SBATCH --cpus-per-task=4\n"), std::string::npos);
  EXPECT_NE(s.find("#SBATCH --partition=debug\n"), std::string::npos);
  EXPECT_NE(s.find("#SBATCH --time=2:00:00\n"), std::string::npos);
  EXPECT_NE(s.find("#SBATCH --output=" + dir.Join("out/logs") + "/tokenmill-%A_%a.log\n"),
            std::string::npos);
  EXPECT_NE(s.find("#SBATCH --error=" + dir.Join("out/logs") + "/tokenmill-%A_%a.log\n"),
            std::string::npos);
  EXPECT_NE(s.find("threads=\"${SLURM_CPUS_PER_TASK:-4}\"\n"), std::string::npos);
  EXPECT_NE(s.find("\nexec " + FindExecutable("true") + " work " + dir.Join("out/_job") +
                   " --threads \"$threads\"\n"),
            std::string::npos)
      << s;
  // Every #SBATCH line comes before the first command (sbatch stops reading them there).
  size_t last_sbatch = s.rfind("#SBATCH");
  EXPECT_LT(last_sbatch, s.find("set -eu"));
}

TEST(SbatchScriptTest, LeavesOutUnsetLimits) {
  TempDir dir;
  auto o = ResolveSlurmOptions(Basic(dir));
  ASSERT_TRUE(o.ok());
  std::string s = SbatchScript(*o);
  EXPECT_EQ(s.find("--partition"), std::string::npos);
  EXPECT_EQ(s.find("--time"), std::string::npos);
}

TEST(SbatchScriptTest, QuotesAStoreWithSpaces) {
  TempDir dir;
  SlurmOptions in = Basic(dir);
  in.store = dir.Join("my out/_job");
  in.log_dir = dir.Join("logs");
  auto o = ResolveSlurmOptions(in);
  ASSERT_TRUE(o.ok());
  std::string s = SbatchScript(*o);
  EXPECT_NE(s.find(" work '" + dir.Join("my out/_job") + "' --threads"), std::string::npos) << s;
}

TEST(SbatchScriptTest, PassesShellcheck) {
  if (FindExecutable("shellcheck").empty()) {
    GTEST_SKIP() << "shellcheck is not installed (apt-get install shellcheck)";
  }
  TempDir dir;
  SlurmOptions in = Basic(dir);
  in.partition = "debug";
  in.time = "30";
  auto o = ResolveSlurmOptions(in);
  ASSERT_TRUE(o.ok());
  RunOptions run;
  run.stdin_data = SbatchScript(*o);
  auto r = RunProcess({"shellcheck", "-s", "bash", "-"}, run);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
}

TEST(ParseSbatchJobIdTest, ParsableOutput) {
  EXPECT_EQ(*ParseSbatchJobId("1234\n"), "1234");
  EXPECT_EQ(*ParseSbatchJobId("1234;cluster\n"), "1234");
  EXPECT_EQ(*ParseSbatchJobId("sbatch: warning: something\n77\n"), "77");
  EXPECT_FALSE(ParseSbatchJobId("").ok());
  EXPECT_FALSE(ParseSbatchJobId("Submitted batch job 12\n").ok());
}

TEST(LaunchSlurmTest, DryRunWritesTheScriptOnly) {
  TempDir dir;
  SlurmOptions o = Basic(dir);
  o.dry_run = true;
  auto launch = LaunchSlurm(o);
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_TRUE(launch->job_id.empty());
  EXPECT_EQ(launch->log_dir, dir.Join("out/logs"));
  EXPECT_EQ(launch->script_path.rfind(dir.Join("out/logs/tokenmill-"), 0), 0u);
  EXPECT_NE(ReadFile(launch->script_path).find("#SBATCH --array=0-3"), std::string::npos);
  ASSERT_EQ(launch->sbatch_command.size(), 3u);
  EXPECT_EQ(launch->sbatch_command[0], "sbatch");
  EXPECT_FALSE(std::filesystem::exists(dir.Join("out/_job/launches")));
}

TEST(LaunchSlurmTest, NoSbatchOnPathSaysWhatToDo) {
  TempDir dir;
  ScopedEnv path("PATH", dir.Join("empty-bin"));
  SlurmOptions o = Basic(dir);
  auto launch = LaunchSlurm(o);
  ASSERT_FALSE(launch.ok());
  EXPECT_TRUE(launch.status().Is(StatusCode::kFailedPrecondition));
  EXPECT_NE(launch.status().message().find("sbatch was not found on PATH"), std::string::npos);
  EXPECT_NE(launch.status().message().find("--dry-run"), std::string::npos);
}

TEST(LaunchSlurmTest, SbatchRefusalIsReported) {
  if (FindExecutable("sbatch").empty()) {
    GTEST_SKIP() << "sbatch is not installed (apt-get install slurm-wlm)";
  }
  // The real sbatch, given a cluster configuration without a cluster, refuses at once.
  TempDir dir;
  testing::WriteFile(dir.Join("slurm.conf"), "");
  ScopedEnv conf("SLURM_CONF", dir.Join("slurm.conf"));
  auto launch = LaunchSlurm(Basic(dir));
  ASSERT_FALSE(launch.ok());
  EXPECT_NE(launch.status().message().find("sbatch refused the job"), std::string::npos);
  EXPECT_NE(launch.status().message().find("SLURM_CONF"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.Join("out/_job/launches")));
}

}  // namespace
}  // namespace tokenmill::launch
