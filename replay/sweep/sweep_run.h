// File: replay/sweep/sweep_run.h
//
// `tally sweep --manifests F... --events E [--overlay F]... [--set KIND/NAME:path=v1,v2]...
//  [--out DIR] [--shard i/N] [--jobs J] [-o text|json] [replay model flags]`: replays one trace
// under several policy variants of the manifests (replay/sweep/sweep_variants.h), in parallel, each
// with `tally replay` into DIR/variants/<id>/, records the sweep in DIR/sweep.json and prints one
// comparison table (replay/sweep/sweep_results.h). With `--shard i/N` only the variants with
// index % N == i are replayed; `tally merge` (replay/sweep/merge.h) combines the slices.
// docs/sweep.md documents the flags and outputs.
//
// Exit status: 0 when every variant of the slice replayed; 1 when an input cannot be read, a
// variant's manifests are invalid (nothing is replayed then), a replay failed or an output cannot
// be written; 2 for bad flags (a --set or --overlay naming no object, a bad --shard).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace replay {

struct SweepOptions {
  std::vector<std::string> manifests;
  std::string events;
  std::vector<std::string> overlays;  // one variant each
  std::vector<std::string> sets;      // KIND/NAME:field.path=v1,v2,...: their product
  std::string out = "tally-sweep";
  std::string shard = "0/1";
  int jobs = 0;                 // variants replayed at once; 0 = one per core
  std::string output = "text";  // text | json
  // Replay model flags, as `tally replay` takes them (docs/replay.md).
  bool kueue_scan_reset = false;
  // --feature-gates: Kueue feature gates over the Configuration's featureGates
  // (docs/feature-gates.md).
  std::vector<std::pair<std::string, bool>> feature_gates;
  std::optional<std::string> until;
  std::string pods_ready_delay = "0s";
  std::string admission_check_delay = "0s";
  bool control_plane = false;
  std::string admit_to_running = "1s";
  std::string finish_to_release = "1s";
  std::string cycle_duration = "10ms";
  double max_admissions_per_second = 0;
};

int RunSweep(const SweepOptions& options);

}  // namespace replay
