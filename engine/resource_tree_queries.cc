// File: engine/resource_tree_queries.cc
//
// What the quota tree answers without changing (engine/resource_tree.h): available quota with and
// without borrowing, whether an amount fits on a ClusterQueue's path or would borrow, at which
// level it would, the KEP-79 balance, roots and depths. resource_tree.cc keeps the tree: its
// shape, quotas, usage walks and preemption bounds.
#include <algorithm>

#include "engine/resource_tree.h"

namespace engine {

Quantity ResourceTree::LocalAvailable(NodeId node, FrSlot slot) const {
  const SlotState& c = cell(node, slot);
  return ClampNonNegative(c.local - c.usage);
}

Quantity ResourceTree::RawAvailable(NodeId node, FrSlot slot) const {
  if (InCycle(node)) [[unlikely]] {
    // No walk up a cycle; a ClusterQueue there admits nothing, so the value only has to exist.
    const SlotState& c = cell(node, slot);
    return c.subtree - c.usage;
  }
  return RawAvailableAcyclic(node, slot);
}

Quantity ResourceTree::RawAvailableAcyclic(NodeId node, FrSlot slot) const {
  const SlotState& c = cell(node, slot);
  NodeId parent = Parent(node);
  if (!IsValid(parent)) {
    return c.subtree - c.usage;
  }
  Quantity from_parent = RawAvailableAcyclic(parent, slot);
  if (!c.borrowing_limit.IsUnlimited()) {
    // What this subtree may take from above: its lendable part plus the borrowing limit.
    Quantity cap = (c.subtree - c.local) - ClampNonNegative(c.usage - c.local) + c.borrowing_limit;
    from_parent = Min(from_parent, cap);
  }
  return ClampNonNegative(c.local - c.usage) + from_parent;
}

Quantity ResourceTree::Available(NodeId node, FrSlot slot) const {
  return ClampNonNegative(RawAvailable(node, slot));
}

Quantity ResourceTree::PotentialAvailable(NodeId node, FrSlot slot) const {
  if (InCycle(node)) [[unlikely]] {
    return cell(node, slot).subtree;  // as RawAvailable: no walk up a cycle
  }
  return PotentialAvailableAcyclic(node, slot);
}

Quantity ResourceTree::PotentialAvailableAcyclic(NodeId node, FrSlot slot) const {
  const SlotState& c = cell(node, slot);
  NodeId parent = Parent(node);
  if (!IsValid(parent)) {
    return c.subtree;
  }
  Quantity potential = c.local + PotentialAvailableAcyclic(parent, slot);
  if (!c.borrowing_limit.IsUnlimited()) {
    potential = Min(potential, c.subtree + c.borrowing_limit);
  }
  return potential;
}

bool ResourceTree::FitsOnPath(NodeId cq, FrSlot slot, Quantity amount) const {
  if (InCycle(cq)) [[unlikely]] {
    return false;  // a ClusterQueue in a cycle admits nothing (and its chain has no end)
  }
  for (NodeId node = cq; IsValid(node); node = Parent(node)) {
    const SlotState& c = cell(node, slot);
    Quantity balance_after = (c.subtree - c.usage) - amount;
    // BL(root) = 0: there is no one above to borrow from.
    Quantity limit = HasParent(node) ? c.borrowing_limit : Quantity::Zero();
    if (balance_after + limit < Quantity::Zero()) {
      return false;
    }
    amount = ClampNonNegative(amount - ClampNonNegative(c.local - c.usage));
  }
  return true;
}

BorrowingLevel ResourceTree::FindBorrowingLevel(NodeId cq, FrSlot slot, Quantity amount) const {
  const SlotState& c = cell(cq, slot);
  NodeId parent = Parent(cq);
  if (!IsValid(parent) || c.nominal >= c.usage + amount) {
    return {0, IsValid(parent)};
  }
  if (InCycle(cq)) [[unlikely]] {
    return {0, false};  // no walk up a cycle; such a ClusterQueue admits nothing
  }
  Quantity remaining = amount - LocalAvailable(cq, slot);
  NodeId last = cq;
  for (NodeId a = parent; IsValid(a); a = Parent(a)) {
    const SlotState& ac = cell(a, slot);
    if (ac.subtree >= ac.usage + remaining) {
      return {Height(a), HasParent(a)};
    }
    remaining -= LocalAvailable(a, slot);
    last = a;
  }
  return {Height(last), false};
}

bool ResourceTree::WouldBorrow(NodeId node, FrSlot slot, Quantity amount) const {
  const SlotState& c = cell(node, slot);
  Quantity own = Kind(node) == NodeKind::kClusterQueue ? c.nominal : c.subtree;
  return own < c.usage + amount;
}

Quantity ResourceTree::Balance(NodeId node, FrSlot slot) const {
  const SlotState& c = cell(node, slot);
  return c.subtree - c.usage;
}

NodeId ResourceTree::Root(NodeId node) const {
  NodeId root = node;
  size_t steps = 0;
  for (NodeId n = node; IsValid(n) && steps <= meta_.size(); n = Parent(n), ++steps) {
    root = n;
  }
  return root;
}

int ResourceTree::Depth(NodeId node) const {
  int depth = 0;
  for (NodeId n = Parent(node); IsValid(n) && depth <= static_cast<int>(meta_.size());
       n = Parent(n)) {
    ++depth;
  }
  return depth;
}

}  // namespace engine
