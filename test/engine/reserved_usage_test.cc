// WorkloadStore's per-priority usage sums (issue 21): the own-ClusterQueue part of the preemption
// bound (engine/preemption.cc OwnPreemptible) reads ReservedUsageBelow instead of walking every
// admitted workload. Random reservations, releases and priority changes of reserved workloads,
// compared after every step with a brute-force sum over the ClusterQueue's admitted workloads.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/workload_store.h"
#include "test/engine/cpu_cluster_spec.h"

namespace engine {
namespace {

TEST(ReservedUsageTest, PerPrioritySumsEqualBruteForceThroughReservePriorityChangeRelease) {
  Cluster cluster;
  cluster.Apply(CpuClusterSpec({"cq"}));
  cluster.Refresh();
  WorkloadStore store(cluster);
  const CqId cq = *cluster.FindClusterQueue("cq");
  const FrSlot slot = *cluster.FindSlot("f", "cpu");

  std::mt19937_64 rng(21);
  const std::vector<WorkloadId> ids = AddCpuWorkloads(store, 40);
  // Twelve levels: more than WorkloadStore keeps while empty (8), so levels are both kept zeroed
  // and erased when their last workload leaves.
  const std::vector<int32_t> priorities = {-5, 0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50};
  int64_t priority_changes = 0;
  int64_t reserved_steps = 0;
  for (int step = 0; step < 3000; ++step) {
    WorkloadId id = ids[std::uniform_int_distribution<size_t>(0, ids.size() - 1)(rng)];
    const int32_t p =
        priorities[std::uniform_int_distribution<size_t>(0, priorities.size() - 1)(rng)];
    Workload& w = store.Get(id);
    const uint64_t key = store.reservation_key();
    if (!w.quota_reserved) {
      store.SetReservedPriority(id, p);  // a pending workload: only its priority moves
      const Quantity amount(std::uniform_int_distribution<int64_t>(1, 8)(rng) * 500);
      store.Reserve(id, cq, {}, {{slot, amount}}, 0);
    } else if (std::bernoulli_distribution(0.5)(rng)) {
      const int32_t before = w.priority;
      store.SetReservedPriority(id, p);
      ++priority_changes;
      if (p != before) {
        EXPECT_NE(store.reservation_key(), key) << "the memo must see a priority change";
      } else {
        EXPECT_EQ(store.reservation_key(), key) << "the same priority is the same state";
      }
    } else {
      store.Release(id);
    }
    reserved_steps += static_cast<int64_t>(store.Admitted(cq).size());
    for (int32_t at : {-6, -5, 0, 3, 5, 10, 11, 27, 45, 50, 51}) {
      for (bool inclusive : {false, true}) {
        Quantity expected;
        for (WorkloadId a : store.Admitted(cq)) {
          const Workload& aw = store.Get(a);
          if (aw.priority < at || (inclusive && aw.priority == at)) {
            expected += aw.usage.front().amount;
          }
        }
        ASSERT_EQ(store.ReservedUsageBelow(cq, slot, at, inclusive), expected)
            << "step " << step << " priority " << at << (inclusive ? " inclusive" : "");
      }
    }
    Quantity all;
    for (WorkloadId a : store.Admitted(cq)) {
      all += store.Get(a).usage.front().amount;
    }
    ASSERT_EQ(store.ReservedUsage(cq, slot), all) << "step " << step;
  }
  // The run exercised what it is meant to.
  EXPECT_GT(priority_changes, 300);
  EXPECT_GT(reserved_steps, 3000 * 5);
}

}  // namespace
}  // namespace engine
