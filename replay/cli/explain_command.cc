// File: replay/cli/explain_command.cc
//
// `tally explain`: its flags and help; the work is RunExplain (replay/report/explain.h).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "replay/cli/commands.h"
#include "replay/report/explain.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddExplainCommand(CLI::App& app) {
  auto explain = std::make_shared<replay::ExplainOptions>();
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "Why is a workload not admitted, and which quota change would admit it");
  explain_cmd
      ->add_option("args", explain->files,
                   "YAML files or directories, then the workload as NAMESPACE/NAME")
      ->required()
      ->expected(1, -1);
  explain_cmd->add_option("--workload,-w", explain->workload,
                          "The workload, NAMESPACE/NAME (instead of the last argument)");
  explain_cmd->add_option("--now", explain->now,
                          "The instant, RFC 3339 (default: latest timestamp in the input)");
  AddFeatureGatesFlag(explain_cmd, &explain->feature_gates);
  AddInputLimitFlags(explain_cmd, {.yaml = true});
  explain_cmd->add_flag("--kueue-scan-reset", explain->kueue_scan_reset,
                        "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  explain_cmd->add_flag("--eta", explain->eta,
                        "Predict when it is admitted: the state simulated forward with expected "
                        "runtimes (docs/explain.md)");
  explain_cmd->add_option("--runtimes", explain->runtimes,
                          "A replay's report.json: learn hold times from its quotaHoldTime "
                          "(implies --eta)");
  explain_cmd->add_option("-o,--output", explain->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
  return {explain_cmd, [explain] {
            if (explain->workload.empty()) {
              explain->workload = explain->files.back();
              explain->files.pop_back();
            }
            for (const std::string& f : explain->files) {
              if (f != "-" && !std::filesystem::exists(f)) {  // `-`: standard input
                std::fprintf(stderr, "error: %s: no such file or directory\n", f.c_str());
                return 2;
              }
            }
            return replay::RunExplain(*explain);
          }};
}

}  // namespace replay::cli
