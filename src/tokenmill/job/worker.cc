#include "tokenmill/job/worker.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <system_error>
#include <thread>
#include <vector>

#include "tokenmill/base/cpus.h"
#include "tokenmill/base/log.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/job/record_checks.h"
#include "tokenmill/job/store_clock.h"
#include "tokenmill/job/task_runner.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

std::atomic<bool> g_stop{false};

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

// A default scratch folder is kScratchPrefix + the worker id, which MakeWorkerId() makes
// <host>-<pid>-<kIdSuffixDigits hex digits>.
constexpr std::string_view kScratchPrefix = "tokenmill-";
constexpr size_t kIdSuffixDigits = 6;

// The pid in the name of a default scratch folder of a worker of `host`, or 0.
pid_t ScratchPid(std::string_view name, std::string_view host) {
  if (!name.starts_with(kScratchPrefix)) return 0;
  name.remove_prefix(kScratchPrefix.size());
  if (!name.starts_with(host) || name.substr(host.size(), 1) != "-") return 0;
  name.remove_prefix(host.size() + 1);
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
  const std::string_view suffix = name.substr(static_cast<size_t>(end - name.data()));
  if (error != std::errc() || end == name.data() || suffix.size() != 1 + kIdSuffixDigits ||
      suffix[0] != '-') {
    return 0;
  }
  for (const char c : suffix.substr(1)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return 0;
  }
  return pid;
}

std::string MakeWorkerId() {
  std::random_device rd;
  char suffix[16];
  static_assert(kIdSuffixDigits == 6);
  std::snprintf(suffix, sizeof(suffix), "%06x", static_cast<unsigned>(rd() & 0xffffff));
  return HostName() + "-" + std::to_string(getpid()) + "-" + suffix;
}

std::mutex g_nap_mu;
std::condition_variable g_nap_cv;
uint64_t g_nap_epoch = 0;  // guarded by g_nap_mu; WakeNappers() moves it

// Sleeps up to `ms`, waking early when a stop is requested (seen within 50 ms: a signal handler
// cannot notify), `done` becomes true, WakeNappers() is called (at once), or `watch` (if given)
// sees a record created (another worker's task done: the job may be over; the other reasons are
// then looked at every 20 ms).
void Nap(int64_t ms, const std::atomic<bool>& done, ChangeWatch* watch = nullptr) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  std::unique_lock<std::mutex> lock(g_nap_mu);
  const uint64_t epoch = g_nap_epoch;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (g_stop.load() || done.load() || now >= until || g_nap_epoch != epoch) return;
    const auto slice = std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(watch != nullptr ? 20 : 50), until - now);
    if (watch == nullptr) {
      g_nap_cv.wait_for(lock, slice);
      continue;
    }
    lock.unlock();
    const bool changed = watch->Wait(std::chrono::ceil<std::chrono::milliseconds>(slice));
    lock.lock();
    if (changed) return;
  }
}

void WakeNappers() {
  std::lock_guard<std::mutex> lock(g_nap_mu);
  ++g_nap_epoch;
  g_nap_cv.notify_all();
}

// A claim of a free task (Ledger::ClaimCandidate) on a thread of its own, so that the task runs
// meanwhile instead of waiting for the store (on a folder store the claim's fsyncs wait behind
// the previous task's shards being written out: about 5 ms a task with two workers on two cores;
// on a bucket, a request or more). Made inline if no thread can be started.
class ClaimInFlight {
 public:
  ClaimInFlight(Ledger& ledger, uint64_t task) : ledger_(ledger), task_(task) {
    try {
      thread_ = std::thread([this] { Decide(); });
    } catch (const std::system_error&) {
      Decide();
    }
  }
  ~ClaimInFlight() { Wait(); }
  ClaimInFlight(const ClaimInFlight&) = delete;
  ClaimInFlight& operator=(const ClaimInFlight&) = delete;

  // True while the claim is undecided.
  bool pending() const { return state_.load(std::memory_order_acquire) == kPending; }
  // True once it is decided and not won (another worker holds the task, or the store failed).
  bool lost() const { return state_.load(std::memory_order_acquire) == kLost; }
  // Waits for the decision: true if this worker holds the task, false if another one does, or
  // the store's error.
  const StatusOr<bool>& Wait() {
    if (thread_.joinable()) thread_.join();
    return result_;
  }

 private:
  enum State : int { kPending, kWon, kLost };
  void Decide() {
    result_ = ledger_.ClaimCandidate(task_);
    state_.store(result_.ok() && *result_ ? kWon : kLost, std::memory_order_release);
  }

  Ledger& ledger_;
  const uint64_t task_;
  StatusOr<bool> result_ = false;
  std::atomic<int> state_{kPending};
  std::thread thread_;  // last: started once the rest is set
};

}  // namespace

void RequestWorkerStop() { g_stop.store(true); }
bool WorkerStopRequested() { return g_stop.load(); }

int RemoveStaleScratch(const std::string& parent, const std::string& host) {
  constexpr auto kStaleAfter = std::chrono::hours(1);
  int removed = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(parent, ec), end; !ec && it != end;
       it.increment(ec)) {
    const pid_t pid = ScratchPid(it->path().filename().string(), host);
    if (pid <= 0 || pid == getpid()) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // running (or not ours to signal)
    // Untouched for an hour too: a worker in another pid namespace (a container sharing this
    // TMPDIR and host name) is not seen by kill() yet makes a task folder in it for each task.
    std::error_code remove_ec;
    const auto modified = std::filesystem::last_write_time(it->path(), remove_ec);
    if (remove_ec || std::filesystem::file_time_type::clock::now() - modified < kStaleAfter) {
      continue;
    }
    if (std::filesystem::is_directory(it->path(), remove_ec) &&
        std::filesystem::remove_all(it->path(), remove_ec) > 0 && !remove_ec) {
      ++removed;
    }
  }
  return removed;
}

StatusOr<WorkerSummary> RunWorker(const WorkerOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  TM_ASSIGN_OR_RETURN(Storage * raw_store, StorageFor(options.store));
  Storage* store = options.wrap_store ? options.wrap_store(raw_store) : raw_store;
  const StorePaths paths(options.store);
  TM_ASSIGN_OR_RETURN(JobRecord job, ReadJobRecord(*store, paths));
  TM_ASSIGN_OR_RETURN(JobSpec spec, JobSpec::FromJson(job.spec_json));
  TM_ASSIGN_OR_RETURN(std::vector<TaskDef> tasks, ReadTasks(*store, paths, job));
  for (const TaskDef& task : tasks) TM_RETURN_IF_ERROR(CheckTaskInJob(spec, task, paths.Tasks()));

  TM_ASSIGN_OR_RETURN(auto tokenizer, LoadJobTokenizer(*store, paths, job, spec.tokenizer));
  TM_ASSIGN_OR_RETURN(Storage * output, StorageFor(spec.output.path));

  const std::string worker_id = options.worker_id.empty() ? MakeWorkerId() : options.worker_id;
  std::string scratch = options.scratch_dir;
  if (scratch.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    const std::string parent = tmp && *tmp ? tmp : "/tmp";
    scratch = parent + "/" + std::string(kScratchPrefix) + worker_id;
    const int removed = RemoveStaleScratch(parent, HostName());
    if (removed > 0) {
      LogInfo("removed " + std::to_string(removed) +
              " scratch folder(s) of workers of this host that no longer run, in " + parent);
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(scratch, ec);
  if (ec) return Status::IoError("cannot create scratch folder " + scratch + ": " + ec.message());

  LedgerOptions ledger_options;
  ledger_options.lease_seconds = spec.job.lease_seconds;
  ledger_options.max_attempts = spec.job.max_attempts;
  ledger_options.max_expiries = spec.job.max_expiries;
  ledger_options.task_work.reserve(tasks.size());
  for (const TaskDef& task : tasks) ledger_options.task_work.push_back(TaskWork(task));
  Ledger ledger(store, paths, job.task_count, worker_id, ledger_options);

  const uint32_t cpus = AvailableCpus();  // reads the cgroup files: once
  const uint32_t threads = options.threads > 0 ? options.threads : cpus;
  const bool write_behind = options.write_behind.value_or(threads < cpus);
  WorkerSummary summary;
  std::mutex mu;  // guards summary and heartbeat
  WorkerHeartbeat heartbeat;
  heartbeat.id = worker_id;
  heartbeat.host = HostName();
  heartbeat.pid = getpid();
  heartbeat.threads = threads;
  heartbeat.write_behind = write_behind;
  heartbeat.started_at_ms = NowMs();

  std::atomic<bool> finished{false};
  std::atomic<bool> clock_off{false};  // the clock check failed during the job: stop, as g_stop
  std::atomic<uint64_t> claimed{0};
  std::atomic<int> ending{-1};
  Status fatal;

  auto write_heartbeat = [&](bool exited) {
    WorkerHeartbeat hb;
    {
      std::lock_guard<std::mutex> lock(mu);
      heartbeat.last_seen_ms = NowMs();
      heartbeat.exited = exited;
      heartbeat.tasks_done = summary.tasks_done;
      heartbeat.tasks_failed = summary.tasks_failed;
      heartbeat.stats = summary.stats;
      const LedgerCounters c = ledger.counters();
      heartbeat.claims = c.claims;
      heartbeat.claim_conflicts = c.claim_conflicts;
      heartbeat.renewals = c.renewals;
      heartbeat.records = c.records;
      heartbeat.listings = c.listings;
      heartbeat.lease_reads = c.lease_reads;
      heartbeat.retries = store->counters().retries;
      ++heartbeat.heartbeats;
      hb = heartbeat;
    }
    Status s = store->Write(paths.Worker(worker_id), ToJson(hb));
    if (!s.ok()) LogWarning("heartbeat: " + s.ToString());
  };
  const int64_t before_first_beat = NowMs();
  write_heartbeat(false);
  if (Status clock = CheckClockAgainstStore(*store, paths.Worker(worker_id), before_first_beat,
                                            NowMs(), spec.job.lease_seconds);
      !clock.ok()) {
    {
      std::lock_guard<std::mutex> lock(mu);
      heartbeat.error = clock.ToString();
    }
    write_heartbeat(true);
    return clock;
  }

  auto renew_and_beat = [&] {
    auto last_heartbeat = std::chrono::steady_clock::now();
    auto last_clock_check = last_heartbeat;
    while (!finished.load()) {
      Status s = ledger.RenewDue();
      if (!s.ok()) LogWarning("lease renewal: " + s.ToString());
      const auto now = std::chrono::steady_clock::now();
      const bool check_clock =
          !clock_off.load() &&
          now - last_clock_check >= std::chrono::milliseconds(options.clock_check_ms);
      if (check_clock || now - last_heartbeat > std::chrono::seconds(10)) {
        const int64_t before_beat = NowMs();
        write_heartbeat(false);
        last_heartbeat = std::chrono::steady_clock::now();
        if (check_clock) {
          last_clock_check = last_heartbeat;
          Status clock = CheckClockAgainstStore(*store, paths.Worker(worker_id), before_beat,
                                                NowMs(), spec.job.lease_seconds);
          if (!clock.ok()) {
            // Stop as at SIGTERM: running tasks are cancelled and their leases given back
            // (renewed until then); nothing more is claimed.
            LogError(clock.message());
            {
              std::lock_guard<std::mutex> lock(mu);
              if (fatal.ok()) fatal = clock;
            }
            clock_off = true;
            WakeNappers();
          }
        }
      }
      Nap(std::min<int64_t>(250, std::max<int64_t>(1, options.clock_check_ms)), finished);
      if (g_stop.load()) {
        // Keep renewing until the workers have released their leases.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  };
  std::thread background;
  try {
    background = std::thread(renew_and_beat);
  } catch (const std::system_error& e) {  // a process or cgroup limit on threads
    return Status::Unavailable(std::string("cannot start the lease renewal thread: ") + e.what() +
                               "; raise the limit on threads (ulimit -u, the container's pids "
                               "limit) or run fewer --threads");
  }

  // Waiting for other workers' tasks: poll soon (the job may be about to end), then back off to
  // a third of the lease (expired leases are found within that), at most 5 s. A folder store
  // costs a few listings a poll, not requests: its workers poll every 200 ms, so that the last
  // ones leave as soon as the job ends instead of up to 5 s later (`run` waits for them).
  const int64_t max_wait_ms =
      IsUrl(options.store)
          ? std::min<int64_t>(5000,
                              std::max<int64_t>(200, int64_t{spec.job.lease_seconds} * 1000 / 3))
          : 200;

  // A task in two steps: run_one computes it (reading, tokenizing, writing its shards to scratch)
  // and returns its publication, which copies the shards to the output and records the task done
  // (or nothing, when the task failed or was lost). The loop runs each publication on a thread of
  // its own while it computes the next task, so the copy and fsync of the shards overlap the
  // work; it waits for the previous publication before it starts the next one.
  // With a claim in flight (`claim`), the task runs while it is decided and stops as soon as it
  // is lost; nothing is recorded or published unless it is won (the loop counts the rest).
  auto run_one = [&](uint64_t t, uint32_t attempt,
                     ClaimInFlight* claim = nullptr) -> std::function<void()> {
    const TaskDef& task = tasks[t];
    const std::string task_scratch =
        scratch + "/task-" + std::to_string(t) + "-" + std::to_string(attempt);
    std::error_code dir_ec;
    std::filesystem::create_directories(task_scratch, dir_ec);
    const auto task_start = std::chrono::steady_clock::now();
    auto cancelled = [&] {
      if (g_stop.load() || clock_off.load()) return true;
      if (claim != nullptr && claim->pending()) return false;
      if (claim != nullptr && claim->lost()) return true;
      return ledger.Lost(t);
    };
    auto result = RunTask(spec, *tokenizer, task, {task_scratch, write_behind}, cancelled);
    auto cleanup = [task_scratch] {
      std::error_code cleanup_ec;
      std::filesystem::remove_all(task_scratch, cleanup_ec);
    };
    if (claim != nullptr) {
      const StatusOr<bool>& won = claim->Wait();
      if (!won.ok() || !*won) {
        cleanup();
        return {};
      }
    }
    if (!result.ok()) {
      cleanup();
      if (result.status().Is(StatusCode::kCancelled)) {
        if (ledger.Lost(t)) {
          std::lock_guard<std::mutex> lock(mu);
          ++summary.tasks_lost;
        }
        return {};  // released below (stop) or lost
      }
      LogError("task " + std::to_string(t) + " attempt " + std::to_string(attempt) +
               " failed: " + result.status().ToString());
      ErrorRecord err{t,        attempt,    worker_id, result.status().ToString(),
                      task.url, task.begin, NowMs()};
      bool for_good = false;
      Status s = ledger.Fail(t, err, &for_good);
      if (!s.ok())
        LogWarning("recording the failure of task " + std::to_string(t) + ": " + s.ToString());
      std::lock_guard<std::mutex> lock(mu);
      ++summary.tasks_failed;
      return {};
    }
    return [&, t, attempt, task_start, cleanup, result = std::move(result).value()]() mutable {
      const TaskDef& task = tasks[t];
      // Fencing: publish only while we still hold the lease and nobody recorded the task.
      Status fence = ledger.CheckStillHolder(t);
      if (!fence.ok()) {
        LogWarning("task " + std::to_string(t) + ": not publishing: " + fence.message());
        cleanup();
        ledger.Release(t).ok();
        std::lock_guard<std::mutex> lock(mu);
        ++summary.tasks_lost;
        return;
      }
      DoneRecord done;
      done.task = t;
      done.holder = worker_id;
      done.attempt = attempt;
      done.stats = result.stats;
      done.content = std::move(result.content);
      for (const TokenCount& top : done.content.top_tokens) {
        done.token_labels[top.id] = VisibleToken(tokenizer->IdToToken(top.id));
      }
      if (auto lease = ledger.HeldLeaseRecord(t)) {
        done.failures = lease->failures;
        done.expiries = lease->expiries;
      }
      for (const auto& shard : result.shards) {
        Status s =
            output->WriteFinishedFile(JoinPath(spec.output.path, shard.name), shard.local_path);
        if (!s.ok()) {
          cleanup();
          LogError("task " + std::to_string(t) + ": publishing " + shard.name + ": " +
                   s.ToString());
          ErrorRecord err{t, attempt, worker_id, s.ToString(), task.url, task.begin, NowMs()};
          bool for_good = false;
          ledger.Fail(t, err, &for_good).ok();
          std::lock_guard<std::mutex> lock(mu);
          ++summary.tasks_failed;
          return;
        }
        done.shards.push_back(
            {shard.name, shard.bytes, shard.sha256, shard.examples, shard.tokens});
      }
      cleanup();
      done.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - task_start)
                            .count();
      done.finished_at_ms = NowMs();
      Status s = ledger.Complete(t, done);
      std::lock_guard<std::mutex> lock(mu);
      if (s.ok()) {
        ++summary.tasks_done;
        summary.stats += result.stats;
      } else if (!s.Is(StatusCode::kAlreadyExists)) {
        LogError("task " + std::to_string(t) + ": recording it done: " + s.ToString());
        if (fatal.ok()) fatal = s;
      }
    };
  };

  auto loop = [&] {
    // A thread that will run several tasks keeps its memory between them (the set-up is
    // the binary's; one task a thread, as one huge document makes, is better without it).
    if (options.on_task_thread && job.task_count > threads) options.on_task_thread();
    // Where the store can tell, waiting for other workers' tasks ends as soon as one of them is
    // recorded done (a folder store: the last workers leave when the job ends, not a poll later).
    const std::unique_ptr<ChangeWatch> done_watch = store->Watch(paths.DonePrefix());
    std::thread publication;  // the last task's publication, at most one at a time
    auto wait_publication = [&] {
      if (publication.joinable()) publication.join();
    };
    auto idle_since = std::chrono::steady_clock::now();
    int consecutive_errors = 0;
    int64_t wait_ms = 100;
    bool claim_ahead = true;  // see below
    // Returns false when the worker must stop (too many errors in a row).
    auto claim_failed = [&](const Status& status) {
      LogWarning("claiming a task: " + status.ToString());
      if (++consecutive_errors >= 20) {
        std::lock_guard<std::mutex> lock(mu);
        if (fatal.ok()) fatal = status;
        finished = true;
        return false;
      }
      Nap(std::min(30000, 500 << std::min(consecutive_errors, 6)), finished);
      return true;
    };
    auto publish_next = [&](std::function<void()> publish) {
      wait_publication();
      if (publish) {
        auto publish_and_wake = [publish = std::move(publish)] {
          publish();
          WakeNappers();  // a loop waiting for this task's record looks again at once
        };
        try {
          publication = std::thread(publish_and_wake);
        } catch (const std::system_error&) {  // no thread to be had: publish here
          publish_and_wake();
        }
      }
      idle_since = std::chrono::steady_clock::now();
      wait_ms = 100;
    };
    while (!g_stop.load() && !finished.load() && !clock_off.load()) {
      if (options.max_tasks > 0 && claimed.fetch_add(1) >= options.max_tasks) {
        ending = static_cast<int>(WorkerSummary::Ending::kMaxTasks);
        break;
      }
      // A task believed free starts while its claim is made; Acquire does the rest (taking over
      // expired leases, waiting, telling when the job is over). After a claim lost to another
      // worker the view is stale (a worker that joins a job under way believes every task free):
      // the next claims are made first, by Acquire, until one is won.
      std::optional<uint64_t> candidate;
      if (claim_ahead) candidate = ledger.TakeFreeCandidate();
      if (candidate) {
        ClaimInFlight claim(ledger, *candidate);
        std::function<void()> publish = run_one(*candidate, 1, &claim);
        const StatusOr<bool>& won = claim.Wait();
        if (!won.ok() || !*won) {
          if (options.max_tasks > 0) claimed.fetch_sub(1);
          if (!won.ok() && !claim_failed(won.status())) break;
          if (won.ok()) claim_ahead = false;
          continue;
        }
        consecutive_errors = 0;
        publish_next(std::move(publish));
        continue;
      }
      uint64_t t = 0;
      uint32_t attempt = 0;
      auto outcome = ledger.Acquire(&t, &attempt);
      if (!outcome.ok() || *outcome != Ledger::Outcome::kClaimed) {
        if (options.max_tasks > 0) claimed.fetch_sub(1);
      }
      if (!outcome.ok()) {
        if (!claim_failed(outcome.status())) break;
        continue;
      }
      consecutive_errors = 0;
      switch (*outcome) {
        case Ledger::Outcome::kClaimed:
          claim_ahead = true;
          publish_next(run_one(t, attempt));
          break;
        case Ledger::Outcome::kAllDone:
          ending = static_cast<int>(WorkerSummary::Ending::kAllDone);
          finished = true;
          break;
        case Ledger::Outcome::kAllFinished:
          ending = static_cast<int>(WorkerSummary::Ending::kAllFinishedWithFailures);
          finished = true;
          break;
        case Ledger::Outcome::kWait: {
          const double idle =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - idle_since).count();
          if (options.idle_exit_seconds > 0 && idle >= options.idle_exit_seconds) {
            ending = static_cast<int>(WorkerSummary::Ending::kIdle);
            finished = true;
            break;
          }
          Nap(wait_ms, finished, done_watch.get());
          wait_ms = std::min(max_wait_ms, wait_ms * 2);
          break;
        }
      }
    }
    wait_publication();
  };

  std::vector<std::thread> pool;
  try {
    for (uint32_t i = 0; i < threads; ++i) pool.emplace_back(loop);
  } catch (const std::system_error& e) {  // a process or cgroup limit on threads
    LogWarning("started " + std::to_string(pool.size()) + " of " + std::to_string(threads) +
               " task threads (" + e.what() + "); " +
               (pool.empty() ? "running the tasks on the main thread" : "running on those"));
    if (pool.empty()) loop();
  }
  for (auto& th : pool) th.join();

  // Give back whatever we still hold (stop requested, or a thread left early).
  for (uint64_t t : ledger.Held()) {
    Status s = ledger.Release(t);
    if (!s.ok()) LogWarning("releasing task " + std::to_string(t) + ": " + s.ToString());
    std::lock_guard<std::mutex> lock(mu);
    ++summary.tasks_released;
  }
  finished = true;
  WakeNappers();
  background.join();
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!fatal.ok()) heartbeat.error = fatal.ToString();
  }
  write_heartbeat(true);
  std::filesystem::remove_all(scratch, ec);

  if (!fatal.ok()) return fatal;
  if (g_stop.load()) {
    summary.ending = WorkerSummary::Ending::kStopped;
  } else if (ending.load() >= 0) {
    summary.ending = static_cast<WorkerSummary::Ending>(ending.load());
  }
  summary.ledger = ledger.counters();
  summary.storage = store->counters();
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace tokenmill
