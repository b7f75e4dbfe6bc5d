// The GCE worker VM's startup and shutdown scripts, run for real outside a VM (label "e2e"):
// a local stand-in answers for the metadata server, Cloud Storage and the Compute API, the
// "bundle" holds the tokenmill binary just built, and the store is a local folder. The startup
// script must fetch the bundle, run the worker to the end of the job, upload its log and ask the
// group to delete this VM; the shutdown script must stop a running worker with SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tokenmill/launch/gce.h"
#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

constexpr const char* kBinary = TOKENMILL_BINARY;

// The stand-in for metadata.google.internal, storage.googleapis.com and compute.googleapis.com.
constexpr const char* kFakeGoogle = R"PY(
import json, os, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
root, store, bundle = sys.argv[1], sys.argv[2], sys.argv[3]
attrs = {"tokenmill-store": store, "tokenmill-group": "grp",
         "tokenmill-bundle": "gs://bkt/jobs/x/gce/grp/tokenmill-bundle.tar.gz",
         "tokenmill-log-prefix": "gs://bkt/jobs/x/gce/grp/logs/", "tokenmill-threads": "1"}
md = {"instance/name": "grp-vm01", "instance/zone": "projects/12/zones/us-central1-a",
      "project/project-id": "proj",
      "instance/service-accounts/default/token":
          json.dumps({"access_token": "tok", "expires_in": 3600, "token_type": "Bearer"})}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def reply(self, code, body=b""):
        self.send_response(code); self.send_header("Content-Length", str(len(body)))
        self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        if u.path.startswith("/computeMetadata/v1/"):
            if self.headers.get("Metadata-Flavor") != "Google": return self.reply(403)
            key = u.path[len("/computeMetadata/v1/"):]
            if key.startswith("instance/attributes/"):
                v = attrs.get(key[len("instance/attributes/"):])
            else:
                v = md.get(key)
            return self.reply(404) if v is None else self.reply(200, v.encode())
        if u.path == "/storage/v1/b/bkt/o/" + urllib.parse.quote(
                "jobs/x/gce/grp/tokenmill-bundle.tar.gz", safe="") and "alt=media" in u.query:
            if self.headers.get("Authorization") != "Bearer tok": return self.reply(401)
            return self.reply(200, open(bundle, "rb").read())
        self.reply(404)
    def do_POST(self):
        u = urllib.parse.urlparse(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Authorization") != "Bearer tok": return self.reply(401)
        if u.path == "/upload/storage/v1/b/bkt/o":
            name = urllib.parse.parse_qs(u.query)["name"][0]
            path = os.path.join(root, "uploads", name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "wb").write(body)
            return self.reply(200, b"{}")
        if u.path == "/compute/v1/projects/proj/zones/us-central1-a/instanceGroupManagers/grp/deleteInstances":
            open(os.path.join(root, "delete-request.json"), "wb").write(body)
            return self.reply(200, b"{}")
        self.reply(404)
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(os.path.join(root, "port.tmp"), "w").write(str(s.server_address[1]))
os.rename(os.path.join(root, "port.tmp"), os.path.join(root, "port"))
s.serve_forever()
)PY";

// A folder of links to the tools the scripts use: everything but gcloud, so that they take the
// curl paths (the ones with no other test).
std::string ToolsWithoutGcloud(const TempDir& dir) {
  std::string bin = dir.Join("bin");
  fs::create_directories(bin);
  for (const char* tool :
       {"bash", "sh", "curl", "sed", "seq", "sleep", "tail", "cat", "mkdir", "touch", "nproc", "rm",
        "tee", "tar", "gzip", "dirname", "timeout", "date"}) {
    std::string path = FindExecutable(tool);
    if (!path.empty()) fs::create_symlink(path, bin + "/" + tool);
  }
  return bin;
}

class FakeGoogle {
 public:
  FakeGoogle(const TempDir& dir, const std::string& store, const std::string& bundle) {
    WriteFile(dir.Join("fake_google.py"), kFakeGoogle);
    std::string python = FindExecutable("python3");
    std::vector<std::string> args = {python, dir.Join("fake_google.py"), dir.path(), store, bundle};
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(python.c_str(), argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !fs::exists(dir.Join("port")); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    port_ = ReadFile(dir.Join("port"));
  }
  ~FakeGoogle() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status;
      ::waitpid(pid_, &status, 0);
    }
  }
  std::string url() const { return "http://127.0.0.1:" + port_; }
  bool ok() const { return !port_.empty(); }

 private:
  pid_t pid_ = -1;
  std::string port_;
};

TEST(GceVmE2eTest, StartupScriptRunsTheWorkerAndDeletesTheVm) {
  for (const char* tool : {"python3", "curl", "tar"}) {
    if (FindExecutable(tool).empty()) GTEST_SKIP() << tool << " is not installed";
  }
  TempDir dir;
  // A small job in a local store.
  WriteFile(dir.Join("job.toml"),
            "[input]\npaths = [\"" TOKENMILL_SOURCE_DIR
            "/data/sample/*.txt\"]\n"
            "format = \"text\"\n\n[tokenizer]\npath = \"" TOKENMILL_SOURCE_DIR
            "/data/vocab/bert-base-chinese/vocab.txt\"\nlowercase = true\n\n"
            "[examples]\nkind = \"electra\"\nmax_seq_length = 128\nseed = 3\n\n"
            "[output]\npath = \"" +
                dir.Join("out") + "\"\nformat = \"tfrecord\"\n\n[job]\ntask_size = \"512KiB\"\n");
  auto plan = RunProcess({kBinary, "plan", dir.Join("job.toml")});
  ASSERT_TRUE(plan.ok() && plan->exit_code == 0) << (plan.ok() ? plan->err : "");
  const std::string store = dir.Join("out/_job");
  // The bundle: bin/tokenmill.
  fs::create_directories(dir.Join("bundle/bin"));
  if (!FindExecutable("strip").empty()) {  // as make-bundle.sh does; it packs much faster
    auto strip =
        RunProcess({"strip", "--strip-debug", "-o", dir.Join("bundle/bin/tokenmill"), kBinary});
    ASSERT_TRUE(strip.ok() && strip->exit_code == 0);
  } else {
    fs::copy_file(kBinary, dir.Join("bundle/bin/tokenmill"));
  }
  auto tar =
      RunProcess({"tar", "-czf", dir.Join("bundle.tar.gz"), "-C", dir.Join("bundle"), "bin"});
  ASSERT_TRUE(tar.ok() && tar->exit_code == 0);

  FakeGoogle google(dir, store, dir.Join("bundle.tar.gz"));
  ASSERT_TRUE(google.ok()) << "the stand-in server did not start";
  WriteFile(dir.Join("startup.sh"), GceStartupScript(), true);
  RunOptions run;
  run.env_overrides = {"PATH=" + ToolsWithoutGcloud(dir), "TOKENMILL_VM_ROOT=" + dir.Join("vm"),
                       "TOKENMILL_METADATA_URL=" + google.url() + "/computeMetadata/v1",
                       "TOKENMILL_GCS_API=" + google.url(),
                       "TOKENMILL_COMPUTE_API=" + google.url()};
  auto r = RunProcess({"bash", dir.Join("startup.sh")}, run);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;

  // The worker finished the job.
  auto status = RunProcess({kBinary, "status", store, "--json"});
  ASSERT_TRUE(status.ok());
  auto json = nlohmann::json::parse(status->out, nullptr, false);
  ASSERT_TRUE(json.is_object()) << status->out;
  EXPECT_EQ(json.value("complete", false), true) << r->out;
  // Its log went to the serial console (the script's output) and to the bucket.
  EXPECT_NE(r->out.find("the worker exited with code 0"), std::string::npos) << r->out;
  std::string uploaded = ReadFile(dir.Join("uploads/jobs/x/gce/grp/logs/grp-vm01.log"));
  EXPECT_NE(uploaded.find("the worker exited with code 0"), std::string::npos) << uploaded;
  EXPECT_NE(uploaded.find("tokenmill 0."), std::string::npos);  // the bundle's --version
  // And the VM asked its group to delete it.
  auto request = nlohmann::json::parse(ReadFile(dir.Join("delete-request.json")), nullptr, false);
  EXPECT_EQ(request,
            nlohmann::json::parse(R"({"instances":["zones/us-central1-a/instances/grp-vm01"]})"));
  EXPECT_FALSE(fs::exists(dir.Join("vm/run/tokenmill-worker.pid")));
}

TEST(GceVmE2eTest, ShutdownScriptStopsTheWorker) {
  TempDir dir;
  fs::create_directories(dir.Join("vm/run"));
  fs::create_directories(dir.Join("vm/var/log"));
  // A stand-in worker that exits 143 on SIGTERM, as tokenmill work does.
  WriteFile(dir.Join("worker.sh"),
            "#!/bin/bash\ntrap 'echo released > " + dir.Join("released") +
                "; exit 143' TERM\nwhile :; do sleep 0.1; done\n",
            true);
  pid_t worker = ::fork();
  if (worker == 0) {
    ::execl("/bin/bash", "bash", dir.Join("worker.sh").c_str(), nullptr);
    ::_exit(127);
  }
  WriteFile(dir.Join("vm/run/tokenmill-worker.pid"), std::to_string(worker));
  // On a VM the startup script waits for (reaps) the worker; here this thread does.
  int status = -1;
  std::atomic<bool> reaped{false};
  std::thread reaper([&] {
    ::waitpid(worker, &status, 0);
    reaped = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let it install its trap
  WriteFile(dir.Join("shutdown.sh"), GceShutdownScript(), true);
  RunOptions run;
  run.env_overrides = {"TOKENMILL_VM_ROOT=" + dir.Join("vm")};
  auto r = RunProcess({"bash", dir.Join("shutdown.sh")}, run);
  if (!reaped) ::kill(worker, SIGKILL);  // the script failed to stop it: do not hang
  reaper.join();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 143);
  EXPECT_EQ(ReadFile(dir.Join("released")), "released\n");
  EXPECT_NE(r->out.find("the worker has stopped"), std::string::npos) << r->out;
}

}  // namespace
}  // namespace tokenmill::launch
