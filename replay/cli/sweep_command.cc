// File: replay/cli/sweep_command.cc
//
// `tally sweep`: its flags and help; the work is RunSweep (replay/sweep/sweep_run.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/sweep/sweep_run.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddSweepCommand(CLI::App& app) {
  auto sweep = std::make_shared<replay::SweepOptions>();
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "Replay one trace under several policy variants and compare them (docs/sweep.md)");
  sweep_cmd
      ->add_option("--manifests", sweep->manifests,
                   "YAML manifests: the baseline configuration at the start of the trace")
      ->required()
      ->check(CLI::ExistingPath);
  sweep_cmd->add_option("--events", sweep->events, "Event trace, JSON lines, plain or gzip")
      ->required();
  sweep_cmd
      ->add_option("--overlay", sweep->overlays,
                   "A variant: YAML documents deep-merged into the objects they name (repeatable)")
      ->check(CLI::ExistingFile);
  sweep_cmd->add_option("--set", sweep->sets,
                        "KIND/NAME:field.path=v1,v2,...: variants, the product of all --set flags");
  sweep_cmd->add_option("--out", sweep->out, "Output directory")->capture_default_str();
  sweep_cmd->add_option("--shard", sweep->shard,
                        "i/N: replay only the variants with index % N == i (combine: tally merge)");
  sweep_cmd
      ->add_option("--jobs,-j", sweep->jobs, "Variants replayed at once (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  sweep_cmd->add_option("-o,--output", sweep->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
  sweep_cmd->add_option("--until", sweep->until, "Stop the virtual clock here (RFC 3339)");
  AddFeatureGatesFlag(sweep_cmd, &sweep->feature_gates);
  AddInputLimitFlags(sweep_cmd, {.yaml = true, .events = true});
  sweep_cmd->add_flag("--kueue-scan-reset", sweep->kueue_scan_reset,
                      "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  sweep_cmd
      ->add_option("--pods-ready-delay", sweep->pods_ready_delay,
                   "Model: admission to pods ready, unless an event gives podsReadyAfter")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--admission-check-delay", sweep->admission_check_delay,
                   "Model: quota reservation to all admission checks Ready")
      ->capture_default_str();
  sweep_cmd->add_flag("--control-plane", sweep->control_plane,
                      "Model a real Kueue deployment's latencies (the next four flags)");
  sweep_cmd
      ->add_option("--admit-to-running", sweep->admit_to_running,
                   "Control plane: Admitted to pods running")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--finish-to-release", sweep->finish_to_release,
                   "Control plane: pods finished or evicted to quota released")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--cycle-duration", sweep->cycle_duration,
                   "Control plane: virtual time one scheduling cycle takes")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--max-admissions-per-second", sweep->max_admissions_per_second,
                   "Control plane: cap on admissions per second (0: none)")
      ->check(CLI::NonNegativeNumber);
  return {sweep_cmd, [sweep] { return replay::RunSweep(*sweep); }};
}

}  // namespace replay::cli
