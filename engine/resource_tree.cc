#include "engine/resource_tree.h"

#include <algorithm>

#include "engine/base/check.h"

namespace engine {

ResourceTree::ResourceTree(uint32_t num_slots)
    : num_slots_(num_slots), slot_group_(num_slots, kNoGroup) {}

void ResourceTree::CopyFrom(const ResourceTree& other) {
  num_slots_ = other.num_slots_;
  cells_.assign(other.cells_.begin(), other.cells_.end());
  meta_.assign(other.meta_.begin(), other.meta_.end());
  children_.resize(other.children_.size());
  for (size_t i = 0; i < children_.size(); ++i) {
    children_[i].assign(other.children_[i].begin(), other.children_[i].end());
  }
  dirty_.assign(other.dirty_.begin(), other.dirty_.end());
  slot_group_.assign(other.slot_group_.begin(), other.slot_group_.end());
  group_slots_.resize(other.group_slots_.size());
  for (size_t i = 0; i < group_slots_.size(); ++i) {
    group_slots_[i].assign(other.group_slots_[i].begin(), other.group_slots_[i].end());
  }
  generation_freeze_ = 0;
  usage_sum_ = other.usage_sum_;
  other_changes_ = other.other_changes_;
  key_changed_.assign(other.key_changed_.begin(), other.key_changed_.end());
  key_stamp_.assign(other.key_stamp_.begin(), other.key_stamp_.end());
  key_epoch_ = other.key_epoch_;
}

void ResourceTree::NoteFirstChange(size_t cell_index, NodeId cq, FrSlot slot, Quantity before) {
  key_stamp_[cell_index] = key_epoch_;
  key_changed_.push_back({cq, slot, before});
}

void ResourceTree::FlushKey() {
  for (const ChangedCell& c : key_changed_) {
    const uint64_t salt = ((uint64_t{Index(c.cq)} << 32) | Index(c.slot)) * 0xE7037ED1A0B428DBULL;
    usage_sum_ += UsageTerm(salt, cell(c.cq, c.slot).usage) - UsageTerm(salt, c.before);
  }
  key_changed_.clear();
  if (++key_epoch_ == 0) {  // wrapped: no stamp may look current
    std::fill(key_stamp_.begin(), key_stamp_.end(), 0);
    key_epoch_ = 1;
  }
}

void ResourceTree::ResizeSlots(uint32_t num_slots) {
  TALLY_CHECK(num_slots >= num_slots_);
  if (num_slots == num_slots_) {
    return;
  }
  FlushKey();  // the stamps are by cell index, which the new width moves
  std::vector<SlotState> widened(static_cast<size_t>(meta_.size()) * num_slots);
  for (size_t node = 0; node < meta_.size(); ++node) {
    std::copy_n(cells_.begin() + static_cast<std::ptrdiff_t>(node * num_slots_), num_slots_,
                widened.begin() + static_cast<std::ptrdiff_t>(node * num_slots));
  }
  cells_ = std::move(widened);
  key_stamp_.assign(cells_.size(), 0);
  num_slots_ = num_slots;
  slot_group_.resize(num_slots, kNoGroup);
}

NodeId ResourceTree::AddNode(NodeKind kind) {
  NodeId id = MakeId<NodeId>(static_cast<uint32_t>(meta_.size()));
  ++structure_version_;
  NodeMeta meta;
  meta.kind = kind;
  meta.height = kind == NodeKind::kCohort ? 1 : 0;
  meta_.push_back(meta);
  children_.emplace_back();
  cells_.resize(cells_.size() + num_slots_);
  key_stamp_.resize(cells_.size(), 0);
  MarkDirty(id);
  return id;
}

void ResourceTree::SetParent(NodeId node, NodeId parent) {
  NodeMeta& meta = meta_[Index(node)];
  if (meta.parent == parent) {
    return;
  }
  TALLY_CHECK(!IsValid(parent) || Kind(parent) == NodeKind::kCohort);
  ++structure_version_;
  if (IsValid(meta.parent)) {
    std::vector<NodeId>& siblings = children_[Index(meta.parent)];
    siblings.erase(std::find(siblings.begin(), siblings.end(), node));
    MarkDirty(meta.parent);
  }
  meta.parent = parent;
  if (IsValid(parent)) {
    children_[Index(parent)].push_back(node);
  }
  MarkDirty(node);
}

void ResourceTree::SetQuota(NodeId node, FrSlot slot, const SlotQuota& quota) {
  SlotState& c = cell(node, slot);
  c.nominal = quota.nominal;
  c.borrowing_limit = quota.borrowing_limit;
  c.lending_limit = quota.lending_limit;
  MarkDirty(node);
}

void ResourceTree::ClearQuotas(NodeId node) {
  for (uint32_t s = 0; s < num_slots_; ++s) {
    SetQuota(node, MakeId<FrSlot>(s), SlotQuota{});
  }
}

void ResourceTree::MarkDirty(NodeId node) {
  dirty_.push_back(node);
}

// Each dirty node's root, or the fact that its chain enters a cycle, in one pass: a walk up stops
// at the first node already resolved in this Refresh, so every node is walked at most once.
// (Walking each dirty node to its root, and marking a cycle's component once per dirty member, cost
// N^2 steps for a cohort chain N deep or a cycle of N cohorts: robustness findings 05 and 18.)
void ResourceTree::Refresh() {
  state_version_ += dirty_.empty() ? 0 : 1;
  other_changes_ += dirty_.empty() ? 0 : 1;
  walk_.resize(meta_.size());
  ++walk_epoch_;
  std::vector<NodeId> roots;
  std::vector<NodeId>& path = scratch_;
  for (NodeId d : dirty_) {
    path.clear();
    NodeId result = kInvalidId<NodeId>;  // the root, or invalid: the chain enters a cycle
    for (NodeId n = d;;) {
      Walk& w = walk_[Index(n)];
      if (w.epoch == walk_epoch_) {
        if (w.open) {
          MarkCycleComponent(n);  // back on this walk's own path: n lies on a cycle
        } else {
          result = w.root;
        }
        break;
      }
      w.epoch = walk_epoch_;
      w.open = true;
      path.push_back(n);
      const NodeId parent = Parent(n);
      if (!IsValid(parent)) {
        result = n;
        break;
      }
      n = parent;
    }
    for (NodeId n : path) {
      walk_[Index(n)].open = false;
      walk_[Index(n)].root = result;
    }
    if (IsValid(result)) {
      roots.push_back(result);
    }
  }
  dirty_.clear();
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  for (NodeId root : roots) {
    RecomputeTree(root);
  }
}

void ResourceTree::RecomputeAll() {
  for (uint32_t n = 0; n < meta_.size(); ++n) {
    MarkDirty(MakeId<NodeId>(n));
  }
  Refresh();
}

void ResourceTree::MarkCycleComponent(NodeId on_cycle) {
  // Everything that reaches the cycle is a descendant of any of its nodes through the children
  // lists. Components are disjoint (one parent per node): each node is marked once per Refresh.
  std::vector<NodeId> stack = {on_cycle};
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    Walk& w = walk_[Index(n)];
    if (w.marked_epoch == walk_epoch_) {
      continue;
    }
    w.marked_epoch = walk_epoch_;
    NodeMeta& meta = meta_[Index(n)];
    if (!meta.in_cycle) {
      meta.in_cycle = true;
      ++meta.generation;
    }
    for (NodeId child : children_[Index(n)]) {
      stack.push_back(child);
    }
  }
}

void ResourceTree::RecomputeTree(NodeId root) {
  // Pre-order into scratch_, then walk it backwards: every child before its parent.
  scratch_.clear();
  scratch_.push_back(root);
  for (size_t i = 0; i < scratch_.size(); ++i) {
    for (NodeId child : children_[Index(scratch_[i])]) {
      scratch_.push_back(child);
    }
  }
  for (auto it = scratch_.rbegin(); it != scratch_.rend(); ++it) {
    NodeId n = *it;
    NodeMeta& meta = meta_[Index(n)];
    meta.in_cycle = false;
    ++meta.generation;
    SlotState* row = cells_.data() + static_cast<size_t>(Index(n)) * num_slots_;
    if (meta.kind == NodeKind::kClusterQueue) {
      meta.height = 0;
      for (uint32_t s = 0; s < num_slots_; ++s) {
        row[s].subtree = row[s].nominal;
        row[s].local = ClampNonNegative(row[s].subtree - row[s].lending_limit);
        row[s].reclaimable = Over(row[s]);
      }
      for (uint32_t s = 0; s < num_slots_; ++s) {
        row[s].reclaimable_any = Any(row, s);
      }
      continue;
    }
    int height = 1;
    for (uint32_t s = 0; s < num_slots_; ++s) {
      row[s].subtree = row[s].nominal;
      row[s].usage = Quantity::Zero();
      row[s].reclaimable = Quantity::Zero();
      row[s].reclaimable_any = Quantity::Zero();
    }
    for (NodeId child : children_[Index(n)]) {
      const NodeMeta& child_meta = meta_[Index(child)];
      if (child_meta.kind == NodeKind::kCohort) {
        height = std::max(height, child_meta.height + 1);
      }
      const SlotState* child_row = cells_.data() + static_cast<size_t>(Index(child)) * num_slots_;
      for (uint32_t s = 0; s < num_slots_; ++s) {
        row[s].subtree += child_row[s].subtree - child_row[s].local;
        row[s].usage += ClampNonNegative(child_row[s].usage - child_row[s].local);
        row[s].reclaimable += child_row[s].reclaimable;
        row[s].reclaimable_any += child_row[s].reclaimable_any;
      }
    }
    meta.height = height;
    for (uint32_t s = 0; s < num_slots_; ++s) {
      row[s].local = ClampNonNegative(row[s].subtree - row[s].lending_limit);
    }
  }
}

void ResourceTree::AddUsage(NodeId cq, FrSlot slot, Quantity amount) {
  if (ChargeWalk(cq, slot, amount)) {
    UpdateBound(cq, slot);
  }
}

void ResourceTree::RemoveUsage(NodeId cq, FrSlot slot, Quantity amount) {
  if (ReleaseWalk(cq, slot, amount) && what_if_ == 0) {
    UpdateBound(cq, slot);
  }
}

bool ResourceTree::ChargeWalk(NodeId cq, FrSlot slot, Quantity amount) {
  state_version_ += what_if_ == 0 ? 1 : 0;
  TALLY_DCHECK(Kind(cq) == NodeKind::kClusterQueue);
  SlotState& charged = cell(cq, slot);
  if (what_if_ == 0) {  // a WhatIf puts back what it takes: the key stands for usage outside one
    NoteChange(cq, slot, charged.usage);
  }
  charged.max_charge = Max(charged.max_charge, amount);  // also in a cycle: R is rebuilt from it
  if (InCycle(cq)) [[unlikely]] {
    // The tree is frozen; cohort usage is rebuilt from CQ usage when the cycle is broken.
    charged.usage += amount;
    return false;
  }
  // A node outside a cycle has an acyclic parent chain (Refresh() marks every node whose chain
  // enters a cycle), so this walk ends at a root: no step counter on the hot path.
  NodeId node = cq;
  for (;;) {
    SlotState& c = cell(node, slot);
    Quantity local_available = ClampNonNegative(c.local - c.usage);
    c.usage += amount;
    NodeId parent = Parent(node);
    if (!IsValid(parent) || amount <= local_available) {
      break;
    }
    amount -= local_available;
    node = parent;
  }
  return true;
}

bool ResourceTree::ReleaseWalk(NodeId cq, FrSlot slot, Quantity amount) {
  state_version_ += what_if_ == 0 ? 1 : 0;
  TALLY_DCHECK(Kind(cq) == NodeKind::kClusterQueue);
  const uint64_t bump = generation_freeze_ == 0 ? 1 : 0;
  meta_[Index(cq)].generation += bump;
  if (what_if_ == 0) {
    NoteChange(cq, slot, cell(cq, slot).usage);
  }
  if (InCycle(cq)) [[unlikely]] {
    cell(cq, slot).usage -= amount;
    return false;
  }
  NodeId node = cq;
  for (;;) {  // ends at a root, as in AddUsage
    SlotState& c = cell(node, slot);
    Quantity stored = c.usage - c.local;  // what this node had passed up to its parent
    c.usage -= amount;
    NodeId parent = Parent(node);
    if (!IsValid(parent) || stored <= Quantity::Zero()) {
      break;
    }
    amount = Min(amount, stored);
    node = parent;
    meta_[Index(node)].generation += bump;
  }
  return true;
}

Quantity ResourceTree::Any(const SlotState* row, uint32_t s) const {
  const uint32_t group = slot_group_[s];
  if (group != kNoGroup) {
    for (FrSlot t : group_slots_[group]) {
      const SlotState& other = row[Index(t)];
      if (Index(t) != s && other.usage > other.subtree) {
        return row[s].usage;
      }
    }
  }
  return Over(row[s]);
}

// Inline into UpdateBound, with the common case first: 3.4 million calls on the 16-tree trace's
// first 40,000 events, nearly all of which changed nothing, had cost 100 instructions each (a
// call and two saturating subtractions before the test).
inline void ResourceTree::SetBound(NodeId cq, uint32_t s, Quantity over, Quantity any) {
  SlotState& c = cells_[static_cast<size_t>(Index(cq)) * num_slots_ + s];
  if (what_if_ > 0) {
    // Keep the larger value: the simulation will put the usage back (see WhatIf).
    over = Max(over, c.reclaimable);
    any = Max(any, c.reclaimable_any);
  }
  // Equal values are a zero difference (unlimited minus unlimited is zero too), and only they.
  if (over == c.reclaimable && any == c.reclaimable_any) {
    return;  // the common case: a ClusterQueue within its quota stays at zero
  }
  PropagateBound(cq, s, over, any);
}

void ResourceTree::PropagateBound(NodeId cq, uint32_t s, Quantity over, Quantity any) {
  SlotState& c = cells_[static_cast<size_t>(Index(cq)) * num_slots_ + s];
  const Quantity d_over = over - c.reclaimable;
  const Quantity d_any = any - c.reclaimable_any;
  c.reclaimable = over;
  c.reclaimable_any = any;
  for (NodeId n = Parent(cq); IsValid(n); n = Parent(n)) {
    SlotState& a = cells_[static_cast<size_t>(Index(n)) * num_slots_ + s];
    a.reclaimable += d_over;
    a.reclaimable_any += d_any;
  }
}

void ResourceTree::UpdateBound(NodeId cq, FrSlot slot) {
  const SlotState* row = cells_.data() + static_cast<size_t>(Index(cq)) * num_slots_;
  const uint32_t group = slot_group_[Index(slot)];
  if (group == kNoGroup) {
    const Quantity over = Over(row[Index(slot)]);
    SetBound(cq, Index(slot), over, over);
    return;
  }
  // The usage of `slot` may flip the "another slot is above quota" indicator of the others.
  const std::vector<FrSlot>& members = group_slots_[group];
  int above = 0;
  for (FrSlot t : members) {
    above += row[Index(t)].usage > row[Index(t)].subtree ? 1 : 0;
  }
  for (FrSlot t : members) {
    const SlotState& c = row[Index(t)];
    const bool self_above = c.usage > c.subtree;
    const Quantity over = Over(c);
    const bool other_above = above > (self_above ? 1 : 0);
    SetBound(cq, Index(t), over, other_above ? c.usage : over);
  }
}

void ResourceTree::UpdateBounds(NodeId cq, std::span<const SlotAmount> usage) {
  for (size_t i = 0; i < usage.size(); ++i) {
    const uint32_t group = slot_group_[Index(usage[i].slot)];
    bool done = false;  // a group already updated for an earlier entry
    for (size_t j = 0; j < i && group != kNoGroup && !done; ++j) {
      done = slot_group_[Index(usage[j].slot)] == group;
    }
    if (!done) {
      UpdateBound(cq, usage[i].slot);
    }
  }
}

void ResourceTree::SetSlotGroup(FrSlot slot, uint32_t group) {
  ++state_version_;
  ++other_changes_;
  if (slot_group_[Index(slot)] != kNoGroup) {
    std::vector<FrSlot>& old = group_slots_[slot_group_[Index(slot)]];
    old.erase(std::find(old.begin(), old.end(), slot));
  }
  slot_group_[Index(slot)] = group;
  if (group >= group_slots_.size()) {
    group_slots_.resize(group + 1);
  }
  group_slots_[group].push_back(slot);
  for (uint32_t n = 0; n < meta_.size(); ++n) {
    MarkDirty(MakeId<NodeId>(n));  // the bounds of every tree change: the next Refresh() redoes X
  }
}

Quantity ResourceTree::AvailableAfterReclaim(NodeId cq, FrSlot slot, Quantity own,
                                             ReclaimScope scope) const {
  TALLY_DCHECK(!InCycle(cq));
  // RawAvailable's recursion is raw(n) = LA(n) + min(raw(parent), cap(n)) on the reduced usages.
  // Functions x -> a + min(x, b) are closed under composition, so one bottom-up walk carries the
  // composition (a, b) from the ClusterQueue so far, and the reductions (which flow upward) with
  // it: raw(cq) = a + min(raw(root), b).
  Quantity a;
  Quantity b = kUnlimited;
  Quantity pass;  // the reduction the node below passes up (RemoveUsage's rule)
  NodeId previous = kInvalidId<NodeId>;
  for (NodeId n = cq;;) {
    const SlotState& c = cell(n, slot);
    Quantity reduction = n == cq ? own : pass;
    if (n != cq && scope != ReclaimScope::kOwnClusterQueue) {
      const SlotState& below = cell(previous, slot);
      reduction += scope == ReclaimScope::kCohortAnySlotOfGroup
                       ? c.reclaimable_any - below.reclaimable_any
                       : c.reclaimable - below.reclaimable;
    }
    reduction = Min(ClampNonNegative(reduction), c.usage);
    const Quantity usage = c.usage - reduction;
    const NodeId parent = Parent(n);
    if (!IsValid(parent)) {
      return ClampNonNegative(a + Min(c.subtree - usage, b));
    }
    const Quantity local_available = ClampNonNegative(c.local - usage);
    Quantity cap = kUnlimited;
    if (!c.borrowing_limit.IsUnlimited()) {
      cap = (c.subtree - c.local) - ClampNonNegative(usage - c.local) + c.borrowing_limit;
    }
    // (a, b) o (local_available, cap) = (a + local_available, min(cap, b - local_available)).
    b = Min(cap, b - local_available);
    a += local_available;
    pass = Min(reduction, ClampNonNegative(c.usage - c.local));
    previous = n;
    n = parent;
  }
}

void ResourceTree::AddUsage(NodeId cq, std::span<const SlotAmount> usage) {
  bool acyclic = true;
  for (const SlotAmount& u : usage) {
    acyclic = ChargeWalk(cq, u.slot, u.amount);
  }
  if (acyclic) {
    UpdateBounds(cq, usage);
  }
}

void ResourceTree::RemoveUsage(NodeId cq, std::span<const SlotAmount> usage) {
  bool acyclic = true;
  for (const SlotAmount& u : usage) {
    acyclic = ReleaseWalk(cq, u.slot, u.amount);
  }
  // Inside a WhatIf the bounds could only fall, and SetBound keeps them (see RestoreUsage).
  if (acyclic && what_if_ == 0) {
    UpdateBounds(cq, usage);
  }
}

void ResourceTree::RestoreUsage(NodeId cq, std::span<const SlotAmount> usage) {
  TALLY_DCHECK(what_if_ > 0);
  for (const SlotAmount& u : usage) {
    ChargeWalk(cq, u.slot, u.amount);
  }
}

}  // namespace engine
