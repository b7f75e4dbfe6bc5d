#include "tokenmill/launch/slurm.h"

#include <filesystem>
#include <fstream>

#include "tokenmill/base/log.h"
#include "tokenmill/launch/names.h"
#include "tokenmill/launch/process.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::launch {
namespace {

// Characters that cannot appear in a value on an #SBATCH line (Slurm does not unquote them) or
// that Slurm would expand in a file name pattern.
bool HasUnsafeSbatchChars(std::string_view value) {
  for (char c : value) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '\\' ||
        c == '%' || c == '#' || c == '$' || c == '`') {
      return true;
    }
  }
  return false;
}

std::string TimestampForFile() {
  std::string t = NowRfc3339();  // 2026-11-30T06:00:00Z
  std::string out;
  for (char c : t) {
    if (c >= '0' && c <= '9') out += c;
    if (c == 'T') out += '-';
  }
  return out;  // 20261130-060000
}

}  // namespace

StatusOr<SlurmOptions> ResolveSlurmOptions(SlurmOptions o) {
  TM_RETURN_IF_ERROR(ValidateLaunchOptions({o.store, o.workers, o.dry_run}));
  TM_ASSIGN_OR_RETURN(o.store, CanonicalStore(o.store));
  if (o.cpus_per_task < 1 || o.cpus_per_task > 4096) {
    return Status::InvalidArgument("--cpus-per-task " + std::to_string(o.cpus_per_task) +
                                   " is out of range: give a number from 1 to 4096");
  }
  if (!o.partition.empty() && !IsSlurmNameList(o.partition)) {
    return Status::InvalidArgument("--partition '" + o.partition +
                                   "' is not a partition name (letters, digits, _ . -; "
                                   "`sinfo -s` lists the partitions)");
  }
  if (!IsSlurmName(o.job_name)) {
    return Status::InvalidArgument("the Slurm job name '" + o.job_name +
                                   "' may only hold letters, digits, _ . -");
  }
  if (!o.time.empty() && !IsSlurmTime(o.time)) {
    return Status::InvalidArgument(
        "--time '" + o.time +
        "' is not a Slurm time limit: use minutes (\"90\"), \"HH:MM:SS\" or \"D-HH:MM:SS\"");
  }
  if (o.log_dir.empty()) {
    o.log_dir = IsUrl(o.store) ? "tokenmill-logs" : Dirname(o.store) + "/logs";
  }
  {
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(o.log_dir, ec);
    if (!ec) o.log_dir = abs.lexically_normal().string();
    while (o.log_dir.size() > 1 && o.log_dir.back() == '/') o.log_dir.pop_back();
  }
  if (HasUnsafeSbatchChars(o.log_dir)) {
    return Status::InvalidArgument("--log-dir '" + o.log_dir +
                                   "' holds a character that an #SBATCH line cannot carry "
                                   "(space, quote, %, #, $, backslash): choose another folder");
  }
  if (o.binary.empty()) {
    TM_ASSIGN_OR_RETURN(o.binary, SelfExecutablePath());
  }
  std::string found = FindExecutable(o.binary);
  if (found.empty()) {
    return Status::NotFound("the tokenmill binary '" + o.binary +
                            "' does not exist or is not executable: pass its path with --binary");
  }
  o.binary = found;
  return o;
}

std::string SbatchScript(const SlurmOptions& o) {
  std::string s;
  s += "#!/bin/bash\n";
  s += "# tokenmill workers as a Slurm job array, written by `tokenmill launch slurm`.\n";
  s += "# Job store: " + o.store + "\n";
  s += "# Follow it with: tokenmill status " + ShellQuote(o.store) + "\n";
  s += "# Each array task execs one worker, so scancel's SIGTERM reaches it and it gives its\n";
  s += "# leases back; a task that is cancelled or fails loses nothing (its lease expires and\n";
  s += "# another worker takes the task). Resubmit this script to add workers.\n";
  s += "#SBATCH --job-name=" + o.job_name + "\n";
  s += "#SBATCH --array=0-" + std::to_string(o.workers - 1) + "\n";
  s += "#SBATCH --ntasks=1\n";
  s += "#SBATCH --cpus-per-task=" + std::to_string(o.cpus_per_task) + "\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time.empty()) s += "#SBATCH --time=" + o.time + "\n";
  s += "#SBATCH --output=" + o.log_dir + "/" + o.job_name + "-%A_%a.log\n";
  s += "#SBATCH --error=" + o.log_dir + "/" + o.job_name + "-%A_%a.log\n";
  s += "#SBATCH --open-mode=append\n";
  s += "#SBATCH --export=ALL\n";
  s += "#SBATCH --requeue\n";
  s += "set -eu\n";
  s += "threads=\"${SLURM_CPUS_PER_TASK:-" + std::to_string(o.cpus_per_task) + "}\"\n";
  s += "echo \"tokenmill: array task ${SLURM_ARRAY_JOB_ID:-?}_${SLURM_ARRAY_TASK_ID:-?} on "
       "$(hostname), ${threads} threads, store " +
       o.store + "\" >&2\n";
  s +=
      "exec " + ShellQuote(o.binary) + " work " + ShellQuote(o.store) + " --threads \"$threads\"\n";
  return s;
}

StatusOr<std::string> ParseSbatchJobId(std::string_view output) {
  std::string text(output);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  // sbatch may print warnings before the id; the id is the last line.
  size_t nl = text.rfind('\n');
  std::string line = nl == std::string::npos ? text : text.substr(nl + 1);
  std::string id = line.substr(0, line.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return Status::Internal("could not read a job id from sbatch's output '" + text +
                            "' (expected `sbatch --parsable` to print the id)");
  }
  return id;
}

StatusOr<SlurmLaunch> LaunchSlurm(const SlurmOptions& options) {
  TM_ASSIGN_OR_RETURN(SlurmOptions o, ResolveSlurmOptions(options));
  SlurmLaunch launch;
  launch.log_dir = o.log_dir;
  std::error_code ec;
  std::filesystem::create_directories(o.log_dir, ec);
  if (ec) {
    return Status::IoError("cannot create the log folder " + o.log_dir + ": " + ec.message() +
                           " (choose another with --log-dir)");
  }
  launch.script_path = o.log_dir + "/" + o.job_name + "-" + TimestampForFile() + ".sbatch";
  {
    std::ofstream out(launch.script_path, std::ios::binary | std::ios::trunc);
    out << SbatchScript(o);
    out.close();
    if (!out) return Status::IoError("cannot write the sbatch script " + launch.script_path);
  }
  launch.sbatch_command = {"sbatch", "--parsable", launch.script_path};
  if (o.dry_run) return launch;

  if (FindExecutable("sbatch").empty()) {
    return Status::FailedPrecondition(
        "sbatch was not found on PATH: run `tokenmill launch slurm` on a Slurm login node (or "
        "load Slurm first, e.g. `module load slurm`); --dry-run writes the script without "
        "submitting it (" +
        launch.script_path + ")");
  }
  TM_ASSIGN_OR_RETURN(ProcessResult result, RunProcess(launch.sbatch_command));
  if (!result.ok()) {
    std::string err = result.err.empty() ? result.out : result.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return Status::Unavailable("sbatch refused the job (" + result.Describe() + "): " + err +
                               " (script: " + launch.script_path +
                               "; check --partition/--time/--cpus-per-task against `sinfo`, "
                               "and that SLURM_CONF points at the cluster)");
  }
  TM_ASSIGN_OR_RETURN(launch.job_id, ParseSbatchJobId(result.out));

  LaunchRecord record;
  record.launcher = "slurm";
  record.workers = o.workers;
  record.details = {{"slurm_job_id", launch.job_id}, {"log_dir", o.log_dir},
                    {"script", launch.script_path},  {"cpus_per_task", o.cpus_per_task},
                    {"partition", o.partition},      {"binary", o.binary}};
  StatusOr<LaunchRecord> written = RecordLaunch(o.store, record);
  if (!written.ok()) {
    // The job runs anyway; only `status` loses the note of it.
    LogWarning("slurm job " + launch.job_id +
               " was submitted, but its launch record could not "
               "be written: " +
               written.status().ToString());
    launch.record = record;
  } else {
    launch.record = *written;
  }
  return launch;
}

}  // namespace tokenmill::launch
