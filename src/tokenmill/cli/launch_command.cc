// tokenmill launch local|slurm|k8s|gce STORE ...: start workers on a job store.
//
//   launch local STORE --workers N [--threads T] [--log-dir D] [--binary B]
//   launch slurm STORE --workers N [--partition P] [--time T] [--cpus-per-task C] [--log-dir D]
//                [--binary B] [--job-name NAME] [--dry-run]
//   launch k8s   STORE --workers N --image IMAGE [--cpu C] [--memory M] [--secret NAME]
//                [--name NAME] [--namespace NS] [--service-account SA] [--output yaml|json]
//                [--apply]
//   launch gce   STORE --workers N --zone Z [--machine-type T] [--spot] [--service-account SA]
//                [--project P] [--bundle FILE] [--name NAME] [--threads T] [--job JOB.toml]
//                [--dry-run]
//   launch gce   --teardown STORE [--name NAME] [--zone Z] [--project P] [--dry-run]
#include <cstdio>
#include <memory>
#include <string>

#include "tokenmill/cli/command.h"
#include "tokenmill/launch/gce.h"
#include "tokenmill/launch/k8s.h"
#include "tokenmill/launch/launcher.h"
#include "tokenmill/launch/local_pool.h"
#include "tokenmill/launch/process.h"
#include "tokenmill/launch/slurm.h"

namespace tokenmill::cli {
namespace {

using launch::ShellCommandLine;
using launch::ShellQuote;

struct LocalArgs {
  std::string store;
  int workers = 0;
  int threads = 1;
  std::string log_dir;
  std::string binary;
};

struct K8sArgs {
  launch::K8sOptions options;
  std::string output = "yaml";
  bool apply = false;
};

struct GceArgs {
  launch::GceOptions options;
  bool teardown = false;
};

int RunLocal(const LocalArgs& args) {
  Status valid = launch::ValidateLaunchOptions({args.store, args.workers, false});
  if (!valid.ok()) return ReportError(valid);
  auto store = launch::CanonicalStore(args.store);
  if (!store.ok()) return ReportError(store.status());
  launch::LocalPoolOptions options;
  options.binary = args.binary;
  options.threads_per_worker = args.threads;
  if (!args.log_dir.empty()) {
    auto log_dir = launch::CanonicalStore(args.log_dir);  // a local path, made absolute
    if (!log_dir.ok()) return ReportError(log_dir.status());
    options.log_dir = *log_dir;
  }
  launch::LocalPool pool(options);
  Status started = pool.Start(*store, args.workers);
  if (!started.ok()) return ReportError(started);

  launch::LaunchRecord record;
  record.launcher = "local";
  record.workers = args.workers;
  record.details["pids"] = pool.pids();
  record.details["threads_per_worker"] = args.threads;
  if (!options.log_dir.empty()) record.details["log_dir"] = options.log_dir;
  auto written = launch::RecordLaunch(*store, record);
  if (!written.ok()) {
    std::fprintf(stderr, "tokenmill: warning: the launch record could not be written: %s\n",
                 written.status().message().c_str());
  }
  std::printf("started %d local worker%s on %s\n", args.workers, args.workers == 1 ? "" : "s",
              store->c_str());
  std::fflush(stdout);
  launch::PoolSummary summary = pool.RunForwardingSignals();
  std::printf("%s\n", summary.ToString().c_str());
  return summary.ExitCode();
}

int RunSlurm(const launch::SlurmOptions& options) {
  auto launched = launch::LaunchSlurm(options);
  if (!launched.ok()) return ReportError(launched.status());
  const std::string store = launch::CanonicalStore(options.store).value();
  if (options.dry_run) {
    std::printf("wrote %s\n", launched->script_path.c_str());
    std::printf("submit it with: %s\n", ShellCommandLine(launched->sbatch_command).c_str());
    return kExitOk;
  }
  std::printf("slurm job %s\n", launched->job_id.c_str());
  std::printf("script: %s\n", launched->script_path.c_str());
  std::printf("logs: %s\n", launched->log_dir.c_str());
  std::printf("follow it with: tokenmill status %s\n", ShellQuote(store).c_str());
  std::printf("cancel it with: scancel %s\n", launched->job_id.c_str());
  return kExitOk;
}

int RunK8s(const K8sArgs& args) {
  if (args.output != "yaml" && args.output != "json") {
    return ReportError(
        Status::InvalidArgument("--output '" + args.output + "' must be yaml or json"));
  }
  auto options = launch::ResolveK8sOptions(args.options);
  if (!options.ok()) return ReportError(options.status());
  nlohmann::json manifest = launch::K8sJobManifest(*options);
  if (!args.apply) {
    if (args.output == "json") {
      std::printf("%s\n", manifest.dump(2).c_str());
    } else {
      std::printf("%s", launch::ToYaml(manifest).c_str());
    }
    return kExitOk;
  }
  auto record = launch::ApplyK8sJob(*options, manifest);
  if (!record.ok()) return ReportError(record.status());
  std::string ns = options->k8s_namespace.empty() ? "" : " -n " + options->k8s_namespace;
  std::printf("k8s job %s\n", options->name.c_str());
  std::printf("kubectl: %s\n", record->details.value("kubectl", "").c_str());
  std::printf("follow it with: tokenmill status %s\n", ShellQuote(options->store).c_str());
  std::printf("pods: kubectl get pods%s -l job-name=%s\n", ns.c_str(), options->name.c_str());
  std::printf("logs: kubectl logs%s -l job-name=%s --prefix\n", ns.c_str(), options->name.c_str());
  return kExitOk;
}

int RunGceTeardown(const GceArgs& args) {
  launch::GceTeardownOptions options;
  options.store = args.options.store;
  options.name = args.options.name;
  options.zone = args.options.zone;
  options.project = args.options.project;
  options.dry_run = args.options.dry_run;
  auto teardown = launch::TeardownGce(options);
  if (!teardown.ok()) return ReportError(teardown.status());
  for (const auto& argv : teardown->commands) std::printf("%s\n", ShellCommandLine(argv).c_str());
  if (!options.dry_run) std::printf("deleted the group and its template\n");
  return kExitOk;
}

int RunGce(const GceArgs& args) {
  if (args.teardown) return RunGceTeardown(args);
  auto plan = launch::LaunchGce(args.options);
  if (!plan.ok()) return ReportError(plan.status());
  const launch::GceOptions& o = plan->options;
  if (o.dry_run) {
    std::printf("# wrote %s and %s\n", plan->startup_path.c_str(), plan->shutdown_path.c_str());
    if (!plan->plan_command.empty()) {
      std::printf("# %s\n", ShellCommandLine(plan->plan_command).c_str());
    }
    for (const auto& argv : plan->commands) std::printf("%s\n", ShellCommandLine(argv).c_str());
    return kExitOk;
  }
  std::string zone_flag =
      " --zone=" + o.zone + (o.project.empty() ? "" : " --project=" + o.project);
  std::printf("gce group %s: %d VM%s in %s\n", plan->group.c_str(), o.workers,
              o.workers == 1 ? "" : "s", o.zone.c_str());
  std::printf("follow it with: tokenmill status %s\n", ShellQuote(o.store).c_str());
  std::printf("VMs: gcloud compute instance-groups managed list-instances %s%s\n",
              plan->group.c_str(), zone_flag.c_str());
  std::printf("logs: %s<vm>.log (and each VM's serial console)\n", plan->log_prefix.c_str());
  std::printf("when done: tokenmill launch gce --teardown %s\n", ShellQuote(o.store).c_str());
  return kExitOk;
}

void AddStore(CLI::App* cmd, std::string* store) {
  cmd->add_option("store", *store, "the job store written by `tokenmill plan`")->required();
}

}  // namespace

void AddLaunchCommand(CLI::App& app, CommandAction* action) {
  CLI::App* launch_cmd = app.add_subcommand(
      "launch", "Start workers on a job store: here, on Slurm, Kubernetes or Compute Engine");
  launch_cmd->require_subcommand(1);

  // local
  auto local = std::make_shared<LocalArgs>();
  CLI::App* local_cmd =
      launch_cmd->add_subcommand("local", "Run N worker processes on this machine and wait");
  AddStore(local_cmd, &local->store);
  local_cmd->add_option("--workers", local->workers, "worker processes")->required();
  local_cmd->add_option("--threads", local->threads, "threads per worker (default: 1)");
  local_cmd->add_option("--log-dir", local->log_dir,
                        "write worker i's output to DIR/worker-<i>.log (default: this terminal)");
  local_cmd->add_option("--binary", local->binary,
                        "the tokenmill binary to run (default: this one)");
  local_cmd->callback([local, action] { *action = [local] { return RunLocal(*local); }; });

  // slurm
  auto slurm = std::make_shared<launch::SlurmOptions>();
  CLI::App* slurm_cmd = launch_cmd->add_subcommand(
      "slurm", "Submit a Slurm job array of N workers (sbatch) and print its job id");
  AddStore(slurm_cmd, &slurm->store);
  slurm_cmd->add_option("--workers", slurm->workers, "array tasks")->required();
  slurm_cmd->add_option("--partition", slurm->partition, "partition (default: the cluster's)");
  slurm_cmd->add_option("--time", slurm->time,
                        "time limit per task, e.g. 90 or 4:00:00 (default: the partition's)");
  slurm_cmd->add_option("--cpus-per-task", slurm->cpus_per_task,
                        "CPUs per task, also the worker's --threads (default: 1)");
  slurm_cmd->add_option("--log-dir", slurm->log_dir,
                        "per-task logs (default: logs/ beside a local store, ./tokenmill-logs)");
  slurm_cmd->add_option("--binary", slurm->binary,
                        "the tokenmill binary the tasks run (default: this one)");
  slurm_cmd->add_option("--job-name", slurm->job_name, "Slurm job name (default: tokenmill)");
  slurm_cmd->add_flag("--dry-run", slurm->dry_run, "write the sbatch script, submit nothing");
  slurm_cmd->callback([slurm, action] { *action = [slurm] { return RunSlurm(*slurm); }; });

  // k8s
  auto k8s = std::make_shared<K8sArgs>();
  CLI::App* k8s_cmd =
      launch_cmd->add_subcommand("k8s", "Print (or --apply) a Kubernetes Indexed Job of N workers");
  AddStore(k8s_cmd, &k8s->options.store);
  k8s_cmd->add_option("--workers", k8s->options.workers, "pods (completions and parallelism)")
      ->required();
  k8s_cmd->add_option("--image", k8s->options.image, "container image with tokenmill")->required();
  k8s_cmd->add_option("--cpu", k8s->options.cpu,
                      "CPU request and limit; the worker's --threads (default: 1)");
  k8s_cmd->add_option("--memory", k8s->options.memory, "memory request and limit (default: 2Gi)");
  k8s_cmd->add_option("--secret", k8s->options.secret,
                      "Secret whose keys become the pods' environment (AWS_*, GCS_HMAC_*)");
  k8s_cmd->add_option("--name", k8s->options.name,
                      "Job name (default: tokenmill-<store tag>-<time>)");
  k8s_cmd->add_option("--namespace", k8s->options.k8s_namespace,
                      "namespace (default: kubectl's current one)");
  k8s_cmd->add_option("--service-account", k8s->options.service_account,
                      "pod service account (default: the namespace's default)");
  k8s_cmd->add_option("--output", k8s->output, "manifest format: yaml or json (default: yaml)");
  k8s_cmd->add_flag("--apply", k8s->apply, "hand the manifest to `kubectl apply -f -`");
  k8s_cmd->callback([k8s, action] { *action = [k8s] { return RunK8s(*k8s); }; });

  // gce
  auto gce = std::make_shared<GceArgs>();
  CLI::App* gce_cmd = launch_cmd->add_subcommand(
      "gce", "Create a managed instance group of N worker VMs on a gs:// store");
  AddStore(gce_cmd, &gce->options.store);
  gce_cmd->add_option("--workers", gce->options.workers, "VMs in the group");
  gce_cmd->add_option("--zone", gce->options.zone, "zone, e.g. us-central1-a");
  gce_cmd->add_option("--machine-type", gce->options.machine_type,
                      "machine type (default: e2-standard-4)");
  gce_cmd->add_flag("--spot", gce->options.spot, "Spot VMs (deleted on preemption)");
  gce_cmd->add_option("--service-account", gce->options.service_account,
                      "VM service account (default: the Compute Engine default)");
  gce_cmd->add_option("--project", gce->options.project,
                      "project (default: gcloud's configured project)");
  gce_cmd->add_option("--bundle", gce->options.bundle,
                      "worker bundle from scripts/make-bundle.sh "
                      "(default: ./tokenmill-bundle.tar.gz)");
  gce_cmd->add_option("--name", gce->options.name,
                      "group and template name (default: tokenmill-<store tag>-<time>)");
  gce_cmd->add_option("--threads", gce->options.threads,
                      "worker threads per VM (default: its vCPUs)");
  gce_cmd->add_option("--job", gce->options.job_file, "plan this job file into the store first");
  gce_cmd->add_option("--binary", gce->options.binary,
                      "the tokenmill binary for --job's plan step (default: this one)");
  gce_cmd->add_flag("--dry-run", gce->options.dry_run,
                    "print the gcloud commands and write the VM scripts here; run nothing");
  gce_cmd->add_flag("--teardown", gce->teardown, "delete the group and its template");
  gce_cmd->callback([gce, action, gce_cmd] {
    *action = [gce, gce_cmd] {
      if (!gce->teardown) {
        if (gce_cmd->count("--workers") == 0) {
          return ReportError(Status::InvalidArgument("--workers is required"));
        }
        if (gce_cmd->count("--zone") == 0) {
          return ReportError(Status::InvalidArgument(
              "--zone is required, e.g. --zone us-central1-a (`gcloud compute zones list`)"));
        }
      }
      return RunGce(*gce);
    };
  });
}

}  // namespace tokenmill::cli
