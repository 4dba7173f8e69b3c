// File: test/engine/cpu_cluster_spec.h
//
// The smallest cluster the store-level tests need: one flavor "f" with one resource "cpu"
// (1,000,000 milli-cpu nominal per ClusterQueue), the ClusterQueues `names` (in `cohort` unless
// it is empty), and the LocalQueue ns/lq pointing to the first of them; and `n` pending workloads
// ns/w0 ... in ns/lq.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/cluster_spec.h"
#include "engine/workload_store.h"

namespace engine {

inline ClusterSpec CpuClusterSpec(const std::vector<std::string>& names,
                                  const std::string& cohort = "") {
  ClusterSpec spec;
  spec.flavors.emplace_back().name = "f";
  for (const std::string& name : names) {
    ClusterQueueSpec& cq_spec = spec.cluster_queues.emplace_back();
    cq_spec.name = name;
    cq_spec.cohort = cohort;
    cq_spec.namespace_selector.is_null = false;
    ResourceGroupSpec& g = cq_spec.resource_groups.emplace_back();
    g.covered_resources = {"cpu"};
    FlavorQuotasSpec& f = g.flavors.emplace_back();
    f.flavor = "f";
    f.resources.push_back({"cpu", Quantity(1'000'000), std::nullopt, std::nullopt});
  }
  LocalQueueSpec& lq = spec.local_queues.emplace_back();
  lq.name_space = "ns";
  lq.name = "lq";
  lq.cluster_queue = names.front();
  return spec;
}

inline std::vector<WorkloadId> AddCpuWorkloads(WorkloadStore& store, int n) {
  std::vector<WorkloadId> ids;
  for (int i = 0; i < n; ++i) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = "w" + std::to_string(i);
    w.queue_name = "lq";
    w.pod_sets.emplace_back().name = "main";
    ids.push_back(*store.Add(w));
  }
  return ids;
}

}  // namespace engine
