// File: engine/queue_introspection.cc
//
// QueueManager's read-only views (engine/queue_manager.h, "Introspection"): the pending workloads
// of a ClusterQueue in heap order, its inadmissible ones, the counts and locations, the orphans
// and the cycle stamps. For the report, `explain` and tests; nothing here is on the scheduling
// path. A head popped and left in its heap (Settle, queue_heap.cc) reads as in flight.
#include <algorithm>
#include <vector>

#include "engine/cluster.h"
#include "engine/queue_manager.h"
#include "engine/workload_store.h"

namespace engine {

// --- Introspection -------------------------------------------------------------------------

std::vector<WorkloadId> QueueManager::PendingActive(CqId cq) const {
  std::vector<WorkloadId> out;
  const CqQueue* q = FindCq(cq);
  if (q == nullptr) {
    return out;
  }
  std::vector<HeapNode> nodes;
  nodes.reserve(q->active + 1);
  for (const GroupNode& node : q->heap) {
    const uint32_t group = entries_[Index(node.id)].group;
    if (group == kSingleton) {
      nodes.push_back(node);
      continue;
    }
    const Group& g = groups_[group];
    nodes.insert(nodes.end(), g.heap.begin(), g.heap.end());
  }
  // A head popped and still in the heap is in flight, not pending in it (Settle).
  std::erase_if(nodes, [&](const HeapNode& n) { return n.id == q->held; });
  WorkloadId sticky = Sticky(*q);
  std::sort(nodes.begin(), nodes.end(),
            [&](const HeapNode& a, const HeapNode& b) { return Before(a, b, sticky); });
  out.reserve(nodes.size());
  for (const HeapNode& n : nodes) {
    out.push_back(n.id);
  }
  return out;
}

std::vector<WorkloadId> QueueManager::PendingInadmissible(CqId cq) const {
  std::vector<WorkloadId> out;
  const CqQueue* q = FindCq(cq);
  if (q == nullptr) {
    return out;
  }
  std::vector<HeapNode> nodes;
  nodes.reserve(q->inadmissible.size() + q->parked_members);
  for (WorkloadId id : q->inadmissible) {
    const Entry& e = entries_[Index(id)];
    nodes.push_back({e.order_time, e.priority, id});
  }
  for (uint32_t group : q->parked) {
    nodes.insert(nodes.end(), groups_[group].heap.begin(), groups_[group].heap.end());
  }
  WorkloadId sticky = Sticky(*q);
  std::sort(nodes.begin(), nodes.end(),
            [&](const HeapNode& a, const HeapNode& b) { return Before(a, b, sticky); });
  out.reserve(nodes.size());
  for (const HeapNode& n : nodes) {
    out.push_back(n.id);
  }
  return out;
}

size_t QueueManager::PendingCount(CqId cq) const {
  const CqQueue* q = FindCq(cq);
  return q == nullptr ? 0 : q->active + q->parked_members + q->inadmissible.size() + q->inflight;
}

QueueLocation QueueManager::Location(WorkloadId id) const {
  if (Index(id) >= entries_.size()) {
    return QueueLocation::kNone;
  }
  const Entry& e = entries_[Index(id)];
  if (e.location == QueueLocation::kActive && e.group != kSingleton && groups_[e.group].parked) {
    return QueueLocation::kInadmissible;  // its group was parked whole (BulkMoveHash)
  }
  return e.location;
}

std::vector<WorkloadId> QueueManager::Orphans(std::string_view local_queue_key) const {
  auto it = orphans_.find(local_queue_key);
  if (it == orphans_.end()) {
    return {};
  }
  return {it->second.begin(), it->second.end()};
}

bool QueueManager::HashRecorded(CqId cq, uint64_t hash) const {
  const CqQueue* q = FindCq(cq);
  return q != nullptr && q->recorded_hashes.count(hash) != 0;
}

int64_t QueueManager::LastPopCycle(CqId cq) const {
  const CqQueue* q = FindCq(cq);
  return q == nullptr ? -1 : q->last_pop_cycle;
}

int64_t QueueManager::LastInadmissibleRequeueCycle(CqId cq) const {
  const CqQueue* q = FindCq(cq);
  int64_t last = q == nullptr ? -1 : q->last_requeue_cycle;
  // QueueInadmissible stamps the tree, not each member it had nothing to do for.
  if (Index(cq) >= cluster_.num_cluster_queues()) {
    return last;
  }
  const NodeId node = cluster_.ClusterQueueNode(cq);
  if (IsValid(node) && !cluster_.tree().InCycle(node)) {
    const size_t root = Index(cluster_.tree().Root(node));
    if (root < tree_members_.size()) {
      last = std::max(last, tree_members_[root].last_requeue_cycle);
    }
  }
  return last;
}

}  // namespace engine
