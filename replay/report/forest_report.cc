#include "replay/report/forest_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <span>
#include <utility>
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

// Slots shown for each node: the ones it declares plus those of its whole subtree (everything
// that reaches it through parents), in slot order. Computed once for the forest, in time linear in
// nodes x slots and without recursion: a cohort chain 100,000 deep and a cycle of 100,000 cohorts
// are valid inputs (robustness findings 05 and 18; collecting each node's subtree again was
// quadratic and recursed once per level).
class SlotIndex {
 public:
  explicit SlotIndex(const Cluster& cluster) : slots_(cluster.tree().num_nodes()) {
    const ResourceTree& tree = cluster.tree();
    const uint32_t n = tree.num_nodes();
    std::vector<uint8_t> on_cycle = OnCycle(tree);
    // Off-cycle nodes have acyclic subtrees (a child of an off-cycle node is off the cycle):
    // children first, by an explicit post-order.
    std::vector<uint8_t> done(n, 0);
    std::vector<std::pair<NodeId, size_t>> stack;  // node, next child
    for (uint32_t i = 0; i < n; ++i) {
      if (on_cycle[i] != 0 || done[i] != 0) {
        continue;
      }
      stack.emplace_back(engine::MakeId<NodeId>(i), 0);
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        std::span<const NodeId> children = tree.Children(node);
        if (next < children.size()) {
          NodeId child = children[next++];
          if (done[engine::Index(child)] == 0) {
            stack.emplace_back(child, 0);
          }
          continue;
        }
        std::vector<uint32_t>& own = slots_[engine::Index(node)];
        AddDeclared(cluster, node, own);
        for (NodeId child : children) {
          Merge(slots_[engine::Index(child)], own);
        }
        done[engine::Index(node)] = 1;
        stack.pop_back();
      }
    }
    // Every node of a cycle reaches the whole component: the cycle's own declared slots and its
    // off-cycle children's subtrees, shared by all of the cycle's nodes.
    std::vector<uint8_t> assigned(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (on_cycle[i] == 0 || assigned[i] != 0) {
        continue;
      }
      std::vector<uint32_t> component;
      std::vector<NodeId> members;
      NodeId node = engine::MakeId<NodeId>(i);
      do {
        members.push_back(node);
        AddDeclared(cluster, node, component);
        for (NodeId child : tree.Children(node)) {
          if (on_cycle[engine::Index(child)] == 0) {
            Merge(slots_[engine::Index(child)], component);
          }
        }
        node = tree.Parent(node);
      } while (engine::Index(node) != i);
      for (NodeId member : members) {
        assigned[engine::Index(member)] = 1;
        slots_[engine::Index(member)] = component;
      }
    }
  }

  std::vector<FrSlot> Of(NodeId node) const {
    std::vector<FrSlot> out;
    out.reserve(slots_[engine::Index(node)].size());
    for (uint32_t s : slots_[engine::Index(node)]) {
      out.push_back(engine::MakeId<FrSlot>(s));
    }
    return out;
  }

 private:
  // Nodes on a parent cycle (not those hanging below one): one walk up per unvisited node, each
  // node walked once.
  static std::vector<uint8_t> OnCycle(const ResourceTree& tree) {
    const uint32_t n = tree.num_nodes();
    std::vector<uint8_t> on_cycle(n, 0);
    std::vector<uint32_t> walk(n, 0);  // the walk that first reached the node, 0 = none
    for (uint32_t i = 0; i < n; ++i) {
      if (walk[i] != 0 || !tree.InCycle(engine::MakeId<NodeId>(i))) {
        continue;
      }
      const uint32_t id = i + 1;
      NodeId node = engine::MakeId<NodeId>(i);
      while (engine::IsValid(node) && walk[engine::Index(node)] == 0) {
        walk[engine::Index(node)] = id;
        node = tree.Parent(node);
      }
      if (engine::IsValid(node) && walk[engine::Index(node)] == id) {
        NodeId start = node;  // this walk closed a loop at `start`: the loop is the cycle
        do {
          on_cycle[engine::Index(node)] = 1;
          node = tree.Parent(node);
        } while (node != start);
      }
    }
    return on_cycle;
  }

  static void AddDeclared(const Cluster& cluster, NodeId node, std::vector<uint32_t>& into) {
    std::vector<uint32_t> declared;
    for (FrSlot slot : cluster.DeclaredSlots(node)) {
      declared.push_back(engine::Index(slot));
    }
    std::sort(declared.begin(), declared.end());
    declared.erase(std::unique(declared.begin(), declared.end()), declared.end());
    Merge(declared, into);
  }

  // into = into U from (both sorted, no duplicates).
  static void Merge(const std::vector<uint32_t>& from, std::vector<uint32_t>& into) {
    if (from.empty()) {
      return;
    }
    std::vector<uint32_t> merged;
    merged.reserve(from.size() + into.size());
    std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
    into = std::move(merged);
  }

  std::vector<std::vector<uint32_t>> slots_;  // by node
};

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

// Indentation stops growing at this depth, and deeper nodes say their depth instead: a chain
// thousands of levels deep would otherwise print megabytes of spaces per line.
constexpr int kMaxIndentDepth = 32;

void AppendOneNodeText(const Cluster& cluster, const SlotIndex& index, NodeId node, int depth,
                       std::string& out) {
  const ResourceTree& tree = cluster.tree();
  std::string indent(static_cast<size_t>(std::min(depth, kMaxIndentDepth)) * 4, ' ');
  out += indent;
  if (depth > kMaxIndentDepth) {
    out += fmt::format("[depth {}] ", depth);
  }
  out += NodeHeader(cluster, node) + "\n";
  std::vector<FrSlot> slots = index.Of(node);
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
}

// The tree under `root`, depth first in name order, without recursion.
void AppendTreeText(const Cluster& cluster, const SlotIndex& index, NodeId root, std::string& out) {
  std::vector<std::pair<NodeId, int>> stack = {{root, 0}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    AppendOneNodeText(cluster, index, node, depth, out);
    std::vector<NodeId> children = Children(cluster, node);
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      stack.emplace_back(*it, depth + 1);
    }
  }
}

void WriteLimit(Quantity q, JsonWriter& out) {
  if (q.IsUnlimited()) {
    out.Null();
  } else {
    out.Int(q.value());
  }
}

// A node's object up to its open "children" array; WriteNodeJsonTail closes the array and writes
// the rest. Split so that a tree is written without recursion.
void WriteNodeJsonHead(const Cluster& cluster, NodeId node, JsonWriter& out) {
  bool is_cq = cluster.IsClusterQueueNode(node);
  out.BeginObject();
  if (is_cq) {
    engine::CqId cq = cluster.NodeClusterQueue(node);
    out.Key("active");
    out.Bool(cluster.Inactive(cq) == engine::InactiveReason::kNone);
  }
  out.Key("children");
  out.BeginArray();
}

void WriteNodeJsonTail(const Cluster& cluster, const SlotIndex& index, NodeId node,
                       JsonWriter& out) {
  const ResourceTree& tree = cluster.tree();
  bool is_cq = cluster.IsClusterQueueNode(node);
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
  for (FrSlot slot : index.Of(node)) {
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

// The node, and with `recurse` its subtree in name order, as nested objects; no recursion.
void WriteNodeJson(const Cluster& cluster, const SlotIndex& index, NodeId node, bool recurse,
                   JsonWriter& out) {
  struct Frame {
    NodeId node;
    std::vector<NodeId> children;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  WriteNodeJsonHead(cluster, node, out);
  stack.push_back({node, recurse ? Children(cluster, node) : std::vector<NodeId>{}});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      NodeId child = top.children[top.next++];
      WriteNodeJsonHead(cluster, child, out);
      stack.push_back({child, Children(cluster, child)});
      continue;
    }
    WriteNodeJsonTail(cluster, index, top.node, out);
    stack.pop_back();
  }
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
  const SlotIndex index(cluster);
  Summary s = Summarize(cluster);
  std::string out = fmt::format(
      "Cohort forest: {} tree(s), {} cohort(s) ({} implicit), {} ClusterQueue(s) ({} inactive), "
      "{} flavor/resource slot(s)\n",
      s.trees, s.cohorts, s.implicit_cohorts, s.cluster_queues, s.inactive_cluster_queues,
      cluster.num_slots());
  out += "Amounts: cpu in cores or millicores (m), other resources in units; '-' = no limit.\n";
  for (NodeId root : Roots(cluster)) {
    out += "\n";
    AppendTreeText(cluster, index, root, out);
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
  const SlotIndex index(cluster);
  out.BeginObject();
  out.Key("cycles");
  out.BeginArray();
  for (NodeId node : CycleNodes(cluster)) {
    WriteNodeJson(cluster, index, node, /*recurse=*/false, out);
  }
  out.EndArray();
  out.Key("roots");
  out.BeginArray();
  for (NodeId root : Roots(cluster)) {
    WriteNodeJson(cluster, index, root, /*recurse=*/true, out);
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
