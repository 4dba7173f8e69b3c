// File: test/engine/resource_tree_property_harness.h
//
// The property test of the quota tree (resource_tree_property_test.cc): a Harness that mirrors
// every random mutation into the tree and the from-scratch reference model
// (test/testing/reference_tree.h) and compares them. Its random steps are in
// resource_tree_property_steps.cc, its comparisons in resource_tree_property_checks.cc.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/base/ids.h"
#include "engine/quantity.h"
#include "engine/resource_tree.h"
#include "test/testing/reference_tree.h"

namespace engine {

inline void PrintTo(const Quantity& q, std::ostream* os) {
  if (q.IsUnlimited()) {
    *os << "Unlimited";
  } else {
    *os << q.value();
  }
}

using reference::kNoNode;
using reference::RefBorrowingLevel;
using reference::ReferenceEvaluation;
using reference::ReferenceTree;
using reference::RefKind;
using reference::RefQuota;

inline constexpr int64_t kDefaultSteps = 100'000;
inline constexpr uint64_t kSeedBase = 0x7A11'E000'0000'0000ULL;
inline constexpr int kMaxReportedFailures = 20;

inline std::string Str(Quantity q) {
  return q.IsUnlimited() ? "Unl" : std::to_string(q.value());
}
inline std::string Str(const std::optional<Quantity>& q) {
  return q.has_value() ? Str(*q) : "-";
}

inline int64_t EnvInt(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read before threads
  if (text == nullptr || *text == '\0') {
    return fallback;
  }
  return std::strtoll(text, nullptr, 10);
}

inline NodeId Id(int node) {
  return node == kNoNode ? kInvalidId<NodeId> : MakeId<NodeId>(node);
}
inline FrSlot Slot(int slot) {
  return MakeId<FrSlot>(static_cast<uint32_t>(slot));
}
inline int Int(NodeId id) {
  return IsValid(id) ? static_cast<int>(Index(id)) : kNoNode;
}

inline SlotQuota ToSlotQuota(const RefQuota& q) {
  return SlotQuota{q.nominal, q.borrowing_limit.value_or(kUnlimited),
                   q.lending_limit.value_or(kUnlimited)};
}

// How many comparisons of each kind ran (summed over seeds).
struct Counts {
  int64_t steps = 0;
  int64_t node_slot_states = 0;   // S, U, LQ, LocalAvailable of one (node, slot)
  int64_t balance_exact = 0;      // Balance == independent KEP T
  int64_t balance_corner = 0;     // Unlimited-lender corner: Balance == S - U <= T
  int64_t balance_divergent = 0;  //   ... of which Balance != T
  int64_t available = 0;          // Available and RawAvailable vs §4.1
  int64_t potential = 0;          // PotentialAvailable vs §4.1
  int64_t borrowing_level = 0;    // FindBorrowingLevel vs §6.3
  int64_t borrowing_level_positive = 0;
  int64_t structure = 0;        // InCycle, Root, Depth, Height
  int64_t fits_vs_subtree = 0;  // FitsOnPath == brute force on S - U (always)
  int64_t fits_vs_kep = 0;      // FitsOnPath == brute force on KEP T
  int64_t fits_true = 0;
  int64_t fits_false = 0;
  int64_t available_vs_kep = 0;  // (q <= Available) == brute force, no pre-existing debt
  int64_t available_vs_subtree = 0;
  int64_t queries_with_debt = 0;     // skipped by the conditional comparison
  int64_t generation_refresh = 0;    // node generations checked after Refresh
  int64_t generation_remove = 0;     // node generations checked after RemoveUsage
  int64_t generation_unchanged = 0;  // after AddUsage / no-op steps
  int64_t admitted = 0;
  int64_t forced = 0;
  int64_t rejected = 0;
  int64_t removed = 0;
  int64_t quota_edits = 0;
  int64_t reparents = 0;
  int64_t cycles_created = 0;
  int64_t cycles_broken = 0;
  int64_t in_cycle_usage = 0;  // CQ usage kept while in a cycle
  int64_t steps_with_cycle = 0;
  int64_t full_checks_after_break = 0;

  void Print(const char* title) const {
    fmt::print(
        "[{}]\n  steps {}; per-(node,slot) states {}, available {}, potential {}, structure {}\n"
        "  balance==T exact {}, corner {} (divergent {})\n"
        "  borrowing level {} (level>0: {})\n"
        "  FitsOnPath==brute(S-U) {}, ==brute(KEP T) {} (true {} / false {})\n"
        "  (q<=Available)==brute: KEP {}, S-U {} (skipped for debt {})\n"
        "  generations: refresh {}, remove {}, unchanged {}\n"
        "  ops: admitted {}, forced {}, rejected {}, removed {}, quota edits {}, reparents {}\n"
        "  cycles created {}, broken {}, steps with a cycle {}, in-cycle usage checks {}, full "
        "checks right after a break {}\n",
        title, steps, node_slot_states, available, potential, structure, balance_exact,
        balance_corner, balance_divergent, borrowing_level, borrowing_level_positive,
        fits_vs_subtree, fits_vs_kep, fits_true, fits_false, available_vs_kep, available_vs_subtree,
        queries_with_debt, generation_refresh, generation_remove, generation_unchanged, admitted,
        forced, rejected, removed, quota_edits, reparents, cycles_created, cycles_broken,
        steps_with_cycle, in_cycle_usage, full_checks_after_break);
    std::fflush(stdout);
  }
};

struct ForestOptions {
  int min_nodes = 3;
  int max_nodes = 60;
  int max_depth = 6;       // of the generated forest (re-parenting may go deeper)
  bool unlimited = false;  // some nominal quotas are Unlimited
  bool cycles = false;     // the op mix creates and breaks cycles
};

class Harness {
 public:
  Harness(uint64_t seed_index, const ForestOptions& options, Counts& counts)
      : seed_index_(seed_index),
        rng_(kSeedBase + seed_index),
        options_(options),
        counts_(counts),
        tree_(0),
        ref_(1) {
    Build();
  }

  // One random step followed by all comparisons. Returns false after the first failing step.
  bool Step(int64_t step) {
    step_ = step;
    std::vector<uint64_t> generations_before = Generations();
    ReferenceEvaluation before = eval_;
    dirty_.clear();
    op_ = "query";
    Op op = RandomStep();
    eval_ = ref_.Evaluate();
    ++counts_.steps;
    if (HasCycle()) {
      ++counts_.steps_with_cycle;
    }
    CheckAllNodes();
    CheckRandomAdmissions();
    CheckGenerations(op, before, generations_before);
    return Ok();
  }

  bool Ok() {
    if (failures_ == 0) {
      return true;
    }
    ADD_FAILURE() << "reproduce with TALLY_PROPERTY_SEED=" << seed_index_ << " (seed 0x" << std::hex
                  << kSeedBase + seed_index_ << std::dec << "), failing at step " << step_
                  << " after op: " << op_ << "\n"
                  << Describe();
    return false;
  }

  bool HasCycle() const {
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      if (eval_.InCycle(x)) {
        return true;
      }
    }
    return false;
  }

  // Removes every cycle (re-parenting one node of each to no parent) and refreshes.
  bool BreakAllCycles() {
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      if (eval_.InCycle(x) && OnCycle(x)) {
        SetParent(x, kNoNode);
        ++counts_.cycles_broken;
        eval_ = ref_.Evaluate();
      }
    }
    tree_.Refresh();
    eval_ = ref_.Evaluate();
    CheckAllNodes();
    ++counts_.full_checks_after_break;
    return Ok();
  }

 private:
  enum class Op : uint8_t { kQuery, kAdd, kRemove, kRefresh };

  // --- Random numbers (own range reduction: the same sequence with every standard library) ----
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(Uniform(0, static_cast<int64_t>(items.size()) - 1))];
  }

  // --- Mirrored mutations ---------------------------------------------------------------------
  int AddNode(RefKind kind) {
    NodeId id =
        tree_.AddNode(kind == RefKind::kCohort ? NodeKind::kCohort : NodeKind::kClusterQueue);
    int node = ref_.AddNode(kind);
    EXPECT_EQ(Int(id), node);
    return node;
  }
  void SetParent(int node, int parent) {
    int old_parent = ref_.Parent(node);
    if (old_parent == parent) {
      return;
    }
    tree_.SetParent(Id(node), Id(parent));
    ref_.SetParent(node, parent);
    dirty_.push_back(node);
    if (old_parent != kNoNode) {
      dirty_.push_back(old_parent);
    }
  }
  void SetQuota(int node, int slot, const RefQuota& quota) {
    tree_.SetQuota(Id(node), Slot(slot), ToSlotQuota(quota));
    ref_.SetQuota(node, slot, quota);
    dirty_.push_back(node);
  }
  void ClearQuotas(int node) {
    tree_.ClearQuotas(Id(node));
    for (int s = 0; s < ref_.num_slots(); ++s) {
      ref_.SetQuota(node, s, RefQuota{});
    }
    dirty_.push_back(node);
  }

  RefQuota RandomQuota(RefKind kind, bool root) {
    RefQuota q;
    bool cohort = kind == RefKind::kCohort;
    if (options_.unlimited && Chance(4)) {
      q.nominal = kUnlimited;
    } else if (cohort) {
      q.nominal = Quantity(Chance(50) ? 0 : Uniform(0, 6));
    } else {
      q.nominal = Quantity(Uniform(0, 10));
    }
    if (root) {
      return q;  // limits only on non-root nodes
    }
    if (Chance(45)) {
      q.borrowing_limit = Chance(4) ? kUnlimited : Quantity(Uniform(0, 6));
    }
    if (Chance(40)) {
      if (cohort) {
        q.lending_limit = Chance(4) ? kUnlimited : Quantity(Uniform(0, 15));
      } else if (q.nominal.IsUnlimited()) {
        q.lending_limit = Chance(25) ? kUnlimited : Quantity(Uniform(0, 10));
      } else {
        q.lending_limit = Quantity(Uniform(0, q.nominal.value()));  // Kueue: LL <= nominal
      }
    }
    return q;
  }

  void Build() {
    int num_slots = static_cast<int>(Uniform(1, 4));
    tree_ = ResourceTree(static_cast<uint32_t>(num_slots));
    ref_ = ReferenceTree(num_slots);
    int target = static_cast<int>(Uniform(options_.min_nodes, options_.max_nodes));
    int roots = static_cast<int>(Uniform(1, std::max(1, std::min(4, target / 4))));
    int max_depth = static_cast<int>(Uniform(1, options_.max_depth));
    std::vector<int> depth;
    std::vector<int> cohorts;
    for (int r = 0; r < roots; ++r) {
      cohorts.push_back(AddNode(RefKind::kCohort));
      depth.push_back(0);
    }
    while (ref_.num_nodes() < target) {
      if (Chance(3)) {  // a parentless ClusterQueue
        AddNode(RefKind::kClusterQueue);
        depth.push_back(0);
        continue;
      }
      int parent = Pick(cohorts);
      int d = depth[static_cast<size_t>(parent)] + 1;
      bool cohort = d < max_depth && Chance(30);
      int node = AddNode(cohort ? RefKind::kCohort : RefKind::kClusterQueue);
      SetParent(node, parent);
      depth.push_back(d);
      if (cohort) {
        cohorts.push_back(node);
      }
    }
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      for (int s = 0; s < num_slots; ++s) {
        SetQuota(x, s, RandomQuota(ref_.Kind(x), ref_.Parent(x) == kNoNode));
      }
    }
    tree_.Refresh();
    eval_ = ref_.Evaluate();
    // Warm up with usage so that the first steps already see borrowing.
    for (int i = 0; i < ref_.num_nodes(); ++i) {
      TryAdd(/*force_percent=*/0);
    }
    eval_ = ref_.Evaluate();
  }

  // --- Steps ----------------------------------------------------------------------------------
  std::vector<int> Nodes(bool cohorts_only, bool cqs_only, bool acyclic_only) const;

  // An amount near the interesting boundaries.
  Quantity RandomAmount(Quantity available);

  Op TryAdd(int force_percent);

  Op TryRemove();

  // A workload over several slots, admitted through the span API when every slot fits.
  Op TryAddWorkload();

  // Removes part of the usage of several slots of one CQ through the span API.
  Op TryRemoveWorkload();

  // Adds one slot column to every node (the new slot has zero quota until an edit sets one).
  Op AddSlot();

  Op EditQuotas();

  // node is root or below it (acyclic chains only)
  bool InSubtree(int node, int root) const;

  // x lies on a cycle (not merely below one).
  bool OnCycle(int x) const;

  Op Reparent();

  Op CreateCycle();

  Op RandomStep();

  // --- Comparisons ----------------------------------------------------------------------------
  template <typename A, typename B>
  void Expect(const A& actual, const B& expected, const char* what, int node, int slot) {
    if (actual == expected) [[likely]] {
      return;
    }
    Fail(fmt::format("{} of node {} slot {}: tree {} != reference {}", what, node, slot,
                     Show(actual), Show(expected)));
  }
  void ExpectTrue(bool condition, const std::string& what);
  void Fail(const std::string& message);
  static std::string Show(Quantity q) { return Str(q); }
  static std::string Show(bool b) { return b ? "true" : "false"; }
  static std::string Show(int v) { return std::to_string(v); }
  static std::string Show(uint64_t v) { return std::to_string(v); }

  void CheckAllNodes();

  void CheckNodeSlot(int x, int s);

  void CheckRandomAdmissions();

  std::vector<uint64_t> Generations() const;

  // The tree (its root) or, for a chain that enters a cycle, the smallest node on that cycle.
  int ComponentKey(const ReferenceEvaluation& eval, int x) const;

  void CheckGenerations(Op op, const ReferenceEvaluation& before,
                        const std::vector<uint64_t>& generations_before);

  std::string Describe() const;

  uint64_t seed_index_;
  std::mt19937_64 rng_;
  ForestOptions options_;
  Counts& counts_;
  ResourceTree tree_;
  ReferenceTree ref_;
  ReferenceEvaluation eval_;
  std::vector<int> dirty_;  // nodes the last Refresh had to look at (SetQuota/SetParent targets)
  int removed_cq_ = kNoNode;
  std::vector<int> removed_slots_;
  int64_t step_ = -1;
  int failures_ = 0;
  std::string op_;
};

}  // namespace engine
