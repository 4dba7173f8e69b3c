// File: replay/sim/sharded_replay.h
//
// The replay's use of the lock-sharded engine (engine/shard/sharded_engine.h): one ShardSimulator
// per shard, each built from its part of the manifests, and the trace events routed to the
// shards (engine/shard/shard_plan.h) by the object they name.
//
//   ShardedReplay engine(manifests, plan, options, /*log_decisions=*/true);
//   int shard = RouteEvent(engine.plan(), event);            // or ShardPlan::kEveryShard
//   bool ok = ApplyEvent(engine, shard, event, error);       // from any thread
#pragma once

#include <memory>

#include <tbb/task_arena.h>

#include "engine/shard/shard_plan.h"
#include "engine/shard/sharded_engine.h"
#include "replay/io/event_reader.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/parallel_reader.h"
#include "replay/sim/shard_simulator.h"

namespace replay {

class ShardedReplay : public engine::ShardedEngine<ShardSimulator> {
 public:
  // With `arena`, the shards' engines are built on its threads (each from its part of the
  // manifests: nothing is shared but what is read). The shards share one table of the
  // Namespaces' labels; a shard copies it when a Namespace event writes to it.
  ShardedReplay(const LoadResult& manifests, engine::ShardPlan plan,
                const SimulatorOptions& options, bool log_decisions,
                tbb::task_arena* arena = nullptr);

 private:
  ShardedReplay(const LoadResult& manifests, engine::ShardPlan plan,
                const SimulatorOptions& options, bool log_decisions, tbb::task_arena* arena,
                const std::shared_ptr<const engine::NamespaceLabels::Table>& namespaces);
};

// The shard `event` is applied in (engine::ShardPlan::Route), or ShardPlan::kEveryShard.
inline int RouteEvent(const engine::ShardPlan& plan, const TraceEvent& event) {
  return plan.Route(event.kind, event.name,
                    event.type == EventType::kDeleted ? nullptr : &event.object);
}

// Adds what `event` ties together to the plan; a deletion names an object and ties nothing.
inline void PlanEvent(engine::ShardPlanner& planner, const TraceEvent& event) {
  if (event.type != EventType::kDeleted) {
    planner.AddManifests(event.object);
  }
}

// Adds what a line of the trace ties together, as the first pass reads it: a plain Workload
// line's names (`routed`), else its event; nothing for a rejected line, unless the replay's reader
// read its names the first pass's way (ParallelEventReader::set_error_ties).
inline void PlanLine(engine::ShardPlanner& planner, const ParsedLine& line) {
  if (line.result != ReadResult::kEvent && !line.error_ties) {
    return;
  }
  if (line.routed) {
    planner.AddWorkloadNames(line.route.name_space, line.route.name, line.route.queue_name, "");
  } else {
    PlanEvent(planner, line.event);
  }
}

// Applies a trace event in `shard` (ShardSimulator::Apply), under the shard's lock.
inline bool ApplyEvent(ShardedReplay& engine, int shard, TraceEvent& event, EventError& error) {
  return engine.With(shard, [&](ShardSimulator& s) { return s.Apply(event, error); });
}

}  // namespace replay
