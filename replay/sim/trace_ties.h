// File: replay/sim/trace_ties.h
//
// The replay's first pass over a trace (docs/replay.md, "Shards"): what its events tie together,
// for the shard planner (engine/shard/shard_plan.h). The planner unites names, so the order in
// which the trace and the manifests are added does not matter: the pass can run before the
// manifests are loaded, or while they load on another thread (RunReplay does with two threads
// or more), and Simulator::Run then adds the manifests to the planner it made.
//
//   tbb::task_arena arena;
//   TraceTies ties = ScanTraceTies("events.jsonl", arena, /*batch_lines=*/2048, max_line_bytes);
//   if (!ties.status.ok()) ...;                     // the trace cannot be opened
//   simulator.UseTraceTies(std::move(ties));        // before Simulator::Run
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include <tbb/task_arena.h>

#include "engine/base/status.h"
#include "engine/shard/shard_plan.h"

namespace replay {

struct TraceTies {
  std::string path;              // the trace the pass read
  engine::Status status;         // not ok: it could not be opened, and nothing was added
  engine::ShardPlanner planner;  // the names every event of the trace ties together
};

// Reads the trace at `path` (a file, not standard input) in batches of `batch_lines`, parsed on
// `arena`'s threads (replay/io/routing_line_parser.h), and adds each event to `planner`. When
// `cancel` (may be null) turns true it stops after the batch it is reading, with the pass
// incomplete: the caller then throws the planner away.
engine::Status AddTraceTies(const std::string& path, tbb::task_arena& arena, size_t batch_lines,
                            size_t max_line_bytes, engine::ShardPlanner& planner,
                            const std::atomic<bool>* cancel = nullptr);

// AddTraceTies into a planner of its own.
TraceTies ScanTraceTies(const std::string& path, tbb::task_arena& arena, size_t batch_lines,
                        size_t max_line_bytes, const std::atomic<bool>* cancel = nullptr);

}  // namespace replay
