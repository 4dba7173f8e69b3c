// File: engine/cluster_spec.h
//
// Everything a set of manifests declares, in input order: the configuration objects
// (engine/config.h) and the scheduling inputs (engine/workload_spec.h).
#pragma once

#include <vector>

#include "engine/config.h"
#include "engine/device_spec.h"
#include "engine/workload_spec.h"

namespace engine {

// Everything a set of manifests declares, in input order.
// Not a Kueue object: the replay's model of what a flavor's capacity outside Kueue delivers
// (replay.tally.dev/v1alpha1 FlavorSupply; docs/fallback.md). Stockouts: pods on the flavor cannot
// become ready inside a window (they are ready when it ends), and admission checks of workloads
// on it are rejected when they complete inside one. podsReadyDelay: a seeded uniform draw per
// attempt in [min, max], replacing the workload's own delay on this flavor.
struct TimeWindow {
  TimeMicros from = 0;
  TimeMicros to = 0;  // exclusive
};
struct FlavorSupplySpec {
  std::string name;
  std::string flavor;  // spec.flavor; defaults to metadata.name
  std::vector<TimeWindow> stockouts;
  std::optional<TimeMicros> pods_ready_min;
  std::optional<TimeMicros> pods_ready_max;
  uint64_t seed = 0;
  SourceRef source;
};

struct ClusterSpec {
  std::vector<ResourceFlavorSpec> flavors;
  std::vector<CohortSpec> cohorts;
  std::vector<ClusterQueueSpec> cluster_queues;
  std::vector<LocalQueueSpec> local_queues;
  std::vector<PriorityClassSpec> priority_classes;
  ConfigurationSpec configuration;
  std::vector<WorkloadSpec> workloads;
  std::vector<NamespaceSpec> namespaces;
  std::vector<AdmissionCheckSpec> admission_checks;
  std::vector<FlavorSupplySpec> flavor_supplies;    // replay model, not Kueue
  std::vector<ResourceClassSpec> resource_classes;  // seed 001
  std::vector<NodeSpec> nodes;                      // with their devices (seed 001)
};

}  // namespace engine
