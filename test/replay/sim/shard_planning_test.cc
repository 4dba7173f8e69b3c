// How a replay splits into shards (docs/replay.md, "Parallel replay"): shards are the Cohort
// trees the whole trace ever ties together, found by a first pass over the trace or, for a trace
// file up to 1 GiB, from the manifests and checked against the trace's lines at the end (the
// replay runs again when the check fails). Either way the same bytes. Run under TSan in CI.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "engine/shard/shard_plan.h"
#include "replay/sim/local_queue_routes.h"
#include "replay/sim/sharded_replay.h"
#include "test/replay/sim/tree_traces_fixture.h"

namespace replay {
namespace {

using namespace tree_traces;  // NOLINT(google-build-using-namespace): the traces' vocabulary

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

// A Workload event naming `ns`/`name` in LocalQueue `queue`, planned.
void PlanWorkload(engine::ShardPlanner& planner, const std::string& ns, const std::string& name,
                  const std::string& queue) {
  TraceEvent e;
  e.kind = "Workload";
  e.name = ns + "/" + name;
  engine::WorkloadSpec w;
  w.name_space = ns;
  w.name = name;
  w.queue_name = queue;
  e.object.workloads.push_back(w);
  PlanEvent(planner, e);
}

// The planner keeps, per queue, the names of its Workload events and drops repeats whenever they
// have doubled (here from 65,536): a name seen again after many others, in another tree's queue,
// still ties the trees; one seen again in the same queue ties nothing.
TEST(ShardPlanTest, AWorkloadSeenAgainAfterManyOthersStillTiesItsQueues) {
  LoadResult load = ThreeTreesAndASolo();
  ASSERT_TRUE(load.ok());
  engine::ShardPlanner planner(/*first_dedup=*/size_t{1} << 16);
  planner.AddManifests(load.spec);
  auto add = [&](const std::string& ns, const std::string& name, const std::string& queue) {
    PlanWorkload(planner, ns, name, queue);
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

// Names tie the queues of their own namespace ("ns/name" is one Workload), and the planner merges
// the names of a namespace only once it has named two queues: a namespace that named one queue
// for a long time, whose earlier name then comes under a second queue, still ties the two. The
// same name in two namespaces is two Workloads and ties nothing.
TEST(ShardPlanTest, ANameTiesTheQueuesOfItsNamespaceEvenWhenItsSecondQueueComesLate) {
  LoadResult load = ThreeTreesAndASolo();
  ASSERT_TRUE(load.ok());
  for (const bool built_between : {false, true}) {
    SCOPED_TRACE(built_between);
    engine::ShardPlanner planner;
    planner.AddManifests(load.spec);
    PlanWorkload(planner, "ns-0", "w", "a");
    PlanWorkload(planner, "ns-1", "w", "a");
    PlanWorkload(planner, "ns-2", "w", "a");
    for (int i = 0; i < 2000; ++i) {
      PlanWorkload(planner, "ns-2", fmt::format("x{}", i), "a");
    }
    if (built_between) {  // a plan built meanwhile (the lists then sorted) changes nothing
      EXPECT_EQ(planner.Build(false).num_shards(), 4);
    }
    PlanWorkload(planner, "ns-2", "later", "c");  // ns-2's second queue, a new name: no tie
    EXPECT_EQ(planner.Build(false).num_shards(), 4);
    PlanWorkload(planner, "ns-2", "w", "c");  // an earlier name of ns-2's queue "a"
    engine::ShardPlan plan = planner.Build(false);
    ASSERT_EQ(plan.num_shards(), 3);
    EXPECT_EQ(plan.Route("LocalQueue", "ns-2/c", nullptr),
              plan.Route("LocalQueue", "ns-2/a", nullptr));
    EXPECT_NE(plan.Route("LocalQueue", "ns-0/a", nullptr),
              plan.Route("LocalQueue", "ns-1/a", nullptr));
  }
}

// LocalQueueRoutes (replay/sim/local_queue_routes.h) answers a plain Workload event as RouteEvent
// and PlanLine do (RouteAndPlan): random Workload events over three namespaces and four queues (one
// of no tree), some admitted, some deleted, some moving between queues, routed and planned both
// ways.
TEST(ShardPlanTest, KeptLocalQueueRoutesAnswerAsRouteAndPlanLine) {
  LoadResult load = ThreeTreesAndASolo();
  ASSERT_TRUE(load.ok());
  engine::ShardPlanner from_manifests;
  from_manifests.AddManifests(load.spec);
  const engine::ShardPlan plan = from_manifests.Build(false);
  engine::ShardPlanner general;
  engine::ShardPlanner kept;
  general.AddManifests(load.spec);
  kept.AddManifests(load.spec);
  LocalQueueRoutes routes(plan, &kept);
  const char* spaces[] = {"ns-0", "ns-1", "ns-2"};
  const char* queues[] = {"a", "b", "c", "nowhere"};
  unsigned seed = 7;
  auto pick = [&](unsigned n) {
    seed = seed * 1103515245 + 12345;
    return (seed >> 16) % n;
  };
  int plain = 0;
  for (int i = 0; i < 2000; ++i) {
    ParsedLine line;
    line.result = ReadResult::kEvent;
    TraceEvent& e = line.event;
    e.kind = "Workload";
    e.type = pick(10) == 0 ? EventType::kDeleted : EventType::kAdded;
    engine::WorkloadSpec w;
    w.name_space = spaces[pick(3)];
    w.name = "w-" + std::to_string(pick(300));
    w.queue_name = queues[pick(4)];
    if (pick(8) == 0) {
      engine::AdmissionSpec admission;
      admission.cluster_queue = "cq-1-a";
      w.admission = admission;
    }
    e.name = std::string(w.name_space.view()) + "/" + w.name;
    if (e.type != EventType::kDeleted) {
      e.object.workloads.push_back(w);
    }
    const int expected = RouteEvent(plan, e);
    PlanLine(general, line);
    plain += PlainWorkload(line) != nullptr ? 1 : 0;
    ASSERT_EQ(routes.RouteAndPlan(line), std::optional<int>(expected)) << e.name;
  }
  EXPECT_GT(plain, 1000);
  EXPECT_LE(routes.size(), 12U);
  EXPECT_TRUE(kept.Build(false) == general.Build(false));
  EXPECT_LT(general.Build(false).num_shards(), plan.num_shards());  // the moves tied trees
}

}  // namespace
}  // namespace replay
