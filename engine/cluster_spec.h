// File: engine/cluster_spec.h
//
// Everything a set of manifests declares, in input order: the configuration objects
// (engine/config.h) and the scheduling inputs (engine/workload_spec.h).
#pragma once

#include <vector>

#include "engine/config.h"
#include "engine/workload_spec.h"

namespace engine {

// Everything a set of manifests declares, in input order.
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
};

}  // namespace engine
