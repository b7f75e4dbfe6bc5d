// `tokenmill launch local|k8s|gce` through the binary (label "e2e"): real workers for `local`,
// the printed manifest for `k8s`, the dry-run commands and scripts for `gce`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tokenmill/launch/launcher.h"
#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

constexpr const char* kBinary = TOKENMILL_BINARY;

ProcessResult Tokenmill(const std::vector<std::string>& args, const std::string& cwd = "") {
  std::vector<std::string> argv = {kBinary};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.working_dir = cwd;
  auto r = RunProcess(argv, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ProcessResult{};
}

TEST(LaunchCliE2eTest, LocalWorkersFinishTheJob) {
  TempDir dir;
  WriteFile(dir.Join("job.toml"),
            "[input]\npaths = [\"" TOKENMILL_SOURCE_DIR
            "/data/sample/*.txt\"]\n"
            "format = \"text\"\n\n[tokenizer]\npath = \"" TOKENMILL_SOURCE_DIR
            "/data/vocab/bert-base-chinese/vocab.txt\"\nlowercase = true\n\n"
            "[examples]\nkind = \"electra\"\nmax_seq_length = 128\nseed = 3\n\n"
            "[output]\npath = \"" +
                dir.Join("out") + "\"\nformat = \"tfrecord\"\n\n[job]\ntask_size = \"256KiB\"\n");
  ProcessResult plan = Tokenmill({"plan", dir.Join("job.toml")});
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  const std::string store = dir.Join("out/_job");
  ProcessResult launched =
      Tokenmill({"launch", "local", store, "--workers", "3", "--log-dir", dir.Join("logs")});
  EXPECT_EQ(launched.exit_code, 0) << launched.out << launched.err;
  EXPECT_NE(launched.out.find("3 workers: 3 exited 0"), std::string::npos) << launched.out;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(fs::exists(dir.Join("logs/worker-" + std::to_string(i) + ".log")));
  }
  ProcessResult status = Tokenmill({"status", store, "--json"});
  auto json = nlohmann::json::parse(status.out, nullptr, false);
  ASSERT_TRUE(json.is_object()) << status.out;
  EXPECT_EQ(json.value("complete", false), true) << status.out;
  auto records = ListLaunchRecords(store);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 1u);
  EXPECT_EQ((*records)[0].launcher, "local");
  EXPECT_EQ((*records)[0].details["pids"].size(), 3u);
  EXPECT_EQ((*records)[0].details.value("log_dir", ""), dir.Join("logs"));
}

TEST(LaunchCliE2eTest, LocalWithoutAStoreIsAClearError) {
  TempDir dir;
  ProcessResult r = Tokenmill({"launch", "local", dir.Join("nothing/_job"), "--workers", "2"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("tokenmill: error:"), std::string::npos) << r.out << r.err;
}

TEST(LaunchCliE2eTest, K8sPrintsAManifest) {
  ProcessResult r =
      Tokenmill({"launch", "k8s", "s3://bucket/job", "--workers", "5", "--image", "tm:1", "--cpu",
                 "2", "--secret", "creds", "--name", "tm-job", "--output", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(m.is_object()) << r.out;
  EXPECT_EQ(m["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(m["spec"]["completions"], 5);
  EXPECT_EQ(m["spec"]["template"]["spec"]["containers"][0]["command"],
            nlohmann::json({"tokenmill", "work", "s3://bucket/job", "--threads", "2"}));

  ProcessResult yaml = Tokenmill({"launch", "k8s", "s3://bucket/job", "--workers", "5", "--image",
                                  "tm:1", "--name", "tm-job"});
  ASSERT_EQ(yaml.exit_code, 0);
  EXPECT_EQ(yaml.out.rfind("apiVersion: \"batch/v1\"\n", 0), 0u) << yaml.out;

  ProcessResult bad =
      Tokenmill({"launch", "k8s", "/local/store", "--workers", "5", "--image", "tm:1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("pods cannot reach"), std::string::npos) << bad.err;
}

TEST(LaunchCliE2eTest, GceDryRunPrintsGcloudCommandsAndWritesTheScripts) {
  TempDir dir;
  ProcessResult r = Tokenmill({"launch", "gce", "gs://bucket/jobs/x", "--workers", "3", "--zone",
                               "us-central1-a", "--spot", "--name", "tm-x", "--dry-run"},
                              dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int gcloud = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_EQ(line.rfind("gcloud ", 0), 0u) << line;
    ++gcloud;
  }
  EXPECT_EQ(gcloud, 3);
  EXPECT_NE(r.out.find("--provisioning-model=SPOT"), std::string::npos);
  EXPECT_NE(r.out.find("--size=3"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir.Join("tokenmill-gce-startup.sh")));
  EXPECT_TRUE(fs::exists(dir.Join("tokenmill-gce-shutdown.sh")));
  EXPECT_NE(r.err.find("no worker bundle"), std::string::npos);  // a warning in a dry run

  ProcessResult teardown = Tokenmill({"launch", "gce", "--teardown", "gs://bucket/jobs/x", "--name",
                                      "tm-x", "--zone", "us-central1-a", "--dry-run"});
  ASSERT_EQ(teardown.exit_code, 0) << teardown.err;
  EXPECT_NE(teardown.out.find("gcloud compute instance-groups managed delete tm-x"),
            std::string::npos);

  ProcessResult no_zone = Tokenmill({"launch", "gce", "gs://bucket/jobs/x", "--workers", "3"});
  EXPECT_EQ(no_zone.exit_code, 1);
  EXPECT_NE(no_zone.err.find("--zone is required"), std::string::npos) << no_zone.err;
}

}  // namespace
}  // namespace tokenmill::launch
