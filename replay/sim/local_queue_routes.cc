// File: replay/sim/local_queue_routes.cc
#include "replay/sim/local_queue_routes.h"

#include <string>

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

}  // namespace replay
