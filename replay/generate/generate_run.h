// File: replay/generate/generate_run.h
//
// `tally generate`: writes a replayable scenario, DIR/manifests.yaml (the configuration) and
// DIR/events.jsonl (tally.events/v1, one ADDED event per Workload, time-ordered), either from
// Kueue's scheduler performance-test generator config (--kueue-perf,
// replay/generate/kueue_perf_generator.h) or from a seeded synthetic model (--synthetic,
// replay/generate/synthetic_generator.h). docs/generate.md.
//
// Exit status: 0 written, 1 bad input (generator config) or an I/O error, 2 bad flags.
#pragma once

#include <string>

#include "replay/generate/synthetic_generator.h"

namespace replay {

struct GenerateOptions {
  std::string kueue_perf;  // generator.yaml; empty for --synthetic
  bool synthetic = false;
  std::string out;    // output directory, created if missing
  std::string start;  // RFC 3339; empty: the mode's default (2026-01-01T00:00:00Z)
  // --synthetic only (start_micros is filled from `start`).
  SyntheticOptions synthetic_options;
};

// Writes the files and a one-line summary on stdout; messages go to stderr.
int RunGenerate(const GenerateOptions& options);

}  // namespace replay
