// tokenmill plan JOB.toml [--store URL] [--fresh]
#include <cstdio>

#include "tokenmill/cli/command.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/planner.h"

namespace tokenmill::cli {
namespace {

struct PlanArgs {
  std::string job_file;
  std::string store;
  bool fresh = false;
};

int RunPlan(const PlanArgs& args) {
  auto spec = LoadJobSpec(args.job_file);
  if (!spec.ok()) return ReportError(spec.status());
  auto plan = PlanJob(*spec, {args.store, args.fresh});
  if (!plan.ok()) return ReportError(plan.status());
  std::printf("%s job %s: %llu tasks over %.1f MB of input\n", plan->resumed ? "found" : "planned",
              plan->store.c_str(), static_cast<unsigned long long>(plan->job.task_count),
              plan->job.input_bytes / 1e6);
  std::printf("start workers with: tokenmill work %s\n", plan->store.c_str());
  return kExitOk;
}

}  // namespace

void AddPlanCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd =
      app.add_subcommand("plan", "Cut a job's inputs into tasks and write the job into its store");
  cmd->add_option("job", args->job_file, "the job file (TOML)")->required();
  cmd->add_option("--store", args->store,
                  "job store location (default: [job] store or <output>/_job)");
  cmd->add_flag("--fresh", args->fresh, "delete this job's previous store and output shards first");
  cmd->callback([args, action] { *action = [args] { return RunPlan(*args); }; });
}

}  // namespace tokenmill::cli
