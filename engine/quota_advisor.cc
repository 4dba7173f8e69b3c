#include "engine/quota_advisor.h"

#include <fmt/format.h>

namespace engine {
namespace {

// The slots the scan found short, with how much more each needed, in scan order.
struct Shortfall {
  FrSlot slot{};
  Quantity missing;
};

std::vector<Shortfall> Shortfalls(const Cluster& cluster, const Workload& w, CqId cq) {
  std::vector<Shortfall> out;
  NodeId node = cluster.ClusterQueueNode(cq);
  const ResourceTree& tree = cluster.tree();
  for (const PodSetRequest& ps : w.pod_sets) {
    for (const ResourceAmount& r : ps.total) {
      const ResourceGroup* group = cluster.GroupFor(cq, r.resource);
      if (group == nullptr) {
        continue;
      }
      int ri = group->ResourceIndex(r.resource);
      for (size_t f = 0; f < group->flavors.size(); ++f) {
        FrSlot slot = group->Slot(f, static_cast<size_t>(ri));
        Quantity available = tree.Available(node, slot);
        if (r.amount > available) {
          out.push_back({slot, r.amount - available});
        }
      }
    }
  }
  return out;
}

bool AdmitsWith(Cluster& cluster, const Workload& w, CqId cq) {
  AssignRequest req;
  req.workload = &w;
  req.cq = cq;
  req.cluster = &cluster;
  req.tree = &cluster.tree();
  req.fair_sharing = cluster.configuration().fair_sharing;
  req.quota_check = EffectiveQuotaCheck(cluster.configuration());
  return AssignFlavors(req, nullptr).Mode() == AssignmentMode::kFit;
}

}  // namespace

std::optional<QuotaSuggestion> SuggestQuotaChange(Cluster& cluster, const WorkloadStore& store,
                                                  WorkloadId id, const Assignment& current) {
  (void)current;
  const Workload& w = store.Get(id);
  if (!IsValid(w.cluster_queue) || !cluster.Exists(w.cluster_queue)) {
    return std::nullopt;
  }
  ResourceTree& tree = cluster.mutable_tree();
  if (tree.InCycle(cluster.ClusterQueueNode(w.cluster_queue))) {
    return std::nullopt;  // no quota change admits into a cohort cycle
  }
  std::vector<NodeId> nodes;
  for (NodeId n = cluster.ClusterQueueNode(w.cluster_queue);
       IsValid(n) && nodes.size() < tree.num_nodes(); n = tree.Parent(n)) {
    nodes.push_back(n);
  }
  for (const Shortfall& s : Shortfalls(cluster, w, w.cluster_queue)) {
    for (NodeId node : nodes) {
      SlotQuota before{tree.Nominal(node, s.slot), tree.BorrowingLimit(node, s.slot),
                       tree.LendingLimit(node, s.slot)};
      SlotQuota raised = before;
      raised.nominal = before.nominal + s.missing;
      tree.SetQuota(node, s.slot, raised);
      tree.Refresh();
      bool admits = AdmitsWith(cluster, w, w.cluster_queue);
      tree.SetQuota(node, s.slot, before);
      tree.Refresh();
      if (!admits) {
        continue;
      }
      FlavorResource key = cluster.SlotKey(s.slot);
      const std::string& resource = cluster.Name(key.resource);
      QuotaSuggestion out{node, s.slot, before.nominal, raised.nominal, ""};
      out.message =
          fmt::format("raise nominalQuota of {} {} for {}/{} from {} to {} (+{})",
                      cluster.IsClusterQueueNode(node) ? "ClusterQueue" : "Cohort",
                      cluster.NodeName(node), cluster.Name(key.flavor), cluster.Name(key.resource),
                      FormatAmount(before.nominal, resource),
                      FormatAmount(raised.nominal, resource), FormatQuantity(s.missing, resource));
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace engine
