// File: replay/sweep/merge.h
//
// `tally merge DIR... [--out DIR] [-o text|json]`: combines the slices of a sweep, the output
// directories of `tally sweep --shard i/N` for i = 0..N-1 (replay/sweep/sweep_run.h), into the
// comparison table the sweep run whole prints, byte for byte. Checks that the slices are of one
// sweep (same fingerprint: same inputs, variants and model flags), that each slice is given once
// and none is missing, and that every variant was replayed by exactly one slice. With --out, each
// variant's directory is copied from the slice that replayed it into DIR/variants/<id>/, with a
// merged DIR/sweep.json. docs/sweep.md documents the rules.
//
// Exit status: 0; 1 when a variant's replay had failed (its row says so) or --out cannot be
// written; 2 when the directories are not the complete slices of one sweep.
#pragma once

#include <string>
#include <vector>

namespace replay {

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out;              // "" for no merged directory
  std::string output = "text";  // text | json
};

int RunMerge(const MergeOptions& options);

}  // namespace replay
