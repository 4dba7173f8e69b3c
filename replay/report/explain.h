// File: replay/report/explain.h
//
// `tally explain FILE... NAMESPACE/NAME [-o text|json]`: why a workload is not admitted — its
// effective (transformed) requests, the flavor assignment the engine computes for it now, the
// victims a preemption would need, and one quota change that would admit it. docs/explain.md.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace replay {

struct ExplainOptions {
  std::vector<std::string> files;
  std::string workload;  // namespace/name
  std::optional<std::string> now;
  std::string output = "text";
  bool kueue_scan_reset = false;
  // --feature-gates: Kueue feature gates over the Configuration's featureGates
  // (docs/feature-gates.md).
  std::vector<std::pair<std::string, bool>> feature_gates;
  // --eta: predict when it is admitted (replay/report/eta.h); --runtimes REPORT.json: hold
  // times learned from a replay (implies --eta).
  bool eta = false;
  std::string runtimes;
  // `tally predict`: a file holding one Workload not yet submitted. It is loaded with `files`,
  // created at `now` when it has no creationTimestamp, and is the workload explained.
  std::string submit;
};

int RunExplain(const ExplainOptions& options);

}  // namespace replay
