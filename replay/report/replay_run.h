// File: replay/report/replay_run.h
//
// `tally replay --manifests FILE... --events FILE [--out DIR] [--strict] [--until T] ...`:
// replays a trace (docs/events.md) against the configuration of the manifests on a virtual clock
// (replay/sim/simulator.h) and writes DIR/decisions.jsonl, DIR/report.json, DIR/report.html and
// DIR/metrics.prom, and the summary table on stdout. docs/replay.md documents the flags and
// docs/report.md the outputs.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/scheduler.h"

namespace replay {

struct ReplayOptions {
  std::vector<std::string> manifests;
  std::string events;
  std::string out = "tally-report";
  std::optional<std::string> until;  // RFC 3339
  // --feature-gates: Kueue feature gates over the Configuration's featureGates
  // (docs/feature-gates.md).
  std::vector<std::pair<std::string, bool>> feature_gates;
  // --nomination-memo on|off|verify (engine/nomination_memo.h): decisions are the same in all
  // three; verify nominates every head afresh and fails the run if a kept entry differed.
  std::string nomination_memo = "on";
  int threads = 0;  // 0 = one per core; the output does not depend on it
  size_t parallel_nomination_min_heads = engine::Scheduler::kDefaultMinParallelHeads;  // 0 = never
  size_t max_line_bytes = size_t{64} << 20;  // --max-line-bytes
  size_t events_in_flight = 16384;           // --events-in-flight
  // Models (Go durations).
  std::string pods_ready_delay = "0s";
  std::string admission_check_delay = "0s";
  std::string admit_to_running = "1s";
  std::string finish_to_release = "1s";
  std::string cycle_duration = "10ms";
  double max_admissions_per_second = 0;
  // The admissions an imported audit log recorded (admissions.jsonl): compared with the
  // decisions, differences listed in DIR/verify.txt, exit status 1 when there are any.
  std::string verify;
  bool strict = false;
  bool kueue_scan_reset = false;
  bool no_timings = false;
  // --profile: CPU time by phase and the search counts, on stderr and in report.json.
  bool profile = false;
  bool quiet = false;    // no summary on stdout
  bool progress = true;  // a progress bar when stderr is a terminal
  bool control_plane = false;
  // Free everything the replay built before returning. The command line, which exits right
  // after, turns it off (a process's memory goes back whole); a caller that replays again
  // (`tally sweep`) keeps it on.
  bool teardown = true;
};

int RunReplay(const ReplayOptions& options);

}  // namespace replay
