// Helpers shared by the launch tests: files (in a TempDir, testing/temp_dir.h), tools on PATH,
// the environment (testing/scoped_env.h).
// Thread-safety: for tests only; not thread-safe.
#pragma once

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tokenmill/testing/scoped_env.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill::launch::testing {

using ::tokenmill::testing::ScopedEnv;
using ::tokenmill::testing::TempDir;

inline void WriteFile(const std::string& path, const std::string& text, bool executable = false) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  if (executable) ::chmod(path.c_str(), 0755);
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace tokenmill::launch::testing
