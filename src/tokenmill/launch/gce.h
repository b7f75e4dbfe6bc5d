// Google Compute Engine launcher: a managed instance group of VMs coordinated by a gs:// store.
//
// `tokenmill launch gce` (LaunchGce):
//   1. uploads the worker bundle (scripts/make-bundle.sh: bin/tokenmill + lib/*.so + VERSION,
//      runs on a stock Debian 12 image) to <STORE>/gce/<name>/tokenmill-bundle.tar.gz, so a code
//      update is an upload, never a new image (and, with --job, plans the job into the store);
//   2. creates an instance template (image family debian-12 of debian-cloud, Spot or standard,
//      storage and compute scopes, the startup and shutdown scripts and the tokenmill-* metadata
//      keys) and a managed instance group of N VMs from it;
//   3. each VM's startup script fetches the bundle, runs `tokenmill work STORE`, keeps the log in
//      the serial console and in <STORE>/gce/<name>/logs/<vm>.log, and when the worker exits
//      deletes its own VM through the group (the group shrinks instead of recreating it);
//   4. the shutdown script sends SIGTERM to the worker and waits up to 25 s, so a preempted Spot
//      VM gives its leases back within its 30 s.
// `tokenmill launch gce --teardown STORE` (TeardownGce) deletes the group and the template.
// A dry run prints every gcloud command and writes the scripts, running nothing.
// Thread-safety: the functions are thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/launch/launcher.h"

namespace tokenmill::launch {

struct GceOptions {
  std::string store;                           // the job store; must be gs://
  int workers = 1;                             // VMs in the group. Default: 1
  std::string zone;                            // e.g. "europe-west4-a". Required
  std::string machine_type = "e2-standard-4";  // Default: e2-standard-4
  bool spot = false;  // Spot VMs (--provisioning-model=SPOT, deleted on preemption). Default: no
  std::string service_account;  // VM service account e-mail. Default: empty, the project's
                                // Compute Engine default service account
  std::string project;          // Default: empty, gcloud's configured project
  std::string bundle;           // the .tar.gz from scripts/make-bundle.sh. Default:
                                // ./tokenmill-bundle.tar.gz
  std::string name;             // template and group name. Default: DefaultLaunchName(store)
  int threads = 0;              // worker threads per VM. Default: 0, the VM's vCPU count
  std::string boot_disk_size = "20GB";  // Default: 20GB
  std::string job_file;    // when set, `tokenmill plan <job_file> --store STORE` runs first
  std::string binary;      // the tokenmill binary for that plan step. Default: the running one
  bool dry_run = false;    // print the commands and write the scripts; run nothing
  std::string script_dir;  // where the scripts are written. Default: a temporary folder, or the
                           // current folder for a dry run
};

// What LaunchGce does (or, dry, would do).
struct GcePlan {
  GceOptions options;  // resolved
  std::string group;
  std::string instance_template;
  std::string bundle_url;                          // gs://.../gce/<name>/tokenmill-bundle.tar.gz
  std::string log_prefix;                          // gs://.../gce/<name>/logs/
  std::string startup_path;                        // the startup script written
  std::string shutdown_path;                       // the shutdown script written
  std::vector<std::string> plan_command;           // `tokenmill plan ...` when --job was given
  std::vector<std::vector<std::string>> commands;  // the gcloud commands, in order
  LaunchRecord record;                             // the launch record written (not for a dry run)
};

// The scripts every worker VM runs (they read everything else from the VM's metadata).
std::string GceStartupScript();
std::string GceShutdownScript();

// Checks the options, fills the defaults and writes the scripts; builds the gcloud commands.
StatusOr<GcePlan> PlanGce(const GceOptions& options);

// PlanGce, then (unless dry_run) plans the job if asked, checks gcloud, records the launch and
// runs the commands. Errors say what to do (authenticate, raise a quota, ...).
StatusOr<GcePlan> LaunchGce(const GceOptions& options);

struct GceTeardownOptions {
  std::string store;    // the job store the group worked on
  std::string name;     // the group to delete. Default: that of the newest gce launch record
                        // not yet torn down
  std::string zone;     // Default: from the launch record
  std::string project;  // Default: from the launch record, else gcloud's configured project
  bool dry_run = false;
};

struct GceTeardown {
  std::vector<std::vector<std::string>> commands;  // delete the group, then the template
  LaunchRecord record;  // the record marked torn down (empty url if there was none)
};

// Deletes the group and its template (after their VMs gave their leases back).
StatusOr<GceTeardown> TeardownGce(const GceTeardownOptions& options);

}  // namespace tokenmill::launch
