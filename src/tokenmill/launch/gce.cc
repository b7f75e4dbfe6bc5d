#include "tokenmill/launch/gce.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tokenmill/base/log.h"
#include "tokenmill/launch/names.h"
#include "tokenmill/launch/process.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::launch {
namespace {

#include "tokenmill/launch/gce_scripts.inc"

constexpr std::string_view kStartupName = "tokenmill-gce-startup.sh";
constexpr std::string_view kShutdownName = "tokenmill-gce-shutdown.sh";
constexpr std::string_view kBundleName = "tokenmill-bundle.tar.gz";

Status WriteScript(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::IoError("cannot write " + path);
  std::error_code ec;
  std::filesystem::permissions(path,
                               std::filesystem::perms::owner_exec |
                                   std::filesystem::perms::group_exec |
                                   std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add, ec);
  return Status::Ok();
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// What gcloud said, with advice for the errors people meet.
Status GcloudError(const std::vector<std::string>& argv, const ProcessResult& result) {
  std::string err = Trimmed(result.err.empty() ? result.out : result.err);
  std::string advice;
  if (err.find("Quota") != std::string::npos || err.find("QUOTA") != std::string::npos) {
    advice =
        "a quota is exhausted: ask for more on the console's IAM & Admin > Quotas page, or "
        "use fewer --workers or a smaller --machine-type (see docs/cloud.md)";
  } else if (err.find("active account") != std::string::npos ||
             err.find("gcloud auth login") != std::string::npos ||
             err.find("credentials") != std::string::npos) {
    advice =
        "gcloud is not authenticated: run `gcloud auth login` (or `gcloud auth "
        "activate-service-account --key-file=KEY.json`) and try again";
  } else if (err.find("PERMISSION_DENIED") != std::string::npos ||
             err.find("403") != std::string::npos || err.find("permission") != std::string::npos) {
    advice = "your account lacks a role: docs/cloud.md lists the roles needed";
  } else if (err.find("already exists") != std::string::npos) {
    advice =
        "a resource of that name exists: pass another --name, or remove the old group "
        "with `tokenmill launch gce --teardown STORE`";
  } else {
    advice = "see docs/cloud.md";
  }
  return Status::Unavailable("`" + ShellCommandLine(argv) + "` failed (" + result.Describe() +
                             "): " + err + "\n" + advice);
}

Status RunGcloud(const std::vector<std::string>& argv, std::string* out = nullptr) {
  TM_ASSIGN_OR_RETURN(ProcessResult result, RunProcess(argv));
  if (!result.ok()) return GcloudError(argv, result);
  if (out != nullptr) *out = Trimmed(result.out);
  return Status::Ok();
}

Status RequireGcloud() {
  if (FindExecutable("gcloud").empty()) {
    return Status::FailedPrecondition(
        "gcloud was not found on PATH: install the Google Cloud CLI (Debian package "
        "google-cloud-cli) and run `gcloud auth login`; --dry-run prints the commands without it");
  }
  return Status::Ok();
}

// Checks that gcloud has an active account and finds the project.
StatusOr<std::string> CheckGcloudAuth(const std::string& project) {
  TM_RETURN_IF_ERROR(RequireGcloud());
  std::string account;
  TM_RETURN_IF_ERROR(RunGcloud(
      {"gcloud", "auth", "list", "--filter=status:ACTIVE", "--format=value(account)"}, &account));
  if (account.empty()) {
    return Status::PermissionDenied(
        "gcloud is not authenticated: run `gcloud auth login` (or `gcloud auth "
        "activate-service-account --key-file=KEY.json`) and try again");
  }
  if (!project.empty()) return project;
  std::string configured;
  TM_RETURN_IF_ERROR(RunGcloud({"gcloud", "config", "get-value", "project"}, &configured));
  if (configured.empty() || configured == "(unset)") {
    return Status::InvalidArgument(
        "no Google Cloud project: pass --project or run `gcloud config set project PROJECT`");
  }
  return configured;
}

void WithProject(std::vector<std::string>* argv, const std::string& project) {
  if (!project.empty()) argv->push_back("--project=" + project);
}

}  // namespace

std::string GceStartupScript() { return std::string(kStartupScript); }
std::string GceShutdownScript() { return std::string(kShutdownScript); }

StatusOr<GcePlan> PlanGce(const GceOptions& options) {
  GcePlan plan;
  GceOptions& o = plan.options;
  o = options;
  TM_RETURN_IF_ERROR(ValidateLaunchOptions({o.store, o.workers, o.dry_run}));
  TM_ASSIGN_OR_RETURN(o.store, CanonicalStore(o.store));
  if (o.store.rfind("gs://", 0) != 0) {
    return Status::InvalidArgument(
        "the store " + o.store +
        " is not in Cloud Storage: VMs coordinate through a gs:// bucket, so plan the job into "
        "one (`tokenmill plan JOB.toml --store gs://BUCKET/JOB`) and launch that");
  }
  if (o.store.find_first_of(", \t\n'\"\\") != std::string::npos) {
    return Status::InvalidArgument("the store " + o.store +
                                   " holds a comma, a space or a quote, which instance metadata "
                                   "cannot carry: choose another location");
  }
  if (o.zone.empty()) {
    return Status::InvalidArgument(
        "--zone is required, e.g. --zone us-central1-a "
        "(`gcloud compute zones list` shows them)");
  }
  if (!IsGceZone(o.zone)) {
    return Status::InvalidArgument("--zone '" + o.zone +
                                   "' is not a zone name such as "
                                   "us-central1-a");
  }
  if (!IsGceMachineType(o.machine_type)) {
    return Status::InvalidArgument("--machine-type '" + o.machine_type +
                                   "' is not a machine type such as e2-standard-4");
  }
  if (!o.service_account.empty() && !IsEmail(o.service_account)) {
    return Status::InvalidArgument("--service-account '" + o.service_account +
                                   "' is not a service account e-mail");
  }
  if (!o.project.empty() && !IsGceProject(o.project)) {
    return Status::InvalidArgument("--project '" + o.project + "' is not a project id");
  }
  if (!IsDiskSize(o.boot_disk_size)) {
    return Status::InvalidArgument("boot disk size '" + o.boot_disk_size + "' must be like 20GB");
  }
  if (o.threads < 0) return Status::InvalidArgument("--threads must be 0 (all vCPUs) or more");
  if (o.name.empty()) o.name = DefaultLaunchName(o.store);
  if (!IsGceName(o.name) || o.name.size() > 54) {
    return Status::InvalidArgument("--name '" + o.name +
                                   "' is not a GCE resource name: lowercase letters, digits and "
                                   "-, starting with a letter, at most 54 characters");
  }
  if (o.bundle.empty()) o.bundle = std::string(kBundleName);
  {
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(o.bundle, ec);
    if (!ec) o.bundle = abs.lexically_normal().string();
  }
  std::error_code bundle_ec;
  if (!std::filesystem::is_regular_file(o.bundle, bundle_ec)) {
    std::string message = "no worker bundle at " + o.bundle +
                          ": build it with `scripts/make-bundle.sh build/tokenmill` (see "
                          "docs/cloud.md) or pass --bundle";
    if (!o.dry_run) return Status::NotFound(message);
    LogWarning(message);
  }
  if (!o.job_file.empty() && o.binary.empty()) {
    TM_ASSIGN_OR_RETURN(o.binary, SelfExecutablePath());
  }

  if (o.script_dir.empty()) {
    if (o.dry_run) {
      std::error_code cwd_ec;
      o.script_dir = std::filesystem::current_path(cwd_ec).string();
      if (cwd_ec) o.script_dir = ".";
    } else {
      const char* tmp = std::getenv("TMPDIR");
      std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/tokenmill-gce-XXXXXX";
      if (::mkdtemp(tmpl.data()) == nullptr) {
        return Status::IoError("cannot create a temporary folder for the VM scripts (" + tmpl +
                               "): " + std::strerror(errno) + "; set TMPDIR to a writable folder");
      }
      o.script_dir = tmpl;
    }
  }
  plan.group = o.name;
  plan.instance_template = o.name;
  std::string base = JoinPath(o.store, "gce/" + o.name);
  plan.bundle_url = JoinPath(base, kBundleName);
  plan.log_prefix = JoinPath(base, "logs/");
  plan.startup_path = (std::filesystem::path(o.script_dir) / kStartupName).string();
  plan.shutdown_path = (std::filesystem::path(o.script_dir) / kShutdownName).string();
  TM_RETURN_IF_ERROR(WriteScript(plan.startup_path, kStartupScript));
  TM_RETURN_IF_ERROR(WriteScript(plan.shutdown_path, kShutdownScript));

  if (!o.job_file.empty()) plan.plan_command = {o.binary, "plan", o.job_file, "--store", o.store};

  plan.commands.push_back({"gcloud", "storage", "cp", o.bundle, plan.bundle_url});

  std::vector<std::string> tpl = {"gcloud",
                                  "compute",
                                  "instance-templates",
                                  "create",
                                  plan.instance_template,
                                  "--machine-type=" + o.machine_type,
                                  "--image-family=debian-12",
                                  "--image-project=debian-cloud",
                                  "--boot-disk-size=" + o.boot_disk_size};
  if (o.spot) {
    tpl.push_back("--provisioning-model=SPOT");
    tpl.push_back("--instance-termination-action=DELETE");
  } else {
    tpl.push_back("--provisioning-model=STANDARD");
  }
  if (!o.service_account.empty()) tpl.push_back("--service-account=" + o.service_account);
  tpl.push_back("--scopes=storage-rw,compute-rw,logging-write");
  tpl.push_back("--metadata=tokenmill-store=" + o.store + ",tokenmill-group=" + plan.group +
                ",tokenmill-bundle=" + plan.bundle_url + ",tokenmill-log-prefix=" +
                plan.log_prefix + ",tokenmill-threads=" + std::to_string(o.threads));
  tpl.push_back("--metadata-from-file=startup-script=" + plan.startup_path +
                ",shutdown-script=" + plan.shutdown_path);
  tpl.push_back("--labels=tokenmill=worker");
  WithProject(&tpl, o.project);
  plan.commands.push_back(std::move(tpl));

  std::vector<std::string> mig = {"gcloud",
                                  "compute",
                                  "instance-groups",
                                  "managed",
                                  "create",
                                  plan.group,
                                  "--zone=" + o.zone,
                                  "--template=" + plan.instance_template,
                                  "--size=" + std::to_string(o.workers),
                                  "--base-instance-name=" + plan.group};
  WithProject(&mig, o.project);
  plan.commands.push_back(std::move(mig));
  return plan;
}

StatusOr<GcePlan> LaunchGce(const GceOptions& options) {
  GceOptions checked = options;
  if (!checked.dry_run) {
    // The project must be known before the commands are built, so that they name it.
    TM_RETURN_IF_ERROR(ValidateLaunchOptions({checked.store, checked.workers, false}));
    TM_ASSIGN_OR_RETURN(checked.project, CheckGcloudAuth(checked.project));
  }
  TM_ASSIGN_OR_RETURN(GcePlan plan, PlanGce(checked));
  if (plan.options.dry_run) return plan;
  const GceOptions& o = plan.options;

  if (!plan.plan_command.empty()) {
    TM_ASSIGN_OR_RETURN(ProcessResult planned, RunProcess(plan.plan_command));
    if (!planned.ok()) {
      return Status::FailedPrecondition("planning the job into " + o.store + " failed (" +
                                        planned.Describe() + "): " + Trimmed(planned.err));
    }
    LogInfo(Trimmed(planned.out));
  } else {
    StatusOr<Storage*> storage = StorageFor(o.store);
    if (storage.ok()) {
      StatusOr<ObjectInfo> job = (*storage)->Stat(JoinPath(o.store, "job.json"));
      if (!job.ok() && job.status().Is(StatusCode::kNotFound)) {
        return Status::FailedPrecondition(
            "the store " + o.store +
            " holds no planned job (no job.json): run `tokenmill plan "
            "JOB.toml --store " +
            o.store + "` first, or pass --job JOB.toml");
      }
      if (!job.ok()) {
        LogWarning("could not check that " + o.store + " is planned (" + job.status().ToString() +
                   "); going on");
      }
    }
  }

  LaunchRecord record;
  record.launcher = "gce";
  record.workers = o.workers;
  record.details = {
      {"group", plan.group},       {"template", plan.instance_template}, {"zone", o.zone},
      {"project", o.project},      {"machine_type", o.machine_type},     {"spot", o.spot},
      {"bundle", plan.bundle_url}, {"log_dir", plan.log_prefix}};
  StatusOr<LaunchRecord> written = RecordLaunch(o.store, record);
  if (written.ok()) {
    plan.record = *written;
  } else {
    LogWarning("the launch record could not be written (" + written.status().ToString() +
               "); tear down with `tokenmill launch gce --teardown " + o.store + " --name " +
               plan.group + " --zone " + o.zone + "`");
    plan.record = record;
  }

  for (size_t i = 0; i < plan.commands.size(); ++i) {
    LogInfo(ShellCommandLine(plan.commands[i]));
    Status run = RunGcloud(plan.commands[i]);
    if (!run.ok()) {
      if (i >= 2) {
        return run.WithContext("the instance template " + plan.instance_template +
                               " was created; remove it with `tokenmill launch gce --teardown " +
                               o.store + "`");
      }
      return run;
    }
  }
  return plan;
}

StatusOr<GceTeardown> TeardownGce(const GceTeardownOptions& options) {
  GceTeardown teardown;
  TM_ASSIGN_OR_RETURN(std::string store, CanonicalStore(options.store));
  std::string name = options.name, zone = options.zone, project = options.project;
  // A dry run that names the group reads nothing; otherwise the record tells (or is marked).
  bool read_records = !(options.dry_run && !name.empty() && !zone.empty());
  StatusOr<std::vector<LaunchRecord>> records =
      read_records ? ListLaunchRecords(store)
                   : StatusOr<std::vector<LaunchRecord>>(std::vector<LaunchRecord>{});
  if (records.ok()) {
    for (auto it = records->rbegin(); it != records->rend(); ++it) {
      if (it->launcher != "gce") continue;
      std::string group = it->details.value("group", "");
      bool torn_down = it->details.contains("torn_down");
      if ((name.empty() && !torn_down) || (!name.empty() && group == name)) {
        teardown.record = *it;
        break;
      }
    }
  } else if (options.name.empty() || options.zone.empty()) {
    return records.status().WithContext("cannot read the launch records of " + store +
                                        " to find the group: pass --name and --zone");
  }
  const nlohmann::json& d = teardown.record.details;
  if (name.empty()) name = d.value("group", "");
  if (zone.empty()) zone = d.value("zone", "");
  if (project.empty()) project = d.value("project", "");
  if (name.empty()) {
    return Status::NotFound("no GCE group to tear down: " + store +
                            " has no gce launch record that is not torn down (pass --name and "
                            "--zone to name one)");
  }
  if (zone.empty())
    return Status::InvalidArgument("the zone of group " + name +
                                   " is unknown: "
                                   "pass --zone");
  std::vector<std::string> del_group = {"gcloud", "compute", "instance-groups", "managed",
                                        "delete", name,      "--zone=" + zone,  "--quiet"};
  WithProject(&del_group, project);
  std::vector<std::string> del_template = {
      "gcloud", "compute", "instance-templates", "delete", d.value("template", name), "--quiet"};
  WithProject(&del_template, project);
  teardown.commands = {del_group, del_template};
  if (options.dry_run) return teardown;

  TM_RETURN_IF_ERROR(CheckGcloudAuth(project).status());
  for (const auto& argv : teardown.commands) {
    LogInfo(ShellCommandLine(argv));
    TM_ASSIGN_OR_RETURN(ProcessResult result, RunProcess(argv));
    if (!result.ok()) {
      std::string err = result.err + result.out;
      if (err.find("was not found") != std::string::npos ||
          err.find("notFound") != std::string::npos) {
        LogInfo("already gone: " + Trimmed(err));
        continue;
      }
      return GcloudError(argv, result);
    }
  }
  if (!teardown.record.url.empty()) {
    teardown.record.details["torn_down"] = NowRfc3339();
    Status updated = UpdateLaunchRecord(teardown.record);
    if (!updated.ok()) LogWarning(updated.ToString());
  }
  return teardown;
}

}  // namespace tokenmill::launch
