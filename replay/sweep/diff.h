// File: replay/sweep/diff.h
//
// `tally diff A B [-o text|json|yaml|html] [--top N]`: compares two `tally replay` output
// directories (docs/diff-and-gate.md): outcome counters, time-to-admission overall / per
// ClusterQueue / per class, utilisation per quota, and the workloads whose first admission, flavors
// or fate changed most (from decisions.jsonl). Both replays are expected to have read the same
// trace: a workload's change in time-to-admission is the change in its first Admitted time.
//
//   engine::StatusOr<ReplayOutputs> a = LoadReplayOutputs("a", true), b = ...;
//   ReplayDiff d = ComputeDiff(*a, *b, 20);
//   std::string text = FormatDiffText(d);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/report/replay_outputs.h"

namespace replay {

struct DiffOptions {
  std::string a;
  std::string b;
  std::string output = "text";  // text | json
  int top = 20;
};

// A figure in A and in B. relative = (b - a) / |a|: NaN when a is 0 and b is not, 0 when both are.
struct Delta {
  double a = 0;
  double b = 0;
  double change() const { return b - a; }
  double relative() const;
};

struct WaitDelta {
  std::string name;  // the ClusterQueue or class; "" for overall (and for the no-class group)
  bool in_a = true;  // false when the group does not appear in that report (figures are 0)
  bool in_b = true;
  Delta count, mean, p50, p90, p99, max;
};

struct UsageDelta {
  std::string cluster_queue, flavor, resource;
  Delta nominal;
  Delta utilisation;  // fractions
};

// One workload of the decisions logs.
struct WorkloadChange {
  std::string workload;
  std::string cluster_queue;            // of its first admission (A's, else B's)
  int64_t admitted_a = kNeverAdmitted;  // first Admitted, microseconds since the epoch
  int64_t admitted_b = kNeverAdmitted;
  std::string flavors_a, flavors_b;  // "" when never admitted
  std::string fate_a, fate_b;        // FateText
  // Admitted in both: b - a, seconds.
  double wait_change_seconds() const { return static_cast<double>(admitted_b - admitted_a) / 1e6; }
};

struct ReplayDiff {
  std::string dir_a, dir_b;
  std::string mode_a, mode_b;
  std::string start_a, start_b;
  std::string trace_a, trace_b;       // input.eventsFile
  std::vector<std::string> warnings;  // e.g. the reports read different traces
  // Outcome counters, in this order: admissions, preemptions, evictions, finished, pendingAtEnd,
  // runningAtEnd, deleted, deactivated, workloadsAdmitted.
  std::vector<std::pair<std::string, Delta>> outcomes;
  WaitDelta overall;
  // Time to start (creation to first pods ready), when either report has it (fallbacks).
  std::optional<WaitDelta> time_to_start;
  std::vector<WaitDelta> by_cluster_queue;  // union of both reports, sorted by name
  std::vector<WaitDelta> by_class;
  std::vector<UsageDelta> usage;  // union, sorted by (clusterQueue, flavor, resource)
  // Workloads.
  int64_t workloads_compared = 0;      // in either decisions log
  int64_t admitted_both = 0;           // admitted in both
  int64_t admitted_only_a = 0;         // admitted in A only
  int64_t admitted_only_b = 0;         // admitted in B only
  int64_t admission_time_changed = 0;  // admitted in both, at different times
  int64_t flavor_changed = 0;          // admitted in both, different flavors
  int64_t fate_changed = 0;            // different FateText
  // Admitted in both: the `top` largest |change in first admission|, ties by name.
  std::vector<WorkloadChange> top_changed;
  // Admitted in one only, by name, at most `top` each.
  std::vector<WorkloadChange> only_a;
  std::vector<WorkloadChange> only_b;
  // Admitted in both, same time, flavor or fate changed: by name, at most `top`.
  std::vector<WorkloadChange> other_changed;
  // Admitted in both at different times: every change in first admission (B − A, seconds), in
  // no particular order (the HTML page's distribution).
  std::vector<double> admission_changes_seconds;
};

ReplayDiff ComputeDiff(const ReplayOutputs& a, const ReplayOutputs& b, int top);
std::string FormatDiffText(const ReplayDiff& d);
// `-o html`: the "what changed" page, one self-contained HTML file (diff_html.cc).
std::string FormatDiffHtml(const ReplayDiff& d);
std::string FormatDiffJson(const ReplayDiff& d);

// Shared by the text and HTML formats. "+12", "+1.5h" ("-" for NaN; `integer` for counts).
std::string SignedChange(double v, bool integer);
// A relative change as "+12.5%", "0%", "new" (NaN: from 0 to something).
std::string RelativeChange(double relative);
// Microseconds since `start_micros` as "1.5h", "-" when never admitted (kNeverAdmitted).
std::string SinceStart(int64_t micros, int64_t start_micros);

// Loads both directories and prints the diff: exit status 0, 2 when a directory cannot be read.
int RunDiff(const DiffOptions& options);

}  // namespace replay
