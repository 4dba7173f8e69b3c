// File: replay/cli/predict_command.cc
//
// `tally predict FILE... WORKLOAD.yaml`: when would a workload not yet submitted be admitted?
// It is `tally explain --eta` of that workload, loaded with the state (replay/report/explain.h,
// replay/report/eta.h; docs/explain.md "ETA").
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "replay/cli/commands.h"
#include "replay/report/explain.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddPredictCommand(CLI::App& app) {
  auto predict = std::make_shared<replay::ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict", "When would a workload not yet submitted be admitted (explain --eta for it)");
  cmd->add_option("args", predict->files,
                  "YAML files or directories of the cluster state, then the Workload's file")
      ->required()
      ->expected(2, -1);
  cmd->add_option("--now", predict->now,
                  "The instant, RFC 3339 (default: latest timestamp in the input); the Workload "
                  "is created then unless it has a creationTimestamp");
  cmd->add_option("--runtimes", predict->runtimes,
                  "A replay's report.json: learn hold times from its quotaHoldTime");
  AddFeatureGatesFlag(cmd, &predict->feature_gates);
  AddInputLimitFlags(cmd, {.yaml = true});
  cmd->add_flag("--kueue-scan-reset", predict->kueue_scan_reset,
                "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  cmd->add_option("-o,--output", predict->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
  return {cmd, [predict] {
            predict->submit = predict->files.back();
            predict->files.pop_back();
            predict->eta = true;
            for (const std::string& f : predict->files) {
              if (f != "-" && !std::filesystem::exists(f)) {  // `-`: standard input
                std::fprintf(stderr, "error: %s: no such file or directory\n", f.c_str());
                return 2;
              }
            }
            if (!std::filesystem::is_regular_file(predict->submit)) {
              std::fprintf(stderr, "error: %s: not a file\n", predict->submit.c_str());
              return 2;
            }
            return replay::RunExplain(*predict);
          }};
}

}  // namespace replay::cli
