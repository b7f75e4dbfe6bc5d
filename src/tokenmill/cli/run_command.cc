// tokenmill run JOB.toml [--workers N] [--fresh] [--store URL]
//
// plan (or resume) + N local worker processes + a live progress bar + finalize.
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "tokenmill/base/cpus.h"
#include "tokenmill/base/units.h"
#include "tokenmill/cli/command.h"
#include "tokenmill/job/finalize.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/job_status.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/job/report.h"
#include "tokenmill/job/worker.h"
#include "tokenmill/launch/local_pool.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::cli {
namespace {

struct RunArgs {
  std::string job_file;
  std::string store;
  uint32_t workers = 0;
  bool fresh = false;
  bool quiet = false;
};

// Draws a progress bar on a terminal (redrawn in place), or a line every few seconds otherwise.
class Progress {
 public:
  explicit Progress(bool quiet) : tty_(isatty(STDERR_FILENO) == 1), quiet_(quiet) {}

  void Update(const JobStatus& st) {
    if (quiet_ || printed_final_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!tty_ && !st.finished && now - last_print_ < std::chrono::seconds(5)) return;
    last_print_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (!have_base_) {
      base_tokens_ = st.stats.tokens;  // tokens of a resumed job's earlier runs
      have_base_ = true;
    }
    const double tps = elapsed > 0 ? (st.stats.tokens - base_tokens_) / elapsed : 0;
    const std::string line = FormatProgressLine(st, tps);
    if (tty_) {
      const int width = 24;
      const int filled =
          st.total ? static_cast<int>(width * static_cast<double>(st.done) / st.total) : width;
      std::string bar(filled, '#');
      bar += std::string(width - filled, '.');
      std::fprintf(stderr, "\r[%s] %s\033[K", bar.c_str(), line.c_str());
      drew_ = true;
    } else {
      std::fprintf(stderr, "tokenmill: %s\n", line.c_str());
    }
    std::fflush(stderr);
    printed_final_ = st.finished;
  }

  void End() {
    if (drew_) std::fprintf(stderr, "\n");
  }

 private:
  bool tty_;
  bool quiet_;
  bool drew_ = false;
  bool printed_final_ = false;
  bool have_base_ = false;
  uint64_t base_tokens_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_print_{};
};

int RunRun(const RunArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  auto spec = LoadJobSpec(args.job_file);
  if (!spec.ok()) return ReportError(spec.status());
  auto plan = PlanJob(*spec, {args.store, args.fresh});
  if (!plan.ok()) return ReportError(plan.status());
  const std::string store_location = plan->store;
  auto store = StorageFor(store_location);
  if (!store.ok()) return ReportError(store.status());
  StatusReader reader(*store, store_location);
  auto st = reader.Read();
  if (!st.ok()) return ReportError(st.status());

  const uint32_t cpus = AvailableCpus();  // reads the cgroup files: once
  const uint32_t workers = args.workers > 0 ? args.workers : cpus;
  const bool already_done = st->complete;
  const uint64_t bytes_before = st->stats.bytes_in;
  if (!st->finished) {
    if (plan->resumed) {
      std::fprintf(stderr, "tokenmill: resuming %s: %llu of %llu tasks already done\n",
                   store_location.c_str(), (unsigned long long)st->done,
                   (unsigned long long)st->total);
    } else {
      std::fprintf(stderr, "tokenmill: planned %llu tasks (%.1f MB) in %s; %u workers\n",
                   (unsigned long long)plan->job.task_count, plan->job.input_bytes / 1e6,
                   store_location.c_str(), workers);
    }
    // Forked workers write their shards behind the work only when they leave a core idle (each
    // sees one thread of its own, not the others; LocalPool tells new processes the same).
    const bool write_behind = workers < cpus;
    launch::LocalPoolOptions pool_options;
    pool_options.log_dir =
        IsUrl(store_location) ? "tokenmill-logs" : JoinPath(store_location, "logs");
    if (!IsUrl(store_location)) {
      // Workers are forks of this process, which holds no network connection and runs no other
      // thread here: they keep the tokenizer the planner built (no process start, no second
      // load). A store on GCS or S3 gets new processes (no HTTP client state is shared).
      pool_options.forked_worker = [store_location, write_behind](int) {
        WorkerOptions options;
        options.store = store_location;
        options.threads = 1;
        options.write_behind = write_behind;
        return RunWorkerProcess(options);
      };
    }
    launch::LocalPool pool(pool_options);
    Status started = pool.Start(store_location, static_cast<int>(workers));
    if (!started.ok()) return ReportError(started);
    Progress progress(args.quiet);
    auto last_read = std::chrono::steady_clock::now() - std::chrono::seconds(10);
    auto tick = [&](const launch::LocalPool& p) {
      // Read the store once a second (and once at the end), not at every poll of the workers.
      const auto now = std::chrono::steady_clock::now();
      if (p.running() > 0 && now - last_read < std::chrono::seconds(1)) return;
      last_read = now;
      auto read = reader.Read();
      if (read.ok()) progress.Update(*read);
    };
    launch::PoolSummary summary = pool.RunForwardingSignals(tick, std::chrono::milliseconds(100));
    progress.End();
    if (summary.received_signal != 0) {
      std::fprintf(stderr,
                   "tokenmill: stopped; run the same command again to finish the job (%s)\n",
                   summary.ToString().c_str());
      return summary.ExitCode();
    }
    st = reader.Read();
    if (!st.ok()) return ReportError(st.status());
    if (!st->complete) {
      std::fprintf(stderr, "%s", FormatStatusText(*st).c_str());
      auto report = WriteReport(store_location);
      if (report.ok()) std::fprintf(stderr, "tokenmill: report: %s\n", report->c_str());
      std::fprintf(stderr, "tokenmill: the job did not complete (%s); worker logs are in %s\n",
                   summary.ToString().c_str(), pool_options.log_dir.c_str());
      return kExitFailure;
    }
  } else if (!st->complete) {
    std::fprintf(stderr, "%s", FormatStatusText(*st).c_str());
    auto report = WriteReport(store_location);
    if (report.ok()) std::fprintf(stderr, "tokenmill: report: %s\n", report->c_str());
    return ReportError(Status::FailedPrecondition(
        "the job finished with failed tasks; fix the inputs and start over with --fresh"));
  }

  auto result = FinalizeJob(store_location, {});
  if (!result.ok()) return ReportError(result.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string speed;
  if (!already_done) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), ", %.2f MB/s",
                  (result->totals.bytes_in - bytes_before) / 1e6 / seconds);
    speed = buf;
  }
  std::printf(
      "%s: %llu documents, %llu tokens, %llu examples, %llu shards (%s) in %s%s\n",
      already_done ? "already done" : (plan->resumed ? "done (resumed)" : "done"),
      (unsigned long long)result->totals.documents, (unsigned long long)result->totals.tokens,
      (unsigned long long)result->totals.examples, (unsigned long long)result->shards,
      FormatBytes(result->bytes_out).c_str(), result->manifest_location.c_str(), speed.c_str());
  // The last line of stdout stays the summary; the report's location goes with the notes.
  std::fflush(stdout);
  auto report = WriteReport(store_location, "", &reader);
  if (!report.ok()) return ReportError(report.status().WithContext("writing the report"));
  std::fprintf(stderr, "tokenmill: report: %s\n", report->c_str());
  return kExitOk;
}

}  // namespace

void AddRunCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a whole job on this machine: plan, workers on every core, finalize");
  cmd->add_option("job", args->job_file, "the job file (TOML)")->required();
  cmd->add_option("--workers", args->workers, "worker processes (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--store", args->store, "job store location (default: <output>/_job)");
  cmd->add_flag("--fresh", args->fresh,
                "start over: delete this job's store and output shards (nothing else)");
  cmd->add_flag("--quiet", args->quiet, "no progress display");
  cmd->callback([args, action] { *action = [args] { return RunRun(*args); }; });
}

}  // namespace tokenmill::cli
