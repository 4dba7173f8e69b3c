// File: replay/cli/diff_command.cc
//
// `tally diff`: its flags and help; the work is RunDiff (replay/sweep/diff.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/sweep/diff.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddDiffCommand(CLI::App& app) {
  auto diff = std::make_shared<replay::DiffOptions>();
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "Compare two tally replay output directories (docs/diff-and-gate.md)");
  diff_cmd->add_option("a", diff->a, "Replay output directory A")->required();
  diff_cmd->add_option("b", diff->b, "Replay output directory B")->required();
  diff_cmd->add_option("-o,--output", diff->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml", "html"}));
  diff_cmd->add_option("--top", diff->top, "Workloads listed per change kind")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  return {diff_cmd, [diff] { return replay::RunDiff(*diff); }};
}

}  // namespace replay::cli
