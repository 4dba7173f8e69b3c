// File: test/replay/sim/tree_traces_fixture.h
//
// Traces of many small Cohort trees, and a fixture that replays them with the Simulator into a
// file, for the parallel replay's tests (parallel_replay_test.cc: determinism) and the shard
// planning's (shard_planning_test.cc: the first pass, the plan from the manifests and its check).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"
#include "replay/report/report_writers.h"
#include "replay/sim/simulator.h"
#include "replay/sim/trace_ties.h"

namespace replay::tree_traces {

namespace fs = std::filesystem;

inline constexpr int64_t kT0 = 1767225600LL * 1'000'000;  // 2026-01-01T00:00:00Z

inline std::string At(double seconds) {
  return FormatRfc3339(kT0 + static_cast<int64_t>(seconds * 1e6));
}

// A ClusterQueue `name` in `cohort` (none if empty) with `cpu` nominal cpu, reclaiming and
// preempting by priority within its cohort, borrowing without limit.
inline std::string ClusterQueueYaml(const std::string& name, const std::string& cohort, int cpu) {
  return fmt::format(R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {0}}}
spec:
  {1}
  namespaceSelector: {{}}
  preemption: {{reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: {2}}}
)",
                     name, cohort.empty() ? "" : "cohortName: " + cohort, cpu);
}

inline std::string CohortYaml(const std::string& name, const std::string& parent) {
  return fmt::format(R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {{name: {0}}}
spec: {{{1}}}
)",
                     name, parent.empty() ? "" : "parentName: " + parent);
}

inline std::string LocalQueueYaml(const std::string& ns, const std::string& name,
                                  const std::string& cq) {
  return fmt::format(R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {1}, namespace: {0}}}
spec: {{clusterQueue: {2}}}
)",
                     ns, name, cq);
}

inline std::string FlavorYaml() {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n";
}

// Tree k: root-k ← mid-k ← cq-k-a (4 cpu); root-k ← cq-k-b (2 cpu); LocalQueues ns-k/a, ns-k/b.
inline std::string TreeYaml(int k) {
  std::string root = fmt::format("root-{}", k);
  std::string mid = fmt::format("mid-{}", k);
  return CohortYaml(root, "") + CohortYaml(mid, root)
         + ClusterQueueYaml(fmt::format("cq-{}-a", k), mid, 4)
         + ClusterQueueYaml(fmt::format("cq-{}-b", k), root, 2)
         + LocalQueueYaml(fmt::format("ns-{}", k), "a", fmt::format("cq-{}-a", k))
         + LocalQueueYaml(fmt::format("ns-{}", k), "b", fmt::format("cq-{}-b", k));
}

inline std::string WorkloadJson(const std::string& ns, const std::string& name,
                                const std::string& queue, int cpu, int priority) {
  return fmt::format(
      R"({{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{{"name":"{1}","namespace":"{0}"}},"spec":{{"queueName":"{2}","priority":{4},"podSets":[{{"name":"main","count":1,"template":{{"spec":{{"containers":[{{"name":"c","resources":{{"requests":{{"cpu":"{3}"}}}}}}]}}}}}}]}}}})",
      ns, name, queue, cpu, priority);
}

// A deterministic stream of small numbers (no <random>: its distributions differ by library).
struct Lcg {
  uint64_t state;
  uint32_t Next(uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((state >> 33) % bound);
  }
};

struct Trace {
  std::string manifests;
  std::vector<std::string> events;
};

// `trees` trees plus a ClusterQueue without a cohort ("solo"); `per_tree` workloads per tree,
// congested enough to preempt. With `ties`: at 40% of the trace root-1 becomes a child of root-0
// (one shard from the start), a quota edit and a ResourceFlavor event (sent to every shard);
// pending workloads are deleted now and then (DELETED names no queue: sent to every shard).
inline Trace ManyTrees(int trees, int per_tree, bool ties) {
  Trace t;
  t.manifests = FlavorYaml();
  for (int k = 0; k < trees; ++k) {
    t.manifests += TreeYaml(k);
  }
  t.manifests += ClusterQueueYaml("solo", "", 3) + LocalQueueYaml("ns-solo", "q", "solo");
  Lcg rng{42};
  int total = trees * per_tree;
  std::vector<std::string> namespaces;
  for (int i = 0; i < total; ++i) {
    double time = i * 2.0;
    int k = static_cast<int>(rng.Next(static_cast<uint32_t>(trees + 1)));
    std::string ns = k == trees ? "ns-solo" : fmt::format("ns-{}", k);
    std::string queue = k == trees ? "q" : (rng.Next(2) == 0 ? "a" : "b");
    std::string name = fmt::format("wl-{}", i);
    namespaces.push_back(ns);
    int cpu = 1 + static_cast<int>(rng.Next(3));
    int priority = static_cast<int>(rng.Next(3)) * 10;
    int runtime = 20 + static_cast<int>(rng.Next(200));
    t.events.push_back(fmt::format(R"({{"type":"ADDED","time":"{}","runtime":"{}s","object":{}}})",
                                   At(time), runtime,
                                   WorkloadJson(ns, name, queue, cpu, priority)));
    if (ties && i % 17 == 5) {
      // Deletes an earlier workload: pending, running, or already finished (then the event is
      // rejected as naming an unknown workload, once, whatever the shards).
      t.events.push_back(fmt::format(
          R"({{"type":"DELETED","time":"{}","object":{{"kind":"Workload","metadata":{{"name":"wl-{}","namespace":"{}"}}}}}})",
          At(time), i - 3, namespaces[static_cast<size_t>(i - 3)]));
    }
    if (ties && i == total * 2 / 5) {
      t.events.push_back(fmt::format(
          R"({{"type":"MODIFIED","time":"{}","object":{{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Cohort","metadata":{{"name":"root-1"}},"spec":{{"parentName":"root-0"}}}}}})",
          At(time)));
      t.events.push_back(fmt::format(
          R"({{"type":"ADDED","time":"{}","object":{{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{{"name":"spare"}}}}}})",
          At(time)));
    }
    if (ties && i == total / 2) {
      t.events.push_back(fmt::format(
          R"({{"type":"MODIFIED","time":"{}","object":{{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{{"name":"cq-2-a"}},"spec":{{"cohortName":"mid-2","namespaceSelector":{{}},"resourceGroups":[{{"coveredResources":["cpu"],"flavors":[{{"name":"default","resources":[{{"name":"cpu","nominalQuota":8}}]}}]}}]}}}}}})",
          At(time)));
    }
  }
  return t;
}

// One tree, five levels deep, a ClusterQueue at every level.
inline Trace DeepTree(int workloads) {
  Trace t;
  t.manifests = FlavorYaml();
  std::string parent;
  for (int level = 0; level < 5; ++level) {
    std::string cohort = fmt::format("level-{}", level);
    t.manifests += CohortYaml(cohort, parent);
    t.manifests += ClusterQueueYaml(fmt::format("cq-{}", level), cohort, 2 + level);
    t.manifests += LocalQueueYaml(fmt::format("ns-{}", level), "q", fmt::format("cq-{}", level));
    parent = cohort;
  }
  Lcg rng{7};
  for (int i = 0; i < workloads; ++i) {
    int level = static_cast<int>(rng.Next(5));
    t.events.push_back(fmt::format(
        R"({{"type":"ADDED","time":"{}","runtime":"{}s","object":{}}})", At(i * 1.5),
        30 + rng.Next(150),
        WorkloadJson(fmt::format("ns-{}", level), fmt::format("wl-{}", i), "q",
                     1 + static_cast<int>(rng.Next(4)), static_cast<int>(rng.Next(4)) * 10)));
  }
  return t;
}

struct ReplayRun {
  std::string decisions;
  std::string report_json;
  ReplayReport report;
  int shards = 0;
  size_t largest_flush = 0;     // Simulator::largest_flush
  bool replayed_twice = false;  // Simulator::replayed_twice
};

class ParallelReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path()
           / fmt::format("tally-par-{}-{}", ::getpid(),
                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `in_flight`: SimulatorOptions::events_in_flight, the window shards run free in.
  // `prescan`: the first pass is made before the replay (replay/sim/trace_ties.h), as RunReplay
  // does while the manifests load; `prescan_path` is the trace it reads ("" = the replayed one).
  ReplayRun Replay(const Trace& trace, int threads, size_t batch_lines,
                   size_t in_flight = SimulatorOptions{}.events_in_flight, bool prescan = false,
                   const std::string& prescan_path = "",
                   uint64_t plan_max_bytes = SimulatorOptions{}.plan_from_manifests_max_bytes) {
    fs::path manifests = dir_ / "manifests.yaml";
    fs::path events = dir_ / "events.jsonl";
    std::ofstream(manifests) << trace.manifests;
    {
      std::ofstream out(events);
      for (const std::string& e : trace.events) {
        out << e << "\n";
      }
    }
    LoadResult load = LoadManifestFiles({manifests.string()});
    EXPECT_TRUE(load.ok()) << (load.errors.empty() ? "" : load.errors[0].message);
    SimulatorOptions options;
    options.scheduler = ReplaySchedulerOptions(options.scheduler);
    options.timings = false;
    options.threads = threads;
    options.batch_lines = batch_lines;
    options.events_in_flight = in_flight;
    options.parallel_nomination_min_heads = 2;  // nested parallel nomination whenever it can
    options.plan_from_manifests_max_bytes = plan_max_bytes;
    options.slice_lines_per_shard = slice_lines_per_shard_;
    options.min_timers_to_compact = min_timers_to_compact_;
    ReplayRun run;
    // A file, as `tally replay` writes: a replay planned from the manifests may start it again.
    const fs::path decisions = dir_ / "decisions.jsonl";
    std::FILE* file = std::fopen(decisions.c_str(), "w+b");
    EXPECT_NE(file, nullptr);
    {
      DecisionLog log(file);
      Simulator sim(load, options, &log);
      if (prescan) {
        tbb::task_arena arena(threads);
        sim.UseTraceTies(ScanTraceTies(prescan_path.empty() ? events.string() : prescan_path, arena,
                                       batch_lines, options.max_line_bytes));
      }
      engine::StatusOr<bool> ok = sim.Run(events.string(), run.report);
      EXPECT_TRUE(ok.ok() && *ok);
      run.shards = sim.num_shards();
      run.largest_flush = sim.largest_flush();
      run.replayed_twice = sim.replayed_twice();
    }
    std::fclose(file);
    std::ifstream in(decisions, std::ios::binary);
    run.decisions.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    run.report.events_file = "events.jsonl";  // the temporary directory differs per test
    run.report.manifest_files = {"manifests.yaml"};
    run.report_json = FormatReportJson(run.report);
    return run;
  }

  fs::path dir_;
  size_t slice_lines_per_shard_ = SimulatorOptions{}.slice_lines_per_shard;
  size_t min_timers_to_compact_ = SimulatorOptions{}.min_timers_to_compact;
};

// The lines of a decisions log that belong to namespace `ns`.
inline std::vector<std::string> LinesOf(const std::string& decisions, const std::string& ns) {
  std::vector<std::string> out;
  std::istringstream in(decisions);
  for (std::string line; std::getline(in, line);) {
    if (line.find(fmt::format(R"("workload":"{}/)", ns)) != std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

}  // namespace replay::tree_traces
