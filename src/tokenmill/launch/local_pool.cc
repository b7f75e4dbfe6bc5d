#include "tokenmill/launch/local_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tokenmill/base/cpus.h"
#include "tokenmill/base/log.h"
#include "tokenmill/launch/process.h"

extern char** environ;

namespace tokenmill::launch {
namespace {

volatile sig_atomic_t g_caught_signal = 0;

extern "C" void CatchSignal(int sig) { g_caught_signal = sig; }
extern "C" void WakeOnChildExit(int) {}

// Installs CatchSignal for SIGINT and SIGTERM and a handler that does nothing for SIGCHLD, and
// blocks the three: they are delivered only while the pool sleeps between polls (Sleep), which
// unblocks them atomically with the wait, so a worker's exit or a Ctrl-C that came while the
// caller's tick ran cuts the next sleep short instead of waiting out a whole interval (the run
// ends when its last worker does). Restores the previous handlers and mask when destroyed, after
// taking what is pending.
class ScopedSignalCatcher {
 public:
  ScopedSignalCatcher() {
    g_caught_signal = 0;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = CatchSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    struct sigaction child;
    std::memset(&child, 0, sizeof(child));
    child.sa_handler = WakeOnChildExit;
    child.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&child.sa_mask);
    sigaction(SIGCHLD, &child, &old_child_);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &old_mask_);
    sleep_mask_ = old_mask_;
    sigdelset(&sleep_mask_, SIGINT);
    sigdelset(&sleep_mask_, SIGTERM);
    sigdelset(&sleep_mask_, SIGCHLD);
  }
  ~ScopedSignalCatcher() {
    Sleep(std::chrono::milliseconds(0));  // pending signals reach our handlers, not the old ones
    sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGCHLD, &old_child_, nullptr);
  }
  // Waits for `interval` or until one of the three signals, pending ones included, is handled.
  void Sleep(std::chrono::milliseconds interval) {
    struct timespec ts;
    ts.tv_sec = interval.count() / 1000;
    ts.tv_nsec = (interval.count() % 1000) * 1000000L;
    ::ppoll(nullptr, 0, &ts, &sleep_mask_);  // EINTR when a signal came: what we want
  }
  // The signal caught (in Sleep) since the last call, or 0.
  int Take() {
    int sig = g_caught_signal;
    g_caught_signal = 0;
    return sig;
  }

 private:
  struct sigaction old_int_;
  struct sigaction old_term_;
  struct sigaction old_child_;
  sigset_t old_mask_;
  sigset_t sleep_mask_;
};

}  // namespace

int PoolSummary::succeeded() const {
  int n = 0;
  for (const WorkerExit& w : workers) n += (!w.running && w.exit_code == 0) ? 1 : 0;
  return n;
}

int PoolSummary::failed() const {
  int n = 0;
  for (const WorkerExit& w : workers) n += (!w.running && w.exit_code != 0) ? 1 : 0;
  return n;
}

int PoolSummary::ExitCode() const {
  if (received_signal != 0) return 128 + received_signal;
  for (const WorkerExit& w : workers) {
    if (w.running || w.exit_code != 0) return 1;
  }
  return 0;
}

std::string PoolSummary::ToString() const {
  std::string text = std::to_string(workers.size()) + " worker" + (workers.size() == 1 ? "" : "s") +
                     ": " + std::to_string(succeeded()) + " exited 0";
  for (const WorkerExit& w : workers) {
    if (w.running) {
      text += ", worker " + std::to_string(w.index) + " (pid " + std::to_string(w.pid) +
              ") still running";
    } else if (w.term_signal != 0) {
      text += ", worker " + std::to_string(w.index) + " (pid " + std::to_string(w.pid) +
              ") killed by " + SignalName(w.term_signal);
    } else if (w.exit_code != 0) {
      text += ", worker " + std::to_string(w.index) + " (pid " + std::to_string(w.pid) +
              ") exited " + std::to_string(w.exit_code);
    }
  }
  if (received_signal != 0) text += " (stopped by " + SignalName(received_signal) + ")";
  return text;
}

LocalPool::LocalPool(LocalPoolOptions options) : options_(std::move(options)) {}

LocalPool::~LocalPool() {
  if (running() > 0) {
    Signal(SIGTERM);
    Reap(/*block=*/true);
  }
}

Status LocalPool::Start(std::string_view store, int n, const std::vector<std::string>& extra_args) {
  if (started_) return Status::FailedPrecondition("LocalPool::Start called twice");
  started_ = true;
  if (store.empty()) return Status::InvalidArgument("no job store given to the local pool");
  if (n < 1) {
    return Status::InvalidArgument("the local pool needs at least 1 worker, got " +
                                   std::to_string(n));
  }
  if (options_.threads_per_worker < 1) {
    return Status::InvalidArgument("threads per worker must be at least 1");
  }
  if (options_.forked_worker) return StartForked(n);
  std::string binary = options_.binary;
  if (binary.empty()) {
    TM_ASSIGN_OR_RETURN(binary, SelfExecutablePath());
  }
  if (FindExecutable(binary).empty()) {
    return Status::NotFound("the tokenmill binary '" + binary +
                            "' does not exist or is not executable: pass its path with --binary");
  }
  TM_RETURN_IF_ERROR(MakeLogDir());

  std::vector<std::string> args = {binary, "work", std::string(store), "--threads",
                                   std::to_string(options_.threads_per_worker)};
  if (options_.binary.empty()) {
    // Each worker sees only its own threads: tell them whether the pool leaves a core idle
    // (`work --write-behind`). Another binary may predate the option and gets no such flag.
    const uint64_t busy =
        uint64_t{static_cast<uint32_t>(n)} * static_cast<uint32_t>(options_.threads_per_worker);
    args.push_back("--write-behind");
    args.push_back(busy < AvailableCpus() ? "on" : "off");
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);

  sigset_t default_signals, empty_mask;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGTERM);
  sigaddset(&default_signals, SIGPIPE);
  sigemptyset(&empty_mask);

  for (int i = 0; i < n; ++i) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!options_.log_dir.empty()) {
      std::string log = options_.log_dir + "/worker-" + std::to_string(i) + ".log";
      posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                       0644);
      posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigdefault(&attr, &default_signals);
    posix_spawnattr_setsigmask(&attr, &empty_mask);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, binary.c_str(), &actions, &attr, c_args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
      Status error = Status::IoError("cannot start worker " + std::to_string(i) + " (" + binary +
                                     "): " + std::strerror(rc));
      Signal(SIGTERM);
      Reap(/*block=*/true);
      return error;
    }
    WorkerExit w;
    w.index = i;
    w.pid = pid;
    summary_.workers.push_back(w);
  }
  return Status::Ok();
}

Status LocalPool::MakeLogDir() const {
  if (options_.log_dir.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(options_.log_dir, ec);
  if (ec) {
    return Status::IoError("cannot create the log folder " + options_.log_dir + ": " +
                           ec.message());
  }
  return Status::Ok();
}

Status LocalPool::StartForked(int n) {
  TM_RETURN_IF_ERROR(MakeLogDir());
  std::fflush(nullptr);  // nothing buffered here is written twice
  for (int i = 0; i < n; ++i) {
    // Opened before the fork, so that a failure is reported here.
    int log_fd = -1;
    if (!options_.log_dir.empty()) {
      const std::string log = options_.log_dir + "/worker-" + std::to_string(i) + ".log";
      log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (log_fd < 0) {
        Status error =
            Status::IoError("cannot open the worker log " + log + ": " + std::strerror(errno));
        Signal(SIGTERM);
        Reap(/*block=*/true);
        return error;
      }
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      if (log_fd >= 0) {
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
      }
      for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
      sigset_t empty_mask;
      sigemptyset(&empty_mask);
      ::sigprocmask(SIG_SETMASK, &empty_mask, nullptr);
      int code = 1;
      try {
        code = options_.forked_worker(i);
      } catch (...) {
        code = 1;
      }
      std::fflush(nullptr);
      ::_exit(code);
    }
    const int fork_errno = errno;
    if (log_fd >= 0) ::close(log_fd);
    if (pid < 0) {
      Status error = Status::IoError("cannot start worker " + std::to_string(i) +
                                     " (fork): " + std::strerror(fork_errno));
      Signal(SIGTERM);
      Reap(/*block=*/true);
      return error;
    }
    ::setpgid(pid, pid);  // also in the child: whichever runs first
    WorkerExit w;
    w.index = i;
    w.pid = pid;
    summary_.workers.push_back(w);
  }
  return Status::Ok();
}

void LocalPool::Reap(bool block) {
  for (WorkerExit& w : summary_.workers) {
    if (!w.running) continue;
    int status = 0;
    pid_t got;
    do {
      got = ::waitpid(w.pid, &status, block ? 0 : WNOHANG);
    } while (got < 0 && errno == EINTR);
    if (got == 0) continue;
    w.running = false;
    if (got < 0) {
      LogWarning("cannot wait for worker " + std::to_string(w.index) + " (pid " +
                 std::to_string(w.pid) + "): " + std::strerror(errno));
      continue;
    }
    if (WIFEXITED(status)) {
      w.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      w.term_signal = WTERMSIG(status);
    }
  }
}

int LocalPool::Poll() {
  Reap(/*block=*/false);
  return running();
}

void LocalPool::Signal(int sig) {
  for (const WorkerExit& w : summary_.workers) {
    if (w.running) ::kill(w.pid, sig);
  }
}

PoolSummary LocalPool::Wait() {
  Reap(/*block=*/true);
  return summary_;
}

PoolSummary LocalPool::RunForwardingSignals(const std::function<void(const LocalPool&)>& tick,
                                            std::chrono::milliseconds interval) {
  ScopedSignalCatcher catcher;
  if (interval.count() <= 0) interval = std::chrono::milliseconds(200);
  while (Poll() > 0) {
    int sig = catcher.Take();
    if (sig != 0) {
      summary_.received_signal = sig;
      Signal(sig);
    }
    if (tick) tick(*this);
    catcher.Sleep(interval);
  }
  catcher.Sleep(std::chrono::milliseconds(0));  // a signal still pending
  int sig = catcher.Take();
  if (sig != 0) summary_.received_signal = sig;
  if (tick) tick(*this);
  return summary_;
}

int LocalPool::running() const {
  int n = 0;
  for (const WorkerExit& w : summary_.workers) n += w.running ? 1 : 0;
  return n;
}

std::vector<pid_t> LocalPool::pids() const {
  std::vector<pid_t> out;
  for (const WorkerExit& w : summary_.workers) out.push_back(w.pid);
  return out;
}

}  // namespace tokenmill::launch
