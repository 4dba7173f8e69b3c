// File: bench/cohort_tree_fixture.h
//
// The large fixture of scheduler_bench and preemption_bench (issue 21): 1,000 ClusterQueues in a
// 5-level cohort tree (root -> 5 -> 5 -> 5 -> 4 cohorts, 2 ClusterQueues under each of the 500
// leaves), 8 flavors x 4 resources, tight quotas (ClusterQueues hold 1-4 units per flavor,
// cohorts none), `pending_per_cq` pending workloads per ClusterQueue with priorities 0-3. Later
// cycles borrow across the tree, preempt and fail as well as fit.
//
// bench/perf_gate_driver.cc's `scheduler_cycle` case (docs/perf-gate.md) uses it too, with 10
// pending workloads per ClusterQueue and seed 42.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/pod_requests.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"

namespace tally_bench {

inline constexpr int kTreeFlavors = 8;
inline constexpr const char* kTreeResources[] = {"cpu", "memory", "nvidia.com/gpu",
                                                 "example.com/nic"};

inline engine::ResourceGroupSpec TreeGroup(std::mt19937_64& rng, bool cohort) {
  engine::ResourceGroupSpec g;
  for (const char* r : kTreeResources) {
    g.covered_resources.emplace_back(r);
  }
  std::uniform_int_distribution<int64_t> units(1, 4);
  for (int f = 0; f < kTreeFlavors; ++f) {
    engine::FlavorQuotasSpec& fq = g.flavors.emplace_back();
    fq.flavor = fmt::format("flavor-{}", f);
    for (const char* r : kTreeResources) {
      engine::ResourceQuotaSpec q;
      q.resource = r;
      int64_t n = cohort ? 0 : units(rng);
      q.nominal = engine::Quantity(std::string_view(r) == "cpu" ? n * 1000 : n);
      fq.resources.push_back(q);
    }
  }
  return g;
}

inline engine::ClusterSpec MakeCohortTreeCluster(int pending_per_cq, uint64_t seed) {
  std::mt19937_64 rng(seed);
  engine::ClusterSpec spec;
  for (int f = 0; f < kTreeFlavors; ++f) {
    spec.flavors.emplace_back().name = fmt::format("flavor-{}", f);
  }
  std::vector<std::string> level = {"root"};
  spec.cohorts.emplace_back().name = "root";
  for (int fanout : {5, 5, 5, 4}) {
    std::vector<std::string> next;
    for (const std::string& parent : level) {
      for (int i = 0; i < fanout; ++i) {
        engine::CohortSpec& c = spec.cohorts.emplace_back();
        c.name = fmt::format("{}-{}", parent, i);
        c.parent = parent;
        c.resource_groups.push_back(TreeGroup(rng, true));
        next.push_back(c.name);
      }
    }
    level = std::move(next);
  }
  int cq_index = 0;
  std::uniform_int_distribution<int> pods(1, 4);
  std::uniform_int_distribution<int> priority(0, 3);
  for (const std::string& leaf : level) {
    for (int i = 0; i < 2; ++i, ++cq_index) {
      engine::ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
      cq.name = fmt::format("cq-{}", cq_index);
      cq.cohort = leaf;
      cq.namespace_selector.is_null = false;  // {}: every namespace
      cq.flavor_fungibility.when_can_borrow = engine::FungibilityPolicy::kTryNextFlavor;
      cq.preemption.within_cluster_queue = engine::PreemptionPolicy::kLowerPriority;
      cq.preemption.reclaim_within_cohort = engine::PreemptionPolicy::kAny;
      cq.resource_groups.push_back(TreeGroup(rng, false));
      engine::LocalQueueSpec& lq = spec.local_queues.emplace_back();
      lq.name_space = "ns";
      lq.name = cq.name;
      lq.cluster_queue = cq.name;
      for (int w = 0; w < pending_per_cq; ++w) {
        engine::WorkloadSpec& wl = spec.workloads.emplace_back();
        wl.name_space = "ns";
        wl.name = fmt::format("w-{}-{}", cq_index, w);
        wl.queue_name = cq.name;
        wl.priority = priority(rng);
        wl.creation_time = (cq_index * pending_per_cq + w) * 1'000'000LL;
        engine::PodSetSpec& ps = wl.pod_sets.emplace_back();
        ps.count = pods(rng);
        engine::ContainerResources& c = ps.resources.containers.emplace_back();
        engine::AddTo(c.requests, "cpu", *engine::ParseDecimalQuantity("1500m"));
        engine::AddTo(c.requests, "memory", *engine::ParseDecimalQuantity("2"));
        engine::AddTo(c.requests, "nvidia.com/gpu", *engine::ParseDecimalQuantity("1"));
      }
    }
  }
  return spec;
}

// A cluster, its workloads (all pending) and a scheduler over them.
struct CohortTreeEngine {
  // Queues the workloads of the first `active_cqs` ClusterQueues (all by default): a cycle then
  // has at most that many heads.
  explicit CohortTreeEngine(const engine::ClusterSpec& spec, size_t active_cqs = SIZE_MAX,
                            engine::SchedulerOptions options = {})
      : store(cluster), queues(cluster, store), scheduler(cluster, store, queues, options) {
    cluster.Apply(spec);
    for (const engine::WorkloadSpec& w : spec.workloads) {
      ids.push_back(*store.Add(w));
    }
    cluster.Refresh();
    const size_t per_cq = spec.workloads.size() / spec.cluster_queues.size();
    for (size_t i = 0; i < ids.size() && i / per_cq < active_cqs; ++i) {
      queues.Push(ids[i]);
    }
  }
  engine::Cluster cluster;
  engine::WorkloadStore store;
  engine::QueueManager queues;
  engine::Scheduler scheduler;
  std::vector<engine::WorkloadId> ids;
};

}  // namespace tally_bench
