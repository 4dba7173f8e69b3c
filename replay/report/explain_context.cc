#include "replay/report/explain_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engine/queue_manager.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

// Why `a` is ahead of `w` in the heap order (engine/queue_heap.cc, QueueManager::Before).
std::string AheadRule(const engine::Workload& a, const engine::Workload& w,
                      std::optional<engine::WorkloadId> preemptor) {
  if (preemptor && *preemptor == a.id) {
    return "the ClusterQueue's pending preemptor goes first";
  }
  if (a.priority != w.priority) {
    return fmt::format("higher priority ({} > {})", a.priority, w.priority);
  }
  if (a.queue_order_time != w.queue_order_time) {
    return fmt::format("same priority, queued earlier ({})", FormatRfc3339(a.queue_order_time));
  }
  return "same priority and time, smaller uid";
}

}  // namespace

QueuePosition FindQueuePosition(const ClusterState& state, const engine::Workload& w) {
  const engine::QueueManager& queues = *state.queues;
  QueuePosition p;
  p.location = engine::ToString(queues.Location(w.id));
  const std::vector<engine::WorkloadId> active = queues.PendingActive(w.cluster_queue);
  p.active = active.size();
  p.inadmissible = queues.PendingInadmissible(w.cluster_queue).size();
  const auto it = std::find(active.begin(), active.end(), w.id);
  if (it == active.end()) {
    return p;
  }
  p.position = static_cast<size_t>(it - active.begin()) + 1;
  p.ahead_total = p.position - 1;
  const std::optional<engine::WorkloadId> preemptor = queues.Preemptor(w.cluster_queue);
  // The nearest ones ahead: the last kShown before it in heap order.
  const size_t from =
      p.ahead_total > QueuePosition::kShown ? p.ahead_total - QueuePosition::kShown : 0;
  for (size_t i = from; i < p.ahead_total; ++i) {
    const engine::Workload& a = state.store->Get(active[i]);
    p.ahead.push_back(QueueAhead{a.key, a.priority, AheadRule(a, w, preemptor)});
  }
  return p;
}

QuotaHolders FindQuotaHolders(const ClusterState& state, const engine::Workload& w,
                              const engine::CycleEntry& entry) {
  const engine::Cluster& c = *state.cluster;
  const engine::ResourceTree& tree = c.tree();
  std::set<engine::ResourceId> resources;
  for (const engine::PodSetRequest& ps : w.pod_sets) {
    for (const engine::ResourceAmount& r : ps.total) {
      resources.insert(r.resource);
    }
  }
  std::set<engine::FrSlot> slots;
  for (const engine::PodSetAssignment& ps : entry.assignment.pod_sets) {
    for (const engine::FlavorAttempt& at : ps.attempts) {
      for (engine::ResourceId r : resources) {
        if (std::optional<engine::FrSlot> slot = c.FindSlot(c.Name(at.flavor), c.Name(r))) {
          slots.insert(*slot);
        }
      }
    }
    for (const engine::FlavorChoice& f : ps.flavors) {
      if (std::optional<engine::FrSlot> slot = c.FindSlot(c.Name(f.flavor), c.Name(f.resource))) {
        slots.insert(*slot);
      }
    }
  }
  QuotaHolders out;
  if (slots.empty()) {
    return out;
  }
  const engine::NodeId root = tree.Root(c.ClusterQueueNode(w.cluster_queue));
  struct Ranked {
    int64_t total = 0;
    QuotaHolder holder;
  };
  std::vector<Ranked> ranked;
  for (uint32_t i = 0; i < c.num_cluster_queues(); ++i) {
    const auto cq = engine::MakeId<engine::CqId>(i);
    if (!c.Exists(cq) || tree.Root(c.ClusterQueueNode(cq)) != root) {
      continue;
    }
    const engine::NodeId node = c.ClusterQueueNode(cq);
    for (engine::WorkloadId id : state.store->Admitted(cq)) {
      const engine::Workload& a = state.store->Get(id);
      Ranked r;
      for (const engine::SlotAmount& u : a.usage) {
        if (slots.count(u.slot) == 0 || u.amount.value() <= 0) {
          continue;
        }
        const engine::FlavorResource key = c.SlotKey(u.slot);
        r.holder.usage.emplace_back(c.Name(key.flavor) + "/" + c.Name(key.resource),
                                    u.amount.value());
        r.total += u.amount.value();
        r.holder.cluster_queue_borrows =
            r.holder.cluster_queue_borrows || tree.Usage(node, u.slot) > tree.Nominal(node, u.slot);
      }
      if (r.holder.usage.empty()) {
        continue;
      }
      r.holder.workload = a.key;
      r.holder.cluster_queue = c.Name(cq);
      r.holder.priority = a.priority;
      ranked.push_back(std::move(r));
    }
  }
  out.total = ranked.size();
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    return a.total != b.total ? a.total > b.total : a.holder.workload < b.holder.workload;
  });
  for (size_t i = 0; i < ranked.size() && i < QuotaHolders::kShown; ++i) {
    out.largest.push_back(std::move(ranked[i].holder));
  }
  return out;
}

}  // namespace replay
