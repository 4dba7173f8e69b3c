// File: replay/sweep/gate.h
//
// `tally gate --baseline A --candidate B --max METRIC=LIMIT ... [--junit FILE] [-o
// text|json|yaml]`: a policy regression gate for CI (docs/diff-and-gate.md). Each limit says how
// much worse than the baseline the candidate may be on one report.json figure; the table goes to
// stdout, and the exit status is 0 when every limit holds, 1 when one is broken, 2 for bad usage
// (unknown metric, bad limit, unreadable output directory).
//
//   engine::StatusOr<GateLimit> l = ParseGateLimit("p99_wait@team-a=+10%");
//   GateCheck c = EvaluateGateLimit(*l, baseline_figures, candidate_figures);  // c.pass
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "replay/report/replay_outputs.h"

namespace replay {

struct GateOptions {
  std::string baseline;
  std::string candidate;
  std::vector<std::string> limits;  // METRIC[@CLUSTERQUEUE]=LIMIT
  std::string junit;                // JUnit XML file, "" for none
  std::string output = "text";      // text | json | yaml: what goes to stdout
};

enum class GateMetric : uint8_t {
  kP50Wait,
  kP90Wait,
  kP99Wait,
  kMeanWait,
  kMaxWait,
  kUtilisation,
  kPreemptions,
  kEvictions,
  kPendingAtEnd,
  kAdmissions,
};
const char* ToString(GateMetric metric);

enum class LimitUnit : uint8_t {
  kAbsolute,  // the metric's unit: seconds for waits, a count for counters
  kPercent,   // relative to the baseline, percent
  kPoints,    // percentage points (utilisation only)
};

struct GateLimit {
  std::string spec;  // as given: "p99_wait@team-a=+10%"
  GateMetric metric = GateMetric::kP99Wait;
  std::string cluster_queue;  // "" for the whole replay
  LimitUnit unit = LimitUnit::kAbsolute;
  double amount = 0;  // >= 0: how much worse the candidate may be, in `unit`
};

// The spec is METRIC[@CLUSTERQUEUE]=LIMIT; errors say what is wrong and what is accepted.
engine::StatusOr<GateLimit> ParseGateLimit(std::string_view spec);

// True when a higher value is worse (waits, preemptions, evictions, pending); false for
// utilisation and admissions.
bool HigherIsWorse(GateMetric metric);

// A metric's value in one report; an error when the ClusterQueue is not in the report or the
// metric is not kept per ClusterQueue (evictions).
engine::StatusOr<double> GateMetricValue(const ReportFigures& report, GateMetric metric,
                                         std::string_view cluster_queue);

struct GateCheck {
  GateLimit limit;
  double baseline = 0;
  double candidate = 0;
  double worse_by = 0;  // in the limit's unit; negative when the candidate is better
  bool pass = true;
  std::string
      message;  // "p99_wait: candidate 14.1s is 14.6% worse than baseline 12.3s (limit +10%)"
};

// REQUIRES: both values exist (GateMetricValue ok).
GateCheck EvaluateGateLimit(const GateLimit& limit, double baseline, double candidate);

std::string FormatGateTable(const std::vector<GateCheck>& checks);
std::string FormatJUnit(const std::vector<GateCheck>& checks);
// `-o json`: {"baseline":{dir,mode},"candidate":{dir,mode},"checks":[...],"pass":bool}, keys
// sorted (docs/diff-and-gate.md, "gate -o json").
std::string FormatGateJson(const GateOptions& options, std::string_view baseline_mode,
                           std::string_view candidate_mode, const std::vector<GateCheck>& checks);

int RunGate(const GateOptions& options);

}  // namespace replay
