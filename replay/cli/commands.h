// File: replay/cli/commands.h
//
// The subcommands of `tally`, one file each (replay/cli/<name>_command.cc). A subcommand's Add
// function declares its flags and help on the top-level app and returns the Command to run once
// the command line parsed with it; main.cc adds them in the order `tally --help` lists them,
// parses, and runs the one given. A command file only parses flags and calls one function of a
// lower layer (docs/architecture.md).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace replay::cli {

struct Command {
  CLI::App* app = nullptr;   // the subcommand; app->parsed() says whether it was given
  std::function<int()> run;  // the exit status
};

Command AddValidateCommand(CLI::App& app);
Command AddScheduleCommand(CLI::App& app);
Command AddExplainCommand(CLI::App& app);
Command AddPredictCommand(CLI::App& app);
Command AddGenerateCommand(CLI::App& app);
Command AddReplayCommand(CLI::App& app);
Command AddAuditLogCommand(CLI::App& app);
Command AddDiffCommand(CLI::App& app);
Command AddGateCommand(CLI::App& app);
Command AddSweepCommand(CLI::App& app);
Command AddMergeCommand(CLI::App& app);
// `tally completion bash|zsh`, from the flags of every command added before it.
Command AddCompletionCommand(CLI::App& app);
// A command's flags as typed: `--name` for long names, `-n` for short ones (replay/cli/suggest.cc;
// "did you mean" and the completion scripts).
std::vector<std::string> FlagNames(const CLI::App& command);
// After CLI11 refused a command line: "did you mean" lines for a mistyped subcommand or flag
// (replay/cli/suggest.cc), empty when nothing is close.
std::vector<std::string> SuggestFixes(const CLI::App& app, int argc, char** argv);
// Manifest paths: each an existing file or directory, or `-` for standard input (validate,
// schedule, replay --manifests; replay/cli/manifest_paths.cc).
CLI::Option* CheckManifestPaths(CLI::Option* option);
// `--feature-gates Name=bool,...` on a command that schedules (schedule, explain, replay, sweep):
// Kueue's feature gates, overriding the Configuration's featureGates (docs/feature-gates.md). An
// unknown gate name or a bad bool is a flag error. Shared by those commands
// (replay/cli/feature_gates_flag.cc).
void AddFeatureGatesFlag(CLI::App* cmd, std::vector<std::pair<std::string, bool>>* out);

// The flags of the limits of replay/io/input_limits.h, set while parsing
// (replay/cli/input_limit_flags.cc): --max-yaml-depth and --max-yaml-nodes when the command reads
// YAML, --max-object-bytes when it reads a trace, --max-input-bytes when it reads files whole.
struct InputLimitFlags {
  bool yaml = false;
  bool events = false;
  bool whole_files = false;
};
void AddInputLimitFlags(CLI::App* cmd, InputLimitFlags which);

// `tally import` and one Command per source (philly, audit, alibaba-gpu, alibaba-dlrm).
std::vector<Command> AddImportCommands(CLI::App& app);

}  // namespace replay::cli
