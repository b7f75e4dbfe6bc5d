// LocalPool: N `tokenmill work STORE` processes on this machine.
//
// Used by `tokenmill launch local` and by `tokenmill run`. Start() spawns the workers (posix_spawn
// of the tokenmill binary, each in its own process group so that a terminal's Ctrl-C reaches them
// only through the pool); Poll() reaps the ones that ended without blocking, so the caller can
// draw progress between calls; Signal() forwards a signal to the live workers; Wait() blocks until
// all have ended. RunForwardingSignals() does the whole loop: it catches SIGINT/SIGTERM, forwards
// them to the workers and calls back between polls.
//
//   LocalPool pool({.log_dir = "/x/logs"});
//   TM_RETURN_IF_ERROR(pool.Start("/x/_job", 4));
//   TM_ASSIGN_OR_RETURN(PoolSummary s, pool.RunForwardingSignals([&](const LocalPool& p) {
//     DrawProgress();  // e.g. from `status`
//   }));
//   return s.ExitCode();  // 0, 1, 130 or 143
//
// The destructor sends SIGTERM to workers still running and waits for them (no orphans).
// Thread-safety: not thread-safe; use one pool from one thread. RunForwardingSignals installs
// process-wide SIGINT/SIGTERM handlers while it runs (and restores the previous ones), so at most
// one pool may run it at a time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill::launch {

struct LocalPoolOptions {
  // The tokenmill binary to run. Default: empty, the running binary (/proc/self/exe).
  std::string binary;
  // --threads of each worker. Default: 1
  int threads_per_worker = 1;
  // When set, worker i writes its stdout and stderr to <log_dir>/worker-<i>.log (appended; the
  // folder is created). Default: empty, the workers inherit this process's stdout and stderr.
  std::string log_dir;
  // When set, worker i is a fork of this process that returns forked_worker(i) as its exit
  // status, instead of a new `<binary> work` process: it keeps what this process already loaded
  // (`run`'s planner has built the tokenizer), which saves a process start and a tokenizer load
  // per worker. The child gets its own process group, the log file, default signal handling,
  // and leaves with _exit. Only from a process that runs no other thread and holds no network
  // connection (a local store). Default: none.
  std::function<int(int index)> forked_worker;
};

// How one worker ended.
struct WorkerExit {
  int index = 0;  // 0..n-1, in start order
  pid_t pid = 0;
  bool running = true;  // false once it has been reaped
  int exit_code = -1;   // its exit status, or -1 if it was killed by a signal
  int term_signal = 0;  // the signal that killed it, or 0
};

struct PoolSummary {
  std::vector<WorkerExit> workers;
  int received_signal = 0;  // SIGINT/SIGTERM caught by RunForwardingSignals, or 0

  int succeeded() const;  // workers that exited 0
  int failed() const;     // workers that ended otherwise
  // 128 + received_signal if a signal stopped the pool, else 0 if every worker exited 0, else 1.
  int ExitCode() const;
  // "4 workers: 3 exited 0, worker 2 (pid 123) exited 1".
  std::string ToString() const;
};

class LocalPool {
 public:
  explicit LocalPool(LocalPoolOptions options = {});
  ~LocalPool();
  LocalPool(const LocalPool&) = delete;
  LocalPool& operator=(const LocalPool&) = delete;

  // Starts n workers: `<binary> work <store> --threads <threads_per_worker> <extra_args...>`
  // (the running binary also gets `--write-behind on` when the n workers' threads leave one of
  // this process's CPUs idle, `off` otherwise).
  // REQUIRES: Start was not called before. On failure, the workers already started are
  // stopped (SIGTERM) and reaped before it returns.
  Status Start(std::string_view store, int n, const std::vector<std::string>& extra_args = {});

  // Reaps workers that have ended, without blocking. Returns how many are still running.
  int Poll();

  // Sends `sig` to every worker still running.
  void Signal(int sig);

  // Blocks until every worker has ended.
  PoolSummary Wait();

  // Catches SIGINT and SIGTERM while the workers run and forwards them; calls `tick` every
  // `interval` (and once at the end). Returns when every worker has ended.
  PoolSummary RunForwardingSignals(
      const std::function<void(const LocalPool&)>& tick = nullptr,
      std::chrono::milliseconds interval = std::chrono::milliseconds(200));

  // The state of every worker so far.
  PoolSummary summary() const { return summary_; }
  int running() const;
  std::vector<pid_t> pids() const;

 private:
  void Reap(bool block);
  Status StartForked(int n);
  // Creates options_.log_dir, if set.
  Status MakeLogDir() const;

  LocalPoolOptions options_;
  PoolSummary summary_;
  bool started_ = false;
};

}  // namespace tokenmill::launch
