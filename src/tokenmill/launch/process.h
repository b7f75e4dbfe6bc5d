// Running other programs: the schedulers' command-line tools (sbatch, kubectl, gcloud) and
// tokenmill workers.
//
// RunProcess starts a program with posix_spawnp, feeds it `stdin_data`, collects its stdout and
// stderr and waits for it. It never goes through a shell: arguments reach the program unchanged.
// Thread-safety: the functions are thread-safe (RunProcess uses no shared state besides the
// process environment, which it only reads).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill::launch {

struct ProcessResult {
  int exit_code = -1;   // the exit status, or -1 if the program was killed by a signal
  int term_signal = 0;  // the signal that killed it, or 0
  std::string out;      // everything it wrote to stdout
  std::string err;      // everything it wrote to stderr

  bool ok() const { return exit_code == 0; }
  // "exit code 3" or "signal 9 (Killed)".
  std::string Describe() const;
};

struct RunOptions {
  std::string stdin_data;                  // written to the program's stdin, then stdin is closed
  std::vector<std::string> env_overrides;  // "NAME=value" entries added to (or replacing in)
                                           // this process's environment. Default: none
  std::string working_dir;                 // Default: empty, this process's working directory
};

// Runs argv[0] (looked up on PATH when it has no '/') with the given arguments and waits for it.
// NotFound if the program does not exist; the result otherwise, whatever its exit code.
StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                   const RunOptions& options = {});

// The absolute path of `name` found on PATH (or `name` itself when it contains a '/' and is an
// executable file); empty if not found.
std::string FindExecutable(std::string_view name);

// The absolute path of the running binary (/proc/self/exe).
StatusOr<std::string> SelfExecutablePath();

// Quotes `word` for a POSIX shell: unchanged when it only holds safe characters
// ([A-Za-z0-9_@%+=:,./-]), otherwise in single quotes.
std::string ShellQuote(std::string_view word);

// The words of argv, shell-quoted and joined by spaces: a line a user can paste into a shell.
std::string ShellCommandLine(const std::vector<std::string>& argv);

// Describes a signal number: "SIGTERM".
std::string SignalName(int sig);

}  // namespace tokenmill::launch
