#include "engine/shard/shard_plan.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>

#include "engine/base/slash_join.h"

namespace engine {
// --- ShardPlan ---

int ShardPlan::ShardOf(std::string_view kind, std::string_view name) const {
  auto it = shard_of_.find(SlashKey(kind, name).view());
  return it == shard_of_.end() ? 0 : it->second;
}

int ShardPlan::ShardOfWorkload(const WorkloadSpec& w) const {
  if (w.admission && !w.admission->cluster_queue.empty()) {
    return ShardOf("ClusterQueue", w.admission->cluster_queue);
  }
  return ShardOfLocalQueue(w.name_space, w.queue_name);
}

int ShardPlan::ShardOfLocalQueue(std::string_view name_space, std::string_view queue_name) const {
  return ShardOf("LocalQueue", SlashKey(name_space, queue_name).view());
}

int ShardPlan::RouteToLocalQueue(std::string_view name_space, std::string_view queue_name) const {
  return num_shards() <= 1 ? 0 : ShardOfLocalQueue(name_space, queue_name);
}

int ShardPlan::Route(std::string_view kind, std::string_view name,
                     const ClusterSpec* object) const {
  if (num_shards() <= 1) {
    return 0;
  }
  if (kind == "Workload") {
    if (object == nullptr || object->workloads.empty()) {
      return kEveryShard;
    }
    return ShardOfWorkload(object->workloads[0]);
  }
  if (kind == "ClusterQueue" || kind == "Cohort" || kind == "LocalQueue") {
    return ShardOf(kind, name);
  }
  return kEveryShard;
}

ClusterSpec ShardPlan::ManifestsFor(int shard, const ClusterSpec& all) const {
  ClusterSpec part;
  part.flavors = all.flavors;
  part.priority_classes = all.priority_classes;
  part.configuration = all.configuration;
  part.flavor_supplies = all.flavor_supplies;
  part.resource_classes = all.resource_classes;
  part.nodes = all.nodes;
  part.admission_checks = all.admission_checks;
  for (const CohortSpec& c : all.cohorts) {
    if (ShardOf("Cohort", c.name) == shard) {
      part.cohorts.push_back(c);
    }
  }
  for (const ClusterQueueSpec& cq : all.cluster_queues) {
    if (ShardOf("ClusterQueue", cq.name) == shard) {
      part.cluster_queues.push_back(cq);
    }
  }
  for (const LocalQueueSpec& lq : all.local_queues) {
    if (ShardOf("LocalQueue", SlashJoin(lq.name_space, lq.name)) == shard) {
      part.local_queues.push_back(lq);
    }
  }
  for (const WorkloadSpec& w : all.workloads) {
    if (ShardOfWorkload(w) == shard) {
      part.workloads.push_back(w);
    }
  }
  return part;
}

// --- ShardPlanner ---

uint32_t ShardPlanner::Node(std::string_view kind, std::string_view name) {
  const SlashKey key(kind, name);
  if (auto it = ids_.find(key.view()); it != ids_.end()) {
    return it->second;
  }
  const auto id = static_cast<uint32_t>(keys_.size());
  ids_.emplace(std::string(key.view()), id);
  keys_.emplace_back(key.view());
  parent_.push_back(id);
  return id;
}

uint32_t ShardPlanner::Find(uint32_t x) const {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];  // path halving
    x = parent_[x];
  }
  return x;
}

void ShardPlanner::Join(uint32_t a, uint32_t b) {
  Unite(a, b);
}

void ShardPlanner::Unite(uint32_t a, uint32_t b) const {
  a = Find(a);
  b = Find(b);
  if (a != b) {
    parent_[std::max(a, b)] = std::min(a, b);
  }
}

void ShardPlanner::AddCohort(const CohortSpec& cohort) {
  uint32_t node = Node("Cohort", cohort.name);
  if (!cohort.parent.empty()) {
    Join(node, Node("Cohort", cohort.parent));
  }
}

void ShardPlanner::AddClusterQueue(const ClusterQueueSpec& cq) {
  uint32_t node = Node("ClusterQueue", cq.name);
  for (const ResourceGroupSpec& group : cq.resource_groups) {
    for (const std::string& resource : group.covered_resources) {
      queues_covering_[resource].push_back(node);
    }
  }
  if (!cq.cohort.empty()) {
    Join(node, Node("Cohort", cq.cohort));
  }
}

void ShardPlanner::AddLocalQueue(const LocalQueueSpec& lq) {
  uint32_t node = Node("LocalQueue", SlashJoin(lq.name_space, lq.name));
  if (!lq.cluster_queue.empty()) {
    Join(node, Node("ClusterQueue", lq.cluster_queue));
  }
}

void ShardPlanner::AddWorkload(const WorkloadSpec& w) {
  std::string_view admitted;
  if (w.admission) {
    admitted = w.admission->cluster_queue;
  }
  AddWorkloadNames(w.name_space, w.name, w.queue_name, admitted);
}

void ShardPlanner::AddWorkloadNames(std::string_view name_space, std::string_view name,
                                    std::string_view queue_name,
                                    std::string_view admitted_cluster_queue) {
  uint32_t node = LocalQueueNode(name_space, queue_name);
  if (!admitted_cluster_queue.empty()) {
    Join(node, Node("ClusterQueue", admitted_cluster_queue));
  }
  AddWorkloadName(node, name_space, name);
}

uint32_t ShardPlanner::LocalQueueNode(std::string_view name_space, std::string_view queue_name) {
  return Node("LocalQueue", SlashKey(name_space, queue_name).view());
}

void ShardPlanner::AddWorkloadName(uint32_t local_queue_node, std::string_view name_space,
                                   std::string_view name) {
  auto [it, inserted] = workload_hashes_.try_emplace(local_queue_node);
  if (inserted) {  // the node's first Workload: its namespace, which every later one shares
    auto ns = namespaces_.find(name_space);
    if (ns == namespaces_.end()) {
      ns = namespaces_.emplace(std::string(name_space), static_cast<uint32_t>(namespaces_.size()))
               .first;
    }
    it->second.name_space = ns->second;
  }
  it->second.hashes.push_back(std::hash<std::string_view>{}(SlashKey(name_space, name).view()));
  if (++workload_entries_ >= next_dedup_) {
    DedupWorkloadHashes();
    next_dedup_ = std::max(next_dedup_, 2 * workload_entries_);
  }
}

size_t ShardPlanner::Dedup(QueueNames& names) {
  std::deque<uint64_t>& hashes = names.hashes;
  std::sort(hashes.begin(), hashes.end());
  const auto repeats = std::unique(hashes.begin(), hashes.end());
  const auto dropped = static_cast<size_t>(hashes.end() - repeats);
  hashes.erase(repeats, hashes.end());
  return dropped;
}

void ShardPlanner::DedupWorkloadHashes() const {
  for (auto& [node, names] : workload_hashes_) {
    workload_entries_ -= Dedup(names);
  }
}

void ShardPlanner::JoinWorkloadQueues() const {
  // "ns/name" names one Workload, and its LocalQueue is in its namespace: a name ties queues of
  // one namespace only. A namespace whose Workload events all named one queue ties nothing, and
  // its names are neither sorted nor merged (each namespace of issue 22's moderate trace has one
  // queue: the sorts and the merge were 3 % of its instructions). Only a hash repeated in two
  // namespaces joined their queues before, which "ns/name" cannot mean.
  std::map<uint32_t, std::vector<uint32_t>> queues_of_namespace;
  for (const auto& [node, names] : workload_hashes_) {
    if (!names.hashes.empty()) {
      queues_of_namespace[names.name_space].push_back(node);
    }
  }
  // Every list of the namespace is sorted: merged in hash order, a name met again under another
  // queue joins that queue with the first one it was met under. Which queue joins which does not
  // matter: the components are the same, and shards are numbered by their smallest names.
  struct Cursor {
    uint64_t hash;
    uint32_t node;
    const std::deque<uint64_t>* hashes;
    size_t next;
  };
  auto later = [](const Cursor& a, const Cursor& b) {
    return std::tie(a.hash, a.node) > std::tie(b.hash, b.node);
  };
  std::vector<Cursor> heap;
  for (const auto& [name_space, nodes] : queues_of_namespace) {
    if (nodes.size() < 2) {
      continue;
    }
    heap.clear();
    for (uint32_t node : nodes) {
      QueueNames& names = workload_hashes_.at(node);
      workload_entries_ -= Dedup(names);
      heap.push_back({names.hashes.front(), node, &names.hashes, 1});
    }
    std::make_heap(heap.begin(), heap.end(), later);
    std::optional<std::pair<uint64_t, uint32_t>> first_seen;  // (name hash, its first queue)
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Cursor& c = heap.back();
      if (first_seen.has_value() && first_seen->first == c.hash) {
        Unite(first_seen->second, c.node);
      } else {
        first_seen.emplace(c.hash, c.node);
      }
      if (c.next == c.hashes->size()) {
        heap.pop_back();
        continue;
      }
      c.hash = (*c.hashes)[c.next++];
      std::push_heap(heap.begin(), heap.end(), later);
    }
  }
}

void ShardPlanner::JoinResourceClassUsers() const {
  std::optional<uint32_t> first;
  for (const std::string& name : resource_classes_) {
    auto it = queues_covering_.find(name);
    if (it == queues_covering_.end()) {
      continue;
    }
    for (uint32_t node : it->second) {
      if (!first.has_value()) {
        first = node;
        continue;
      }
      Unite(*first, node);
    }
  }
}

void ShardPlanner::AddManifests(const ClusterSpec& spec) {
  for (const ResourceClassSpec& rc : spec.resource_classes) {
    resource_classes_.insert(rc.name);
  }
  for (const CohortSpec& c : spec.cohorts) {
    AddCohort(c);
  }
  for (const ClusterQueueSpec& cq : spec.cluster_queues) {
    AddClusterQueue(cq);
  }
  for (const LocalQueueSpec& lq : spec.local_queues) {
    AddLocalQueue(lq);
  }
  for (const WorkloadSpec& w : spec.workloads) {
    AddWorkload(w);
  }
}

ShardPlan ShardPlanner::Build(bool single) const {
  JoinWorkloadQueues();
  JoinResourceClassUsers();
  ShardPlan plan;
  // The label of a component: its smallest Cohort or ClusterQueue key.
  std::map<uint32_t, std::string> label_of_root;
  for (uint32_t i = 0; i < keys_.size(); ++i) {
    const std::string& key = keys_[i];
    if (!key.starts_with("Cohort/") && !key.starts_with("ClusterQueue/")) {
      continue;
    }
    auto [it, inserted] = label_of_root.try_emplace(Find(i), key);
    if (!inserted && key < it->second) {
      it->second = key;
    }
  }
  std::vector<std::pair<std::string, uint32_t>> ordered;
  ordered.reserve(label_of_root.size());
  for (const auto& [root, label] : label_of_root) {
    ordered.emplace_back(label, root);
  }
  std::sort(ordered.begin(), ordered.end());
  if (single || ordered.size() <= 1) {
    plan.labels_ = {ordered.empty() ? std::string("(all)") : ordered.front().first};
    if (ordered.size() > 1) {
      plan.labels_[0] = "(all)";
    }
    return plan;  // everything in shard 0: shard_of_ stays empty
  }
  std::unordered_map<uint32_t, int> shard_of_root;
  for (const auto& [label, root] : ordered) {
    shard_of_root.emplace(root, static_cast<int>(plan.labels_.size()));
    plan.labels_.push_back(label);
  }
  for (uint32_t i = 0; i < keys_.size(); ++i) {
    auto it = shard_of_root.find(Find(i));
    if (it != shard_of_root.end() && it->second != 0) {
      plan.shard_of_.emplace(keys_[i], it->second);
    }
  }
  return plan;
}

}  // namespace engine
