// File: replay/io/workload_status_fields.h
//
// Internal to the manifest loader: a Workload's status — conditions, status.admission with its
// pod set assignments, reclaimablePods, admission check states, flavorAssignmentHistory (seed 002)
// and requeueState — into engine::WorkloadSpec (replay/io/workload_fields.h calls it). A dump of a
// live cluster carries these; `schedule` and `explain` start from them.
#pragma once

#include <string>
#include <vector>

#include "engine/cluster_spec.h"
#include "replay/io/manifest_context.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

struct ParsedCondition {
  engine::ConditionSpec spec;
  bool is_false = false;  // status "False" (spec.status is also false for "Unknown")
};

// status.conditions (metav1.Condition): type and status required, one condition per type;
// reason and lastTransitionTime read when present. Also an AdmissionCheck's status.
std::vector<ParsedCondition> ParseConditions(ObjectContext& ctx, const YAML::Node& status,
                                             const std::string& path);

// `status` (a map) of a Workload into wl; every malformed field is an error of `ctx`.
void ParseWorkloadStatus(ObjectContext& ctx, const YAML::Node& status, engine::WorkloadSpec& wl);

}  // namespace replay::internal
