// File: replay/cli/schedule_command.cc
//
// `tally schedule`: its flags and help; the work is RunSchedule (replay/report/schedule.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/report/schedule.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddScheduleCommand(CLI::App& app) {
  auto schedule = std::make_shared<replay::ScheduleOptions>();
  CLI::App* schedule_cmd = app.add_subcommand(
      "schedule", "Run Kueue scheduling cycles at one instant on a dump of cluster state");
  CheckManifestPaths(
      schedule_cmd->add_option("files", schedule->files, "YAML files or directories, - for stdin")
          ->required());
  schedule_cmd
      ->add_option("--cycles", schedule->cycles,
                   "Number of cycles (default: until a cycle changes nothing)")
      ->check(CLI::NonNegativeNumber);
  schedule_cmd->add_option("--now", schedule->now,
                           "The instant, RFC 3339 (default: latest timestamp in the input)");
  AddFeatureGatesFlag(schedule_cmd, &schedule->feature_gates);
  AddInputLimitFlags(schedule_cmd, {.yaml = true});
  schedule_cmd->add_flag("--kueue-scan-reset", schedule->kueue_scan_reset,
                         "Reset flavor scans on ClusterQueue generations only, as Kueue does "
                         "(default: also on ancestor Cohort generations, as seed 003 says)");
  schedule_cmd->add_option("-o,--output", schedule->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
  return {schedule_cmd, [schedule] { return replay::RunSchedule(*schedule); }};
}

}  // namespace replay::cli
