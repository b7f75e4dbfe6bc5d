// tokenmill: text corpora to pre-training data, on one machine or many.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "tokenmill/base/allocator.h"
#include "tokenmill/cli/command.h"

int main(int argc, char** argv) {
  using namespace tokenmill::cli;
  CLI::App app{
      "tokenmill: turns raw text corpora into pre-training data (TFRecord for BERT/ELECTRA, "
      "Megatron and llm.c for GPT), on one machine or many.",
      "tokenmill"};
  app.set_version_flag("--version", std::string("tokenmill " TOKENMILL_VERSION " (") +
                                        tokenmill::AllocatorName() + ")");
  app.require_subcommand(1);
  CommandAction action;
  AddRunCommand(app, &action);
  AddPlanCommand(app, &action);
  AddWorkCommand(app, &action);
  AddStatusCommand(app, &action);
  AddFinalizeCommand(app, &action);
  AddReportCommand(app, &action);
  AddLaunchCommand(app, &action);
  AddTokenizeCommand(app, &action);
  AddInspectCommand(app, &action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (!action) return kExitUsage;
  return action();
}
