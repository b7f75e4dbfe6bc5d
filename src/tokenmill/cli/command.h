// The subcommands of the tokenmill binary: one file each, registered in main.cc.
//
// A command file adds its CLI11 subcommand with its flags and returns; when the user picks it,
// main() calls the Run function the file registered. Commands return an exit code:
// 0 success, 1 failure (with a message that says what to fix), 2 usage error, 130/143 signals.
// Only cli/ knows about argv and exit codes; everything below returns Status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "tokenmill/base/status.h"

namespace tokenmill {
struct WorkerOptions;
}  // namespace tokenmill

namespace tokenmill::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

using CommandAction = std::function<int()>;

// Each Add*Command registers a subcommand on `app` and stores its action in *action when the
// subcommand is chosen (via CLI::App::callback).
void AddRunCommand(CLI::App& app, CommandAction* action);
void AddPlanCommand(CLI::App& app, CommandAction* action);
void AddWorkCommand(CLI::App& app, CommandAction* action);
void AddStatusCommand(CLI::App& app, CommandAction* action);
void AddFinalizeCommand(CLI::App& app, CommandAction* action);
void AddTokenizeCommand(CLI::App& app, CommandAction* action);
void AddInspectCommand(CLI::App& app, CommandAction* action);
void AddLaunchCommand(CLI::App& app, CommandAction* action);
void AddReportCommand(CLI::App& app, CommandAction* action);

// The body of `tokenmill work` (signal handlers, the worker, its summary on stderr): returns the
// exit code. `run` calls it in the worker processes it forks.
int RunWorkerProcess(const WorkerOptions& options);

// Prints "tokenmill: error: <message>" (secrets redacted) and returns the exit code for `status`:
// 1 for failures, 2 for InvalidArgument raised while reading the command line.
int ReportError(const Status& status);

// Parses a boolean flag value: true/false, yes/no, 1/0.
StatusOr<bool> ParseBool(const std::string& text);

}  // namespace tokenmill::cli
