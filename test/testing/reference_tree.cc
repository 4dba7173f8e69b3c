#include "test/testing/reference_tree.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace engine::reference {
namespace {

[[noreturn]] void OracleMisuse(const char* what) {
  std::fprintf(stderr, "ReferenceTree misuse: %s\n", what);
  std::abort();
}

// -BL(x) as a Quantity; a missing limit is +infinity, so -BL is below every balance.
bool BalanceWithin(Quantity balance, const std::optional<Quantity>& borrowing_limit) {
  if (!borrowing_limit.has_value()) {
    return true;
  }
  return balance >= Quantity::Zero() - *borrowing_limit;
}

}  // namespace

ReferenceTree::ReferenceTree(int num_slots) : num_slots_(num_slots) {}

int ReferenceTree::AddNode(RefKind kind) {
  nodes_.push_back(Node{kind, kNoNode});
  quotas_.resize(quotas_.size() + Idx(num_slots_));
  usage_.resize(usage_.size() + Idx(num_slots_));
  return num_nodes() - 1;
}

void ReferenceTree::ResizeSlots(int num_slots) {
  if (num_slots < num_slots_) {
    OracleMisuse("ResizeSlots cannot shrink");
  }
  std::vector<RefQuota> quotas(Idx(num_nodes()) * Idx(num_slots));
  std::vector<Quantity> usage(quotas.size());
  for (int n = 0; n < num_nodes(); ++n) {
    for (int s = 0; s < num_slots_; ++s) {
      quotas[Idx(n) * Idx(num_slots) + Idx(s)] = quotas_[Cell(n, s)];
      usage[Idx(n) * Idx(num_slots) + Idx(s)] = usage_[Cell(n, s)];
    }
  }
  quotas_ = std::move(quotas);
  usage_ = std::move(usage);
  num_slots_ = num_slots;
}

void ReferenceTree::SetParent(int node, int parent) {
  if (parent != kNoNode && Kind(parent) != RefKind::kCohort) {
    OracleMisuse("a parent must be a cohort");
  }
  nodes_[Idx(node)].parent = parent;
}

void ReferenceTree::SetQuota(int node, int slot, const RefQuota& quota) {
  quotas_[Cell(node, slot)] = quota;
}

void ReferenceTree::SetUsage(int cq, int slot, Quantity usage) {
  if (Kind(cq) != RefKind::kClusterQueue) {
    OracleMisuse("usage is charged to ClusterQueues only");
  }
  usage_[Cell(cq, slot)] = usage;
}

void ReferenceTree::AddUsage(int cq, int slot, Quantity amount) {
  SetUsage(cq, slot, CqUsage(cq, slot) + amount);
}

void ReferenceTree::RemoveUsage(int cq, int slot, Quantity amount) {
  SetUsage(cq, slot, CqUsage(cq, slot) - amount);
}

ReferenceTree::Children ReferenceTree::BuildChildren() const {
  Children children;
  children.begin.assign(Idx(num_nodes()) + 1, 0);
  for (const Node& n : nodes_) {
    if (n.parent != kNoNode) {
      ++children.begin[Idx(n.parent) + 1];
    }
  }
  for (size_t i = 1; i < children.begin.size(); ++i) {
    children.begin[i] += children.begin[i - 1];
  }
  children.items.resize(Idx(children.begin.back()));
  std::vector<int> fill(children.begin.begin(), children.begin.end() - 1);
  for (int n = 0; n < num_nodes(); ++n) {
    int parent = Parent(n);
    if (parent != kNoNode) {
      children.items[Idx(fill[Idx(parent)]++)] = n;
    }
  }
  return children;
}

std::vector<int> ReferenceTree::PathToRoot(int node) const {
  // §4.3 HasCycle: walk the parents keeping the visited nodes; a revisit is a cycle. (The path
  // itself is the visited set: O(depth^2), fine for an oracle.)
  std::vector<int> path;
  for (int n = node; n != kNoNode; n = Parent(n)) {
    if (std::find(path.begin(), path.end(), n) != path.end()) {
      return {};
    }
    path.push_back(n);
  }
  return path;
}

Quantity ReferenceTree::UsageWithExtra(int node, int slot, int extra_cq, Quantity extra) const {
  Quantity usage = CqUsage(node, slot);
  return node == extra_cq ? usage + extra : usage;
}

ReferenceTree::SlotSums ReferenceTree::Sums(int node, int slot, const Children& children,
                                            std::vector<SlotSums>& out, int extra_cq,
                                            Quantity extra) const {
  const RefQuota& quota = Quota(node, slot);
  SlotSums sums;
  if (Kind(node) == RefKind::kClusterQueue) {
    // CQ: S = N; U = its charged usage.
    sums.subtree = quota.nominal;
    sums.usage = UsageWithExtra(node, slot, extra_cq, extra);
  } else {
    // Cohort: S = N + sum_c (S(c) - LQ(c)); U = sum_c max(0, U(c) - LQ(c)).
    sums.subtree = quota.nominal;
    sums.usage = Quantity::Zero();
    for (int i = children.begin[Idx(node)]; i < children.begin[Idx(node) + 1]; ++i) {
      SlotSums c = Sums(children.items[Idx(i)], slot, children, out, extra_cq, extra);
      sums.subtree = sums.subtree + (c.subtree - c.local);
      sums.usage = sums.usage + Max(Quantity::Zero(), c.usage - c.local);
    }
  }
  // LQ = max(0, S - LL) if LL is set, else 0 (for a cohort, LL is measured against the subtree).
  sums.local = quota.lending_limit.has_value()
                   ? Max(Quantity::Zero(), sums.subtree - *quota.lending_limit)
                   : Quantity::Zero();
  out[Idx(node)] = sums;
  return sums;
}

Quantity ReferenceTree::KepBalance(int node, int slot, const Children& children,
                                   std::vector<Quantity>& out, int extra_cq, Quantity extra) const {
  const RefQuota& quota = Quota(node, slot);
  Quantity t;
  if (Kind(node) == RefKind::kClusterQueue) {
    // T(cq) = quota - usage
    t = quota.nominal - UsageWithExtra(node, slot, extra_cq, extra);
  } else {
    // T(cohort) = quota + sum_c min(lendingLimit(c), T(c)), a missing lendingLimit = +infinity.
    t = quota.nominal;
    for (int i = children.begin[Idx(node)]; i < children.begin[Idx(node) + 1]; ++i) {
      int child = children.items[Idx(i)];
      Quantity child_t = KepBalance(child, slot, children, out, extra_cq, extra);
      const std::optional<Quantity>& lending_limit = Quota(child, slot).lending_limit;
      t = t + (lending_limit.has_value() ? Min(*lending_limit, child_t) : child_t);
    }
  }
  out[Idx(node)] = t;
  return t;
}

Quantity ReferenceTree::AvailableFrom(int node, int slot, const std::vector<SlotSums>& sums) const {
  const SlotSums& s = sums[Idx(node)];
  int parent = Parent(node);
  if (parent == kNoNode) {
    return s.subtree - s.usage;  // root: S - U
  }
  Quantity p = AvailableFrom(parent, slot, sums);
  const std::optional<Quantity>& borrowing_limit = Quota(node, slot).borrowing_limit;
  if (borrowing_limit.has_value()) {
    p = Min(p, (s.subtree - s.local) - Max(Quantity::Zero(), s.usage - s.local) + *borrowing_limit);
  }
  return Max(Quantity::Zero(), s.local - s.usage) + p;  // LocalAvailable(n) + p
}

bool ReferenceTree::PathWithinLimits(const std::vector<int>& path, int slot,
                                     const std::vector<Quantity>& balance) const {
  for (int x : path) {
    // BL(root) = 0: nobody above to borrow from.
    std::optional<Quantity> borrowing_limit = x == path.back()
                                                  ? std::optional<Quantity>(Quantity::Zero())
                                                  : Quota(x, slot).borrowing_limit;
    if (!BalanceWithin(balance[Idx(x)], borrowing_limit)) {
      return false;
    }
  }
  return true;
}

bool ReferenceTree::FitsByKepBalance(int cq, int slot, Quantity amount) const {
  std::vector<int> path = PathToRoot(cq);
  if (path.empty() || Kind(cq) != RefKind::kClusterQueue) {
    OracleMisuse("FitsByKepBalance needs a ClusterQueue outside cycles");
  }
  Children children = BuildChildren();
  std::vector<Quantity> balance(Idx(num_nodes()));
  KepBalance(path.back(), slot, children, balance, cq, amount);
  return PathWithinLimits(path, slot, balance);
}

bool ReferenceTree::FitsBySubtreeBalance(int cq, int slot, Quantity amount) const {
  std::vector<int> path = PathToRoot(cq);
  if (path.empty() || Kind(cq) != RefKind::kClusterQueue) {
    OracleMisuse("FitsBySubtreeBalance needs a ClusterQueue outside cycles");
  }
  Children children = BuildChildren();
  std::vector<SlotSums> sums(Idx(num_nodes()));
  Sums(path.back(), slot, children, sums, cq, amount);
  std::vector<Quantity> balance(Idx(num_nodes()));
  for (int x : path) {
    balance[Idx(x)] = sums[Idx(x)].subtree - sums[Idx(x)].usage;
  }
  return PathWithinLimits(path, slot, balance);
}

Quantity ReferenceTree::AvailableFromScratch(int node, int slot) const {
  std::vector<int> path = PathToRoot(node);
  if (path.empty()) {
    OracleMisuse("AvailableFromScratch inside a cycle");
  }
  Children children = BuildChildren();
  std::vector<SlotSums> sums(Idx(num_nodes()));
  Sums(path.back(), slot, children, sums, kNoNode, Quantity::Zero());
  return AvailableFrom(node, slot, sums);
}

ReferenceEvaluation ReferenceTree::Evaluate() const {
  const size_t n = Idx(num_nodes());
  const size_t slots = Idx(num_slots_);
  ReferenceEvaluation eval;
  eval.num_slots_ = num_slots_;
  eval.quotas_ = quotas_;
  eval.parent_.resize(n);
  eval.kind_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    eval.parent_[i] = nodes_[i].parent;
    eval.kind_[i] = nodes_[i].kind;
  }
  eval.in_cycle_.assign(n, 0);
  eval.root_.assign(n, kNoNode);
  eval.depth_.assign(n, 0);
  eval.height_.assign(n, 0);
  eval.values_.assign(n * slots, ReferenceEvaluation::Values{});

  // Cycles, roots and depths: one parent walk per node.
  std::vector<std::vector<int>> paths(n);
  for (int x = 0; x < num_nodes(); ++x) {
    std::vector<int>& path = paths[Idx(x)];
    path = PathToRoot(x);
    if (path.empty()) {
      eval.in_cycle_[Idx(x)] = 1;
      continue;
    }
    eval.root_[Idx(x)] = path.back();
    eval.depth_[Idx(x)] = static_cast<int>(path.size()) - 1;
  }

  Children children = BuildChildren();
  // Heights (§6.3): children before parents, i.e. by decreasing depth.
  int max_depth = 0;
  for (size_t i = 0; i < n; ++i) {
    if (eval.in_cycle_[i] == 0) {
      max_depth = std::max(max_depth, eval.depth_[i]);
    }
  }
  for (int d = max_depth; d >= 0; --d) {
    for (int x = 0; x < num_nodes(); ++x) {
      if (eval.in_cycle_[Idx(x)] != 0 || eval.depth_[Idx(x)] != d
          || Kind(x) == RefKind::kClusterQueue) {
        continue;
      }
      int height = 1;
      for (int i = children.begin[Idx(x)]; i < children.begin[Idx(x) + 1]; ++i) {
        int child = children.items[Idx(i)];
        if (Kind(child) == RefKind::kCohort) {
          height = std::max(height, 1 + eval.height_[Idx(child)]);
        }
      }
      eval.height_[Idx(x)] = height;
    }
  }

  for (int slot = 0; slot < num_slots_; ++slot) {
    std::vector<SlotSums> sums(n);
    std::vector<Quantity> kep(n);
    for (int x = 0; x < num_nodes(); ++x) {
      if (eval.in_cycle_[Idx(x)] == 0 && Parent(x) == kNoNode) {
        Sums(x, slot, children, sums, kNoNode, Quantity::Zero());
        KepBalance(x, slot, children, kep, kNoNode, Quantity::Zero());
      }
    }
    for (int x = 0; x < num_nodes(); ++x) {
      if (eval.in_cycle_[Idx(x)] != 0) {
        continue;
      }
      ReferenceEvaluation::Values& v = eval.values_[Idx(x) * slots + Idx(slot)];
      v.subtree = sums[Idx(x)].subtree;
      v.usage = sums[Idx(x)].usage;
      v.local = sums[Idx(x)].local;
      v.kep_balance = kep[Idx(x)];
      v.raw_available = AvailableFrom(x, slot, sums);
    }
    // potentialAvailable: root -> S; else LQ + potentialAvailable(parent), capped at S + BL.
    for (int x = 0; x < num_nodes(); ++x) {
      if (eval.in_cycle_[Idx(x)] != 0) {
        continue;
      }
      const std::vector<int>& path = paths[Idx(x)];
      Quantity potential = sums[Idx(path.back())].subtree;
      for (auto it = path.rbegin() + 1; it != path.rend(); ++it) {
        const SlotSums& s = sums[Idx(*it)];
        potential = s.local + potential;
        const std::optional<Quantity>& borrowing_limit = Quota(*it, slot).borrowing_limit;
        if (borrowing_limit.has_value()) {
          potential = Min(potential, s.subtree + *borrowing_limit);
        }
      }
      eval.values_[Idx(x) * slots + Idx(slot)].potential = potential;
    }
    // The Unlimited-lender corner: mark every strict ancestor of such a node.
    for (int x = 0; x < num_nodes(); ++x) {
      const std::optional<Quantity>& lending_limit = Quota(x, slot).lending_limit;
      if (eval.in_cycle_[Idx(x)] != 0 || !sums[Idx(x)].subtree.IsUnlimited()
          || !lending_limit.has_value() || lending_limit->IsUnlimited()
          || *lending_limit <= Quantity::Zero()) {
        continue;
      }
      for (int a = Parent(x); a != kNoNode; a = Parent(a)) {
        eval.values_[Idx(a) * slots + Idx(slot)].corner_below = true;
      }
    }
  }
  return eval;
}

Quantity ReferenceEvaluation::LocalAvailable(int node, int slot) const {
  return Max(Quantity::Zero(), LocalQuota(node, slot) - Usage(node, slot));
}

Quantity ReferenceEvaluation::Available(int node, int slot) const {
  return Max(Quantity::Zero(), RawAvailable(node, slot));
}

bool ReferenceEvaluation::WouldBorrow(int node, int slot, Quantity amount) const {
  Quantity own = kind_[Idx(node)] == RefKind::kClusterQueue
                     ? quotas_[Idx(node) * Idx(num_slots_) + Idx(slot)].nominal
                     : SubtreeQuota(node, slot);
  return own < Usage(node, slot) + amount;
}

RefBorrowingLevel ReferenceEvaluation::FindHeightOfLowestSubtreeThatFits(int cq, int slot,
                                                                         Quantity amount) const {
  int parent = parent_[Idx(cq)];
  Quantity nominal = quotas_[Idx(cq) * Idx(num_slots_) + Idx(slot)].nominal;
  // N_cq >= U_cq + val, or no parent: (0, hasParent).
  if (parent == kNoNode || nominal >= Usage(cq, slot) + amount) {
    return {0, parent != kNoNode};
  }
  Quantity remaining = amount - LocalAvailable(cq, slot);
  int last = cq;
  for (int a = parent; a != kNoNode; a = parent_[Idx(a)]) {
    if (SubtreeQuota(a, slot) >= Usage(a, slot) + remaining) {
      return {Height(a), parent_[Idx(a)] != kNoNode};
    }
    remaining = remaining - LocalAvailable(a, slot);
    last = a;
  }
  return {Height(last), false};
}

bool ReferenceEvaluation::WithinBorrowingLimit(int node, int slot, Quantity balance) const {
  if (parent_[Idx(node)] == kNoNode) {
    return balance >= Quantity::Zero();  // BL(root) = 0
  }
  return BalanceWithin(balance, quotas_[Idx(node) * Idx(num_slots_) + Idx(slot)].borrowing_limit);
}

bool ReferenceEvaluation::PathHasDebt(int cq, int slot, bool kep) const {
  for (int x = cq; x != kNoNode; x = parent_[Idx(x)]) {
    Quantity balance = kep ? KepBalance(x, slot) : SubtreeQuota(x, slot) - Usage(x, slot);
    if (!WithinBorrowingLimit(x, slot, balance)) {
      return true;
    }
  }
  return false;
}

bool ReferenceEvaluation::PathHasUnboundedLender(int cq, int slot) const {
  for (int x = cq; x != kNoNode; x = parent_[Idx(x)]) {
    if (HasUnboundedLenderBelow(x, slot)) {
      return true;
    }
  }
  return false;
}

}  // namespace engine::reference
