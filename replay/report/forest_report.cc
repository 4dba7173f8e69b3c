#include "replay/report/forest_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "engine/cluster.h"
#include "replay/io/json_writer.h"

namespace replay {
namespace {

using engine::Cluster;
using engine::FrSlot;
using engine::NodeId;
using engine::NodeKind;
using engine::Quantity;
using engine::ResourceTree;

bool NodeExists(const Cluster& cluster, NodeId node) {
  if (cluster.IsClusterQueueNode(node)) {
    return cluster.Exists(cluster.NodeClusterQueue(node));
  }
  return cluster.Exists(cluster.NodeCohort(node));
}

std::vector<NodeId> SortedByName(const Cluster& cluster, std::vector<NodeId> nodes) {
  std::sort(nodes.begin(), nodes.end(),
            [&](NodeId a, NodeId b) { return cluster.NodeName(a) < cluster.NodeName(b); });
  return nodes;
}

std::vector<NodeId> Children(const Cluster& cluster, NodeId node) {
  std::vector<NodeId> out;
  for (NodeId child : cluster.tree().Children(node)) {
    if (NodeExists(cluster, child)) {
      out.push_back(child);
    }
  }
  return SortedByName(cluster, std::move(out));
}

// Slots shown for a node: the ones it declares plus, for cohorts, those of its whole subtree, in
// slot order (first-seen order of the manifests). `visiting` guards against cohort cycles.
void CollectSlots(const Cluster& cluster, NodeId node, std::set<uint32_t>& slots,
                  std::set<uint32_t>& visiting) {
  if (!visiting.insert(engine::Index(node)).second) {
    return;
  }
  for (FrSlot slot : cluster.DeclaredSlots(node)) {
    slots.insert(engine::Index(slot));
  }
  for (NodeId child : cluster.tree().Children(node)) {
    CollectSlots(cluster, child, slots, visiting);
  }
}

std::vector<FrSlot> ShownSlots(const Cluster& cluster, NodeId node) {
  std::set<uint32_t> slots;
  std::set<uint32_t> visiting;
  CollectSlots(cluster, node, slots, visiting);
  std::vector<FrSlot> out;
  out.reserve(slots.size());
  for (uint32_t s : slots) {
    out.push_back(engine::MakeId<FrSlot>(s));
  }
  return out;
}

std::vector<NodeId> Roots(const Cluster& cluster) {
  std::vector<NodeId> roots;
  const ResourceTree& tree = cluster.tree();
  for (uint32_t i = 0; i < tree.num_nodes(); ++i) {
    NodeId node = engine::MakeId<NodeId>(i);
    if (!tree.HasParent(node) && !tree.InCycle(node) && NodeExists(cluster, node)) {
      roots.push_back(node);
    }
  }
  return SortedByName(cluster, std::move(roots));
}

std::vector<NodeId> CycleNodes(const Cluster& cluster) {
  std::vector<NodeId> nodes;
  for (uint32_t i = 0; i < cluster.tree().num_nodes(); ++i) {
    NodeId node = engine::MakeId<NodeId>(i);
    if (cluster.tree().InCycle(node) && NodeExists(cluster, node)) {
      nodes.push_back(node);
    }
  }
  return SortedByName(cluster, std::move(nodes));
}

std::string Amount(const Cluster& cluster, FrSlot slot, Quantity q) {
  if (q.IsUnlimited()) {
    return "unlimited";
  }
  if (q.value() == Quantity::kMinValue) {
    return "-unlimited";
  }
  return engine::FormatQuantity(q, cluster.Name(cluster.SlotKey(slot).resource));
}

std::string Limit(const Cluster& cluster, FrSlot slot, Quantity q) {
  return q.IsUnlimited() ? "-" : Amount(cluster, slot, q);
}

std::string NodeHeader(const Cluster& cluster, NodeId node) {
  const ResourceTree& tree = cluster.tree();
  if (cluster.IsClusterQueueNode(node)) {
    engine::CqId cq = cluster.NodeClusterQueue(node);
    std::string status = cluster.Inactive(cq) == engine::InactiveReason::kNone
                             ? std::string("active")
                             : fmt::format("INACTIVE ({}): {}", ToString(cluster.Inactive(cq)),
                                           cluster.InactiveMessage(cq));
    return fmt::format("ClusterQueue {}  [{}, generation {}]", cluster.NodeName(node), status,
                       tree.Generation(node));
  }
  engine::CohortId cohort = cluster.NodeCohort(node);
  return fmt::format("Cohort {}  [{}height {}, generation {}]", cluster.NodeName(node),
                     cluster.IsImplicit(cohort) ? "implicit, " : "", tree.Height(node),
                     tree.Generation(node));
}

void AppendNodeText(const Cluster& cluster, NodeId node, int depth, std::string& out) {
  const ResourceTree& tree = cluster.tree();
  std::string indent(static_cast<size_t>(depth) * 4, ' ');
  out += indent + NodeHeader(cluster, node) + "\n";
  std::vector<FrSlot> slots = ShownSlots(cluster, node);
  if (!slots.empty()) {
    out += fmt::format("{}    {:<32} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", indent,
                       "flavor/resource", "nominal", "borrowLim", "lendLim", "subtree", "usage",
                       "balance", "available");
  }
  bool is_cq = cluster.IsClusterQueueNode(node);
  for (FrSlot slot : slots) {
    engine::FlavorResource key = cluster.SlotKey(slot);
    std::string name = cluster.Name(key.flavor) + "/" + cluster.Name(key.resource);
    out += fmt::format(
        "{}    {:<32} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", indent, name,
        Amount(cluster, slot, tree.Nominal(node, slot)),
        Limit(cluster, slot, tree.BorrowingLimit(node, slot)),
        Limit(cluster, slot, tree.LendingLimit(node, slot)),
        Amount(cluster, slot, tree.SubtreeQuota(node, slot)),
        Amount(cluster, slot, tree.Usage(node, slot)),
        Amount(cluster, slot, tree.Balance(node, slot)),
        is_cq && !tree.InCycle(node) ? Amount(cluster, slot, tree.Available(node, slot)) : "-");
  }
  for (NodeId child : Children(cluster, node)) {
    AppendNodeText(cluster, child, depth + 1, out);
  }
}

void WriteLimit(Quantity q, JsonWriter& out) {
  if (q.IsUnlimited()) {
    out.Null();
  } else {
    out.Int(q.value());
  }
}

void WriteNodeJson(const Cluster& cluster, NodeId node, bool recurse, JsonWriter& out) {
  const ResourceTree& tree = cluster.tree();
  bool is_cq = cluster.IsClusterQueueNode(node);
  out.BeginObject();
  if (is_cq) {
    engine::CqId cq = cluster.NodeClusterQueue(node);
    out.Key("active");
    out.Bool(cluster.Inactive(cq) == engine::InactiveReason::kNone);
  }
  out.Key("children");
  out.BeginArray();
  if (recurse) {
    for (NodeId child : Children(cluster, node)) {
      WriteNodeJson(cluster, child, recurse, out);
    }
  }
  out.EndArray();
  out.Key("generation");
  out.Int(static_cast<int64_t>(tree.Generation(node)));
  out.Key("height");
  out.Int(tree.Height(node));
  if (is_cq) {
    engine::CqId cq = cluster.NodeClusterQueue(node);
    out.Key("inactiveMessage");
    out.String(cluster.Inactive(cq) == engine::InactiveReason::kNone ? ""
                                                                     : cluster.InactiveMessage(cq));
    out.Key("inactiveReason");
    out.String(ToString(cluster.Inactive(cq)));
  } else {
    out.Key("implicit");
    out.Bool(cluster.IsImplicit(cluster.NodeCohort(node)));
  }
  out.Key("kind");
  out.String(is_cq ? "ClusterQueue" : "Cohort");
  out.Key("name");
  out.String(cluster.NodeName(node));
  out.Key("parent");
  if (tree.HasParent(node)) {
    out.String(cluster.NodeName(tree.Parent(node)));
  } else {
    out.Null();
  }
  out.Key("resources");
  out.BeginArray();
  for (FrSlot slot : ShownSlots(cluster, node)) {
    engine::FlavorResource key = cluster.SlotKey(slot);
    out.BeginObject();
    out.Key("available");
    if (is_cq && !tree.InCycle(node)) {
      out.Int(tree.Available(node, slot).value());
    } else {
      out.Null();
    }
    out.Key("balance");
    out.Int(tree.Balance(node, slot).value());
    out.Key("borrowingLimit");
    WriteLimit(tree.BorrowingLimit(node, slot), out);
    out.Key("flavor");
    out.String(cluster.Name(key.flavor));
    out.Key("lendingLimit");
    WriteLimit(tree.LendingLimit(node, slot), out);
    out.Key("nominal");
    out.Int(tree.Nominal(node, slot).value());
    out.Key("potentialAvailable");
    if (is_cq && !tree.InCycle(node)) {
      out.Int(tree.PotentialAvailable(node, slot).value());
    } else {
      out.Null();
    }
    out.Key("resource");
    out.String(cluster.Name(key.resource));
    out.Key("subtreeQuota");
    out.Int(tree.SubtreeQuota(node, slot).value());
    out.Key("unit");
    out.String(cluster.IsMilli(slot) ? "milli" : "unit");
    out.Key("usage");
    out.Int(tree.Usage(node, slot).value());
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
}

struct Summary {
  int trees = 0;
  int cohorts = 0;
  int implicit_cohorts = 0;
  int cluster_queues = 0;
  int inactive_cluster_queues = 0;
};

Summary Summarize(const Cluster& cluster) {
  Summary s;
  s.trees = static_cast<int>(Roots(cluster).size());
  for (uint32_t i = 0; i < cluster.num_cohorts(); ++i) {
    auto id = engine::MakeId<engine::CohortId>(i);
    if (cluster.Exists(id)) {
      ++s.cohorts;
      s.implicit_cohorts += cluster.IsImplicit(id) ? 1 : 0;
    }
  }
  for (uint32_t i = 0; i < cluster.num_cluster_queues(); ++i) {
    auto id = engine::MakeId<engine::CqId>(i);
    if (cluster.Exists(id)) {
      ++s.cluster_queues;
      s.inactive_cluster_queues += cluster.Inactive(id) != engine::InactiveReason::kNone ? 1 : 0;
    }
  }
  return s;
}

}  // namespace

std::string FormatForestText(const Cluster& cluster) {
  Summary s = Summarize(cluster);
  std::string out = fmt::format(
      "Cohort forest: {} tree(s), {} cohort(s) ({} implicit), {} ClusterQueue(s) ({} inactive), "
      "{} flavor/resource slot(s)\n",
      s.trees, s.cohorts, s.implicit_cohorts, s.cluster_queues, s.inactive_cluster_queues,
      cluster.num_slots());
  out += "Amounts: cpu in cores or millicores (m), other resources in units; '-' = no limit.\n";
  for (NodeId root : Roots(cluster)) {
    out += "\n";
    AppendNodeText(cluster, root, 0, out);
  }
  std::vector<NodeId> cycle = CycleNodes(cluster);
  if (!cycle.empty()) {
    out += "\nIn a cohort cycle (no new admissions in these trees; admitted usage kept):\n";
    for (NodeId node : cycle) {
      std::string parent = std::string(cluster.NodeName(cluster.tree().Parent(node)));
      out += fmt::format("    {} {} -> parent {}\n",
                         cluster.IsClusterQueueNode(node) ? "ClusterQueue" : "Cohort",
                         cluster.NodeName(node), parent);
    }
  }
  return out;
}

void WriteForestJson(const Cluster& cluster, JsonWriter& out) {
  out.BeginObject();
  out.Key("cycles");
  out.BeginArray();
  for (NodeId node : CycleNodes(cluster)) {
    WriteNodeJson(cluster, node, /*recurse=*/false, out);
  }
  out.EndArray();
  out.Key("roots");
  out.BeginArray();
  for (NodeId root : Roots(cluster)) {
    WriteNodeJson(cluster, root, /*recurse=*/true, out);
  }
  out.EndArray();
  Summary s = Summarize(cluster);
  out.Key("summary");
  out.BeginObject();
  out.Key("clusterQueues");
  out.Int(s.cluster_queues);
  out.Key("cohorts");
  out.Int(s.cohorts);
  out.Key("implicitCohorts");
  out.Int(s.implicit_cohorts);
  out.Key("inactiveClusterQueues");
  out.Int(s.inactive_cluster_queues);
  out.Key("slots");
  out.Int(cluster.num_slots());
  out.Key("trees");
  out.Int(s.trees);
  out.EndObject();
  out.EndObject();
}

}  // namespace replay
