// File: engine/resource_tree.h
//
// The hierarchical quota tree of KEP-79 (seed 004) with Kueue's resource-node math
// (kueue-semantics.md §4). ClusterQueues are leaves, Cohorts inner nodes. For every node n and
// every (flavor, resource) slot the tree keeps, incrementally:
//
//   S(n)  subtree quota     CQ: N;  cohort: N(cohort) + sum_children (S(c) - LQ(c))
//   U(n)  usage             CQ: charged workloads; cohort: sum_children max(0, U(c) - LQ(c))
//   LQ(n) local quota       max(0, S(n) - LL(n)), 0 without a lending limit
//
// and so the KEP-79 balance T(n) = S(n) - U(n) = N(n) + sum_c min(LL(c), T(c)). Adding or removing
// usage at a ClusterQueue walks only the path to the root: O(depth) per slot. Quota or edge
// changes mark the tree dirty; `Refresh()` recomputes each affected tree from its root (never the
// whole forest) and bumps the generation of every node in it.
//
// Memory layout: one flat array of `SlotState` per node, `num_slots()` entries each, so that the
// path walk for one slot touches one cache line per level:
//
//   cells_[node * num_slots + slot] = {nominal, borrowing_limit, lending_limit,
//                                      subtree, usage, local,
//                                      reclaimable, reclaimable_any, max_charge}    // 72 bytes
//
// Preemption bounds (issue 21). A preemption search takes a workload of another ClusterQueue c
// only while c is above its quota (U > S) on one of the needed slots (Kueue's candidateIsValid).
// With one needed slot s it therefore frees at most
//   over(c, s) = U(c,s) > S(c,s) ? min(U(c,s), U(c,s) - S(c,s) + M(c,s)) : 0
// on s, where M(c,s) is the largest single charge ever added to c on s (the last victim brings c
// from above S to at least S - M). With several needed slots of one group (the resources of one
// flavor), c may keep losing workloads for another slot's sake; then it may free all of U(c,s):
//   extra(c, s) = (c is above quota on another slot of s's group) ? U(c,s) - over(c,s) : 0.
// R(n) and X(n) sum over(c) and extra(c) over the ClusterQueues of n's subtree. Both are kept on
// the path walks of AddUsage/RemoveUsage, like U, and let a search that cannot succeed be rejected
// in O(depth) (AvailableAfterReclaim) without looking at one workload.
//
// Limits that are absent are stored as Unlimited: Kueue's formulas then reduce to the
// no-limit case by saturating arithmetic (S + Unlimited = Unlimited, LQ = max(0, S - Unl) = 0).
//
// Cycles in the cohort graph: every node whose parent chain enters a cycle is `InCycle()`; its
// tree is not recomputed, its usage is kept, and callers must not admit into it. Breaking the
// cycle (SetParent) and Refresh() recomputes the whole tree. No walk here goes up from a node
// that is InCycle(): a query on one answers from the node alone (the value is meaningless), and
// a node outside a cycle has an acyclic chain, so the hot walks need no step counter.
//
// Thread safety: none. A tree (or a shard of trees) is owned by one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/base/ids.h"
#include "engine/base/state_hash.h"
#include "engine/quantity.h"

namespace engine {

enum class NodeKind : uint8_t { kClusterQueue, kCohort };

// Configured quota of one node on one slot. Absent limits are Unlimited.
struct SlotQuota {
  Quantity nominal;
  Quantity borrowing_limit = kUnlimited;
  Quantity lending_limit = kUnlimited;
};

// One (slot, amount) pair of a usage vector; usage vectors are sparse.
struct SlotAmount {
  FrSlot slot{};
  Quantity amount;
  bool operator==(const SlotAmount&) const = default;
};

// Result of FindHeightOfLowestSubtreeThatFits (§6.3).
struct BorrowingLevel {
  int level = 0;  // 0 = no borrowing; else subtree height of the lowest ancestor that fits
  bool may_reclaim = false;  // that ancestor has a parent (or: the CQ has one, at level 0)
};

class ResourceTree {
 public:
  explicit ResourceTree(uint32_t num_slots = 0);
  ~ResourceTree() = default;
  ResourceTree(const ResourceTree&) = delete;
  ResourceTree& operator=(const ResourceTree&) = delete;
  ResourceTree(ResourceTree&&) noexcept = default;
  ResourceTree& operator=(ResourceTree&&) noexcept = default;

  // Makes this tree an exact copy of `other` (quota, usage, structure, generations), reusing this
  // tree's buffers: a private what-if copy for a nomination worker. O(nodes x slots).
  void CopyFrom(const ResourceTree& other);

  // --- Structure (load time and config changes; call Refresh() afterwards) -------------------

  // Widens every node to `num_slots` columns (new columns are zero quota, zero usage).
  // REQUIRES: num_slots >= num_slots().
  void ResizeSlots(uint32_t num_slots);
  NodeId AddNode(NodeKind kind);
  // Sets or clears (parent = kInvalidId) the parent edge. A ClusterQueue parent must be a cohort.
  void SetParent(NodeId node, NodeId parent);
  void SetQuota(NodeId node, FrSlot slot, const SlotQuota& quota);
  // Resets every slot's quota of `node` to zero nominal and no limits.
  void ClearQuotas(NodeId node);

  // Recomputes S, U, LQ, heights and cycle flags of every tree touched since the last Refresh(),
  // and increments the generation of each node in those trees. Cost: size of those trees.
  void Refresh();
  bool NeedsRefresh() const { return !dirty_.empty(); }
  // Refresh() of every tree, dirty or not: the derived values from scratch (tests compare them
  // with the incrementally kept ones on a CopyFrom copy).
  void RecomputeAll();

  // --- Usage (hot path: O(depth) per slot) ---------------------------------------------------

  // REQUIRES: cq is a ClusterQueue; !NeedsRefresh(). Amounts are >= 0.
  void AddUsage(NodeId cq, FrSlot slot, Quantity amount);
  // Also bumps the generation of the CQ and of every cohort whose usage decreased (capacity was
  // freed there: seed 003 restarts flavor scans on such a bump).
  void RemoveUsage(NodeId cq, FrSlot slot, Quantity amount);
  void AddUsage(NodeId cq, std::span<const SlotAmount> usage);
  void RemoveUsage(NodeId cq, std::span<const SlotAmount> usage);
  // Inside a WhatIf, puts back usage that this WhatIf removed (a trial removal undone, a victim
  // re-added by a fill-back): AddUsage without the preemption bounds. Every bound is monotone in
  // the usages and a WhatIf never lowers a stored bound, so while usage stays at or below what
  // it was when the WhatIf opened, recomputing them would store the same values. RemoveUsage
  // inside a WhatIf skips them for the same reason (a removal never raises a bound).
  // REQUIRES: InWhatIf(); usage after the call <= usage when the innermost WhatIf opened.
  void RestoreUsage(NodeId cq, std::span<const SlotAmount> usage);

  // --- Queries -------------------------------------------------------------------------------

  // Kueue's Available(cq, fr): max(0, available(n)) with the BL and LL caps of every ancestor.
  Quantity Available(NodeId node, FrSlot slot) const;
  // Kueue's available(n) before the max(0, .): negative when the tree is in debt.
  Quantity RawAvailable(NodeId node, FrSlot slot) const;
  // Which other ClusterQueues a preemption search may take from, for AvailableAfterReclaim.
  enum class ReclaimScope : uint8_t {
    kOwnClusterQueue,       // none (no cohort, or reclaimWithinCohort: Never)
    kCohortOneSlot,         // the cohort, searching on `slot` alone: R
    kCohortAnySlotOfGroup,  // the cohort, searching on several slots of `slot`'s group: A
  };
  // An upper bound of Available(cq, slot) after a preemption search has removed victims: usage at
  // the ClusterQueue reduced by `own` (what its own workloads could free), and every ancestor's
  // usage reduced by the bounds (see above) of the subtrees hanging off the path, plus what passes
  // up from below. Available is monotone in usage, so whichever victims a search removes,
  // Available(cq, slot) stays at or below this. O(depth). REQUIRES: !InCycle(cq).
  Quantity AvailableAfterReclaim(NodeId cq, FrSlot slot, Quantity own, ReclaimScope scope) const;
  // Puts `slot` in `group` (its flavor's slots: see any(c, s) above). Every slot starts alone.
  void SetSlotGroup(FrSlot slot, uint32_t group);
  uint32_t SlotGroup(FrSlot slot) const { return slot_group_[Index(slot)]; }
  static constexpr uint32_t kNoGroup = ~uint32_t{0};
  // R(node) and A(node) (see above).
  Quantity Reclaimable(NodeId node, FrSlot slot) const { return cell(node, slot).reclaimable; }
  Quantity ReclaimableAny(NodeId node, FrSlot slot) const {
    return cell(node, slot).reclaimable_any;
  }
  // Capacity the node could reach with zero usage everywhere.
  Quantity PotentialAvailable(NodeId node, FrSlot slot) const;
  // KEP-79 rule: after adding `amount` at `cq`, T(x) >= -BL(x) holds on every node x of the path
  // (BL(root) = 0, missing BL = infinity). Evaluated by simulating the propagation, O(depth).
  bool FitsOnPath(NodeId cq, FrSlot slot, Quantity amount) const;
  // §6.3: the subtree height of the lowest ancestor where `amount` fits.
  BorrowingLevel FindBorrowingLevel(NodeId cq, FrSlot slot, Quantity amount) const;
  // N < U + amount (cohorts compare with S): adding `amount` would borrow.
  bool WouldBorrow(NodeId node, FrSlot slot, Quantity amount) const;
  bool IsBorrowing(NodeId node, FrSlot slot) const { return WouldBorrow(node, slot, Quantity()); }

  // T(x, r) = S - U.
  Quantity Balance(NodeId node, FrSlot slot) const;
  Quantity LocalAvailable(NodeId node, FrSlot slot) const;
  Quantity Nominal(NodeId node, FrSlot slot) const { return cell(node, slot).nominal; }
  Quantity BorrowingLimit(NodeId node, FrSlot slot) const {
    return cell(node, slot).borrowing_limit;
  }
  Quantity LendingLimit(NodeId node, FrSlot slot) const { return cell(node, slot).lending_limit; }
  Quantity SubtreeQuota(NodeId node, FrSlot slot) const { return cell(node, slot).subtree; }
  Quantity Usage(NodeId node, FrSlot slot) const { return cell(node, slot).usage; }
  Quantity LocalQuota(NodeId node, FrSlot slot) const { return cell(node, slot).local; }

  NodeKind Kind(NodeId node) const { return meta_[Index(node)].kind; }
  NodeId Parent(NodeId node) const { return meta_[Index(node)].parent; }
  bool HasParent(NodeId node) const { return IsValid(Parent(node)); }
  std::span<const NodeId> Children(NodeId node) const { return children_[Index(node)]; }
  // Root of the node's tree; for a node in a cycle, the node where the cycle was detected.
  NodeId Root(NodeId node) const;
  // Subtree height: 0 for a ClusterQueue, 1 for a cohort with only CQ children (or none),
  // else 1 + max height of child cohorts.
  int Height(NodeId node) const { return meta_[Index(node)].height; }
  // Bumped when capacity may have grown: tree recompute, usage removal through the node.
  uint64_t Generation(NodeId node) const { return meta_[Index(node)].generation; }
  bool InCycle(NodeId node) const { return meta_[Index(node)].in_cycle; }
  int Depth(NodeId node) const;

  uint32_t num_nodes() const { return static_cast<uint32_t>(meta_.size()); }

  // While frozen, RemoveUsage does not bump generations: what-if simulations (the fits check,
  // preemption searches) remove and re-add usage without pretending capacity was freed.
  class GenerationFreeze {
   public:
    explicit GenerationFreeze(ResourceTree& tree) : tree_(tree) { ++tree_.generation_freeze_; }
    ~GenerationFreeze() { --tree_.generation_freeze_; }
    GenerationFreeze(const GenerationFreeze&) = delete;
    GenerationFreeze& operator=(const GenerationFreeze&) = delete;
    GenerationFreeze(GenerationFreeze&&) = delete;
    GenerationFreeze& operator=(GenerationFreeze&&) = delete;

   private:
    ResourceTree& tree_;
  };

  // A simulation that removes usage and puts back exactly what it removed before it ends (fits
  // checks, preemption searches): generations frozen, and the preemption bounds' decreases not
  // propagated (see the note at the top). Anything else that changes usage inside one keeps the
  // bounds valid, only looser until that ClusterQueue's usage changes outside a WhatIf.
  class WhatIf {
   public:
    explicit WhatIf(ResourceTree& tree) : tree_(tree), freeze_(tree) { ++tree_.what_if_; }
    ~WhatIf() { --tree_.what_if_; }
    WhatIf(const WhatIf&) = delete;
    WhatIf& operator=(const WhatIf&) = delete;
    WhatIf(WhatIf&&) = delete;
    WhatIf& operator=(WhatIf&&) = delete;

   private:
    ResourceTree& tree_;
    GenerationFreeze freeze_;
  };
  uint32_t num_slots() const { return num_slots_; }

  // Bumped by every change a nomination could see: usage outside a WhatIf (a WhatIf puts it
  // back), recomputes, cycle flags, slot groups (engine/nomination_memo.h).
  uint64_t state_version() const { return state_version_; }
  // A WhatIf is open: usage may differ from what state_version() stands for.
  bool InWhatIf() const { return what_if_ > 0; }
  // Equal at two moments when every ClusterQueue cell holds the same usage and nothing else a
  // nomination could see changed in between (recomputes, cycle flags, slot groups): unlike
  // state_version(), it comes back to an earlier value when the usage does (a workload charged,
  // then released). Cohort usage is a function of the ClusterQueues' (the tests compare it with
  // RecomputeAll), so their cells are enough. A usage walk outside a WhatIf only notes the cell's
  // value before its first change since the last call; the call adds the terms of the changed
  // cells. Not const for that, and not for concurrent use (the scheduler calls it once per
  // cycle, before nominating).
  uint64_t state_key() {
    FlushKey();
    return usage_sum_ + StateTerm(kStructureTermKey, other_changes_);
  }
  // Bumped whenever a node is added or moves to another parent: what caches of the tree's shape
  // (the ClusterQueues under a root, engine/queue_manager.cc) are keyed on.
  uint64_t structure_version() const { return structure_version_; }

 private:
  struct SlotState {
    Quantity nominal;
    Quantity borrowing_limit = kUnlimited;
    Quantity lending_limit = kUnlimited;
    Quantity subtree;          // S
    Quantity usage;            // U
    Quantity local;            // LQ
    Quantity reclaimable;      // R: sum of over(c) over the subtree's ClusterQueues
    Quantity reclaimable_any;  // A: sum of any(c)
    Quantity max_charge;       // M, ClusterQueues only: largest single AddUsage amount so far
  };
  // over(c, s) of a ClusterQueue cell (see the layout note).
  static Quantity Over(const SlotState& c) {
    if (c.usage <= c.subtree) {
      return Quantity::Zero();
    }
    return Min(c.usage, c.usage - c.subtree + c.max_charge);
  }
  // any(c, s) of the ClusterQueue whose row of cells is `row`.
  Quantity Any(const SlotState* row, uint32_t s) const;
  // The usage walks of AddUsage / RemoveUsage without the bounds; false when `cq` is InCycle()
  // (only its own usage changed, the bounds are not kept there).
  bool ChargeWalk(NodeId cq, FrSlot slot, Quantity amount);
  bool ReleaseWalk(NodeId cq, FrSlot slot, Quantity amount);
  // Recomputes over and any of `cq` on `slot`'s group after its usage changed, and adds the
  // differences to R and A of every ancestor (increases only, inside a WhatIf).
  void UpdateBound(NodeId cq, FrSlot slot);
  // UpdateBound once per group of the slots in `usage`.
  void UpdateBounds(NodeId cq, std::span<const SlotAmount> usage);
  // Stores over and any of `cq` on slot index `s`; propagates the differences.
  void SetBound(NodeId cq, uint32_t s, Quantity over, Quantity any);
  // SetBound's change of the bound, there and in every ancestor.
  void PropagateBound(NodeId cq, uint32_t s, Quantity over, Quantity any);
  struct NodeMeta {
    NodeId parent = kInvalidId<NodeId>;
    NodeKind kind = NodeKind::kClusterQueue;
    bool in_cycle = false;
    int height = 0;
    uint64_t generation = 0;
  };

  SlotState& cell(NodeId node, FrSlot slot) {
    return cells_[static_cast<size_t>(Index(node)) * num_slots_ + Index(slot)];
  }
  const SlotState& cell(NodeId node, FrSlot slot) const {
    return cells_[static_cast<size_t>(Index(node)) * num_slots_ + Index(slot)];
  }

  void MarkDirty(NodeId node);
  void RecomputeTree(NodeId root);
  void MarkCycleComponent(NodeId on_cycle);
  // The recursions of RawAvailable / PotentialAvailable, visiting at most `budget` nodes.
  // The walks behind RawAvailable / PotentialAvailable. REQUIRES: !InCycle(node).
  Quantity RawAvailableAcyclic(NodeId node, FrSlot slot) const;
  Quantity PotentialAvailableAcyclic(NodeId node, FrSlot slot) const;

  uint32_t num_slots_ = 0;
  std::vector<SlotState> cells_;
  std::vector<NodeMeta> meta_;
  std::vector<std::vector<NodeId>> children_;
  std::vector<NodeId> dirty_;
  std::vector<NodeId> scratch_;  // reused by Refresh and path walks
  // Refresh's per-node walk state, valid where epoch == walk_epoch_ (no clearing per Refresh).
  struct Walk {
    uint32_t epoch = 0;
    uint32_t marked_epoch = 0;         // marked in a cycle's component in this Refresh
    NodeId root = kInvalidId<NodeId>;  // resolved: the root, or invalid for a cycle
    bool open = false;                 // on the walk in progress
  };
  std::vector<Walk> walk_;
  uint32_t walk_epoch_ = 0;
  std::vector<uint32_t> slot_group_;              // FrSlot -> group, kNoGroup when alone
  std::vector<std::vector<FrSlot>> group_slots_;  // group -> its slots
  uint32_t generation_freeze_ = 0;
  uint32_t what_if_ = 0;
  uint64_t state_version_ = 0;
  uint64_t structure_version_ = 0;
  // state_key(): the sum of UsageTerm over the ClusterQueue cells, and a count of the other
  // changes state_version_ counts.
  static constexpr uint64_t kStructureTermKey = uint64_t{1} << 63;
  // (cell, usage) -> salt(cell) + usage * odd, folded (engine/base/state_hash.h): for one cell the
  // first step is a bijection of the usage, two cells meet only on one specific usage difference.
  // A zero cell adds nothing, so that cells never charged and cells charged and released again
  // sum alike. About a dozen instructions per usage walk (micro/resource_tree_add_remove).
  static uint64_t UsageTerm(uint64_t salt, Quantity usage) {
    return usage == Quantity::Zero()
               ? 0
               : StateFold(salt + static_cast<uint64_t>(usage.value()) * 0x9E3779B97F4A7C15ULL);
  }
  // Notes `cq`'s cell on `slot` as changed, with its usage before the change, unless it is
  // noted already.
  [[gnu::always_inline]] void NoteChange(NodeId cq, FrSlot slot, Quantity before) {
    const size_t i = static_cast<size_t>(Index(cq)) * num_slots_ + Index(slot);
    if (key_stamp_[i] != key_epoch_) [[unlikely]] {
      NoteFirstChange(i, cq, slot, before);
    }
  }
  void NoteFirstChange(size_t cell_index, NodeId cq, FrSlot slot, Quantity before);
  // Adds the terms of the cells changed since the last flush to usage_sum_.
  void FlushKey();
  struct ChangedCell {
    NodeId cq{};
    FrSlot slot{};
    Quantity before;
  };
  std::vector<ChangedCell> key_changed_;
  // By cell (sized with cells_): key_epoch_ when noted in key_changed_.
  std::vector<uint32_t> key_stamp_;
  uint32_t key_epoch_ = 1;
  uint64_t usage_sum_ = 0;
  uint64_t other_changes_ = 0;
};

}  // namespace engine
