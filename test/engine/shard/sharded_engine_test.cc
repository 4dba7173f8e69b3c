// The lock-sharded concurrent engine on its own (engine/shard/): the plan from specs alone, and
// ShardedEngine's per-shard locking with a state that is not a simulator.
#include "engine/shard/sharded_engine.h"

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster_spec.h"
#include "engine/shard/shard_plan.h"

namespace engine {
namespace {

CohortSpec Cohort(std::string name, std::string parent) {
  CohortSpec c;
  c.name = std::move(name);
  c.parent = std::move(parent);
  return c;
}

ClusterQueueSpec Queue(std::string name, std::string cohort) {
  ClusterQueueSpec cq;
  cq.name = std::move(name);
  cq.cohort = std::move(cohort);
  return cq;
}

LocalQueueSpec Local(std::string ns, std::string name, std::string cq) {
  LocalQueueSpec lq;
  lq.name_space = std::move(ns);
  lq.name = std::move(name);
  lq.cluster_queue = std::move(cq);
  return lq;
}

WorkloadSpec Workload(std::string ns, std::string name, std::string queue) {
  WorkloadSpec w;
  w.name_space = std::move(ns);
  w.name = std::move(name);
  w.queue_name = std::move(queue);
  return w;
}

// Two trees (root "a" with child "a1"; root "b") and a ClusterQueue without a cohort.
ClusterSpec TwoTreesAndALoneQueue() {
  ClusterSpec spec;
  spec.cohorts.push_back(Cohort("a", ""));
  spec.cohorts.push_back(Cohort("a1", "a"));
  spec.cohorts.push_back(Cohort("b", ""));
  spec.cluster_queues.push_back(Queue("qa", "a1"));
  spec.cluster_queues.push_back(Queue("qb", "b"));
  spec.cluster_queues.push_back(Queue("solo", ""));
  spec.local_queues.push_back(Local("ns", "la", "qa"));
  spec.local_queues.push_back(Local("ns", "lb", "qb"));
  spec.workloads.push_back(Workload("ns", "w1", "la"));
  spec.workloads.push_back(Workload("ns", "w2", "lb"));
  return spec;
}

TEST(ShardPlanTest, OneShardPerTreeNumberedByTheSmallestName) {
  ShardPlanner planner;
  const ClusterSpec spec = TwoTreesAndALoneQueue();
  planner.AddManifests(spec);
  ShardPlan plan = planner.Build(/*single=*/false);
  ASSERT_EQ(plan.num_shards(), 3);
  // Labels are the smallest "Kind/name" of each tree ("ClusterQueue/..." sorts before
  // "Cohort/...").
  EXPECT_EQ(plan.labels(),
            (std::vector<std::string>{"ClusterQueue/qa", "ClusterQueue/qb", "ClusterQueue/solo"}));
  EXPECT_EQ(plan.Route("Cohort", "a1", nullptr), 0);
  EXPECT_EQ(plan.Route("ClusterQueue", "qa", nullptr), 0);
  EXPECT_EQ(plan.Route("LocalQueue", "ns/lb", nullptr), 1);
  EXPECT_EQ(plan.Route("ClusterQueue", "solo", nullptr), 2);
  // A Workload goes with its LocalQueue; deleting one names no queue: every shard.
  ClusterSpec added;
  added.workloads.push_back(Workload("ns", "w3", "lb"));
  EXPECT_EQ(plan.Route("Workload", "ns/w3", &added), 1);
  EXPECT_EQ(plan.Route("Workload", "ns/w3", nullptr), ShardPlan::kEveryShard);
  EXPECT_EQ(plan.Route("ResourceFlavor", "f", nullptr), ShardPlan::kEveryShard);

  ClusterSpec part = plan.ManifestsFor(0, spec);
  ASSERT_EQ(part.cluster_queues.size(), 1u);
  EXPECT_EQ(part.cluster_queues[0].name, "qa");
  ASSERT_EQ(part.workloads.size(), 1u);
  EXPECT_EQ(part.workloads[0].name, "w1");
  EXPECT_EQ(part.cohorts.size(), 2u);
}

TEST(ShardPlanTest, AnObjectThatTiesTwoTreesLaterJoinsThemFromTheStart) {
  ShardPlanner planner;
  planner.AddManifests(TwoTreesAndALoneQueue());
  // Later in the trace, cohort b gets parent a: one tree from the start.
  ClusterSpec moved;
  moved.cohorts.push_back(Cohort("b", "a"));
  planner.AddManifests(moved);
  ShardPlan plan = planner.Build(false);
  ASSERT_EQ(plan.num_shards(), 2);
  EXPECT_EQ(plan.Route("ClusterQueue", "qa", nullptr), plan.Route("ClusterQueue", "qb", nullptr));
  EXPECT_EQ(planner.Build(/*single=*/true).num_shards(), 1);
}

TEST(ShardedEngineTest, EachShardHasItsOwnStateAndLock) {
  ShardPlanner planner;
  planner.AddManifests(TwoTreesAndALoneQueue());
  ShardedEngine<int64_t> engine(planner.Build(false),
                                [](int shard) { return std::make_unique<int64_t>(shard * 1000); });
  ASSERT_EQ(engine.num_shards(), 3);
  // Two threads per shard increment it; the lock makes every increment count.
  constexpr int kIncrements = 20000;
  std::vector<std::thread> threads;
  threads.reserve(2 * static_cast<size_t>(engine.num_shards()));
  for (int t = 0; t < 2 * engine.num_shards(); ++t) {
    threads.emplace_back([&engine, t] {
      for (int i = 0; i < kIncrements; ++i) {
        engine.With(t % 3, [](int64_t& value) { ++value; });
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (int shard = 0; shard < engine.num_shards(); ++shard) {
    EXPECT_EQ(engine.With(shard, [](int64_t& value) { return value; }),
              shard * 1000 + 2 * kIncrements);
  }
}

}  // namespace
}  // namespace engine
