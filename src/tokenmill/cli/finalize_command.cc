// tokenmill finalize STORE [--merge] [--verify]
#include <cstdio>

#include "tokenmill/cli/command.h"
#include "tokenmill/job/finalize.h"
#include "tokenmill/job/report.h"

namespace tokenmill::cli {
namespace {

struct FinalizeArgs {
  std::string store;
  bool merge = false;
  bool verify = false;
};

int RunFinalize(const FinalizeArgs& args) {
  auto result = FinalizeJob(args.store, {.merge = args.merge, .verify = args.verify});
  if (!result.ok()) return ReportError(result.status());
  if (result->incomplete_removed > 0) {
    std::fprintf(stderr, "tokenmill: removed %llu incomplete writes left by crashed workers\n",
                 (unsigned long long)result->incomplete_removed);
  }
  std::printf("wrote %s: %llu shards, %.1f MB, %llu documents, %llu tokens, %llu examples\n",
              result->manifest_location.c_str(), (unsigned long long)result->shards,
              result->bytes_out / 1e6, (unsigned long long)result->totals.documents,
              (unsigned long long)result->totals.tokens,
              (unsigned long long)result->totals.examples);
  // The report goes into the job store, never the output folder.
  auto report = WriteReport(args.store);
  if (!report.ok()) return ReportError(report.status().WithContext("writing the report"));
  std::printf("report: %s\n", report->c_str());
  return kExitOk;
}

}  // namespace

void AddFinalizeCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<FinalizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "finalize", "Check that every task is done and write <output>/manifest.json");
  cmd->add_option("store", args->store, "the job store")->required();
  cmd->add_flag("--merge", args->merge,
                "Megatron output: also merge all shards into one prefix <output>/merged");
  cmd->add_flag("--verify", args->verify,
                "also read every shard back and check its sha256 (a full read of the output)");
  cmd->callback([args, action] { *action = [args] { return RunFinalize(*args); }; });
}

}  // namespace tokenmill::cli
