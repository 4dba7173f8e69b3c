// File: replay/cli/merge_command.cc
//
// `tally merge`: its flags and help; the work is RunMerge (replay/sweep/merge.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/sweep/merge.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddMergeCommand(CLI::App& app) {
  auto merge = std::make_shared<replay::MergeOptions>();
  CLI::App* merge_cmd = app.add_subcommand(
      "merge", "Combine the slices of a tally sweep --shard i/N into one table (docs/sweep.md)");
  merge_cmd->add_option("dirs", merge->dirs, "The slices' output directories")->required();
  merge_cmd->add_option("--out", merge->out,
                        "Also copy the variants into DIR with a merged sweep.json");
  merge_cmd->add_option("-o,--output", merge->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
  return {merge_cmd, [merge] { return replay::RunMerge(*merge); }};
}

}  // namespace replay::cli
