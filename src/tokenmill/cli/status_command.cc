// tokenmill status STORE [--json] [--watch [SECONDS]]
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "tokenmill/cli/command.h"
#include "tokenmill/job/job_status.h"
#include "tokenmill/job/report.h"
#include "tokenmill/launch/launcher.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::cli {
namespace {

struct StatusArgs {
  std::string store;
  bool json = false;
  double watch = 0;
};

int RunStatus(const StatusArgs& args) {
  auto store = StorageFor(args.store);
  if (!store.ok()) return ReportError(store.status());
  StatusReader reader(*store, args.store);
  for (;;) {
    auto st = reader.Read();
    if (!st.ok()) return ReportError(st.status());
    // What the launchers started, as recorded in the store.
    auto launches = launch::ListLaunchRecords(args.store);
    if (!launches.ok()) return ReportError(launches.status());
    // Where the report is (written by finalize and `tokenmill report`), if it exists yet.
    const std::string report = DefaultReportLocation(args.store);
    const bool have_report = (*store)->Stat(report).ok();
    if (args.json) {
      nlohmann::json j = nlohmann::json::parse(FormatStatusJson(*st));
      j["launches"] = launch::LaunchRecordsToJson(*launches);
      j["report"] = have_report ? nlohmann::json(report) : nlohmann::json(nullptr);
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%s%s", FormatStatusText(*st).c_str(),
                  launch::FormatLaunchRecords(*launches).c_str());
      if (have_report) {
        std::printf("report: %s (`tokenmill report %s` writes it anew)\n", report.c_str(),
                    args.store.c_str());
      } else {
        std::printf("report: none yet; `tokenmill report %s` writes %s\n", args.store.c_str(),
                    report.c_str());
      }
    }
    std::fflush(stdout);
    if (args.watch <= 0 || st->finished) return kExitOk;
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(args.watch * 1000)));
    if (!args.json) std::printf("\n");
  }
}

}  // namespace

void AddStatusCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<StatusArgs>();
  CLI::App* cmd = app.add_subcommand("status", "Show a job's progress from its store");
  cmd->add_option("store", args->store, "the job store")->required();
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_option("--watch", args->watch, "print again every SECONDS until the job is finished")
      ->expected(0, 1)
      ->default_str("5");
  cmd->callback([args, action, cmd] {
    if (cmd->count("--watch") > 0 && args->watch <= 0) args->watch = 5;
    *action = [args] { return RunStatus(*args); };
  });
}

}  // namespace tokenmill::cli
