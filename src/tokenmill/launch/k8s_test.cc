#include "tokenmill/launch/k8s.h"

#include <gtest/gtest.h>

#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

K8sOptions Basic() {
  K8sOptions o;
  o.store = "s3://bucket/jobs/wiki";
  o.workers = 16;
  o.image = "registry.example.com/tokenmill:0.1.0";
  o.cpu = "4";
  o.memory = "8Gi";
  o.secret = "tokenmill-s3";
  o.name = "tokenmill-wiki";
  return o;
}

TEST(ThreadsForCpuTest, RoundsDownToAtLeastOne) {
  EXPECT_EQ(*ThreadsForCpu("2"), 2);
  EXPECT_EQ(*ThreadsForCpu("2.5"), 2);
  EXPECT_EQ(*ThreadsForCpu("1500m"), 1);
  EXPECT_EQ(*ThreadsForCpu("500m"), 1);
  EXPECT_EQ(*ThreadsForCpu("8000m"), 8);
  EXPECT_FALSE(ThreadsForCpu("two").ok());
  EXPECT_FALSE(ThreadsForCpu("0").ok());
  EXPECT_FALSE(ThreadsForCpu("-1").ok());
}

TEST(K8sManifestTest, IndexedJobOfWorkers) {
  auto o = ResolveK8sOptions(Basic());
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  nlohmann::json m = K8sJobManifest(*o);
  EXPECT_EQ(m["apiVersion"], "batch/v1");
  EXPECT_EQ(m["kind"], "Job");
  EXPECT_EQ(m["metadata"]["name"], "tokenmill-wiki");
  const auto& spec = m["spec"];
  EXPECT_EQ(spec["completionMode"], "Indexed");
  EXPECT_EQ(spec["completions"], 16);
  EXPECT_EQ(spec["parallelism"], 16);
  EXPECT_EQ(spec["backoffLimit"], 48);
  const auto& pod = spec["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "OnFailure");
  EXPECT_GE(pod["terminationGracePeriodSeconds"].get<int>(), 30);
  ASSERT_EQ(pod["containers"].size(), 1u);
  const auto& c = pod["containers"][0];
  EXPECT_EQ(c["image"], "registry.example.com/tokenmill:0.1.0");
  EXPECT_EQ(c["command"],
            nlohmann::json({"tokenmill", "work", "s3://bucket/jobs/wiki", "--threads", "4"}));
  EXPECT_EQ(c["resources"]["requests"]["cpu"], "4");
  EXPECT_EQ(c["resources"]["requests"]["memory"], "8Gi");
  EXPECT_EQ(c["resources"]["limits"], c["resources"]["requests"]);
  // Credentials come from the Secret only, never inline.
  EXPECT_EQ(c["envFrom"], nlohmann::json::parse(R"([{"secretRef":{"name":"tokenmill-s3"}}])"));
  EXPECT_FALSE(c.contains("env"));
  EXPECT_EQ(m.dump().find("AWS_SECRET"), std::string::npos);
}

TEST(K8sManifestTest, DefaultsAndOptionalFields) {
  K8sOptions in;
  in.store = "gs://b/j";
  in.image = "tm:1";
  auto o = ResolveK8sOptions(in);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->name.rfind("tokenmill-" + StoreTag("gs://b/j") + "-", 0), 0u);
  nlohmann::json m = K8sJobManifest(*o);
  const auto& c = m["spec"]["template"]["spec"]["containers"][0];
  EXPECT_FALSE(c.contains("envFrom"));
  EXPECT_EQ(c["command"][4], "1");
  EXPECT_EQ(m["spec"]["backoffLimit"], 3);
  EXPECT_FALSE(m["metadata"].contains("namespace"));

  in.k8s_namespace = "data";
  in.service_account = "tokenmill";
  in.cpu = "500m";
  auto o2 = ResolveK8sOptions(in);
  ASSERT_TRUE(o2.ok());
  nlohmann::json m2 = K8sJobManifest(*o2);
  EXPECT_EQ(m2["metadata"]["namespace"], "data");
  EXPECT_EQ(m2["spec"]["template"]["spec"]["serviceAccountName"], "tokenmill");
  EXPECT_EQ(m2["spec"]["template"]["spec"]["containers"][0]["command"][4], "1");
}

TEST(K8sOptionsTest, ClearErrors) {
  auto check = [](auto mutate, const std::string& needle) {
    K8sOptions o = Basic();
    mutate(o);
    auto r = ResolveK8sOptions(o);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  check([](K8sOptions& o) { o.store = "/data/_job"; }, "s3:// or gs://");
  check([](K8sOptions& o) { o.image = ""; }, "--image is required");
  check([](K8sOptions& o) { o.cpu = "lots"; }, "--cpu");
  check([](K8sOptions& o) { o.cpu = "5000"; }, "at most 4096");
  check([](K8sOptions& o) { o.cpu = std::string(400, '9'); }, "--cpu");  // no overflow
  check([](K8sOptions& o) { o.cpu = "99999999999m"; }, "--cpu");
  check([](K8sOptions& o) { o.memory = "8 gigs"; }, "--memory");
  check([](K8sOptions& o) { o.secret = "Bad_Secret"; }, "--secret");
  check([](K8sOptions& o) { o.name = "Tokenmill"; }, "--name");
  check([](K8sOptions& o) { o.grace_seconds = 10; }, "30");
  check([](K8sOptions& o) { o.workers = 0; }, "--workers");
}

TEST(ToYamlTest, ScalarsAndNesting) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "a": "text: with colon", "b": 3, "c": true, "d": null, "e": [], "f": {},
    "g": [1, "two", {"h": "x", "i": [{"j": 1}]}], "yes": "no", "k/l.m": "ok"})");
  std::string y = ToYaml(j);
  EXPECT_NE(y.find("a: \"text: with colon\"\n"), std::string::npos) << y;
  EXPECT_NE(y.find("b: 3\n"), std::string::npos);
  EXPECT_NE(y.find("e: []\n"), std::string::npos);
  EXPECT_NE(y.find("f: {}\n"), std::string::npos);
  EXPECT_NE(y.find("g:\n  - 1\n  - \"two\"\n  - h: \"x\"\n    i:\n      - j: 1\n"),
            std::string::npos)
      << y;
  EXPECT_NE(y.find("\"yes\": \"no\"\n"), std::string::npos);
  EXPECT_NE(y.find("k/l.m: \"ok\"\n"), std::string::npos);
}

// Parses YAML with PyYAML (python3-yaml) and returns it as JSON; empty if unavailable.
std::string YamlToJsonWithPython(const std::string& yaml) {
  if (FindExecutable("python3").empty()) return "";
  RunOptions run;
  run.stdin_data = yaml;
  auto r = RunProcess({"python3", "-c",
                       "import json, sys, yaml\n"
                       "print(json.dumps(yaml.safe_load(sys.stdin.read())))\n"},
                      run);
  if (!r.ok() || r->exit_code != 0) return "";
  return r->out;
}

TEST(ToYamlTest, ManifestParsesBackToTheSameValue) {
  auto o = ResolveK8sOptions(Basic());
  ASSERT_TRUE(o.ok());
  nlohmann::json m = K8sJobManifest(*o);
  std::string json = YamlToJsonWithPython(ToYaml(m));
  if (json.empty()) GTEST_SKIP() << "python3 with PyYAML (python3-yaml) is not available";
  EXPECT_EQ(nlohmann::json::parse(json), m);

  nlohmann::json tricky = {{"s", "line1\nline2\t\"q\" 'a' #x: - [y]"},
                           {"n", {{"0", "007"}, {"on", "off"}, {"list", {"-", "", "null"}}}}};
  EXPECT_EQ(nlohmann::json::parse(YamlToJsonWithPython(ToYaml(tricky))), tricky);
}

TEST(ApplyK8sJobTest, NoKubectlSaysWhatToDo) {
  TempDir dir;
  ScopedEnv path("PATH", dir.Join("empty-bin"));
  auto o = ResolveK8sOptions(Basic());
  ASSERT_TRUE(o.ok());
  auto r = ApplyK8sJob(*o, K8sJobManifest(*o));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("kubectl was not found on PATH"), std::string::npos);
}

TEST(ApplyK8sJobTest, UnreachableClusterIsReported) {
  if (FindExecutable("kubectl").empty()) GTEST_SKIP() << "kubectl is not installed";
  // The real kubectl, pointed at a cluster address where nothing listens.
  TempDir dir;
  testing::WriteFile(
      dir.Join("kubeconfig"),
      "apiVersion: v1\nkind: Config\nclusters:\n- name: none\n  cluster:\n"
      "    server: https://127.0.0.1:9\ncontexts:\n- name: none\n  context:\n"
      "    cluster: none\n    user: none\nusers:\n- name: none\n  user:\n    token: none\n"
      "current-context: none\n");
  ScopedEnv kubeconfig("KUBECONFIG", dir.Join("kubeconfig"));
  auto o = ResolveK8sOptions(Basic());
  ASSERT_TRUE(o.ok());
  auto r = ApplyK8sJob(*o, K8sJobManifest(*o));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("kubectl apply failed"), std::string::npos);
  EXPECT_NE(r.status().message().find("127.0.0.1:9"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("current-context"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill::launch
