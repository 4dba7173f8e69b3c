// The `tally` command line. Each subcommand lives in replay/<name>_command.{h,cc}; this file only
// wires flags to them.
#include <cstdio>
#include <exception>
#include <filesystem>

#include "replay/explain_command.h"
#include "replay/schedule_command.h"
#include "replay/validate_command.h"

#include <CLI/CLI.hpp>

namespace {

int Run(int argc, char** argv) {
  CLI::App app{"tally: admission policy engine and batch-replay benchmark for Kueue-style quotas"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tally 0.1.0");

  replay::ValidateOptions validate;
  CLI::App* validate_cmd = app.add_subcommand(
      "validate",
      "Load Kueue manifests, validate them as Kueue's webhooks do, print the cohort forest");
  validate_cmd->add_option("files", validate.files, "YAML manifest files or directories")
      ->required()
      ->check(CLI::ExistingPath);
  validate_cmd->add_option("-o,--output", validate.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));

  replay::ScheduleOptions schedule;
  CLI::App* schedule_cmd = app.add_subcommand(
      "schedule", "Run Kueue scheduling cycles at one instant on a dump of cluster state");
  schedule_cmd->add_option("files", schedule.files, "YAML files or directories")
      ->required()
      ->check(CLI::ExistingPath);
  schedule_cmd
      ->add_option("--cycles", schedule.cycles,
                   "Number of cycles (default: until a cycle changes nothing)")
      ->check(CLI::NonNegativeNumber);
  schedule_cmd->add_option("--now", schedule.now,
                           "The instant, RFC 3339 (default: latest timestamp in the input)");
  schedule_cmd->add_flag("--kueue-scan-reset", schedule.kueue_scan_reset,
                         "Reset flavor scans on ClusterQueue generations only, as Kueue does "
                         "(default: also on ancestor Cohort generations, as seed 003 says)");
  schedule_cmd->add_option("-o,--output", schedule.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));

  replay::ExplainOptions explain;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "Why is a workload not admitted, and which quota change would admit it");
  explain_cmd
      ->add_option("args", explain.files,
                   "YAML files or directories, then the workload as NAMESPACE/NAME")
      ->required()
      ->expected(1, -1);
  explain_cmd->add_option("--workload,-w", explain.workload,
                          "The workload, NAMESPACE/NAME (instead of the last argument)");
  explain_cmd->add_option("--now", explain.now,
                          "The instant, RFC 3339 (default: latest timestamp in the input)");
  explain_cmd->add_flag("--kueue-scan-reset", explain.kueue_scan_reset,
                        "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  explain_cmd->add_option("-o,--output", explain.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (validate_cmd->parsed()) {
    return replay::RunValidate(validate);
  }
  if (schedule_cmd->parsed()) {
    return replay::RunSchedule(schedule);
  }
  if (explain_cmd->parsed()) {
    if (explain.workload.empty()) {
      explain.workload = explain.files.back();
      explain.files.pop_back();
    }
    for (const std::string& f : explain.files) {
      if (!std::filesystem::exists(f)) {
        std::fprintf(stderr, "error: %s: no such file or directory\n", f.c_str());
        return 2;
      }
    }
    return replay::RunExplain(explain);
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing below is expected to throw (errors are values); this only turns an unexpected
  // exception, e.g. std::bad_alloc, into a message and a distinct exit status instead of abort().
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tally: internal error: %s\n", e.what());
    return 3;
  }
}
