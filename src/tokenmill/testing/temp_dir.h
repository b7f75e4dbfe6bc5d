// TempDir: a fresh folder for one test, removed with everything in it when the object goes.
//
//   tokenmill::testing::TempDir dir("tm-finalize");  // $TMPDIR/tm-finalize-XXXXXX
//   std::string in = dir.Write("in/a.txt", "hello\n");  // creates in/
//   ReadSomething(dir.Join("in"));
//
// The folder is made by mkdtemp under $TMPDIR (or the system's temporary folder), so tests that
// run at once (ctest -j) never share one. Test-only code. Thread-safety: a TempDir is used by one
// thread; distinct TempDirs are independent.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace tokenmill::testing {

class TempDir {
 public:
  // A new folder in `parent` (default: the system's temporary folder). Throws
  // std::runtime_error when it cannot be made (a test cannot go on without it).
  explicit TempDir(std::string_view prefix = "tokenmill-test", std::string_view parent = {}) {
    const std::filesystem::path in =
        parent.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(parent);
    std::string pattern = (in / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed for " + pattern);
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

  // path()/name.
  std::string Join(std::string_view name) const { return path_ + "/" + std::string(name); }

  // Writes `data` to path()/name, making the folders on the way; returns the file's path.
  std::string Write(std::string_view name, std::string_view data) const {
    const std::filesystem::path full = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream out(full, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) throw std::runtime_error("cannot write " + full.string());
    return full.string();
  }

  // The names in the folder (not recursive), sorted.
  std::vector<std::string> List() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::string path_;
};

}  // namespace tokenmill::testing
