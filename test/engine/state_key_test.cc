// The content keys of the nomination memo (engine/nomination_memo.h, issue 22):
// ResourceTree::state_key and WorkloadStore::reservation_key. Random charges, releases,
// evictions and priority changes; after every step the key is compared with a brute-force
// description of the state it stands for. Equal descriptions must give equal keys (a state that
// comes back is recognised: the preemption ping-pong), different ones different keys (an entry
// reused for another state would be a wrong decision).
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/resource_tree.h"
#include "engine/workload_store.h"
#include "test/engine/cpu_cluster_spec.h"

namespace engine {
namespace {

// Asserts that `key` and `description` stand for each other over the whole run.
class KeyOracle {
 public:
  void Check(uint64_t key, const std::string& description, int step) {
    auto [by_desc, new_desc] = by_description_.emplace(description, key);
    EXPECT_EQ(by_desc->second, key) << "step " << step << ": the same state got another key\n"
                                    << description;
    auto [by_key, new_key] = by_key_.emplace(key, description);
    EXPECT_EQ(by_key->second, description) << "step " << step << ": two states share a key";
    returns_ += new_desc ? 0 : 1;
  }
  int returns() const { return returns_; }  // steps that came back to a state seen before
  size_t states() const { return by_description_.size(); }

 private:
  std::map<std::string, uint64_t> by_description_;
  std::map<uint64_t, std::string> by_key_;
  int returns_ = 0;
};

TEST(StateKeyTest, TreeKeyIsAFunctionOfClusterQueueUsageWhateverTheOrder) {
  // Two cohorts under a root, three ClusterQueues, two slots: charges pass up through lending
  // limits, so cohort usage depends on the order of the walks only through the CQs' usage.
  ResourceTree tree;
  tree.ResizeSlots(2);
  const NodeId root = tree.AddNode(NodeKind::kCohort);
  const NodeId left = tree.AddNode(NodeKind::kCohort);
  tree.SetParent(left, root);
  std::vector<NodeId> cqs;
  for (int i = 0; i < 3; ++i) {
    cqs.push_back(tree.AddNode(NodeKind::kClusterQueue));
    tree.SetParent(cqs.back(), i < 2 ? left : root);
    for (uint32_t s = 0; s < 2; ++s) {
      SlotQuota q;
      q.nominal = Quantity(4 + i);
      q.lending_limit = Quantity(2);
      tree.SetQuota(cqs.back(), MakeId<FrSlot>(s), q);
    }
  }
  tree.Refresh();
  std::mt19937_64 rng(22);
  std::vector<std::vector<int64_t>> usage(3, std::vector<int64_t>(2, 0));
  KeyOracle oracle;
  auto describe = [&] {
    std::string d;
    for (const auto& row : usage) {
      for (int64_t u : row) {
        d += std::to_string(u) + ",";
      }
    }
    return d;
  };
  oracle.Check(tree.state_key(), describe(), -1);
  for (int step = 0; step < 4000; ++step) {
    const size_t c = std::uniform_int_distribution<size_t>(0, 2)(rng);
    const uint32_t s = std::uniform_int_distribution<uint32_t>(0, 1)(rng);
    const int64_t amount = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    if (usage[c][s] >= amount && std::bernoulli_distribution(0.5)(rng)) {
      tree.RemoveUsage(cqs[c], MakeId<FrSlot>(s), Quantity(amount));
      usage[c][s] -= amount;
    } else if (usage[c][s] < 6) {
      tree.AddUsage(cqs[c], MakeId<FrSlot>(s), Quantity(amount));
      usage[c][s] += amount;
    }
    if (step % 7 == 0) {
      // A what-if takes usage away and puts it back: the key is the usage outside it.
      ResourceTree::WhatIf what_if(tree);
      tree.RemoveUsage(cqs[c], MakeId<FrSlot>(s), Quantity(usage[c][s]));
      tree.RestoreUsage(cqs[c],
                        std::vector<SlotAmount>{{MakeId<FrSlot>(s), Quantity(usage[c][s])}});
    }
    // The key adds up the cells changed since it was last asked for: ask every step or two, so
    // that a cell also changes several times between two asks.
    if (std::bernoulli_distribution(0.5)(rng)) {
      oracle.Check(tree.state_key(), describe(), step);
    }
  }
  EXPECT_GT(oracle.returns(), 150) << "the walk should revisit states";
  EXPECT_GT(oracle.states(), 50u);

  // A copy has the same key, a wider tree too (cells move to new indices); a recompute (a
  // configuration change) gives a new one.
  tree.AddUsage(cqs[1], MakeId<FrSlot>(1), Quantity(1));  // changed, not yet added up
  usage[1][1] += 1;
  ResourceTree copy;
  copy.CopyFrom(tree);
  EXPECT_EQ(copy.state_key(), tree.state_key());
  tree.AddUsage(cqs[2], MakeId<FrSlot>(0), Quantity(1));
  usage[2][0] += 1;
  const uint64_t before_resize = tree.state_key();
  tree.AddUsage(cqs[0], MakeId<FrSlot>(1), Quantity(1));
  tree.ResizeSlots(3);
  tree.RemoveUsage(cqs[0], MakeId<FrSlot>(1), Quantity(1));
  EXPECT_EQ(tree.state_key(), before_resize);
  oracle.Check(tree.state_key(), describe(), 4000);
  const uint64_t key = tree.state_key();
  SlotQuota q;
  q.nominal = Quantity(9);
  tree.SetQuota(cqs[0], MakeId<FrSlot>(0), q);
  tree.Refresh();
  EXPECT_NE(tree.state_key(), key);
}

TEST(StateKeyTest, ReservationKeyIsAFunctionOfWhoHoldsQuotaAndHow) {
  Cluster cluster;
  cluster.Apply(CpuClusterSpec({"a", "b"}, "co"));
  cluster.Refresh();
  WorkloadStore store(cluster);
  const std::vector<CqId> cqs = {*cluster.FindClusterQueue("a"), *cluster.FindClusterQueue("b")};
  const FrSlot slot = *cluster.FindSlot("f", "cpu");
  const std::vector<WorkloadId> ids = AddCpuWorkloads(store, 4);
  auto describe = [&] {
    std::string d;
    for (WorkloadId id : ids) {
      const Workload& w = store.Get(id);
      if (!w.quota_reserved) {
        continue;
      }
      d += std::to_string(Index(id)) + ":cq" + std::to_string(Index(w.cluster_queue)) + ":p"
           + std::to_string(w.priority) + ":t" + std::to_string(w.quota_reserved_time) + ":u"
           + std::to_string(w.usage.front().amount.value())
           + (store.IsEvicting(id) ? ":evicting" : "") + ";";
    }
    return d;
  };
  std::mt19937_64 rng(22);
  KeyOracle oracle;
  oracle.Check(store.reservation_key(), describe(), -1);
  for (int step = 0; step < 4000; ++step) {
    const WorkloadId id = ids[std::uniform_int_distribution<size_t>(0, ids.size() - 1)(rng)];
    const Workload& w = store.Get(id);
    const int what = std::uniform_int_distribution<int>(0, 3)(rng);
    if (!w.quota_reserved) {
      const CqId cq = cqs[std::uniform_int_distribution<size_t>(0, 1)(rng)];
      const Quantity amount(std::uniform_int_distribution<int64_t>(1, 2)(rng) * 500);
      const TimeMicros at = std::uniform_int_distribution<TimeMicros>(1, 2)(rng);
      store.Reserve(id, cq, {}, {{slot, amount}}, at);
    } else if (what == 0) {
      store.SetReservedPriority(id, std::uniform_int_distribution<int32_t>(0, 1)(rng));
    } else if (what == 1) {
      store.MarkEvicting(id);
    } else {
      store.Release(id);
    }
    oracle.Check(store.reservation_key(), describe(), step);
  }
  EXPECT_GT(oracle.returns(), 1000);
  EXPECT_GT(oracle.states(), 100u);

  // What the key does not describe moves it for good: an erased workload's id may come back.
  const uint64_t key = store.reservation_key();
  store.Erase(ids.back());
  EXPECT_NE(store.reservation_key(), key);
}

}  // namespace
}  // namespace engine
