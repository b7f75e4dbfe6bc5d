// tokenmill report STORE [--out FILE]
#include <cstdio>

#include "tokenmill/cli/command.h"
#include "tokenmill/job/report.h"

namespace tokenmill::cli {
namespace {

struct ReportArgs {
  std::string store;
  std::string out;
};

int RunReport(const ReportArgs& args) {
  auto written = WriteReport(args.store, args.out);
  if (!written.ok()) return ReportError(written.status());
  std::printf("wrote %s\n", written->c_str());
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write a job's report: one self-contained HTML page of its totals and charts");
  cmd->add_option("store", args->store, "the job store (a folder, s3:// or gs://)")->required();
  cmd->add_option("--out", args->out,
                  "where to write the page (a path, s3:// or gs://); default: STORE/report.html");
  cmd->callback([args, action] { *action = [args] { return RunReport(*args); }; });
}

}  // namespace tokenmill::cli
