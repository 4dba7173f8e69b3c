// The parallel replay's own costs (docs/replay.md, "Parallel replay"), on a synthetic trace of
// 100,000 workloads over 20 independent Cohort trees generated once into the temporary directory,
// and the replay of the one shard that bounds issue 22's 16-tree trace:
//  - BM_ReadSequential: EventReader::Next, one thread, every line fully parsed (the replay's
//    reader before this change);
//  - BM_ReadParallel/T: ParallelEventReader with T threads over the same file;
//  - BM_ApplyLockPerEvent vs BM_ApplyOneLock: the same events applied to one shard through
//    ApplyEvent (replay/sim/sharded_replay.h; the lock taken per event) and under one lock:
//    the lock's cost on the single-thread path, per event;
//  - BM_PingPongShardReplay: the slowest shard of the 16-tree trace (its first 20,000 workloads)
//    replayed whole, a preemption ping-pong of one preemptor a cycle.
// Whole-replay speedups (1 vs 2 threads, a million workloads) are in scripts/bench-replay.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include "replay/generate/synthetic_generator.h"
#include "replay/io/event_reader.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/parallel_reader.h"
#include "replay/sim/sharded_replay.h"
#include "replay/sim/simulator.h"

namespace replay {
namespace {

namespace fs = std::filesystem;

struct Trace {
  fs::path dir;
  fs::path events;
  LoadResult manifests;
  int64_t bytes = 0;
  int64_t events_count = 0;
};

// Generates a synthetic trace into its own temporary directory (`name`), removed at exit by
// RemoveAtExit.
Trace GenerateTrace(const SyntheticOptions& o, const char* name) {
  Trace t;
  t.dir = fs::temp_directory_path() / fmt::format("tally-{}-bench-{}", name, ::getpid());
  fs::create_directories(t.dir);
  t.events = t.dir / "events.jsonl";
  std::string manifests;
  std::FILE* out = std::fopen(t.events.c_str(), "wb");
  SyntheticSummary s = GenerateSynthetic(o, &manifests, [&](std::string_view chunk) {
    std::fwrite(chunk.data(), 1, chunk.size(), out);
  });
  std::fclose(out);
  t.bytes = s.event_bytes;
  t.events_count = s.workloads;
  t.manifests = LoadManifestString(manifests, "manifests.yaml");
  return t;
}

const Trace& SharedTrace() {
  static const Trace trace = [] {
    Trace t = GenerateTrace({.workloads = 100'000,
                             .cluster_queues = 200,
                             .cohort_depth = 3,
                             .trees = 20,
                             .flavors = 3,
                             .resources = 4,
                             .mean_interarrival_seconds = 3},
                            "parallel");
    std::atexit([] { fs::remove_all(SharedTrace().dir); });
    return t;
  }();
  return trace;
}

// Issue 22's 16-tree trace, its first 20,000 workloads: `tally generate --synthetic --workloads
// 20000 --trees 16 --cluster-queues 160 --flavors 3 --resources 4 --mean-interarrival 2 --seed 7`.
const Trace& SixteenTreeTrace() {
  static const Trace trace = [] {
    Trace t = GenerateTrace({.workloads = 20'000,
                             .cluster_queues = 160,
                             .trees = 16,
                             .flavors = 3,
                             .resources = 4,
                             .seed = 7,
                             .mean_interarrival_seconds = 2},
                            "sixteen-tree");
    std::atexit([] { fs::remove_all(SixteenTreeTrace().dir); });
    return t;
  }();
  return trace;
}

void SetThroughput(benchmark::State& state, const Trace& t) {
  state.SetBytesProcessed(state.iterations() * t.bytes);
  state.SetItemsProcessed(state.iterations() * t.events_count);
}

void BM_ReadSequential(benchmark::State& state) {
  const Trace& t = SharedTrace();
  for (auto _ : state) {
    EventReader reader;
    if (!reader.Open(t.events.string()).ok()) {
      state.SkipWithError("cannot open the trace");
      return;
    }
    TraceEvent event;
    EventError error;
    int64_t events = 0;
    while (reader.Next(event, error) == ReadResult::kEvent) {
      ++events;
    }
    benchmark::DoNotOptimize(events);
  }
  SetThroughput(state, t);
}
BENCHMARK(BM_ReadSequential)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadParallel(benchmark::State& state) {
  const Trace& t = SharedTrace();
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  std::vector<ParsedLine> lines;
  for (auto _ : state) {
    ParallelEventReader reader(arena);
    if (!reader.Open(t.events.string()).ok()) {
      state.SkipWithError("cannot open the trace");
      return;
    }
    int64_t events = 0;
    while (reader.NextBatch(lines)) {
      events += static_cast<int64_t>(lines.size());
    }
    benchmark::DoNotOptimize(events);
  }
  SetThroughput(state, t);
}
BENCHMARK(BM_ReadParallel)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The events of the shard that receives most of them, and the plan that routes them.
struct ShardEvents {
  engine::ShardPlan plan;
  int shard = 0;
  std::vector<TraceEvent> events;
};

// Every event of `t`, and the plan that routes them.
ShardEvents PlanTrace(const Trace& t, std::vector<TraceEvent>& all) {
  engine::ShardPlanner planner;
  planner.AddManifests(t.manifests.spec);
  EventReader reader;
  (void)reader.Open(t.events.string());
  TraceEvent event;
  EventError error;
  while (reader.Next(event, error) == ReadResult::kEvent) {
    PlanEvent(planner, event);
    all.push_back(event);
  }
  ShardEvents s;
  s.plan = planner.Build(false);
  return s;
}

const ShardEvents& BusiestShardEvents() {
  static const ShardEvents shard_events = [] {
    std::vector<TraceEvent> all;
    ShardEvents s = PlanTrace(SharedTrace(), all);
    std::vector<int> counts(static_cast<size_t>(s.plan.num_shards()), 0);
    for (const TraceEvent& e : all) {
      ++counts[static_cast<size_t>(RouteEvent(s.plan, e))];
    }
    s.shard = static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
    for (TraceEvent& e : all) {
      if (RouteEvent(s.plan, e) == s.shard) {
        s.events.push_back(std::move(e));
      }
    }
    return s;
  }();
  return shard_events;
}

SimulatorOptions BenchOptions() {
  SimulatorOptions o;
  o.scheduler = ReplaySchedulerOptions(o.scheduler);
  o.timings = false;
  return o;
}

template <bool kLockPerEvent>
void ApplyShardEvents(benchmark::State& state) {
  const Trace& t = SharedTrace();
  const ShardEvents& s = BusiestShardEvents();
  for (auto _ : state) {
    state.PauseTiming();
    ShardedReplay engine(t.manifests, s.plan, BenchOptions(), /*log_decisions=*/true);
    std::vector<TraceEvent> events = s.events;  // applying consumes the objects
    engine.With(s.shard, [&](ShardSimulator& sim) { sim.Start(events.front().time); });
    state.ResumeTiming();
    EventError error;
    if constexpr (kLockPerEvent) {
      for (TraceEvent& e : events) {
        benchmark::DoNotOptimize(ApplyEvent(engine, s.shard, e, error));
      }
    } else {
      engine.With(s.shard, [&](ShardSimulator& sim) {
        for (TraceEvent& e : events) {
          benchmark::DoNotOptimize(sim.Apply(e, error));
        }
      });
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(s.events.size()));
}

void BM_ApplyLockPerEvent(benchmark::State& state) {
  ApplyShardEvents<true>(state);
}
void BM_ApplyOneLock(benchmark::State& state) {
  ApplyShardEvents<false>(state);
}
BENCHMARK(BM_ApplyLockPerEvent)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ApplyOneLock)->Unit(benchmark::kMillisecond)->UseRealTime();

// Shard `s.shard` of `t` replayed whole: its events, then everything due within two days of the
// last one (every workload of these traces finishes well within that), its decision lines
// written to its log. Returns the decision lines written.
int64_t ReplayShard(const Trace& t, const ShardEvents& s) {
  ShardedReplay engine(t.manifests, s.plan, BenchOptions(), /*log_decisions=*/true);
  std::vector<TraceEvent> events = s.events;  // applying consumes the objects
  constexpr int64_t kTwoDays = int64_t{2} * 24 * 3600 * 1'000'000;
  return engine.With(s.shard, [&](ShardSimulator& sim) {
    sim.Start(events.front().time);
    EventError error;
    for (TraceEvent& e : events) {
      benchmark::DoNotOptimize(sim.Apply(e, error));
    }
    sim.AdvanceTo(events.back().time + kTwoDays);
    return static_cast<int64_t>(sim.log().size());
  });
}

// The 16-tree trace's shard that takes longest to replay (picked by timing each once): a
// preemption ping-pong, one preemptor a cycle, the same two or three states over and over
// (docs/replay.md, "Tree 14 is a preemption ping-pong"). On any number of threads the trace
// takes at least this shard's time, so this is the cycle cost issue 22's two-thread target
// on that trace depends on.
const ShardEvents& PingPongShardEvents() {
  static const ShardEvents shard_events = [] {
    const Trace& t = SixteenTreeTrace();
    std::vector<TraceEvent> all;
    ShardEvents s = PlanTrace(t, all);
    double slowest = -1;
    ShardEvents candidate;
    candidate.plan = s.plan;
    for (int k = 0; k < s.plan.num_shards(); ++k) {
      candidate.shard = k;
      candidate.events.clear();
      for (const TraceEvent& e : all) {
        if (RouteEvent(s.plan, e) == k) {
          candidate.events.push_back(e);
        }
      }
      if (candidate.events.empty()) {
        continue;
      }
      const auto start = std::chrono::steady_clock::now();
      ReplayShard(t, candidate);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (seconds > slowest) {
        slowest = seconds;
        s.shard = k;
        s.events = candidate.events;
      }
    }
    return s;
  }();
  return shard_events;
}

void BM_PingPongShardReplay(benchmark::State& state) {
  const Trace& t = SixteenTreeTrace();
  const ShardEvents& s = PingPongShardEvents();
  int64_t lines = 0;
  for (auto _ : state) {
    lines = ReplayShard(t, s);
    benchmark::DoNotOptimize(lines);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(s.events.size()));
  state.counters["decision_lines"] = benchmark::Counter(static_cast<double>(lines));
  state.counters["ns_per_decision_line"] =
      benchmark::Counter(static_cast<double>(lines) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PingPongShardReplay)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace replay
