// File: replay/cli/generate_command.cc
//
// `tally generate`: its flags and help; the work is RunGenerate (replay/generate/generate_run.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/generate/generate_run.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddGenerateCommand(CLI::App& app) {
  auto generate = std::make_shared<replay::GenerateOptions>();
  CLI::App* generate_cmd = app.add_subcommand(
      "generate", "Write a replayable scenario: DIR/manifests.yaml and DIR/events.jsonl");
  generate_cmd
      ->add_option("--kueue-perf", generate->kueue_perf,
                   "Kueue scheduler performance-test generator config (generator.yaml)")
      ->check(CLI::ExistingFile);
  generate_cmd->add_flag("--synthetic", generate->synthetic, "A seeded synthetic scenario");
  generate_cmd->add_option("--out", generate->out, "Output directory")->required();
  generate_cmd->add_option("--start", generate->start,
                           "Time of the configuration, RFC 3339 (default 2026-01-01T00:00:00Z)");
  replay::SyntheticOptions& synth = generate->synthetic_options;
  generate_cmd->add_option("--workloads", synth.workloads, "Synthetic: workloads")
      ->capture_default_str();
  generate_cmd->add_option("--cluster-queues", synth.cluster_queues, "Synthetic: ClusterQueues")
      ->capture_default_str();
  generate_cmd
      ->add_option("--cohort-depth", synth.cohort_depth,
                   "Synthetic: cohort levels per tree (0: no cohorts)")
      ->capture_default_str();
  generate_cmd->add_option("--trees", synth.trees, "Synthetic: independent root cohorts")
      ->capture_default_str();
  generate_cmd->add_option("--flavors", synth.flavors, "Synthetic: ResourceFlavors")
      ->capture_default_str();
  generate_cmd
      ->add_option("--resources", synth.resources,
                   "Synthetic: resources (cpu, memory, nvidia.com/gpu, example.com/res-N...)")
      ->capture_default_str();
  generate_cmd->add_option("--seed", synth.seed, "Synthetic: PRNG seed")->capture_default_str();
  generate_cmd
      ->add_option("--mean-interarrival", synth.mean_interarrival_seconds,
                   "Synthetic: mean time between arrivals, seconds (Poisson)")
      ->capture_default_str();
  generate_cmd
      ->add_option("--mean-runtime", synth.mean_runtime_seconds,
                   "Synthetic: mean runtime, seconds (log-normal)")
      ->capture_default_str();
  return {generate_cmd, [generate] { return replay::RunGenerate(*generate); }};
}

}  // namespace replay::cli
