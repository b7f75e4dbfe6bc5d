// Slurm launcher: one job array of N tasks, each running `tokenmill work STORE`.
//
// The sbatch script asks for --cpus-per-task CPUs per array task and execs the worker with
// --threads $SLURM_CPUS_PER_TASK, so the worker is the task's own process and `scancel` reaches
// it (SIGTERM: it gives its leases back). Each task's stdout and stderr go to
// <log_dir>/tokenmill-<jobid>_<task>.log. A cancelled or failed task loses nothing: its lease
// expires and another worker takes the task over.
//
//   SlurmOptions o;  o.store = "/x/_job";  o.workers = 8;
//   TM_ASSIGN_OR_RETURN(SlurmLaunch launch, LaunchSlurm(o));  // writes the script, runs sbatch
//   // launch.job_id == "1234"
// Thread-safety: the functions are thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/launch/launcher.h"

namespace tokenmill::launch {

struct SlurmOptions {
  std::string store;      // the job store (must be reachable from the compute nodes)
  int workers = 1;        // array tasks. Default: 1
  std::string partition;  // --partition. Default: empty, the cluster's default partition
  std::string time;       // --time limit per task ("30", "1:00:00", "2-00:00:00"). Default:
                          // empty, the partition's default
  int cpus_per_task = 1;  // --cpus-per-task, also the worker's --threads. Default: 1
  std::string log_dir;    // per-task logs. Default: <store's folder>/logs for a local store,
                          // ./tokenmill-logs otherwise
  std::string binary;     // the tokenmill binary the tasks run. Default: the running binary
  std::string job_name = "tokenmill";  // --job-name. Default: "tokenmill"
  bool dry_run = false;  // write the script and print the sbatch command, submit nothing
};

// A submitted (or, with dry_run, prepared) job array.
struct SlurmLaunch {
  std::string job_id;                       // Slurm's job id; empty for a dry run
  std::string script_path;                  // the sbatch script written
  std::string log_dir;                      // where the tasks write their logs
  std::vector<std::string> sbatch_command;  // the command that submits it
  LaunchRecord record;  // the launch record written into the store (not for a dry run)
};

// Fills in the defaults (absolute store, log folder, binary) and checks every option; errors say
// which flag to fix.
StatusOr<SlurmOptions> ResolveSlurmOptions(SlurmOptions options);

// The sbatch script for resolved options.
std::string SbatchScript(const SlurmOptions& resolved);

// Parses the output of `sbatch --parsable` ("1234" or "1234;cluster") into the job id.
StatusOr<std::string> ParseSbatchJobId(std::string_view output);

// Resolves the options, creates the log folder, writes the script into it
// (<log_dir>/tokenmill-<time>.sbatch), submits it with `sbatch --parsable` and records the
// launch in the store. With dry_run, stops after writing the script.
StatusOr<SlurmLaunch> LaunchSlurm(const SlurmOptions& options);

}  // namespace tokenmill::launch
