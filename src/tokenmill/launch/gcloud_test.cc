// The gcloud commands that `tokenmill launch gce` generates, checked by the gcloud CLI's own
// argument parsing (label "gcloud": each call takes seconds). With an empty configuration and no
// metadata server, a command whose flags and arguments are all accepted fails on authentication.
#include <gtest/gtest.h>

#include "tokenmill/launch/gce.h"
#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

using testing::ScopedEnv;
using testing::TempDir;
using testing::WriteFile;

GceOptions Basic(const TempDir& dir) {
  GceOptions o;
  o.store = "gs://my-bucket/jobs/wiki";
  o.workers = 8;
  o.zone = "europe-west4-a";
  o.name = "tokenmill-wiki";
  o.bundle = dir.Join("tokenmill-bundle.tar.gz");
  o.script_dir = dir.path();
  o.dry_run = true;
  WriteFile(o.bundle, "not really a tarball");
  return o;
}

// Runs a gcloud command with an empty configuration and no metadata server: it must get as far
// as asking for credentials, so every flag and argument was accepted.
void ExpectGcloudAcceptsArguments(const std::vector<std::string>& argv, const TempDir& config) {
  RunOptions run;
  run.env_overrides = {"CLOUDSDK_CONFIG=" + config.path(), "CLOUDSDK_CORE_CHECK_GCE_METADATA=false",
                       "CLOUDSDK_CORE_DISABLE_PROMPTS=1"};
  auto r = RunProcess(argv, run);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::string line = ShellCommandLine(argv);
  EXPECT_NE(r->exit_code, 0) << line;
  EXPECT_NE(r->exit_code, 2) << line << "\n" << r->err;  // 2: argument parsing failed
  EXPECT_EQ(r->err.find("unrecognized arguments"), std::string::npos) << line << "\n" << r->err;
  EXPECT_EQ(r->err.find("argument "), std::string::npos) << line << "\n" << r->err;
  EXPECT_NE(r->err.find("gcloud auth login"), std::string::npos) << line << "\n" << r->err;
}

TEST(GcloudArgumentsTest, EveryGeneratedCommandParses) {
  if (FindExecutable("gcloud").empty()) {
    GTEST_SKIP() << "gcloud is not installed (Debian package google-cloud-cli)";
  }
  TempDir dir, config;
  GceOptions in = Basic(dir);
  in.spot = true;
  in.project = "my-project";
  in.service_account = "tokenmill@my-project.iam.gserviceaccount.com";
  auto plan = PlanGce(in);
  ASSERT_TRUE(plan.ok());
  for (const auto& argv : plan->commands) ExpectGcloudAcceptsArguments(argv, config);

  GceTeardownOptions t;
  t.store = in.store;
  t.name = "tokenmill-wiki";
  t.zone = "europe-west4-a";
  t.project = "my-project";
  t.dry_run = true;
  auto teardown = TeardownGce(t);
  ASSERT_TRUE(teardown.ok()) << teardown.status().ToString();
  ASSERT_EQ(teardown->commands.size(), 2u);
  for (const auto& argv : teardown->commands) ExpectGcloudAcceptsArguments(argv, config);

  // The commands inside the VM scripts, with the values a VM would have.
  ExpectGcloudAcceptsArguments(
      {"gcloud", "compute", "instance-groups", "managed", "delete-instances", "tokenmill-wiki",
       "--instances=tokenmill-wiki-x1b2", "--zone=europe-west4-a", "--project=my-project",
       "--quiet"},
      config);
  WriteFile(dir.Join("worker.log"), "log\n");
  ExpectGcloudAcceptsArguments(
      {"gcloud", "storage", "cp", "--quiet", dir.Join("worker.log"), plan->log_prefix + "vm.log"},
      config);
}

TEST(LaunchGceTest, UnauthenticatedGcloudSaysWhatToDo) {
  if (FindExecutable("gcloud").empty()) {
    GTEST_SKIP() << "gcloud is not installed (Debian package google-cloud-cli)";
  }
  TempDir dir, config;
  ScopedEnv cfg("CLOUDSDK_CONFIG", config.path());
  ScopedEnv md("CLOUDSDK_CORE_CHECK_GCE_METADATA", "false");
  GceOptions in = Basic(dir);
  in.dry_run = false;
  auto r = LaunchGce(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gcloud is not authenticated"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("gcloud auth login"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill::launch
