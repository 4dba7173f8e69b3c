// File: replay/sim/local_queue_routes.cc
#include "replay/sim/local_queue_routes.h"

#include <string>

#include "replay/sim/sharded_replay.h"

namespace replay {

const engine::WorkloadSpec* PlainWorkload(const ParsedLine& line) {
  const TraceEvent& event = line.event;
  if (line.result != ReadResult::kEvent || line.routed || event.type == EventType::kDeleted
      || event.object_loaded || event.object.workloads.size() != 1 || event.kind != "Workload") {
    return nullptr;
  }
  const engine::WorkloadSpec& w = event.object.workloads.front();
  if (w.admission && !w.admission->cluster_queue.empty()) {
    return nullptr;  // routed by its ClusterQueue, and tying it to the LocalQueue
  }
  return &w;
}

LocalQueueRoutes::Route LocalQueueRoutes::Get(std::string_view name_space,
                                              std::string_view queue_name) {
  const engine::SlashKey key(name_space, queue_name);
  if (auto it = routes_.find(key.view()); it != routes_.end()) {
    return it->second;
  }
  Route route;
  route.shard = plan_.RouteToLocalQueue(name_space, queue_name);
  if (planner_ != nullptr) {
    route.node = planner_->LocalQueueNode(name_space, queue_name);
  }
  if (routes_.size() < kMaxQueues) {
    routes_.emplace(std::string(key.view()), route);
  }
  return route;
}

std::optional<int> LocalQueueRoutes::RouteAndPlan(const ParsedLine& line) {
  if (const engine::WorkloadSpec* plain = PlainWorkload(line)) {
    const Route route = Get(plain->name_space, plain->queue_name);
    if (planner_ != nullptr) {
      planner_->AddWorkloadName(route.node, plain->name_space, plain->name);
    }
    return route.shard;
  }
  if (planner_ != nullptr) {
    PlanLine(*planner_, line);
  }
  if (line.result != ReadResult::kEvent) {
    return std::nullopt;
  }
  return RouteEvent(plan_, line.event);
}

}  // namespace replay
