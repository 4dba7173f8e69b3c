// WorkloadStore::AddSwapping and Erase (engine/workload_store.h) as a replay uses them: a spec is
// written, added (its storage handed back for the next one) and, 1,000 Workloads later, erased.
// The pod-set lists come from `range(0)` distinct ones (engine/pod_set_pool.h): 4 is what the
// synthetic and Kueue perf traces have, 4,096 makes nearly every Add a pool miss.
//
//   BM_WorkloadStore_AddErase/4      per Workload: one AddSwapping and one Erase
//   BM_WorkloadStore_AddErase/4096
//
// WorkloadStore::Reserve (the scheduler's in-place overload) and Release: 500 of 1,000 stored
// Workloads reserved at a time, each reservation one pod set of `range(0)` distinct contents (the
// store pools equal reservations' lists since 2026-12-03: engine/base/list_pool.h).
//
//   BM_WorkloadStore_ReserveRelease/4     per iteration: one Reserve and one Release
//   BM_WorkloadStore_ReserveRelease/4096
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "engine/cluster.h"
#include "engine/pod_requests.h"
#include "engine/workload_spec.h"
#include "engine/workload_store.h"

namespace {

using engine::WorkloadSpec;

void WriteSpec(WorkloadSpec& w, int64_t i, int64_t distinct_lists) {
  engine::ResetForReuse(w);
  w.name_space = "ns";
  w.name = fmt::format("w{}", i);
  w.queue_name = "lq";
  auto& pod_sets = w.pod_sets;  // a std::vector before the pool (e90c308): one source for both
  if (pod_sets.empty()) {
    pod_sets.emplace_back();
  }
  engine::PodSetSpec& ps = pod_sets[0];
  ps.count = static_cast<int32_t>(1 + i % distinct_lists);
  if (ps.resources.containers.empty()) {
    ps.resources.containers.emplace_back();
  }
  engine::ContainerResources& c = ps.resources.containers[0];
  c.requests.clear();
  engine::AddTo(c.requests, "cpu", *engine::ParseDecimalQuantity("500m"));
}

void ApplyOneQueue(engine::Cluster& cluster) {
  engine::ClusterSpec cluster_spec;
  cluster_spec.flavors.emplace_back().name = "f";
  engine::ClusterQueueSpec& cq = cluster_spec.cluster_queues.emplace_back();
  cq.name = "cq";
  cq.resource_groups.emplace_back().covered_resources = {"cpu"};
  // assign(), not `= "f"`: GCC 12 warns falsely (-Wrestrict) on the inlined operator=.
  cq.resource_groups[0].flavors.emplace_back().flavor.assign(std::string_view("f"));
  cq.resource_groups[0].flavors[0].resources.push_back(
      {"cpu", engine::Quantity(1'000'000), std::nullopt, std::nullopt});
  engine::LocalQueueSpec& lq = cluster_spec.local_queues.emplace_back();
  lq.name_space = "ns";
  lq.name = "lq";
  lq.cluster_queue = "cq";
  cluster.Apply(cluster_spec);
  cluster.Refresh();
}

void BM_WorkloadStore_AddErase(benchmark::State& state) {
  const int64_t distinct = state.range(0);
  constexpr int64_t kLive = 1000;
  engine::Cluster cluster;
  ApplyOneQueue(cluster);
  engine::WorkloadStore store(cluster);
  WorkloadSpec spec;
  int64_t i = 0;
  for (auto _ : state) {
    WriteSpec(spec, i, distinct);
    benchmark::DoNotOptimize(store.AddSwapping(spec));
    if (i >= kLive) {
      store.Erase(*store.Find(fmt::format("ns/w{}", i - kLive)));
    }
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WorkloadStore_AddErase)->Arg(4)->Arg(4096);

void BM_WorkloadStore_ReserveRelease(benchmark::State& state) {
  const int64_t distinct = state.range(0);
  constexpr int64_t kStored = 1000;
  constexpr int64_t kReserved = 500;
  engine::Cluster cluster;
  ApplyOneQueue(cluster);
  engine::WorkloadStore store(cluster);
  const engine::CqId cq = *cluster.FindClusterQueue("cq");
  const engine::FrSlot slot = *cluster.FindSlot("f", "cpu");
  const engine::FlavorResource key = cluster.SlotKey(slot);
  std::vector<engine::WorkloadId> ids;
  WorkloadSpec spec;
  for (int64_t i = 0; i < kStored; ++i) {
    WriteSpec(spec, i, 1);
    ids.push_back(*store.AddSwapping(spec));
  }
  int64_t i = 0;
  for (auto _ : state) {
    const int32_t count = static_cast<int32_t>(1 + i % distinct);
    const std::vector<engine::SlotAmount> usage = {{slot, engine::Quantity(500 * count)}};
    store.Reserve(
        ids[static_cast<size_t>(i % kStored)], cq, 1,
        [&](size_t, engine::AdmittedPodSet& out) {
          out.name = "main";
          out.count = count;
          out.flavors.emplace_back(key.resource, key.flavor);
          out.usage.push_back({slot, engine::Quantity(500 * count)});
        },
        usage, i);
    if (i >= kReserved) {
      store.Release(ids[static_cast<size_t>((i - kReserved) % kStored)]);
    }
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WorkloadStore_ReserveRelease)->Arg(4)->Arg(4096);

}  // namespace

BENCHMARK_MAIN();
