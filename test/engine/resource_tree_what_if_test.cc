// File: test/engine/resource_tree_what_if_test.cc
//
// ResourceTree::RestoreUsage and RemoveUsage inside a WhatIf skip the preemption bounds (R and A,
// engine/resource_tree.h): the what-ifs of a preemption search remove victims and put them back
// hundreds of times per search. The claim that makes this exact: every bound is monotone in the
// usages, and a WhatIf never lowers a stored bound, so as long as usage stays at or below what it
// was when the WhatIf opened, recomputing the bounds would store the values already there.
//
// Checked on random forests (slots in groups, so that A differs from R): two copies of one tree go
// through the same random trial removals and put-backs, one with AddUsage (bounds recomputed),
// one with RestoreUsage; after every step every node and slot of the two must agree, and once the
// WhatIf is closed the bounds must equal the from-scratch ones (RecomputeAll on a copy).
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "engine/resource_tree.h"

namespace engine {
namespace {

struct Charge {
  NodeId cq{};
  std::vector<SlotAmount> usage;
};

// A random forest of cohorts and ClusterQueues, `slots` slots in groups of two, small quotas so
// that most ClusterQueues end up above their quota (and so have bounds to keep).
struct RandomForest {
  ResourceTree tree;
  std::vector<NodeId> cluster_queues;
  std::vector<Charge> charges;

  RandomForest(uint64_t seed, uint32_t slots) : tree(slots) {
    std::mt19937_64 rng(seed);
    auto below = [&rng](int64_t n) {
      return static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
    };
    for (uint32_t s = 0; s < slots; ++s) {
      tree.SetSlotGroup(MakeId<FrSlot>(s), s / 2);
    }
    std::vector<NodeId> cohorts;
    const int64_t num_cohorts = 1 + below(8);
    for (int64_t i = 0; i < num_cohorts; ++i) {
      NodeId c = tree.AddNode(NodeKind::kCohort);
      if (!cohorts.empty() && below(3) != 0) {
        tree.SetParent(c,
                       cohorts[static_cast<size_t>(below(static_cast<int64_t>(cohorts.size())))]);
      }
      cohorts.push_back(c);
    }
    const int64_t num_cqs = 2 + below(20);
    for (int64_t i = 0; i < num_cqs; ++i) {
      NodeId cq = tree.AddNode(NodeKind::kClusterQueue);
      tree.SetParent(cq, cohorts[static_cast<size_t>(below(num_cohorts))]);
      cluster_queues.push_back(cq);
    }
    for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
      for (uint32_t s = 0; s < slots; ++s) {
        SlotQuota q;
        q.nominal = Quantity(below(10));
        if (below(3) == 0) {
          q.lending_limit = Quantity(below(6));
        }
        if (below(3) == 0) {
          q.borrowing_limit = Quantity(below(12));
        }
        tree.SetQuota(MakeId<NodeId>(n), MakeId<FrSlot>(s), q);
      }
    }
    tree.Refresh();
    const int64_t num_charges = 10 + below(60);
    for (int64_t i = 0; i < num_charges; ++i) {
      Charge c;
      c.cq = cluster_queues[static_cast<size_t>(below(num_cqs))];
      for (uint32_t s = 0; s < slots; ++s) {
        if (below(2) == 0) {
          c.usage.push_back({MakeId<FrSlot>(s), Quantity(1 + below(5))});
        }
      }
      if (c.usage.empty()) {
        c.usage.push_back({MakeId<FrSlot>(0), Quantity(1)});
      }
      tree.AddUsage(c.cq, c.usage);
      charges.push_back(std::move(c));
    }
  }
};

// Counts the node/slot cells where `a` and `b` differ in usage or in a bound.
int Differences(const ResourceTree& a, const ResourceTree& b) {
  int differences = 0;
  for (uint32_t n = 0; n < a.num_nodes(); ++n) {
    for (uint32_t s = 0; s < a.num_slots(); ++s) {
      const NodeId node = MakeId<NodeId>(n);
      const FrSlot slot = MakeId<FrSlot>(s);
      if (a.Usage(node, slot) != b.Usage(node, slot)
          || a.Reclaimable(node, slot) != b.Reclaimable(node, slot)
          || a.ReclaimableAny(node, slot) != b.ReclaimableAny(node, slot)) {
        ++differences;
      }
    }
  }
  return differences;
}

TEST(ResourceTreeWhatIfTest, PutBacksWithoutBoundsMatchAddUsageAndEndExact) {
  constexpr uint32_t kSlots = 4;
  int64_t steps = 0;
  int64_t nonzero_bounds = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomForest forest(seed, kSlots);
    ResourceTree restored(kSlots);
    restored.CopyFrom(forest.tree);
    ResourceTree& added = forest.tree;
    std::mt19937_64 rng(seed + 1000);
    {
      ResourceTree::WhatIf what_if_added(added);
      ResourceTree::WhatIf what_if_restored(restored);
      // The trial removals of a search, with fill-back put-backs of earlier removals in between.
      std::vector<size_t> removed;
      std::vector<bool> is_removed(forest.charges.size(), false);
      for (int step = 0; step < 60; ++step) {
        const bool put_back = !removed.empty() && rng() % 3 == 0;
        if (put_back) {
          const size_t at = static_cast<size_t>(rng() % removed.size());
          const Charge& c = forest.charges[removed[at]];
          is_removed[removed[at]] = false;
          removed.erase(removed.begin() + static_cast<std::ptrdiff_t>(at));
          added.AddUsage(c.cq, c.usage);
          restored.RestoreUsage(c.cq, c.usage);
        } else {
          const size_t i = static_cast<size_t>(rng() % forest.charges.size());
          if (is_removed[i]) {
            continue;
          }
          is_removed[i] = true;
          removed.push_back(i);
          const Charge& c = forest.charges[i];
          added.RemoveUsage(c.cq, c.usage);
          restored.RemoveUsage(c.cq, c.usage);
        }
        ++steps;
        ASSERT_EQ(Differences(added, restored), 0) << "seed " << seed << " step " << step;
      }
      for (size_t i : removed) {  // the undo at the end of the search
        const Charge& c = forest.charges[i];
        added.AddUsage(c.cq, c.usage);
        restored.RestoreUsage(c.cq, c.usage);
      }
    }
    ASSERT_EQ(Differences(added, restored), 0) << "seed " << seed;
    ResourceTree scratch(kSlots);
    scratch.CopyFrom(restored);
    scratch.RecomputeAll();
    ASSERT_EQ(Differences(restored, scratch), 0) << "seed " << seed << ": bounds not exact";
    for (uint32_t n = 0; n < restored.num_nodes(); ++n) {
      for (uint32_t s = 0; s < kSlots; ++s) {
        nonzero_bounds +=
            restored.ReclaimableAny(MakeId<NodeId>(n), MakeId<FrSlot>(s)) > Quantity::Zero() ? 1
                                                                                             : 0;
      }
    }
  }
  // Not vacuous: many steps, and trees with bounds to keep.
  EXPECT_GE(steps, 8000);
  EXPECT_GE(nonzero_bounds, 500);
}

}  // namespace
}  // namespace engine
