// File: replay/cli/main.cc
//
// The `tally` command line: every subcommand declares its flags in its own file
// (replay/cli/commands.h); this file adds them, parses and runs the one given.
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "replay/cli/allocator_setup.h"
#include "replay/cli/commands.h"

#include <CLI/CLI.hpp>

namespace {

int Run(int argc, char** argv) {
  CLI::App app{"tally: admission policy engine and batch-replay benchmark for Kueue-style quotas"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tally 0.1.0");

  namespace cli = replay::cli;
  // In the order `tally --help` lists them.
  std::vector<cli::Command> commands;
  commands.push_back(cli::AddValidateCommand(app));
  commands.push_back(cli::AddScheduleCommand(app));
  commands.push_back(cli::AddExplainCommand(app));
  commands.push_back(cli::AddPredictCommand(app));
  commands.push_back(cli::AddGenerateCommand(app));
  commands.push_back(cli::AddReplayCommand(app));
  commands.push_back(cli::AddAuditLogCommand(app));
  commands.push_back(cli::AddDiffCommand(app));
  commands.push_back(cli::AddGateCommand(app));
  commands.push_back(cli::AddSweepCommand(app));
  commands.push_back(cli::AddMergeCommand(app));
  for (cli::Command& source : cli::AddImportCommands(app)) {
    commands.push_back(std::move(source));
  }
  commands.push_back(cli::AddCompletionCommand(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    if (code != 0) {
      for (const std::string& hint : cli::SuggestFixes(app, argc, argv)) {
        std::fprintf(stderr, "%s\n", hint.c_str());
      }
    }
    return code == 0 ? 0 : 2;
  }
  for (const cli::Command& command : commands) {
    if (command.app->parsed()) {
      return command.run();
    }
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  replay::cli::ConfigureAllocator();
  // Nothing below is expected to throw (errors are values); this only turns an unexpected
  // exception, e.g. std::bad_alloc, into a message and a distinct exit status instead of abort().
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tally: internal error: %s\n", e.what());
    return 3;
  }
}
