// Google Benchmark: one full Kueue scheduling cycle (issue: 1,000 ClusterQueues in a 5-level cohort
// tree, 8 flavors x 4 resources, 10,000 pending workloads), the nomination of single entries
// with their latency distribution (p50 / p99 as counters), and cycles of k heads nominated
// sequentially or in parallel (where parallel nomination starts to pay), and a cycle with nothing
// queued.
//
//   build/release/bench/scheduler_bench --benchmark_format=json
#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include "bench/cohort_tree_fixture.h"
#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"
#include "replay/io/parallel_for.h"

namespace {

using Engine = tally_bench::CohortTreeEngine;

const engine::ClusterSpec& Spec() {
  static const engine::ClusterSpec spec = tally_bench::MakeCohortTreeCluster(10, 42);
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

// A cycle with nothing queued (1,000 ClusterQueues, their workloads added but none pushed): what
// a replay pays for each of the two head-less cycles per workload of an uncontended trace (the
// one after an admission, the one after a release; issue 22). It changes nothing, so the same
// engine runs it again and again.
void BM_Scheduler_CycleWithoutHeads(benchmark::State& state) {
  Engine e(Spec(), /*active_cqs=*/0);
  for (auto _ : state) {
    engine::CycleResult r = e.scheduler.RunCycle(0);
    benchmark::DoNotOptimize(r);
    e.scheduler.Recycle(std::move(r));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Scheduler_CycleWithoutHeads)->MinTime(1.0);

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
