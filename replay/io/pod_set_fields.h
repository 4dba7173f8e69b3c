// File: replay/io/pod_set_fields.h
//
// Internal to the manifest loader: a Workload's spec.podSets — counts and minCounts, containers
// and init containers with their requests and limits, node selectors, required node affinity and
// tolerations of the pod template — into engine::PodSetSpec (replay/io/workload_fields.h calls it).
#pragma once

#include "engine/cluster_spec.h"
#include "replay/io/manifest_context.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

// spec.podSets of a Workload into wl.pod_sets; every malformed field is an error of `ctx`.
void ParsePodSets(ObjectContext& ctx, const YAML::Node& spec, engine::WorkloadSpec& wl);

}  // namespace replay::internal
