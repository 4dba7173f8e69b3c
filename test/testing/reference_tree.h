// File: test/testing/reference_tree.h
//
// A slow, obviously-correct oracle for engine::ResourceTree (kueue-semantics.md §4, §6.3, KEP-79).
//
// The forest is kept as plain structs: a parent index per node, the configured quota (N, BL, LL)
// per node and slot, and the usage of every ClusterQueue. Nothing derived is stored. `Evaluate()`
// recomputes every derived value from scratch, straight from the written formulas:
//
//   §4.1  S, U, LQ (recursive over children), LocalAvailable, available(), potentialAvailable()
//   KEP-79 T(cq) = N - U,  T(cohort) = N + sum_c min(LL(c), T(c))   -- computed on its own,
//          never as S - U, so that the relation S - U = T is *tested*, not assumed
//   §4.3  cycles: walk the parents keeping visited nodes; a revisit means the chain has a cycle
//   §6.3  FindHeightOfLowestSubtreeThatFits and the subtree height
//
// and the brute-force admission checks add the amount to a copy of the CQ usage, re-evaluate
// the tree from scratch, and test T(x) >= -BL(x) on every node of the path cq -> root
// (BL(root) = 0, missing BL = +infinity).
//
// Limits are std::optional (nullopt = not set), as in Kueue's API, instead of the Unlimited
// encoding ResourceTree uses: the oracle does not share that representation choice.
//
// Cost: Evaluate() is O(nodes * slots * depth); every brute-force check is O(nodes). Meant for
// tests and as the from-scratch baseline of bench/resource_tree_bench.cc.
//
//   ReferenceTree ref(/*num_slots=*/1);
//   int c = ref.AddNode(RefKind::kCohort);
//   int a = ref.AddNode(RefKind::kClusterQueue);
//   ref.SetParent(a, c);
//   ref.SetQuota(a, 0, {.nominal = Quantity(10), .lending_limit = Quantity(4)});
//   ReferenceEvaluation eval = ref.Evaluate();
//   eval.LocalQuota(a, 0);                        // 6
//   ref.FitsByKepBalance(a, 0, Quantity(10));     // true
//
// Thread safety: none; const methods may run concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/quantity.h"

namespace engine::reference {

enum class RefKind : uint8_t { kClusterQueue, kCohort };

inline constexpr int kNoNode = -1;

struct RefQuota {
  Quantity nominal;
  std::optional<Quantity> borrowing_limit;  // nullopt: no limit (+infinity)
  std::optional<Quantity> lending_limit;    // nullopt: no limit (+infinity)
};

struct RefBorrowingLevel {
  int level = 0;
  bool may_reclaim = false;

  friend bool operator==(const RefBorrowingLevel&, const RefBorrowingLevel&) = default;
};

class ReferenceEvaluation;

class ReferenceTree {
 public:
  explicit ReferenceTree(int num_slots);

  // --- Structure and configuration -----------------------------------------------------------
  int AddNode(RefKind kind);
  // Widens every node to `num_slots` slots (new slots: zero quota, no limits, zero usage).
  void ResizeSlots(int num_slots);
  // parent = kNoNode detaches. Cycles are allowed (they are what §4.3 detects).
  void SetParent(int node, int parent);
  void SetQuota(int node, int slot, const RefQuota& quota);

  // --- ClusterQueue usage (cohort usage is always derived) -----------------------------------
  void SetUsage(int cq, int slot, Quantity usage);
  void AddUsage(int cq, int slot, Quantity amount);
  void RemoveUsage(int cq, int slot, Quantity amount);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  int num_slots() const { return num_slots_; }
  RefKind Kind(int node) const { return nodes_[Idx(node)].kind; }
  int Parent(int node) const { return nodes_[Idx(node)].parent; }
  const RefQuota& Quota(int node, int slot) const { return quotas_[Cell(node, slot)]; }
  Quantity CqUsage(int cq, int slot) const { return usage_[Cell(cq, slot)]; }

  // --- From-scratch evaluation ---------------------------------------------------------------
  ReferenceEvaluation Evaluate() const;

  // Brute force, KEP-79: with `amount` added to the usage of `cq`, recompute T (the independent
  // KEP definition) from scratch and test T(x) >= -BL(x) for every x on the path cq -> root.
  // REQUIRES: cq is a ClusterQueue whose parent chain has no cycle.
  bool FitsByKepBalance(int cq, int slot, Quantity amount) const;
  // The same test with the balance taken as S(x) - U(x) of the §4.1 formulas (what Kueue's
  // bookkeeping implies). Differs from the KEP version only in the Unlimited corner explained at
  // ReferenceEvaluation::HasUnboundedLenderBelow.
  bool FitsBySubtreeBalance(int cq, int slot, Quantity amount) const;

  // available(node) for one slot, recomputing S, U and LQ of that slot for the node's whole tree
  // first (the benchmark's from-scratch baseline). REQUIRES: no cycle above `node`.
  Quantity AvailableFromScratch(int node, int slot) const;

 private:
  friend class ReferenceEvaluation;

  struct Node {
    RefKind kind = RefKind::kClusterQueue;
    int parent = kNoNode;
  };
  struct SlotSums {
    Quantity subtree;  // S
    Quantity usage;    // U
    Quantity local;    // LQ
  };

  static size_t Idx(int node) { return static_cast<size_t>(node); }
  size_t Cell(int node, int slot) const { return Idx(node) * Idx(num_slots_) + Idx(slot); }

  // Children of every node, as offsets into one flat array (rebuilt from the parent indices).
  struct Children {
    std::vector<int> begin;  // node -> first index in `items`; size num_nodes + 1
    std::vector<int> items;
  };
  Children BuildChildren() const;
  // Path from `node` to its root, or empty if the chain has a cycle.
  std::vector<int> PathToRoot(int node) const;
  Quantity UsageWithExtra(int node, int slot, int extra_cq, Quantity extra) const;
  // §4.1 for one slot of the subtree of `node`, recursive over the children (each visited once);
  // `extra` is added to the usage of `extra_cq` (kNoNode: none).
  SlotSums Sums(int node, int slot, const Children& children, std::vector<SlotSums>& out,
                int extra_cq, Quantity extra) const;
  // KEP-79 T, recursive over the children; fills out[node] for the whole subtree.
  Quantity KepBalance(int node, int slot, const Children& children, std::vector<Quantity>& out,
                      int extra_cq, Quantity extra) const;
  Quantity AvailableFrom(int node, int slot, const std::vector<SlotSums>& sums) const;
  // T(x) >= -BL(x) on every x of `path` (its last element is the root).
  bool PathWithinLimits(const std::vector<int>& path, int slot,
                        const std::vector<Quantity>& balance) const;

  int num_slots_;
  std::vector<Node> nodes_;
  std::vector<RefQuota> quotas_;  // [node * num_slots + slot]
  std::vector<Quantity> usage_;   // [node * num_slots + slot]; ClusterQueues only
};

// Every derived value of one forest state. Values of nodes whose chain has a cycle are not
// computed (reading them is a programmer error, except InCycle and the ClusterQueue usage).
class ReferenceEvaluation {
 public:
  bool InCycle(int node) const { return in_cycle_[Idx(node)] != 0; }
  int Root(int node) const { return root_[Idx(node)]; }
  // §6.3: 0 for a ClusterQueue; 1 for a cohort with only ClusterQueue children (or none); else
  // 1 + the maximum height of its child cohorts.
  int Height(int node) const { return height_[Idx(node)]; }
  int Depth(int node) const { return depth_[Idx(node)]; }

  Quantity SubtreeQuota(int node, int slot) const { return At(node, slot).subtree; }
  Quantity Usage(int node, int slot) const { return At(node, slot).usage; }
  Quantity LocalQuota(int node, int slot) const { return At(node, slot).local; }
  // max(0, LQ - U)
  Quantity LocalAvailable(int node, int slot) const;
  // KEP-79 T(x), computed independently of S and U.
  Quantity KepBalance(int node, int slot) const { return At(node, slot).kep_balance; }
  // §4.1 available(n) (may be negative) and Kueue's Available = max(0, available).
  Quantity RawAvailable(int node, int slot) const { return At(node, slot).raw_available; }
  Quantity Available(int node, int slot) const;
  Quantity PotentialAvailable(int node, int slot) const { return At(node, slot).potential; }
  // N < U + amount for a ClusterQueue, S < U + amount for a cohort.
  bool WouldBorrow(int node, int slot, Quantity amount) const;
  // §6.3 FindHeightOfLowestSubtreeThatFits. REQUIRES: cq is a ClusterQueue.
  RefBorrowingLevel FindHeightOfLowestSubtreeThatFits(int cq, int slot, Quantity amount) const;

  // Pre-existing debt on the path cq -> root: some x with balance(x) < -BL(x) (BL(root) = 0).
  // `kep` picks the balance: KEP-79 T, or S - U.
  bool PathHasDebt(int cq, int slot, bool kep) const;

  // The Unlimited corner where S - U != T is possible: a strict descendant c of `node` has
  // S(c) = Unlimited and a lending limit 0 < LL(c) < Unlimited. Then §4.1 gives
  // LQ(c) = max(0, Unlimited - LL) = Unlimited and S(c) - LQ(c) = Unlimited - Unlimited = 0
  // (Kueue's Amount.Sub), so c lends 0 to its parent, while KEP-79 counts min(LL, T(c)) = LL.
  // Without such a descendant S(x) - U(x) == T(x) exactly (small bounded values).
  bool HasUnboundedLenderBelow(int node, int slot) const { return At(node, slot).corner_below; }
  // HasUnboundedLenderBelow for some node of the path cq -> root.
  bool PathHasUnboundedLender(int cq, int slot) const;

 private:
  friend class ReferenceTree;

  struct Values {
    Quantity subtree;      // S
    Quantity usage;        // U
    Quantity local;        // LQ
    Quantity kep_balance;  // T
    Quantity raw_available;
    Quantity potential;
    bool corner_below = false;
  };

  static size_t Idx(int node) { return static_cast<size_t>(node); }
  const Values& At(int node, int slot) const {
    return values_[Idx(node) * Idx(num_slots_) + Idx(slot)];
  }
  // balance(x) >= -BL(x), with BL(root) = 0 and a missing BL = +infinity.
  bool WithinBorrowingLimit(int node, int slot, Quantity balance) const;

  // A snapshot: the evaluation does not refer back to the (mutable) ReferenceTree.
  int num_slots_ = 0;
  std::vector<int> parent_;
  std::vector<RefKind> kind_;
  std::vector<RefQuota> quotas_;
  std::vector<uint8_t> in_cycle_;
  std::vector<int> root_;
  std::vector<int> height_;
  std::vector<int> depth_;
  std::vector<Values> values_;
};

}  // namespace engine::reference
