// The parallel replay (docs/replay.md, "Parallel replay"): shards are the Cohort trees the whole
// trace ever ties together; the output does not depend on the number of threads nor on the size
// of the batches the trace is read in; a shard replays exactly as its tree would alone. Run under
// TSan in CI (scripts/test --tsan).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"
#include "replay/report/report_writers.h"
#include "replay/sim/sharded_replay.h"
#include "replay/sim/simulator.h"
#include "replay/sim/trace_ties.h"

namespace replay {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kT0 = 1767225600LL * 1'000'000;  // 2026-01-01T00:00:00Z

std::string At(double seconds) {
  return FormatRfc3339(kT0 + static_cast<int64_t>(seconds * 1e6));
}

// A ClusterQueue `name` in `cohort` (none if empty) with `cpu` nominal cpu, reclaiming and
// preempting by priority within its cohort, borrowing without limit.
std::string ClusterQueueYaml(const std::string& name, const std::string& cohort, int cpu) {
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

std::string CohortYaml(const std::string& name, const std::string& parent) {
  return fmt::format(R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {{name: {0}}}
spec: {{{1}}}
)",
                     name, parent.empty() ? "" : "parentName: " + parent);
}

std::string LocalQueueYaml(const std::string& ns, const std::string& name, const std::string& cq) {
  return fmt::format(R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {1}, namespace: {0}}}
spec: {{clusterQueue: {2}}}
)",
                     ns, name, cq);
}

std::string FlavorYaml() {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n";
}

// Tree k: root-k ← mid-k ← cq-k-a (4 cpu); root-k ← cq-k-b (2 cpu); LocalQueues ns-k/a, ns-k/b.
std::string TreeYaml(int k) {
  std::string root = fmt::format("root-{}", k);
  std::string mid = fmt::format("mid-{}", k);
  return CohortYaml(root, "") + CohortYaml(mid, root)
         + ClusterQueueYaml(fmt::format("cq-{}-a", k), mid, 4)
         + ClusterQueueYaml(fmt::format("cq-{}-b", k), root, 2)
         + LocalQueueYaml(fmt::format("ns-{}", k), "a", fmt::format("cq-{}-a", k))
         + LocalQueueYaml(fmt::format("ns-{}", k), "b", fmt::format("cq-{}-b", k));
}

std::string WorkloadJson(const std::string& ns, const std::string& name, const std::string& queue,
                         int cpu, int priority) {
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
Trace ManyTrees(int trees, int per_tree, bool ties) {
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
Trace DeepTree(int workloads) {
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
};

// The lines of a decisions log that belong to namespace `ns`.
std::vector<std::string> LinesOf(const std::string& decisions, const std::string& ns) {
  std::vector<std::string> out;
  std::istringstream in(decisions);
  for (std::string line; std::getline(in, line);) {
    if (line.find(fmt::format(R"("workload":"{}/)", ns)) != std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

TEST_F(ParallelReplayTest, ManyShardsGiveTheSameBytesWithAnyThreadCountAndBatchSize) {
  Trace trace = ManyTrees(12, 60, /*ties=*/true);
  ReplayRun first = Replay(trace, 1, 8192);
  // 12 trees + solo, and root-1 joins root-0 mid-trace: 12 shards.
  EXPECT_EQ(first.shards, 12);
  EXPECT_EQ(first.report.shards, 12);
  EXPECT_GT(first.report.preemptions, 0);
  EXPECT_GT(first.report.deleted, 0);
  EXPECT_EQ(first.report.events_read, static_cast<int64_t>(trace.events.size()));
  EXPECT_EQ(first.report.events_read, first.report.events_applied + first.report.events_rejected);
  EXPECT_EQ(first.report.events_rejected, first.report.rejected_by_reason["unknownWorkload"]);
  for (auto [threads, batch] : {std::pair<int, size_t>{2, 8192}, {8, 8192}, {2, 7}, {8, 1}}) {
    ReplayRun other = Replay(trace, threads, batch);
    EXPECT_EQ(other.decisions, first.decisions) << threads << " threads, batches of " << batch;
    EXPECT_EQ(other.report_json, first.report_json) << threads << " threads, batches of " << batch;
  }
}

// Shards run free within a window of batches (replay/sim/shard_pipeline.h): how far one may run
// ahead of another changes nothing written. Small batches make many steps per shard.
TEST_F(ParallelReplayTest, HowFarShardsRunAheadChangesNothing) {
  Trace trace = ManyTrees(12, 60, /*ties=*/true);
  ReplayRun first = Replay(trace, 1, 8192);
  struct Case {
    int threads;
    size_t batch;
    size_t in_flight;
  };
  for (Case c : {Case{2, 5, 5}, Case{2, 5, 50}, Case{2, 3, 3000}, Case{8, 2, 64}, Case{8, 1, 7},
                 Case{3, 11, 1}}) {
    ReplayRun other = Replay(trace, c.threads, c.batch, c.in_flight);
    EXPECT_EQ(other.decisions, first.decisions)
        << c.threads << " threads, batches of " << c.batch << ", " << c.in_flight << " in flight";
    EXPECT_EQ(other.report_json, first.report_json)
        << c.threads << " threads, batches of " << c.batch << ", " << c.in_flight << " in flight";
  }
}

// One thread replays a batch in slices of virtual time and writes the lines of each slice
// before the next (simulator.cc, replay_sliced): a batch that covers the whole trace holds a few
// slices' lines at a time, not the whole replay's, and writes the same bytes as smaller batches
// and as two threads with batches in flight (one step per batch per shard).
TEST_F(ParallelReplayTest, OneThreadWritesABatchSliceBySlice) {
  Trace trace = DeepTree(4500);  // 4,500 workloads over 1.9 hours, then one 10 hours later:
  trace.events.push_back(
      fmt::format(R"({{"type":"ADDED","time":"{}","runtime":"60s","object":{}}})",
                  At(4500 * 1.5 + 36'000), WorkloadJson("ns-0", "late", "q", 1, 0)));
  ReplayRun whole = Replay(trace, 1, 1'000'000);  // one batch, up to the late workload
  const size_t lines =
      static_cast<size_t>(std::count(whole.decisions.begin(), whole.decisions.end(), '\n'));
  ASSERT_GT(lines, 25'000U);
  // In one step the batch's lines before its last event, most of them, would go at once.
  EXPECT_LT(whole.largest_flush, lines / 4) << lines << " lines";
  for (auto [threads, batch] : {std::pair<int, size_t>{1, 16}, {2, 16}}) {
    ReplayRun other = Replay(trace, threads, batch);
    EXPECT_EQ(other.decisions, whole.decisions) << threads << " threads, batches of " << batch;
    EXPECT_EQ(other.report_json, whole.report_json) << threads << " threads, batches of " << batch;
  }
}

// The first pass made before the replay (as RunReplay makes it while the manifests load, the
// planner then adding the trace's names before the manifests' instead of after) plans the same
// shards: the same bytes. A pass over another file is not used: the replay reads its own.
TEST_F(ParallelReplayTest, TheFirstPassMadeBeforehandPlansTheSameShards) {
  Trace trace = ManyTrees(12, 60, /*ties=*/true);
  ReplayRun first = Replay(trace, 1, 8192);
  for (int threads : {1, 2}) {
    ReplayRun prescanned = Replay(trace, threads, 64, 256, /*prescan=*/true);
    EXPECT_EQ(prescanned.shards, 12);
    EXPECT_EQ(prescanned.decisions, first.decisions) << threads << " threads";
    EXPECT_EQ(prescanned.report_json, first.report_json) << threads << " threads";
  }
  // Trees 0 and 1 are tied only by the trace: a pass over an empty file ties nothing, and
  // would give 13 shards if the replay used it.
  fs::path empty = dir_ / "empty.jsonl";
  std::ofstream(empty).flush();
  ReplayRun other_file = Replay(trace, 2, 8192, 16384, /*prescan=*/true, empty.string());
  EXPECT_EQ(other_file.shards, 12);
  EXPECT_EQ(other_file.decisions, first.decisions);
}

// A trace file is planned from the manifests alone and read once; the plan is checked at the
// end against what the trace's lines tie (SimulatorOptions::plan_from_manifests_max_bytes). A
// trace that ties no trees the manifests do not is replayed once; one whose events join two
// trees is replayed again with the trace's plan. Either way, the bytes of a first pass's run.
TEST_F(ParallelReplayTest, APlanFromTheManifestsIsCheckedAgainstTheTrace) {
  for (bool ties : {false, true}) {
    Trace trace = ManyTrees(12, 60, ties);
    ReplayRun first_pass = Replay(trace, 1, 64, 256, false, "", /*plan_max_bytes=*/0);
    EXPECT_FALSE(first_pass.replayed_twice);
    EXPECT_EQ(first_pass.shards, ties ? 12 : 13);
    for (int threads : {1, 2}) {
      ReplayRun once = Replay(trace, threads, 64, 256);
      EXPECT_EQ(once.replayed_twice, ties) << threads << " threads";
      EXPECT_EQ(once.shards, first_pass.shards) << threads << " threads";
      EXPECT_TRUE(once.decisions == first_pass.decisions) << threads << " threads, ties " << ties;
      EXPECT_TRUE(once.report_json == first_pass.report_json) << threads << " threads";
    }
  }
}

// A line the replay rejects still ties what the first pass reads from it (its queue, and the
// trees of every other event of its Workload name): the check sees those ties too. Here a
// Workload line with a quantity the replay rejects names wl-0 in tree 1 while wl-0 runs in
// tree 0: the first pass joins the two trees, so the plan from the manifests is wrong.
TEST_F(ParallelReplayTest, ARejectedLineTiesWhatTheFirstPassReadsFromIt) {
  Trace trace = ManyTrees(4, 30, /*ties=*/false);
  const std::string first = trace.events.front();
  ASSERT_NE(first.find(R"("name":"wl-0")"), std::string::npos);
  const size_t ns_at = first.find(R"("namespace":"ns-)");
  ASSERT_NE(ns_at, std::string::npos);
  const std::string ns = first.substr(ns_at + 13, first.find('"', ns_at + 13) - (ns_at + 13));
  const std::string other = ns == "ns-1" ? "ns-2" : "ns-1";
  // The same namespace (another would be another Workload) and a queue of another tree: the
  // Workload's queue changes. Its quantity is no number: the event line does not parse.
  std::string line = fmt::format(
      R"({{"type":"MODIFIED","time":"{}","object":{{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{{"name":"wl-0","namespace":"{}"}},"spec":{{"queueName":"elsewhere","podSets":[{{"name":"main","count":1,"template":{{"spec":{{"containers":[{{"name":"c","resources":{{"requests":{{"cpu":"lots"}}}}}}]}}}}}}]}}}}}})",
      At(10.5), ns);
  trace.events.insert(trace.events.begin() + 6, line);
  trace.manifests += LocalQueueYaml(ns, "elsewhere", fmt::format("cq-{}-a", other.substr(3)));
  ReplayRun first_pass = Replay(trace, 1, 64, 256, false, "", /*plan_max_bytes=*/0);
  EXPECT_EQ(first_pass.report.events_rejected, 1);
  ReplayRun once = Replay(trace, 1, 64, 256);
  EXPECT_TRUE(once.replayed_twice);
  EXPECT_EQ(once.shards, first_pass.shards);
  EXPECT_TRUE(once.decisions == first_pass.decisions);
  EXPECT_TRUE(once.report_json == first_pass.report_json);
}

// A replay planned from the manifests that proved wrong starts decisions.jsonl again
// (DecisionLog::Restart): the file is cut back to where the log started, and the run id is that
// of the lines written after. A memory stream or a pipe cannot be cut back: such a log does not
// say it can, and the replay then makes a first pass instead.
TEST_F(ParallelReplayTest, ADecisionLogStartsAgainWhereItStarted) {
  const fs::path path = dir_ / "log.jsonl";
  std::FILE* file = std::fopen(path.c_str(), "w+b");
  ASSERT_NE(file, nullptr);
  std::fputs("kept before the log\n", file);
  std::string fresh_id;
  {
    DecisionLog log(file);
    EXPECT_TRUE(log.restartable());
    log.Write(R"({"a":1})");
    log.Write(R"({"b":2})");
    log.Flush();
    ASSERT_TRUE(log.Restart());
    EXPECT_EQ(log.lines(), 0);
    log.Write(R"({"c":3})");
    log.Flush();
    char* buffer = nullptr;
    size_t size = 0;
    std::FILE* mem = open_memstream(&buffer, &size);
    {
      DecisionLog other(mem);
      EXPECT_FALSE(other.restartable());
      other.Write(R"({"c":3})");
      other.Flush();
      fresh_id = other.RunId();
    }
    std::fclose(mem);
    std::free(buffer);
    EXPECT_EQ(log.RunId(), fresh_id);
  }
  std::fclose(file);
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "kept before the log\n{\"c\":3}\n");
  DecisionLog none(nullptr);
  EXPECT_TRUE(none.restartable());
}

// A first pass that could not open the trace: its error is the replay's.
TEST_F(ParallelReplayTest, TheFirstPassErrorIsTheReplays) {
  LoadResult load = LoadManifestString(FlavorYaml() + TreeYaml(0) + TreeYaml(1), "m.yaml");
  ASSERT_TRUE(load.ok());
  const std::string missing = (dir_ / "missing.jsonl").string();
  tbb::task_arena arena(2);
  TraceTies ties = ScanTraceTies(missing, arena, 64, size_t{1} << 20);
  ASSERT_FALSE(ties.status.ok());
  SimulatorOptions options;
  options.scheduler = ReplaySchedulerOptions(options.scheduler);
  options.timings = false;
  Simulator with_ties(load, options, nullptr);
  with_ties.UseTraceTies(std::move(ties));
  ReplayReport report;
  engine::StatusOr<bool> run = with_ties.Run(missing, report);
  ASSERT_FALSE(run.ok());
  Simulator without(load, options, nullptr);
  ReplayReport report2;
  engine::StatusOr<bool> run2 = without.Run(missing, report2);
  ASSERT_FALSE(run2.ok());
  EXPECT_EQ(run.status().message(), run2.status().message());
  EXPECT_NE(run.status().message().find("missing.jsonl"), std::string::npos)
      << run.status().message();
}

TEST_F(ParallelReplayTest, SingleDeepTreeGivesTheSameBytesWithAnyThreadCount) {
  Trace trace = DeepTree(600);
  ReplayRun first = Replay(trace, 1, 8192);
  EXPECT_EQ(first.shards, 1);
  EXPECT_GT(first.report.admissions, 0);
  for (auto [threads, batch] : {std::pair<int, size_t>{2, 8192}, {8, 8192}, {8, 3}}) {
    ReplayRun other = Replay(trace, threads, batch);
    EXPECT_EQ(other.decisions, first.decisions) << threads << " threads, batches of " << batch;
    EXPECT_EQ(other.report_json, first.report_json) << threads << " threads, batches of " << batch;
  }
}

TEST_F(ParallelReplayTest, AShardReplaysExactlyAsItsTreeAlone) {
  Trace all = ManyTrees(6, 80, /*ties=*/false);
  ReplayRun together = Replay(all, 2, 64);
  EXPECT_EQ(together.shards, 7);
  // Tree 3 alone: its manifests and its events only.
  Trace alone;
  alone.manifests = FlavorYaml() + TreeYaml(3);
  for (const std::string& e : all.events) {
    if (e.find(R"("namespace":"ns-3")") != std::string::npos) {
      alone.events.push_back(e);
    }
  }
  ASSERT_GT(alone.events.size(), 20u);
  ReplayRun single = Replay(alone, 1, 8192);
  std::vector<std::string> expected = LinesOf(single.decisions, "ns-3");
  EXPECT_GT(expected.size(), alone.events.size());
  EXPECT_EQ(LinesOf(together.decisions, "ns-3"), expected);
}

TEST_F(ParallelReplayTest, DecisionLinesAreInTimeOrder) {
  ReplayRun run = Replay(ManyTrees(8, 40, /*ties=*/true), 2, 5);
  std::istringstream in(run.decisions);
  std::string previous;
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    size_t at = line.find(R"("time":")");
    ASSERT_NE(at, std::string::npos) << line;
    std::string time = line.substr(at + 8, line.find('"', at + 8) - at - 8);
    EXPECT_LE(ParseRfc3339(previous.empty() ? time : previous).value(), ParseRfc3339(time).value())
        << line;
    previous = time;
  }
  EXPECT_GT(lines, 300);
}

// Trees 0, 1, 2 and a ClusterQueue "solo" without a cohort, which ns-2's LocalQueue "c" uses.
LoadResult ThreeTreesAndASolo() {
  return LoadManifestString(FlavorYaml() + TreeYaml(0) + TreeYaml(1) + TreeYaml(2)
                                + ClusterQueueYaml("solo", "", 1)
                                + LocalQueueYaml("ns-2", "c", "solo"),
                            "m.yaml");
}

TEST(ShardPlanTest, TreesTiedAnywhereInTheTraceShareAShard) {
  LoadResult load = ThreeTreesAndASolo();
  ASSERT_TRUE(load.ok());
  engine::ShardPlanner planner;
  planner.AddManifests(load.spec);
  EXPECT_EQ(planner.Build(false).num_shards(), 4);
  EXPECT_EQ(planner.Build(true).num_shards(), 1);
  // A workload seen in two queues of different trees (its queue changed) ties them.
  TraceEvent moved;
  moved.kind = "Workload";
  moved.name = "ns-2/w";
  engine::WorkloadSpec w;
  w.name_space = "ns-2";
  w.name = "w";
  w.queue_name = "a";
  moved.object.workloads.push_back(w);
  PlanEvent(planner, moved);
  moved.object.workloads[0].queue_name = "c";
  PlanEvent(planner, moved);
  engine::ShardPlan plan = planner.Build(false);
  EXPECT_EQ(plan.num_shards(), 3);
  EXPECT_EQ(plan.labels(), (std::vector<std::string>{"ClusterQueue/cq-0-a", "ClusterQueue/cq-1-a",
                                                     "ClusterQueue/cq-2-a"}));
  // Routing: config kinds of a tree go to its shard; kinds of no tree and DELETED workloads
  // go everywhere.
  TraceEvent cq;
  cq.kind = "ClusterQueue";
  cq.name = "cq-1-b";
  EXPECT_EQ(RouteEvent(plan, cq), 1);
  TraceEvent flavor;
  flavor.kind = "ResourceFlavor";
  flavor.name = "default";
  EXPECT_EQ(RouteEvent(plan, flavor), engine::ShardPlan::kEveryShard);
  TraceEvent deleted;
  deleted.kind = "Workload";
  deleted.type = EventType::kDeleted;
  deleted.name = "ns-0/w";
  EXPECT_EQ(RouteEvent(plan, deleted), engine::ShardPlan::kEveryShard);
  // The manifests of shard 1 are tree 1's and the flavor.
  engine::ClusterSpec part = plan.ManifestsFor(1, load.spec);
  EXPECT_EQ(part.cluster_queues.size(), 2u);
  EXPECT_EQ(part.cohorts.size(), 2u);
  EXPECT_EQ(part.local_queues.size(), 2u);
  EXPECT_EQ(part.flavors.size(), 1u);
}

// The planner keeps, per queue, the names of its Workload events and drops repeats whenever they
// have doubled (from 65,536): a name seen again after many others, in another tree's queue, still
// ties the trees; one seen again in the same queue ties nothing.
TEST(ShardPlanTest, AWorkloadSeenAgainAfterManyOthersStillTiesItsQueues) {
  LoadResult load = ThreeTreesAndASolo();
  ASSERT_TRUE(load.ok());
  engine::ShardPlanner planner;
  planner.AddManifests(load.spec);
  auto add = [&](const std::string& ns, const std::string& name, const std::string& queue) {
    TraceEvent e;
    e.kind = "Workload";
    e.name = ns + "/" + name;
    engine::WorkloadSpec w;
    w.name_space = ns;
    w.name = name;
    w.queue_name = queue;
    e.object.workloads.push_back(w);
    PlanEvent(planner, e);
  };
  add("ns-2", "moved", "a");
  add("ns-2", "stays", "c");
  for (int i = 0; i < 300'000; ++i) {  // folded several times meanwhile
    add("ns-0", fmt::format("w{}", i), "a");
    if (i % 1000 == 0) {
      add("ns-2", "stays", "c");
    }
  }
  EXPECT_EQ(planner.Build(false).num_shards(), 4);
  add("ns-2", "moved", "c");  // queue "c" of ns-2 is the solo ClusterQueue's
  engine::ShardPlan plan = planner.Build(false);
  EXPECT_EQ(plan.num_shards(), 3);
}

}  // namespace
}  // namespace replay
