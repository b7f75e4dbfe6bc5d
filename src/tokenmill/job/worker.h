// Worker: the loop of `tokenmill work STORE`. Claims tasks through the Ledger, runs them with
// TaskRunner, publishes their shards, records them done; renews leases and writes heartbeats on
// a background thread; gives its leases back when asked to stop.
// Thread-safety: Run() is called once; RequestStop() may be called from any thread or from a
// signal handler (it only stores to an atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tokenmill/base/status.h"
#include "tokenmill/job/ledger.h"
#include "tokenmill/job/protocol.h"

namespace tokenmill {

struct WorkerOptions {
  std::string store;             // the job store location
  uint32_t threads = 0;          // tasks run at once. Default (0): the CPUs this process may use
  uint64_t max_tasks = 0;        // stop after this many tasks. Default (0): no limit
  double idle_exit_seconds = 0;  // leave after this long with nothing to claim. Default (0): never
  std::string scratch_dir;       // Default: $TMPDIR/tokenmill-<worker id>
  // Whether shards are hashed and written on threads of their own while the next examples are
  // made (ShardWriterOptions::write_behind): worth it when a core would otherwise be idle, a
  // little slower when every core is busy. Default (unset): when `threads` is below the CPUs
  // this process may use.
  std::optional<bool> write_behind;
  std::string worker_id;  // Default: <host>-<pid>-<random>
  // How often the worker compares its clock with the store's again after the check at start
  // (store_clock.h), with the heartbeat written then: a clock stepped while the job runs (a VM
  // resumed, a time daemon's correction) stops the worker as that check would have. Default: 5
  // minutes (one Stat each).
  int64_t clock_check_ms = 300'000;
  // Test hook: the store is wrapped by this factory (fault injection). Default: none.
  std::function<Storage*(Storage*)> wrap_store;
  // Called first on each task thread, before it allocates, when the job has more tasks than the
  // worker has task threads: the binary's allocator set-up for a thread that runs several tasks
  // (base/allocator.h, KeepThisThreadsMemory). Default: none.
  std::function<void()> on_task_thread;
};

struct WorkerSummary {
  enum class Ending { kAllDone, kAllFinishedWithFailures, kStopped, kMaxTasks, kIdle };
  Ending ending = Ending::kAllDone;
  uint64_t tasks_done = 0;      // by this worker
  uint64_t tasks_failed = 0;    // attempts that failed in this worker
  uint64_t tasks_released = 0;  // leases given back on stop
  uint64_t tasks_lost = 0;      // leases lost to another worker
  TaskStats stats;
  LedgerCounters ledger;
  StorageCounters storage;
  double seconds = 0;
};

// Stops a running worker soon (SIGTERM / SIGINT handlers call this).
void RequestWorkerStop();
bool WorkerStopRequested();

// Runs a worker until the job is finished, it is stopped, or a limit is reached.
StatusOr<WorkerSummary> RunWorker(const WorkerOptions& options);

// Removes the default scratch folders that workers of this host (`host`) left in `parent` when
// they died without cleaning up (killed, preempted, out of memory): `tokenmill-<host>-<pid>-<6
// hex digits>` whose process no longer runs and that nothing touched for an hour. Their partial
// shards would otherwise fill a node's disk job after job. Folders of other hosts (a shared
// TMPDIR) and of running processes stay (a pid reused since by another process keeps its folder
// for a later worker). Returns how many folders it removed; errors are ignored (another worker
// may be removing the same folder).
int RemoveStaleScratch(const std::string& parent, const std::string& host);

}  // namespace tokenmill
