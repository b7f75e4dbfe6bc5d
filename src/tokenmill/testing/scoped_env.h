// ScopedEnv: sets an environment variable for the life of the object, then restores it (or
// removes it if it was not set).
//
//   tokenmill::testing::ScopedEnv tmpdir("TMPDIR", dir.Join("scratch"));
//
// Test-only code. Thread-safety: not thread-safe (the environment is the process's).
#pragma once

#include <stdlib.h>

#include <string>

namespace tokenmill::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = ::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace tokenmill::testing
