#include "tokenmill/launch/gce.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

using testing::ReadFile;
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

bool Has(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

TEST(GcePlanTest, CommandsForASpotGroup) {
  TempDir dir;
  GceOptions in = Basic(dir);
  in.spot = true;
  in.machine_type = "n2-highcpu-8";
  in.service_account = "tokenmill@my-project.iam.gserviceaccount.com";
  in.project = "my-project";
  auto plan = PlanGce(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->group, "tokenmill-wiki");
  EXPECT_EQ(plan->bundle_url,
            "gs://my-bucket/jobs/wiki/gce/tokenmill-wiki/tokenmill-bundle.tar.gz");
  EXPECT_EQ(plan->log_prefix, "gs://my-bucket/jobs/wiki/gce/tokenmill-wiki/logs/");
  ASSERT_EQ(plan->commands.size(), 3u);
  for (const auto& argv : plan->commands) EXPECT_EQ(argv[0], "gcloud");

  const auto& upload = plan->commands[0];
  EXPECT_EQ(upload,
            (std::vector<std::string>{"gcloud", "storage", "cp", in.bundle, plan->bundle_url}));

  const auto& tpl = plan->commands[1];
  EXPECT_EQ(std::vector<std::string>(tpl.begin(), tpl.begin() + 5),
            (std::vector<std::string>{"gcloud", "compute", "instance-templates", "create",
                                      "tokenmill-wiki"}));
  EXPECT_TRUE(Has(tpl, "--machine-type=n2-highcpu-8"));
  EXPECT_TRUE(Has(tpl, "--image-family=debian-12"));
  EXPECT_TRUE(Has(tpl, "--image-project=debian-cloud"));
  EXPECT_TRUE(Has(tpl, "--provisioning-model=SPOT"));
  EXPECT_TRUE(Has(tpl, "--instance-termination-action=DELETE"));
  EXPECT_TRUE(Has(tpl, "--service-account=tokenmill@my-project.iam.gserviceaccount.com"));
  EXPECT_TRUE(Has(tpl, "--scopes=storage-rw,compute-rw,logging-write"));
  EXPECT_TRUE(Has(tpl, "--project=my-project"));
  EXPECT_TRUE(Has(tpl,
                  "--metadata=tokenmill-store=gs://my-bucket/jobs/wiki,"
                  "tokenmill-group=tokenmill-wiki,tokenmill-bundle=" +
                      plan->bundle_url + ",tokenmill-log-prefix=" + plan->log_prefix +
                      ",tokenmill-threads=0"));
  EXPECT_TRUE(
      Has(tpl, "--metadata-from-file=startup-script=" + dir.Join("tokenmill-gce-startup.sh") +
                   ",shutdown-script=" + dir.Join("tokenmill-gce-shutdown.sh")));

  const auto& mig = plan->commands[2];
  EXPECT_EQ(std::vector<std::string>(mig.begin(), mig.begin() + 6),
            (std::vector<std::string>{"gcloud", "compute", "instance-groups", "managed", "create",
                                      "tokenmill-wiki"}));
  EXPECT_TRUE(Has(mig, "--zone=europe-west4-a"));
  EXPECT_TRUE(Has(mig, "--template=tokenmill-wiki"));
  EXPECT_TRUE(Has(mig, "--size=8"));

  // The scripts are written where asked.
  EXPECT_EQ(ReadFile(plan->startup_path), GceStartupScript());
  EXPECT_EQ(ReadFile(plan->shutdown_path), GceShutdownScript());
}

TEST(GcePlanTest, StandardVmsWithDefaults) {
  TempDir dir;
  GceOptions in = Basic(dir);
  in.name = "";
  auto plan = PlanGce(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->group.rfind("tokenmill-" + StoreTag("gs://my-bucket/jobs/wiki") + "-", 0), 0u);
  const auto& tpl = plan->commands[1];
  EXPECT_TRUE(Has(tpl, "--provisioning-model=STANDARD"));
  EXPECT_TRUE(Has(tpl, "--machine-type=e2-standard-4"));
  EXPECT_FALSE(std::any_of(tpl.begin(), tpl.end(), [](const std::string& w) {
    return w.rfind("--service-account", 0) == 0 || w.rfind("--project", 0) == 0 ||
           w.rfind("--instance-termination-action", 0) == 0;
  }));
}

TEST(GcePlanTest, ClearErrors) {
  TempDir dir;
  auto check = [&](auto mutate, const std::string& needle) {
    GceOptions o = Basic(dir);
    mutate(o);
    auto r = PlanGce(o);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  check([](GceOptions& o) { o.store = "s3://b/j"; }, "gs://");
  check([](GceOptions& o) { o.store = "/data/_job"; }, "gs://");
  check([](GceOptions& o) { o.store = "gs://b/a,b"; }, "comma");
  check([](GceOptions& o) { o.zone = ""; }, "--zone is required");
  check([](GceOptions& o) { o.zone = "Europe"; }, "--zone");
  check([](GceOptions& o) { o.machine_type = "big one"; }, "--machine-type");
  check([](GceOptions& o) { o.name = "Tokenmill_x"; }, "--name");
  check([](GceOptions& o) { o.service_account = "nobody"; }, "--service-account");
  check([](GceOptions& o) { o.workers = 0; }, "--workers");
  check(
      [&](GceOptions& o) {
        o.dry_run = false;
        o.bundle = dir.Join("missing.tar.gz");
      },
      "scripts/make-bundle.sh");
}

TEST(GcePlanTest, AnUnusableTmpdirIsAClearError) {
  TempDir dir;
  ScopedEnv tmpdir("TMPDIR", dir.Join("no-such-folder"));
  GceOptions o = Basic(dir);
  o.dry_run = false;
  o.script_dir.clear();  // the scripts go to a new folder under TMPDIR
  auto r = PlanGce(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("set TMPDIR to a writable folder"), std::string::npos)
      << r.status().message();
}

TEST(GceScriptsTest, PassShellcheck) {
  if (FindExecutable("shellcheck").empty()) {
    GTEST_SKIP() << "shellcheck is not installed (apt-get install shellcheck)";
  }
  for (const std::string& script : {GceStartupScript(), GceShutdownScript()}) {
    RunOptions run;
    run.stdin_data = script;
    auto r = RunProcess({"shellcheck", "-s", "bash", "-"}, run);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
  }
}

TEST(GceScriptsTest, StartupScriptDoesWhatTheGroupNeeds) {
  std::string s = GceStartupScript();
  for (const char* key : {"tokenmill-store", "tokenmill-group", "tokenmill-bundle",
                          "tokenmill-log-prefix", "tokenmill-threads"}) {
    EXPECT_NE(s.find(std::string("instance/attributes/") + key), std::string::npos) << key;
  }
  EXPECT_NE(s.find("\"$WORK_DIR/bin/tokenmill\" work \"$STORE\" --threads \"$THREADS\""),
            std::string::npos);
  EXPECT_NE(s.find("gcloud compute instance-groups managed delete-instances \"$GROUP\" "
                   "--instances=\"$NAME\""),
            std::string::npos);
  EXPECT_NE(s.find("/deleteInstances"), std::string::npos);  // without gcloud: the REST API
  std::string d = GceShutdownScript();
  EXPECT_NE(d.find("kill -TERM \"$pid\""), std::string::npos);
  EXPECT_NE(d.find("seq 1 50"), std::string::npos);  // 50 x 0.5 s = 25 s
}

TEST(LaunchGceTest, NoGcloudOnPath) {
  TempDir dir;
  ScopedEnv path("PATH", dir.Join("empty-bin"));
  GceOptions in = Basic(dir);
  in.dry_run = false;
  auto r = LaunchGce(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gcloud was not found on PATH"), std::string::npos);
}

TEST(TeardownGceTest, ReadsTheGroupFromTheLaunchRecord) {
  TempDir dir;
  std::string store = dir.Join("_job");  // a local store stands in for the bucket here
  LaunchRecord r;
  r.launcher = "gce";
  r.workers = 4;
  r.details = {{"group", "tokenmill-abc"},
               {"template", "tokenmill-abc"},
               {"zone", "us-east1-b"},
               {"project", "proj-one"}};
  ASSERT_TRUE(RecordLaunch(store, r).ok());
  GceTeardownOptions t;
  t.store = store;
  t.dry_run = true;
  auto teardown = TeardownGce(t);
  ASSERT_TRUE(teardown.ok()) << teardown.status().ToString();
  ASSERT_EQ(teardown->commands.size(), 2u);
  EXPECT_EQ(ShellCommandLine(teardown->commands[0]),
            "gcloud compute instance-groups managed delete tokenmill-abc --zone=us-east1-b "
            "--quiet --project=proj-one");
  EXPECT_EQ(ShellCommandLine(teardown->commands[1]),
            "gcloud compute instance-templates delete tokenmill-abc --quiet --project=proj-one");

  GceTeardownOptions none;
  none.store = dir.Join("other");
  none.dry_run = true;
  auto missing = TeardownGce(none);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no GCE group to tear down"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill::launch
