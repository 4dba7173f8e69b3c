#include "engine/admission_invariants.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/base/check.h"
#include "engine/cluster.h"

namespace engine {

std::string CheckAdmission(const Cluster& cluster, CqId cq, const Assignment& assignment,
                           QuotaCheckStrategy quota_check) {
  std::vector<SlotAmount> charged;
  for (const PodSetAssignment& ps : assignment.pod_sets) {
    std::vector<ResourceId> missing = ResourcesWithoutFlavor(cluster, cq, ps, quota_check);
    if (!missing.empty()) {
      return fmt::format("pod set {} of an admission to {} has no flavor for {}", ps.name,
                         cluster.Name(cq), cluster.Name(missing.front()));
    }
    for (const FlavorChoice& c : ps.flavors) {
      const ResourceGroup* group = cluster.GroupFor(cq, c.resource);
      if (group == nullptr) {
        return fmt::format("pod set {}: resource {} is not covered by {}", ps.name,
                           cluster.Name(c.resource), cluster.Name(cq));
      }
      auto it = std::find(group->flavors.begin(), group->flavors.end(), c.flavor);
      if (it == group->flavors.end()) {
        return fmt::format("pod set {}: flavor {} is not in {}'s list for {}", ps.name,
                           cluster.Name(c.flavor), cluster.Name(cq), cluster.Name(c.resource));
      }
      auto fi = static_cast<size_t>(it - group->flavors.begin());
      auto ri = static_cast<size_t>(group->ResourceIndex(c.resource));
      if (group->Slot(fi, ri) != c.slot) {
        return fmt::format("pod set {}: {}/{} charged to the wrong slot", ps.name,
                           cluster.Name(c.flavor), cluster.Name(c.resource));
      }
      auto u = std::find_if(charged.begin(), charged.end(),
                            [&](const SlotAmount& s) { return s.slot == c.slot; });
      if (u == charged.end()) {
        charged.push_back({c.slot, c.amount});
      } else {
        u->amount += c.amount;
      }
    }
  }
  auto by_slot = [](const SlotAmount& a, const SlotAmount& b) { return a.slot < b.slot; };
  std::vector<SlotAmount> usage = assignment.usage;
  std::sort(usage.begin(), usage.end(), by_slot);
  std::sort(charged.begin(), charged.end(), by_slot);
  bool same = usage.size() == charged.size()
              && std::equal(usage.begin(), usage.end(), charged.begin(),
                            [](const SlotAmount& a, const SlotAmount& b) {
                              return a.slot == b.slot && a.amount == b.amount;
                            });
  if (!same) {
    return fmt::format("usage charged to {} differs from the flavors assigned", cluster.Name(cq));
  }
  return "";
}

namespace {

Quantity Headroom(const ResourceTree& tree, NodeId node, FrSlot slot) {
  if (tree.InCycle(node)) {
    return kUnlimited;
  }
  Quantity limit = tree.HasParent(node) ? tree.BorrowingLimit(node, slot) : Quantity::Zero();
  return tree.Balance(node, slot) + limit;
}

}  // namespace

std::vector<Quantity> BorrowingHeadroom(const ResourceTree& tree) {
  std::vector<Quantity> out;
  out.reserve(static_cast<size_t>(tree.num_nodes()) * tree.num_slots());
  for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
    for (uint32_t s = 0; s < tree.num_slots(); ++s) {
      out.push_back(Headroom(tree, MakeId<NodeId>(n), MakeId<FrSlot>(s)));
    }
  }
  return out;
}

std::string CheckHeadroomKept(const ResourceTree& tree, std::span<const Quantity> before) {
  TALLY_CHECK(before.size() == static_cast<size_t>(tree.num_nodes()) * tree.num_slots());
  size_t i = 0;
  for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
    for (uint32_t s = 0; s < tree.num_slots(); ++s, ++i) {
      Quantity after = Headroom(tree, MakeId<NodeId>(n), MakeId<FrSlot>(s));
      if (after < Min(Quantity::Zero(), before[i])) {
        return fmt::format("node {} slot {}: T + BL = {} after the cycle, {} before", n, s,
                           after.value(), before[i].value());
      }
    }
  }
  return "";
}

}  // namespace engine
