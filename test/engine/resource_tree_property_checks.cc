// The comparisons of the quota-tree property test against the reference model
// (resource_tree_property_harness.h).
#include "test/engine/resource_tree_property_harness.h"

namespace engine {

void Harness::ExpectTrue(bool condition, const std::string& what) {
  if (!condition) [[unlikely]] {
    Fail(what);
  }
}

void Harness::Fail(const std::string& message) {
  if (++failures_ <= kMaxReportedFailures) {
    ADD_FAILURE() << "seed index " << seed_index_ << ", step " << step_ << ": " << message;
  }
}

void Harness::CheckAllNodes() {
  for (int x = 0; x < ref_.num_nodes(); ++x) {
    NodeId id = Id(x);
    Expect(tree_.InCycle(id), eval_.InCycle(x), "InCycle", x, -1);
    Expect(Int(tree_.Parent(id)), ref_.Parent(x), "Parent", x, -1);
    ++counts_.structure;
    if (eval_.InCycle(x)) {
      // Frozen: only the ClusterQueue's own usage (admitted workloads) is meaningful.
      if (ref_.Kind(x) == RefKind::kClusterQueue) {
        for (int s = 0; s < ref_.num_slots(); ++s) {
          Expect(tree_.Usage(id, Slot(s)), ref_.CqUsage(x, s), "in-cycle CQ usage", x, s);
          ++counts_.in_cycle_usage;
        }
      }
      continue;
    }
    Expect(Int(tree_.Root(id)), eval_.Root(x), "Root", x, -1);
    Expect(tree_.Depth(id), eval_.Depth(x), "Depth", x, -1);
    Expect(tree_.Height(id), eval_.Height(x), "Height", x, -1);
    for (int s = 0; s < ref_.num_slots(); ++s) {
      CheckNodeSlot(x, s);
    }
  }
}

void Harness::CheckNodeSlot(int x, int s) {
  NodeId id = Id(x);
  FrSlot slot = Slot(s);
  Expect(tree_.SubtreeQuota(id, slot), eval_.SubtreeQuota(x, s), "S", x, s);
  Expect(tree_.Usage(id, slot), eval_.Usage(x, s), "U", x, s);
  Expect(tree_.LocalQuota(id, slot), eval_.LocalQuota(x, s), "LQ", x, s);
  Expect(tree_.LocalAvailable(id, slot), eval_.LocalAvailable(x, s), "LocalAvailable", x, s);
  ++counts_.node_slot_states;

  Quantity balance = tree_.Balance(id, slot);
  Quantity kep = eval_.KepBalance(x, s);
  if (!eval_.HasUnboundedLenderBelow(x, s)) {
    Expect(balance, kep, "Balance vs KEP-79 T", x, s);
    ++counts_.balance_exact;
  } else {
    // Kueue's §4.1 bookkeeping lends 0 from an Unlimited subtree with a bounded lending limit,
    // KEP-79 lends LL: the balance follows §4.1 and can only be below T.
    Expect(balance, eval_.SubtreeQuota(x, s) - eval_.Usage(x, s), "Balance vs S-U", x, s);
    ExpectTrue(balance <= kep, fmt::format("corner balance {} above KEP T {} at node {} slot {}",
                                           Str(balance), Str(kep), x, s));
    ++counts_.balance_corner;
    if (balance != kep) {
      ++counts_.balance_divergent;
    }
  }

  Expect(tree_.RawAvailable(id, slot), eval_.RawAvailable(x, s), "RawAvailable", x, s);
  Expect(tree_.Available(id, slot), eval_.Available(x, s), "Available", x, s);
  ++counts_.available;
  Expect(tree_.PotentialAvailable(id, slot), eval_.PotentialAvailable(x, s), "PotentialAvailable",
         x, s);
  ++counts_.potential;

  Quantity amount = RandomAmount(eval_.Available(x, s));
  Expect(tree_.WouldBorrow(id, slot, amount), eval_.WouldBorrow(x, s, amount), "WouldBorrow", x, s);
  if (ref_.Kind(x) == RefKind::kClusterQueue) {
    BorrowingLevel level = tree_.FindBorrowingLevel(id, slot, amount);
    RefBorrowingLevel expected = eval_.FindHeightOfLowestSubtreeThatFits(x, s, amount);
    Expect(level.level, expected.level, "FindBorrowingLevel.level", x, s);
    Expect(level.may_reclaim, expected.may_reclaim, "FindBorrowingLevel.may_reclaim", x, s);
    ++counts_.borrowing_level;
    if (expected.level > 0) {
      ++counts_.borrowing_level_positive;
    }
  }
}

void Harness::CheckRandomAdmissions() {
  std::vector<int> cqs = Nodes(false, true, true);
  if (cqs.empty()) {
    return;
  }
  for (int i = 0; i < 4; ++i) {
    int cq = Pick(cqs);
    int s = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
    Quantity available = tree_.Available(Id(cq), Slot(s));
    Quantity q = RandomAmount(available);
    bool fits = tree_.FitsOnPath(Id(cq), Slot(s), q);
    bool by_subtree = ref_.FitsBySubtreeBalance(cq, s, q);
    bool by_kep = ref_.FitsByKepBalance(cq, s, q);
    std::string where =
        fmt::format("cq {} slot {} q {} (Available {})", cq, s, Str(q), Str(available));
    ExpectTrue(fits == by_subtree, fmt::format("FitsOnPath {} != brute force on S-U {} at {}", fits,
                                               by_subtree, where));
    ++counts_.fits_vs_subtree;
    ++(fits ? counts_.fits_true : counts_.fits_false);
    bool corner = eval_.PathHasUnboundedLender(cq, s);
    if (!corner) {
      ExpectTrue(fits == by_kep,
                 fmt::format("FitsOnPath {} != KEP-79 brute force {} at {}", fits, by_kep, where));
      ++counts_.fits_vs_kep;
    } else {
      ExpectTrue(!fits || by_kep, "FitsOnPath admits what KEP-79 rejects at " + where);
    }
    bool within = q <= available;
    // FitsOnPath implies no debt on the path, and then the two agree (docs/quota-tree.md §7).
    ExpectTrue(!fits || within, "FitsOnPath admits more than Available at " + where);
    if (!eval_.PathHasDebt(cq, s, /*kep=*/false)) {
      ExpectTrue(within == by_subtree,
                 fmt::format("(q <= Available) {} != brute force on S-U {} at {} (no debt)", within,
                             by_subtree, where));
      ++counts_.available_vs_subtree;
    } else {
      ++counts_.queries_with_debt;
    }
    if (!corner && !eval_.PathHasDebt(cq, s, /*kep=*/true)) {
      ExpectTrue(within == by_kep,
                 fmt::format("(q <= Available) {} != KEP-79 brute force {} at {} (no debt)", within,
                             by_kep, where));
      ++counts_.available_vs_kep;
    }
  }
}

std::vector<uint64_t> Harness::Generations() const {
  std::vector<uint64_t> out(static_cast<size_t>(ref_.num_nodes()));
  for (int x = 0; x < ref_.num_nodes(); ++x) {
    out[static_cast<size_t>(x)] = tree_.Generation(Id(x));
  }
  return out;
}

int Harness::ComponentKey(const ReferenceEvaluation& eval, int x) const {
  if (!eval.InCycle(x)) {
    return eval.Root(x);
  }
  int y = x;
  for (int i = 0; i < ref_.num_nodes(); ++i) {
    y = ref_.Parent(y);  // after num_nodes steps y is on the cycle
  }
  int key = y;
  for (int z = ref_.Parent(y); z != y; z = ref_.Parent(z)) {
    key = std::min(key, z);
  }
  return key;
}

void Harness::CheckGenerations(Op op, const ReferenceEvaluation& before,
                               const std::vector<uint64_t>& generations_before) {
  std::vector<uint64_t> after = Generations();
  const size_t n = after.size();
  switch (op) {
    case Op::kQuery:
    case Op::kAdd:
      for (size_t i = 0; i < n; ++i) {
        Expect(after[i], generations_before[i], "Generation (unchanged)", static_cast<int>(i), -1);
      }
      counts_.generation_unchanged += static_cast<int64_t>(n);
      return;
    case Op::kRemove: {
      // Per removed slot: the CQ, and exactly the cohorts whose usage decreased in that slot,
      // are bumped once.
      for (size_t i = 0; i < n; ++i) {
        int x = static_cast<int>(i);
        uint64_t expected = generations_before[i];
        for (int s : removed_slots_) {
          bool decreased = !eval_.InCycle(x) && ref_.Kind(x) == RefKind::kCohort
                           && eval_.Usage(x, s) < before.Usage(x, s);
          expected += (x == removed_cq_ || decreased) ? 1 : 0;
        }
        Expect(after[i], expected, "Generation after RemoveUsage", x, -1);
      }
      counts_.generation_remove += static_cast<int64_t>(n);
      return;
    }
    case Op::kRefresh: {
      // Trees (or cycle components) holding a dirty node are touched; every node of a touched
      // acyclic tree, and every node newly in a cycle, gets a strictly larger generation;
      // untouched components keep theirs.
      std::vector<int> touched;
      for (int d : dirty_) {
        touched.push_back(ComponentKey(eval_, d));
      }
      for (size_t i = 0; i < n; ++i) {
        int x = static_cast<int>(i);
        bool is_touched =
            std::find(touched.begin(), touched.end(), ComponentKey(eval_, x)) != touched.end();
        bool newly_in_cycle = eval_.InCycle(x) && !before.InCycle(x);
        if ((is_touched && !eval_.InCycle(x)) || newly_in_cycle) {
          ExpectTrue(after[i] > generations_before[i],
                     fmt::format("Generation of node {} not bumped by Refresh ({} -> {})", x,
                                 generations_before[i], after[i]));
        } else if (!is_touched) {
          Expect(after[i], generations_before[i], "Generation of an untouched tree", x, -1);
        }
      }
      counts_.generation_refresh += static_cast<int64_t>(n);
      return;
    }
  }
}

std::string Harness::Describe() const {
  if (ref_.num_nodes() > 80) {
    return fmt::format("({} nodes, {} slots: too large to print)", ref_.num_nodes(),
                       ref_.num_slots());
  }
  std::string out;
  for (int x = 0; x < ref_.num_nodes(); ++x) {
    out += fmt::format("  node {} {} parent {}:", x,
                       ref_.Kind(x) == RefKind::kCohort ? "cohort" : "cq", ref_.Parent(x));
    for (int s = 0; s < ref_.num_slots(); ++s) {
      const RefQuota& q = ref_.Quota(x, s);
      out += fmt::format(" [s{} N={} BL={} LL={}", s, Str(q.nominal), Str(q.borrowing_limit),
                         Str(q.lending_limit));
      if (ref_.Kind(x) == RefKind::kClusterQueue) {
        out += fmt::format(" usage={}", Str(ref_.CqUsage(x, s)));
      }
      out += "]";
    }
    out += "\n";
  }
  return out;
}

}  // namespace engine
