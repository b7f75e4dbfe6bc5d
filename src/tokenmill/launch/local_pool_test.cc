#include "tokenmill/launch/local_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

// A stand-in for the tokenmill binary: a real program that records how it was started and exits
// as the test tells it through files in its folder.
std::string FakeWorker(const TempDir& dir, const std::string& body) {
  std::string path = dir.Join("fake-tokenmill");
  WriteFile(path, "#!/bin/sh\nD=" + dir.path() + "\necho \"$$ $*\" >> \"$D/started\"\n" + body,
            /*executable=*/true);
  return path;
}

TEST(LocalPoolTest, StartsNWorkersWithTheWorkCommand) {
  TempDir dir;
  LocalPoolOptions options;
  options.binary = FakeWorker(dir, "exit 0\n");
  LocalPool pool(options);
  ASSERT_TRUE(pool.Start("/store/_job", 3, {"--max-tasks", "5"}).ok());
  EXPECT_EQ(pool.pids().size(), 3u);
  PoolSummary summary = pool.Wait();
  EXPECT_EQ(pool.running(), 0);
  EXPECT_EQ(summary.succeeded(), 3);
  EXPECT_EQ(summary.failed(), 0);
  EXPECT_EQ(summary.ExitCode(), 0);
  EXPECT_EQ(summary.ToString(), "3 workers: 3 exited 0");
  std::string started = ReadFile(dir.Join("started"));
  EXPECT_EQ(std::count(started.begin(), started.end(), '\n'), 3);
  EXPECT_NE(started.find(" work /store/_job --threads 1 --max-tasks 5\n"), std::string::npos);
}

TEST(LocalPoolTest, ReportsFailedWorkers) {
  TempDir dir;
  // Exactly one worker (the first to create the folder) exits 1, the others 0.
  LocalPoolOptions options;
  options.binary = FakeWorker(dir, "mkdir \"$D/failed\" 2>/dev/null && exit 1\nexit 0\n");
  options.threads_per_worker = 4;
  LocalPool pool(options);
  ASSERT_TRUE(pool.Start("/s", 3).ok());
  PoolSummary summary = pool.Wait();
  EXPECT_EQ(summary.succeeded(), 2);
  EXPECT_EQ(summary.failed(), 1);
  EXPECT_EQ(summary.ExitCode(), 1);
  EXPECT_NE(summary.ToString().find(") exited 1"), std::string::npos) << summary.ToString();
  EXPECT_NE(ReadFile(dir.Join("started")).find("--threads 4"), std::string::npos);
}

TEST(LocalPoolTest, PollDoesNotBlockAndWritesLogs) {
  TempDir dir;
  LocalPoolOptions options;
  options.binary = FakeWorker(dir,
                              "echo \"to stdout\"; echo \"to stderr\" >&2\n"
                              "while [ ! -f \"$D/go\" ]; do sleep 0.05; done\nexit 0\n");
  options.log_dir = dir.Join("logs");
  LocalPool pool(options);
  ASSERT_TRUE(pool.Start("/s", 2).ok());
  EXPECT_EQ(pool.Poll(), 2);  // both wait for the file
  WriteFile(dir.Join("go"), "");
  PoolSummary summary = pool.Wait();
  EXPECT_EQ(summary.ExitCode(), 0);
  for (int i = 0; i < 2; ++i) {
    std::string log = ReadFile(dir.Join("logs/worker-" + std::to_string(i) + ".log"));
    EXPECT_NE(log.find("to stdout"), std::string::npos);
    EXPECT_NE(log.find("to stderr"), std::string::npos);
  }
}

TEST(LocalPoolTest, ForwardsSigtermToTheWorkers) {
  TempDir dir;
  LocalPoolOptions options;
  options.binary = FakeWorker(dir,
                              "trap 'echo $$ >> \"$D/terminated\"; exit 143' TERM\n"
                              "touch \"$D/ready-$$\"\n"
                              "while :; do sleep 0.05; done\n");
  LocalPool pool(options);
  ASSERT_TRUE(pool.Start("/s", 3).ok());
  bool sent = false;
  int ticks = 0;
  PoolSummary summary = pool.RunForwardingSignals(
      [&](const LocalPool& p) {
        ++ticks;
        // Once every worker has installed its trap, signal this process as a user would.
        int ready = 0;
        for (pid_t pid : p.pids()) {
          ready += ::access(dir.Join("ready-" + std::to_string(pid)).c_str(), F_OK) == 0 ? 1 : 0;
        }
        if (!sent && ready == 3) {
          sent = true;
          ::kill(::getpid(), SIGTERM);
        }
      },
      std::chrono::milliseconds(20));
  EXPECT_TRUE(sent);
  EXPECT_GT(ticks, 0);
  EXPECT_EQ(summary.received_signal, SIGTERM);
  EXPECT_EQ(summary.ExitCode(), 143);
  for (const WorkerExit& w : summary.workers) {
    EXPECT_FALSE(w.running);
    EXPECT_EQ(w.exit_code, 143);
  }
  std::string terminated = ReadFile(dir.Join("terminated"));
  EXPECT_EQ(std::count(terminated.begin(), terminated.end(), '\n'), 3);
  EXPECT_NE(summary.ToString().find("stopped by SIGTERM"), std::string::npos);
  // The handler is gone again: the default action is back.
  struct sigaction now;
  sigaction(SIGTERM, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST(LocalPoolTest, ForkedWorkersKeepWhatThisProcessHoldsAndWriteLogs) {
  TempDir dir;
  static std::string loaded;  // stands for the tokenizer `run` has built
  loaded = "built once";
  LocalPoolOptions options;
  options.log_dir = dir.Join("logs");
  options.forked_worker = [](int index) {
    std::printf("worker %d sees '%s', own group %d\n", index, loaded.c_str(),
                ::getpgrp() == ::getpid() ? 1 : 0);
    std::fprintf(stderr, "stderr of %d\n", index);
    return index;  // worker i exits i
  };
  LocalPool pool(options);
  ASSERT_TRUE(pool.Start("/s", 3).ok());
  PoolSummary summary = pool.Wait();
  EXPECT_EQ(summary.succeeded(), 1);
  EXPECT_EQ(summary.failed(), 2);
  for (const WorkerExit& w : summary.workers) EXPECT_EQ(w.exit_code, w.index);
  for (int i = 0; i < 3; ++i) {
    const std::string log = ReadFile(dir.Join("logs/worker-" + std::to_string(i) + ".log"));
    EXPECT_NE(log.find("worker " + std::to_string(i) + " sees 'built once', own group 1\n"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("stderr of " + std::to_string(i)), std::string::npos) << log;
  }
}

TEST(LocalPoolTest, ForkedWorkersGetSignalsForwarded) {
  LocalPoolOptions options;
  options.forked_worker = [](int) {
    while (true) ::pause();  // default SIGTERM handling: killed
    return 0;
  };
  LocalPool pool(options);
  ASSERT_TRUE(pool.Start("/s", 2).ok());
  bool sent = false;
  PoolSummary summary = pool.RunForwardingSignals(
      [&](const LocalPool&) {
        if (!sent) {
          sent = true;
          ::kill(::getpid(), SIGTERM);
        }
      },
      std::chrono::milliseconds(20));
  EXPECT_EQ(summary.received_signal, SIGTERM);
  for (const WorkerExit& w : summary.workers) {
    EXPECT_FALSE(w.running);
    EXPECT_EQ(w.term_signal, SIGTERM);
  }
}

// The last worker ends while the callback runs (before the pool's sleep begins): its SIGCHLD is
// held until the sleep, which it then cuts short. With the signal lost, the pool would wait out
// the whole interval (an hour here) before it saw the exit.
TEST(LocalPoolTest, WorkerEndingDuringTheCallbackCutsTheNextSleepShort) {
  // The worker waits until the callback lets it go (the write end of a pipe closed), so that it
  // ends during the callback and not before the pool's first poll.
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  LocalPoolOptions options;
  options.forked_worker = [gate](int) {
    ::close(gate[1]);
    char c;
    while (::read(gate[0], &c, 1) > 0) {
    }
    return 0;
  };
  LocalPool pool(options);
  ASSERT_TRUE(pool.Start("/s", 1).ok());
  ::close(gate[0]);
  const pid_t pid = pool.pids().at(0);
  int ticks = 0;
  const auto start = std::chrono::steady_clock::now();
  PoolSummary summary = pool.RunForwardingSignals(
      [&](const LocalPool& p) {
        ++ticks;
        if (p.running() == 0) return;
        ::close(gate[1]);  // the worker ends now
        siginfo_t info;
        // Until the worker has ended, without reaping it (the pool does that).
        ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);
      },
      std::chrono::hours(1));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(30));
  EXPECT_EQ(ticks, 2);  // one while it ran, one at the end
  EXPECT_EQ(summary.succeeded(), 1);
  EXPECT_EQ(summary.received_signal, 0);
  // SIGCHLD is neither blocked nor handled by the pool any more.
  sigset_t mask;
  sigprocmask(SIG_BLOCK, nullptr, &mask);
  EXPECT_EQ(sigismember(&mask, SIGCHLD), 0);
  struct sigaction now;
  sigaction(SIGCHLD, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST(LocalPoolTest, DestructorStopsWorkersStillRunning) {
  TempDir dir;
  std::vector<pid_t> pids;
  {
    LocalPoolOptions options;
    options.binary = FakeWorker(dir, "exec sleep 600\n");
    LocalPool pool(options);
    ASSERT_TRUE(pool.Start("/s", 2).ok());
    pids = pool.pids();
  }
  for (pid_t pid : pids) EXPECT_NE(::kill(pid, 0), 0) << "pid " << pid << " still alive";
}

TEST(LocalPoolTest, ClearErrors) {
  TempDir dir;
  LocalPoolOptions options;
  options.binary = dir.Join("no-such-binary");
  LocalPool pool(options);
  Status s = pool.Start("/s", 2);
  EXPECT_TRUE(s.Is(StatusCode::kNotFound));
  EXPECT_NE(s.message().find("--binary"), std::string::npos);

  LocalPool zero;
  EXPECT_TRUE(zero.Start("/s", 0).Is(StatusCode::kInvalidArgument));
  EXPECT_TRUE(zero.Start("/s", 1).Is(StatusCode::kFailedPrecondition));  // started once already

  LocalPool no_store;
  EXPECT_TRUE(no_store.Start("", 1).Is(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace tokenmill::launch
