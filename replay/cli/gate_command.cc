// File: replay/cli/gate_command.cc
//
// `tally gate`: its flags and help; the work is RunGate (replay/sweep/gate.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/sweep/gate.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddGateCommand(CLI::App& app) {
  auto gate = std::make_shared<replay::GateOptions>();
  CLI::App* gate_cmd = app.add_subcommand(
      "gate", "Fail when a candidate replay is worse than a baseline beyond limits (CI)");
  gate_cmd->add_option("--baseline", gate->baseline, "Baseline replay output directory")
      ->required();
  gate_cmd->add_option("--candidate", gate->candidate, "Candidate replay output directory")
      ->required();
  gate_cmd
      ->add_option("--max", gate->limits,
                   "METRIC[@CLUSTERQUEUE]=LIMIT, e.g. p99_wait=+10% utilisation=-2pp")
      ->required();
  gate_cmd->add_option("--junit", gate->junit, "Also write the checks as JUnit XML to FILE");
  gate_cmd->add_option("-o,--output", gate->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  return {gate_cmd, [gate] { return replay::RunGate(*gate); }};
}

}  // namespace replay::cli
