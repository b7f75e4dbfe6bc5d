// tokenmill work STORE [--threads T] [--max-tasks N] [--idle-exit SECONDS]
#include <csignal>
#include <cstdio>

#include "tokenmill/base/allocator.h"
#include "tokenmill/cli/command.h"
#include "tokenmill/job/worker.h"
#include "tokenmill/storage/fault_injection_storage.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::cli {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void OnSignal(int sig) {
  g_signal = sig;
  RequestWorkerStop();
}

}  // namespace

int RunWorkerProcess(const WorkerOptions& worker_options) {
  WorkerOptions options = worker_options;
  if (!options.on_task_thread) options.on_task_thread = KeepThisThreadsMemory;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  auto summary = RunWorker(options);
  if (!summary.ok()) {
    const int code = ReportError(summary.status());
    if (FaultsInjected()) {
      std::fprintf(stderr, "tokenmill: worker exits %d after %llu injected faults\n", code,
                   (unsigned long long)InjectedFaultCount());
    }
    return code;
  }
  const auto& s = *summary;
  const LedgerCounters& c = s.ledger;
  std::fprintf(stderr,
               "tokenmill: worker done: %llu tasks done, %llu failed attempts, %llu released, "
               "%llu lost; %llu documents, %llu tokens, %llu examples; requests: %llu claims "
               "(%llu conflicts), %llu renewals, %llu records, %llu listings, %llu lease reads, "
               "%llu retries; %.1f s\n",
               (unsigned long long)s.tasks_done, (unsigned long long)s.tasks_failed,
               (unsigned long long)s.tasks_released, (unsigned long long)s.tasks_lost,
               (unsigned long long)s.stats.documents, (unsigned long long)s.stats.tokens,
               (unsigned long long)s.stats.examples, (unsigned long long)c.claims,
               (unsigned long long)c.claim_conflicts, (unsigned long long)c.renewals,
               (unsigned long long)c.records, (unsigned long long)c.listings,
               (unsigned long long)c.lease_reads, (unsigned long long)s.storage.retries, s.seconds);
  int code = kExitOk;
  switch (s.ending) {
    case WorkerSummary::Ending::kStopped:
      code = g_signal == SIGINT ? 130 : 143;
      break;
    case WorkerSummary::Ending::kAllFinishedWithFailures:
      std::fprintf(stderr,
                   "tokenmill: every task is finished but some failed for good; see "
                   "`tokenmill status %s`\n",
                   options.store.c_str());
      code = kExitFailure;
      break;
    default:
      break;
  }
  if (FaultsInjected()) {
    // The last line of a worker's log under TOKENMILL_INJECT_FAULTS (scripts/soak.sh reads it).
    std::fprintf(stderr, "tokenmill: worker exits %d after %llu injected faults\n", code,
                 (unsigned long long)InjectedFaultCount());
  }
  return code;
}

void AddWorkCommand(CLI::App& app, CommandAction* action) {
  auto options = std::make_shared<WorkerOptions>();
  CLI::App* cmd = app.add_subcommand(
      "work", "Run a worker: claim tasks from the job store until the job is done");
  cmd->add_option("store", options->store, "the job store (folder, s3:// or gs://)")->required();
  cmd->add_option("--threads", options->threads,
                  "tasks run at once (default: the CPUs this process may use)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--max-tasks", options->max_tasks,
                  "stop after this many tasks (default: no limit)");
  cmd->add_option_function<std::string>(
         "--write-behind",
         [options](const std::string& v) {
           if (v != "auto") options->write_behind = v == "on";
         },
         "hash and write shards on threads of their own while the next examples are made: on, "
         "off, or auto (on when --threads leaves a CPU idle)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->add_option("--idle-exit", options->idle_exit_seconds,
                  "leave after this many seconds with nothing to claim (default: never)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([options, action] { *action = [options] { return RunWorkerProcess(*options); }; });
}

}  // namespace tokenmill::cli
