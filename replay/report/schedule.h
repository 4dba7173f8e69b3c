// File: replay/report/schedule.h
//
// `tally schedule FILE... [--cycles N] [--now T] [-o text|json]`: run Kueue scheduling cycles at
// one instant on a dump of cluster state and print what each cycle decided. Schema:
// docs/schedule.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace replay {

struct ScheduleOptions {
  std::vector<std::string> files;
  int cycles = 0;                  // 0 = until a cycle changes nothing (at most kMaxCycles)
  std::optional<std::string> now;  // RFC 3339; default: the latest timestamp in the input
  std::string output = "text";
  bool kueue_scan_reset = false;  // reset flavor scans on ClusterQueue generations only (Kueue)
  // --feature-gates: Kueue feature gates over the Configuration's featureGates
  // (docs/feature-gates.md).
  std::vector<std::pair<std::string, bool>> feature_gates;
};

int RunSchedule(const ScheduleOptions& options);

}  // namespace replay
