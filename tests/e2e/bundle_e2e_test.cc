// The GCE worker bundle (scripts/make-bundle.sh) runs on a stock Debian 12 machine: every shared
// library the bundled binary loads (libcurl too, loaded when a remote path is first used) is
// either inside the bundle or comes from a package of Debian's base system
// (scripts/bundle-base-packages.txt).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "tokenmill/launch/process.h"
#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::TempDir;

std::set<std::string> BasePackages() {
  std::set<std::string> names;
  std::istringstream in(ReadFile(TOKENMILL_SOURCE_DIR "/scripts/bundle-base-packages.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

// The spellings by which dpkg may know a file (they differ by the /usr merge).
std::vector<std::string> Variants(const std::string& path) {
  std::string real = fs::canonical(path).string();
  return {path, real, "/usr" + path, "/usr" + real};
}

// The Debian package owning each of `paths` (one dpkg query: it is slow to start).
std::map<std::string, std::string> Owners(const std::vector<std::string>& paths) {
  std::vector<std::string> argv = {"dpkg", "-S"};
  for (const std::string& p : paths) {
    for (const std::string& v : Variants(p)) argv.push_back(v);
  }
  std::map<std::string, std::string> by_spelling;
  auto r = RunProcess(argv);
  if (r.ok()) {
    std::istringstream lines(r->out);
    std::string line;
    while (std::getline(lines, line)) {
      size_t sep = line.find(": ");
      if (sep == std::string::npos || line.rfind("diversion", 0) == 0) continue;
      std::string pkg = line.substr(0, sep);
      by_spelling[line.substr(sep + 2)] = pkg.substr(0, pkg.find(':'));  // drop ":amd64"
    }
  }
  std::map<std::string, std::string> owners;
  for (const std::string& p : paths) {
    for (const std::string& v : Variants(p)) {
      auto it = by_spelling.find(v);
      if (it != by_spelling.end()) {
        owners[p] = it->second;
        break;
      }
    }
  }
  return owners;
}

TEST(BundleE2eTest, NeedsNothingBeyondTheBundleAndDebianBase) {
  for (const char* tool : {"patchelf", "dpkg", "ldd", "tar"}) {
    if (FindExecutable(tool).empty()) {
      GTEST_SKIP() << tool << " is not installed (apt-get install patchelf; Debian only)";
    }
  }
  TempDir dir;
  std::string bundle = dir.Join("tokenmill-bundle.tar.gz");
  auto made = RunProcess(
      {"bash", TOKENMILL_SOURCE_DIR "/scripts/make-bundle.sh", TOKENMILL_BINARY, bundle});
  ASSERT_TRUE(made.ok());
  ASSERT_EQ(made->exit_code, 0) << made->out << made->err;
  fs::create_directories(dir.Join("x"));
  auto untar = RunProcess({"tar", "-xzf", bundle, "-C", dir.Join("x")});
  ASSERT_TRUE(untar.ok() && untar->exit_code == 0);
  const std::string bin = dir.Join("x/bin/tokenmill");
  ASSERT_TRUE(fs::exists(bin));
  EXPECT_TRUE(fs::exists(dir.Join("x/VERSION")));
  EXPECT_NE(ReadFile(dir.Join("x/VERSION")).find("tokenmill"), std::string::npos);

  auto rpath = RunProcess({"patchelf", "--print-rpath", bin});
  ASSERT_TRUE(rpath.ok());
  EXPECT_EQ(rpath->out, "$ORIGIN/../lib\n");

  RunOptions clean;
  clean.env_overrides = {"LD_LIBRARY_PATH="};
  std::set<std::string> base = BasePackages();
  ASSERT_GT(base.size(), 50u);
  const std::string lib_dir = fs::canonical(dir.Join("x/lib")).string() + "/";
  // What the binary links, and libcurl (loaded by name through the binary's rpath when a
  // remote path is first used) with what it links.
  const std::string curl = dir.Join("x/lib/libcurl.so.4");
  ASSERT_TRUE(fs::exists(curl)) << "libcurl is not in Debian's base system: the bundle ships it";
  int in_bundle = 0, from_base = 0;
  for (const std::string& object : {bin, curl}) {
    auto ldd = RunProcess({"ldd", object}, clean);
    ASSERT_TRUE(ldd.ok() && ldd->exit_code == 0) << (ldd.ok() ? ldd->err : "");
    std::istringstream lines(ldd->out);
    std::string line;
    std::vector<std::string> outside;
    while (std::getline(lines, line)) {
      EXPECT_EQ(line.find("not found"), std::string::npos) << object << ": " << line;
      size_t arrow = line.find("=> /");
      if (arrow == std::string::npos) continue;
      std::string path = line.substr(arrow + 3, line.find(" (", arrow) - arrow - 3);
      if (fs::canonical(path).string().rfind(lib_dir, 0) == 0) {
        ++in_bundle;
      } else {
        outside.push_back(path);
      }
    }
    std::map<std::string, std::string> owners = Owners(outside);
    for (const std::string& path : outside) {
      std::string pkg = owners.count(path) ? owners[path] : "";
      EXPECT_TRUE(base.count(pkg) == 1) << object << " needs " << path << ", from '" << pkg
                                        << "', which is not in Debian 12's base system";
      ++from_base;
    }
  }
  EXPECT_GT(from_base, 0);  // libc at least
  std::fprintf(stderr, "%d libraries from the bundle, %d from the base system\n", in_bundle,
               from_base);

  // A remote path loads the bundle's libcurl (nothing listens on port 1: libcurl's error).
  RunOptions remote = clean;
  remote.env_overrides.insert(
      remote.env_overrides.end(),
      {"LD_DEBUG=files", "AWS_ENDPOINT_URL=http://127.0.0.1:1", "AWS_ACCESS_KEY_ID=k",
       "AWS_SECRET_ACCESS_KEY=s", "AWS_REGION=us-east-1", "AWS_CONFIG_FILE=/nonexistent",
       "AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "TOKENMILL_HTTP_MAX_ATTEMPTS=1"});
  auto fetched = RunProcess({bin, "tokenize", "--tokenizer",
                             TOKENMILL_SOURCE_DIR "/data/vocab/bert-base-uncased/vocab.txt",
                             "--ids", "s3://bucket/in.txt"},
                            remote);
  ASSERT_TRUE(fetched.ok());
  EXPECT_EQ(fetched->exit_code, 1) << fetched->err;
  EXPECT_NE(fetched->err.find("calling init: " + dir.Join("x/bin/../lib/libcurl.so.4")),
            std::string::npos)
      << fetched->err;
  EXPECT_NE(fetched->err.find("127.0.0.1 port 1"), std::string::npos) << fetched->err;

  // Bundled libraries find each other through their own rpath.
  for (const auto& entry : fs::directory_iterator(dir.Join("x/lib"))) {
    auto lib_ldd = RunProcess({"ldd", entry.path().string()}, clean);
    ASSERT_TRUE(lib_ldd.ok());
    EXPECT_EQ(lib_ldd->out.find("not found"), std::string::npos) << entry.path() << lib_ldd->out;
  }
  auto version = RunProcess({bin, "--version"}, clean);
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(version->exit_code, 0);
  EXPECT_NE(version->out.find("tokenmill"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill::launch
