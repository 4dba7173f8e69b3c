// File: replay/cli/replay_command.cc
//
// `tally replay`: its flags and help; the work is RunReplay (replay/report/replay_run.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/report/replay_run.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddReplayCommand(CLI::App& app) {
  auto replay_opts = std::make_shared<replay::ReplayOptions>();
  replay_opts->teardown = false;  // the process exits right after
  CLI::App* replay_cmd = app.add_subcommand(
      "replay", "Replay workload events on a virtual clock and report what admission looked like");
  CheckManifestPaths(replay_cmd
                         ->add_option("--manifests", replay_opts->manifests,
                                      "YAML manifests: the configuration at the start of the trace")
                         ->required());
  replay_cmd
      ->add_option("--events", replay_opts->events,
                   "Event trace, JSON lines (tally.events/v1), plain or gzip; - for stdin")
      ->required();
  replay_cmd->add_option("--out", replay_opts->out, "Output directory")->capture_default_str();
  replay_cmd->add_flag("--strict", replay_opts->strict, "Stop at the first rejected event");
  replay_cmd->add_option("--until", replay_opts->until, "Stop the virtual clock here (RFC 3339)");
  AddFeatureGatesFlag(replay_cmd, &replay_opts->feature_gates);
  AddInputLimitFlags(replay_cmd, {.yaml = true, .events = true, .whole_files = true});
  replay_cmd->add_flag("--kueue-scan-reset", replay_opts->kueue_scan_reset,
                       "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  replay_cmd->add_flag("--no-timings", replay_opts->no_timings,
                       "Leave wall-clock engine cost out of the report (byte-identical reports)");
  replay_cmd->add_flag("--profile", replay_opts->profile,
                       "CPU time by phase (parse, route, queue, nominate, flavor assignment, "
                       "preemption search, admit, output...) on stderr and in report.json");
  replay_cmd
      ->add_option("--nomination-memo", replay_opts->nomination_memo,
                   "Reuse a head's nomination while nothing it reads changed: on, off, or verify "
                   "(nominate afresh and fail if a reused one would have differed)")
      ->check(CLI::IsMember({"on", "off", "verify"}))
      ->capture_default_str();
  replay_cmd->add_flag("--quiet,-q", replay_opts->quiet,
                       "No summary on stdout, no progress on stderr");
  replay_cmd->add_flag("!--no-progress", replay_opts->progress, "No progress bar on stderr");
  replay_cmd
      ->add_option("--threads,-j", replay_opts->threads,
                   "Worker threads (default: one per core); the output is the same for any number")
      ->check(CLI::NonNegativeNumber);
  replay_cmd
      ->add_option("--parallel-nomination", replay_opts->parallel_nomination_min_heads,
                   "Nominate a cycle's heads in parallel from this many heads (0 = never)")
      ->capture_default_str();
  replay_cmd
      ->add_option("--max-line-bytes", replay_opts->max_line_bytes,
                   "Trace lines longer than this are rejected unread (lineTooLong)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  replay_cmd
      ->add_option(
          "--events-in-flight", replay_opts->events_in_flight,
          "Trace lines read ahead of the slowest shard at most (memory: see docs/limits.md); "
          "shards run free within them")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  replay_cmd
      ->add_option("--pods-ready-delay", replay_opts->pods_ready_delay,
                   "Model: admission to pods ready, unless an event gives podsReadyAfter")
      ->capture_default_str();
  replay_cmd
      ->add_option("--admission-check-delay", replay_opts->admission_check_delay,
                   "Model: quota reservation to all admission checks Ready")
      ->capture_default_str();
  replay_cmd->add_flag("--control-plane", replay_opts->control_plane,
                       "Model a real Kueue deployment's latencies (the next four flags)");
  replay_cmd
      ->add_option("--admit-to-running", replay_opts->admit_to_running,
                   "Control plane: Admitted to pods running")
      ->capture_default_str();
  replay_cmd
      ->add_option("--finish-to-release", replay_opts->finish_to_release,
                   "Control plane: pods finished or evicted to quota released")
      ->capture_default_str();
  replay_cmd
      ->add_option("--cycle-duration", replay_opts->cycle_duration,
                   "Control plane: virtual time one scheduling cycle takes")
      ->capture_default_str();
  replay_cmd
      ->add_option("--max-admissions-per-second", replay_opts->max_admissions_per_second,
                   "Control plane: cap on admissions per second (0: none)")
      ->check(CLI::NonNegativeNumber);
  replay_cmd
      ->add_option("--verify", replay_opts->verify,
                   "Compare the decisions with the admissions an imported audit log recorded "
                   "(its admissions.jsonl); exit 1 on any difference")
      ->check(CLI::ExistingFile);
  return {replay_cmd, [replay_opts] { return replay::RunReplay(*replay_opts); }};
}

}  // namespace replay::cli
