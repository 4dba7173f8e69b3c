// The random steps of the quota-tree property test (resource_tree_property_harness.h).
#include "test/engine/resource_tree_property_harness.h"

namespace engine {

std::vector<int> Harness::Nodes(bool cohorts_only, bool cqs_only, bool acyclic_only) const {
  std::vector<int> out;
  for (int x = 0; x < ref_.num_nodes(); ++x) {
    bool cohort = ref_.Kind(x) == RefKind::kCohort;
    if ((cohorts_only && !cohort) || (cqs_only && cohort) || (acyclic_only && eval_.InCycle(x))) {
      continue;
    }
    out.push_back(x);
  }
  return out;
}

Quantity Harness::RandomAmount(Quantity available) {
  if (!available.IsUnlimited() && Chance(50)) {
    int64_t a = available.value() + Uniform(-1, 1);
    return Quantity(std::max<int64_t>(0, a));
  }
  return Quantity(Uniform(0, 12));
}

Harness::Op Harness::TryAdd(int force_percent) {
  std::vector<int> cqs = Nodes(false, true, !options_.cycles || Chance(80));
  if (cqs.empty()) {
    return Op::kQuery;
  }
  int cq = Pick(cqs);
  int slot = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
  if (eval_.InCycle(cq)) {
    // Frozen tree: only the CQ's own usage changes (as for an already admitted workload).
    Quantity q(Uniform(1, 4));
    tree_.AddUsage(Id(cq), Slot(slot), q);
    ref_.AddUsage(cq, slot, q);
    op_ = fmt::format("AddUsage(in-cycle cq {}, slot {}, {})", cq, slot, Str(q));
    return Op::kAdd;
  }
  Quantity available = tree_.Available(Id(cq), Slot(slot));
  Quantity q = Chance(30) && !available.IsUnlimited() && available > Quantity::Zero()
                   ? available
                   : Quantity(Uniform(1, 6));
  bool fits = q <= available;
  if (!fits && !Chance(force_percent)) {
    ++counts_.rejected;
    op_ = fmt::format("rejected {} at cq {} slot {} (Available {})", Str(q), cq, slot,
                      Str(available));
    return Op::kQuery;
  }
  tree_.AddUsage(Id(cq), Slot(slot), q);
  ref_.AddUsage(cq, slot, q);
  ++(fits ? counts_.admitted : counts_.forced);
  op_ = fmt::format("AddUsage(cq {}, slot {}, {}){}", cq, slot, Str(q), fits ? "" : " forced");
  return Op::kAdd;
}

Harness::Op Harness::TryRemove() {
  std::vector<int> cqs = Nodes(false, true, false);
  for (int attempt = 0; attempt < 8 && !cqs.empty(); ++attempt) {
    int cq = Pick(cqs);
    int slot = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
    Quantity usage = ref_.CqUsage(cq, slot);
    if (usage <= Quantity::Zero()) {
      continue;
    }
    Quantity q(Uniform(1, usage.value()));
    tree_.RemoveUsage(Id(cq), Slot(slot), q);
    ref_.RemoveUsage(cq, slot, q);
    ++counts_.removed;
    removed_cq_ = cq;
    removed_slots_ = {slot};
    op_ = fmt::format("RemoveUsage(cq {}, slot {}, {})", cq, slot, Str(q));
    return Op::kRemove;
  }
  return Op::kQuery;
}

Harness::Op Harness::TryAddWorkload() {
  std::vector<int> cqs = Nodes(false, true, true);
  if (cqs.empty()) {
    return Op::kQuery;
  }
  int cq = Pick(cqs);
  std::vector<SlotAmount> usage;
  bool fits = true;
  for (int s = 0; s < ref_.num_slots(); ++s) {
    if (Chance(60)) {
      Quantity q(Uniform(1, 4));
      fits = fits && q <= tree_.Available(Id(cq), Slot(s));
      usage.push_back(SlotAmount{Slot(s), q});
    }
  }
  if (usage.empty() || !fits) {
    ++counts_.rejected;
    op_ = fmt::format("rejected a {}-slot workload at cq {}", usage.size(), cq);
    return Op::kQuery;
  }
  tree_.AddUsage(Id(cq), usage);
  op_ = fmt::format("AddUsage(cq {}, span of", cq);
  for (const SlotAmount& u : usage) {
    ref_.AddUsage(cq, static_cast<int>(Index(u.slot)), u.amount);
    op_ += fmt::format(" s{}:{}", Index(u.slot), Str(u.amount));
  }
  op_ += ")";
  ++counts_.admitted;
  return Op::kAdd;
}

Harness::Op Harness::TryRemoveWorkload() {
  std::vector<int> cqs = Nodes(false, true, false);
  if (cqs.empty()) {
    return Op::kQuery;
  }
  int cq = Pick(cqs);
  std::vector<SlotAmount> usage;
  removed_slots_.clear();
  for (int s = 0; s < ref_.num_slots(); ++s) {
    Quantity have = ref_.CqUsage(cq, s);
    if (have > Quantity::Zero() && Chance(70)) {
      usage.push_back(SlotAmount{Slot(s), Quantity(Uniform(1, have.value()))});
      removed_slots_.push_back(s);
    }
  }
  if (usage.empty()) {
    return Op::kQuery;
  }
  tree_.RemoveUsage(Id(cq), usage);
  op_ = fmt::format("RemoveUsage(cq {}, span of", cq);
  for (const SlotAmount& u : usage) {
    ref_.RemoveUsage(cq, static_cast<int>(Index(u.slot)), u.amount);
    op_ += fmt::format(" s{}:{}", Index(u.slot), Str(u.amount));
  }
  op_ += ")";
  ++counts_.removed;
  removed_cq_ = cq;
  return Op::kRemove;
}

Harness::Op Harness::AddSlot() {
  int slots = ref_.num_slots() + 1;
  tree_.ResizeSlots(static_cast<uint32_t>(slots));
  ref_.ResizeSlots(slots);
  op_ = fmt::format("ResizeSlots({})", slots);
  return Op::kQuery;  // no generation changes
}

Harness::Op Harness::EditQuotas() {
  int edits = static_cast<int>(Uniform(1, 3));
  op_ = "edit";
  for (int e = 0; e < edits; ++e) {
    int node = static_cast<int>(Uniform(0, ref_.num_nodes() - 1));
    if (Chance(5)) {
      ClearQuotas(node);
      op_ += fmt::format(" ClearQuotas({})", node);
    } else {
      int slot = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
      RefQuota q = RandomQuota(ref_.Kind(node), false);
      SetQuota(node, slot, q);
      op_ += fmt::format(" SetQuota({}, slot {}, N={} BL={} LL={})", node, slot, Str(q.nominal),
                         Str(q.borrowing_limit), Str(q.lending_limit));
    }
    ++counts_.quota_edits;
  }
  tree_.Refresh();
  return Op::kRefresh;
}

bool Harness::InSubtree(int node, int root) const {
  for (int x = node; x != kNoNode; x = ref_.Parent(x)) {
    if (x == root) {
      return true;
    }
    if (eval_.InCycle(x)) {
      return false;
    }
  }
  return false;
}

bool Harness::OnCycle(int x) const {
  int y = ref_.Parent(x);
  for (int i = 0; i <= ref_.num_nodes() && y != kNoNode; ++i, y = ref_.Parent(y)) {
    if (y == x) {
      return true;
    }
  }
  return false;
}

Harness::Op Harness::Reparent() {
  int node = static_cast<int>(Uniform(0, ref_.num_nodes() - 1));
  bool node_in_cycle = eval_.InCycle(node);
  std::vector<int> candidates;
  for (int c : Nodes(true, false, false)) {
    if (eval_.InCycle(c)) {
      // Hanging an acyclic node below a cycle puts it in the cycle's component (no new cycle).
      if (options_.cycles && !node_in_cycle) {
        candidates.push_back(c);
      }
      continue;
    }
    // An acyclic c can never be below a node in a cycle, so this test only matters otherwise.
    if (ref_.Kind(node) == RefKind::kClusterQueue || !InSubtree(c, node)) {
      candidates.push_back(c);
    }
  }
  int parent = candidates.empty() || Chance(10) ? kNoNode : Pick(candidates);
  if (eval_.InCycle(node) && OnCycle(node)) {
    ++counts_.cycles_broken;
  }
  SetParent(node, parent);
  ++counts_.reparents;
  op_ = fmt::format("SetParent({}, {})", node, parent);
  tree_.Refresh();
  return Op::kRefresh;
}

Harness::Op Harness::CreateCycle() {
  std::vector<int> cohorts = Nodes(true, false, true);
  if (cohorts.empty()) {
    return Op::kQuery;
  }
  int node = Pick(cohorts);
  std::vector<int> below;
  for (int c : cohorts) {
    if (InSubtree(c, node)) {
      below.push_back(c);  // includes node itself: a self-loop
    }
  }
  int parent = Pick(below);
  SetParent(node, parent);
  ++counts_.cycles_created;
  op_ = fmt::format("SetParent({}, {}) creating a cycle", node, parent);
  tree_.Refresh();
  return Op::kRefresh;
}

Harness::Op Harness::RandomStep() {
  int dice = static_cast<int>(Uniform(0, 99));
  if (options_.cycles) {
    if (dice < 6) {
      return CreateCycle();
    }
    dice -= 6;
  }
  if (dice < 38) {
    return TryAdd(/*force_percent=*/8);
  }
  if (dice < 45) {
    return TryAddWorkload();
  }
  if (dice < 69) {
    return TryRemove();
  }
  if (dice < 75) {
    return TryRemoveWorkload();
  }
  if (dice < 86) {
    return EditQuotas();
  }
  if (dice < 94) {
    return Reparent();
  }
  if (dice == 99 && ref_.num_slots() < 6 && Chance(20)) {
    return AddSlot();
  }
  return Op::kQuery;
}

}  // namespace engine
