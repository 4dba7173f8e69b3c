// Google Benchmark: one full Kueue scheduling cycle (issue: 1,000 ClusterQueues in a 5-level cohort
// tree, 8 flavors x 4 resources, 10,000 pending workloads), the nomination of single entries
// with their latency distribution (p50 / p99 as counters), and cycles of k heads nominated
// sequentially or in parallel (where parallel nomination starts to pay).
//
//   build/release/bench/scheduler_bench --benchmark_format=json
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"
#include "replay/io/parallel_for.h"

namespace {

using engine::Quantity;

constexpr int kFlavors = 8;
constexpr const char* kResources[] = {"cpu", "memory", "nvidia.com/gpu", "example.com/nic"};

engine::ResourceGroupSpec Group(std::mt19937_64& rng, bool cohort) {
  engine::ResourceGroupSpec g;
  for (const char* r : kResources) {
    g.covered_resources.emplace_back(r);
  }
  // Tight quotas: ClusterQueues hold 1-4 units per flavor, cohorts none, so that later cycles
  // borrow across the tree, preempt and fail as well as fit.
  std::uniform_int_distribution<int64_t> units(1, 4);
  for (int f = 0; f < kFlavors; ++f) {
    engine::FlavorQuotasSpec& fq = g.flavors.emplace_back();
    fq.flavor = fmt::format("flavor-{}", f);
    for (const char* r : kResources) {
      engine::ResourceQuotaSpec q;
      q.resource = r;
      int64_t n = cohort ? 0 : units(rng);
      q.nominal = Quantity(std::string_view(r) == "cpu" ? n * 1000 : n);
      fq.resources.push_back(q);
    }
  }
  return g;
}

// root -> 5 -> 5 -> 5 -> 4 cohorts (5 levels), 2 ClusterQueues under each of the 500 leaves.
engine::ClusterSpec MakeCluster(int pending_per_cq, uint64_t seed) {
  std::mt19937_64 rng(seed);
  engine::ClusterSpec spec;
  for (int f = 0; f < kFlavors; ++f) {
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
        c.resource_groups.push_back(Group(rng, true));
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
      cq.resource_groups.push_back(Group(rng, false));
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

struct Engine {
  // Queues the workloads of the first `active_cqs` ClusterQueues (all by default): a cycle then
  // has at most that many heads.
  explicit Engine(const engine::ClusterSpec& spec, size_t active_cqs = SIZE_MAX)
      : store(cluster), queues(cluster, store), scheduler(cluster, store, queues) {
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

const engine::ClusterSpec& Spec() {
  static const engine::ClusterSpec spec = MakeCluster(10, 42);
  return spec;
}

// One full cycle (the 4th: quota partly used): 1,000 heads nominated, ordered and processed. The
// state is rebuilt between iterations (outside the timing) because a cycle admits workloads.
void BM_Scheduler_Cycle_1000Cq_10000Pending(benchmark::State& state) {
  int64_t entries = 0;
  int64_t admitted = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto e = std::make_unique<Engine>(Spec());
    for (int warm = 0; warm < 3; ++warm) {  // quota partly used: borrowing and preemption paths
      e->scheduler.RunCycle(0);
    }
    state.ResumeTiming();
    engine::CycleResult r = e->scheduler.RunCycle(0);
    benchmark::DoNotOptimize(r);
    entries += static_cast<int64_t>(r.entries.size());
    for (const engine::CycleEntry& entry : r.entries) {
      admitted += entry.outcome == engine::EntryOutcome::kAdmitted ? 1 : 0;
    }
    state.PauseTiming();
    e.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(entries);
  state.counters["entries_per_cycle"] =
      benchmark::Counter(static_cast<double>(entries) / static_cast<double>(state.iterations()));
  state.counters["admitted_per_cycle"] =
      benchmark::Counter(static_cast<double>(admitted) / static_cast<double>(state.iterations()));
  state.counters["ns_per_entry"] = benchmark::Counter(
      static_cast<double>(entries), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Scheduler_Cycle_1000Cq_10000Pending)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Nomination of one entry (flavor assignment + preemption targets) against the 10,000-workload
// state, every pending workload in turn; p50 / p99 of the per-entry latency as counters.
void BM_Scheduler_Nominate_1000Cq(benchmark::State& state) {
  Engine e(Spec());
  for (int warm = 0; warm < 3; ++warm) {  // quota partly used: borrowing and preemption paths
    e.scheduler.RunCycle(0);
  }
  std::vector<double> ns;
  size_t next = 0;
  for (auto _ : state) {
    engine::WorkloadId id = e.ids[next];
    next = (next + 1) % e.ids.size();
    auto start = std::chrono::steady_clock::now();
    engine::CycleEntry entry = e.scheduler.Evaluate(id, 0);
    auto end = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(entry);
    ns.push_back(std::chrono::duration<double, std::nano>(end - start).count());
  }
  std::sort(ns.begin(), ns.end());
  state.SetItemsProcessed(state.iterations());
  if (!ns.empty()) {
    state.counters["p50_ns"] = ns[ns.size() / 2];
    state.counters["p99_ns"] = ns[std::min(ns.size() - 1, ns.size() * 99 / 100)];
  }
}
BENCHMARK(BM_Scheduler_Nominate_1000Cq)->MinTime(1.0);

// One cycle (the 4th) with range(0) heads, nominated sequentially (range(1) == 1) or on a 2-thread
// arena (range(1) == 2). Shows from how many heads parallel nomination pays on this machine
// (engine::Scheduler::kDefaultMinParallelHeads).
void BM_Scheduler_CycleHeads(benchmark::State& state) {
  const auto heads = static_cast<size_t>(state.range(0));
  const auto threads = static_cast<int>(state.range(1));
  tbb::task_arena arena(threads);
  replay::ArenaLoop loop(arena);
  int64_t entries = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto e = std::make_unique<Engine>(Spec(), heads);
    e->scheduler.SetParallelLoop(threads > 1 ? &loop : nullptr, 1);
    for (int warm = 0; warm < 3; ++warm) {
      e->scheduler.RunCycle(0);
    }
    state.ResumeTiming();
    engine::CycleResult r = e->scheduler.RunCycle(0);
    benchmark::DoNotOptimize(r);
    entries += static_cast<int64_t>(r.entries.size());
    state.PauseTiming();
    e.reset();
    state.ResumeTiming();
  }
  state.counters["entries_per_cycle"] =
      benchmark::Counter(static_cast<double>(entries) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_Scheduler_CycleHeads)
    ->ArgsProduct({{2, 8, 32, 128, 1000}, {1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(30)  // each iteration rebuilds the 10,000-workload state (untimed)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

}  // namespace
