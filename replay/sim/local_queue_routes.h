// File: replay/sim/local_queue_routes.h
//
// What routing a plain Workload event takes, kept per LocalQueue the trace names: the shard the
// event is applied in (engine::ShardPlan::RouteToLocalQueue) and, while the plan made from the
// manifests is checked against the trace (replay/sim/simulator.cc), the queue's node in the
// trace's planner (engine::ShardPlanner::LocalQueueNode). Both were found for every event by
// building "LocalQueue/<namespace>/<queue>" twice and looking it up in two string maps: most of
// the reader's routing phase (0.27 s of the moderate 1,000,000-workload trace's 4.8 s of CPU on
// one thread, and on the reader's thread with two). Here one lookup of "<namespace>/<queue>".
//
// A plain Workload event (PlainWorkload): an ADDED or MODIFIED Workload line read by the event
// parser's fast path (nothing but the one Workload in its object) whose Workload has no
// status.admission ClusterQueue. Route and the planner's AddManifests would answer it from those
// names alone, as Get and ShardPlanner::AddWorkloadName do.
//
//   LocalQueueRoutes routes(plan, planner);  // planner: null when nothing is checked
//   for (const ParsedLine& line : batch)
//     if (std::optional<int> shard = routes.RouteAndPlan(line)) ...;  // else not an event
//
// Memory: one entry per distinct queue, at most kMaxQueues (a trace naming more is answered
// without keeping the rest). Thread safety: none (the reader's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/base/string_map.h"
#include "engine/shard/shard_plan.h"
#include "replay/io/parallel_reader.h"

namespace replay {

// The Workload of `line` when the line is a plain Workload event (above), else null.
const engine::WorkloadSpec* PlainWorkload(const ParsedLine& line);

class LocalQueueRoutes {
 public:
  static constexpr size_t kMaxQueues = size_t{1} << 16;

  struct Route {
    int shard = 0;
    uint32_t node = 0;  // in the planner; 0 without one
  };

  // Both outlive this object; `planner` may be null.
  LocalQueueRoutes(const engine::ShardPlan& plan, engine::ShardPlanner* planner)
      : plan_(plan), planner_(planner) {}

  Route Get(std::string_view name_space, std::string_view queue_name);
  // Any line of the trace: routed, and added to the planner (when there is one), as RouteEvent
  // and PlanLine (replay/sim/sharded_replay.h) would, a plain Workload event through Get. The
  // shard or ShardPlan::kEveryShard; nullopt for a line that is not an event (planned all the
  // same, as PlanLine plans a rejected line the first pass reads).
  std::optional<int> RouteAndPlan(const ParsedLine& line);
  size_t size() const { return routes_.size(); }

 private:
  const engine::ShardPlan& plan_;
  engine::ShardPlanner* planner_;
  engine::StringMap<Route> routes_;  // "<namespace>/<queue>"
};

}  // namespace replay
