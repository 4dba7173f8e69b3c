// File: replay/sharded_engine.h
//
// The thread-safe face of the replay engine: one ShardSimulator per shard (replay/shard_plan.h),
// each behind its own lock.
//
// Thread-safety contract:
//  - Every method may be called from any thread, concurrently.
//  - Calls on different shards never wait for each other: shards share no mutable state (each
//    has its own cluster, quota tree, workload store, queues, scheduler, clock and log).
//  - Calls on one shard serialise on that shard's lock, in the order the threads get it. For a
//    deterministic replay a caller gives each shard its events in trace order (the driver in
//    replay/simulator.cc hands a shard's events to one task).
//  - The plan and the number of shards never change after construction.
// The locks are annotated for clang's thread-safety analysis (engine/base/mutex.h): touching a
// shard's simulator without its lock does not compile under -Wthread-safety.
//
//   ShardedEngine engine(manifests, plan, options, /*log_decisions=*/true);
//   int shard = engine.plan().Route(event);               // or ShardPlan::kEveryShard
//   bool ok = engine.Apply(shard, event, error);          // from any thread
//   engine.With(shard, [&](ShardSimulator& s) { s.AdvanceTo(t); ... });
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "engine/base/mutex.h"
#include "replay/manifest_loader.h"
#include "replay/shard_plan.h"
#include "replay/shard_simulator.h"

namespace replay {

class ShardedEngine {
 public:
  ShardedEngine(const LoadResult& manifests, ShardPlan plan, const SimulatorOptions& options,
                bool log_decisions);
  ShardedEngine(const ShardedEngine&) = delete;
  ShardedEngine& operator=(const ShardedEngine&) = delete;

  int num_shards() const { return static_cast<int>(shards_.size()); }
  const ShardPlan& plan() const { return plan_; }

  // Runs `f(ShardSimulator&)` with the shard's lock held and returns what it returns.
  template <typename F>
  decltype(auto) With(int shard, F&& f) {
    Shard& s = *shards_[static_cast<size_t>(shard)];
    engine::MutexLock lock(s.mu);
    return std::forward<F>(f)(*s.sim);
  }

  // Applies a trace event in `shard` (see ShardSimulator::Apply).
  bool Apply(int shard, TraceEvent& event, EventError& error) {
    return With(shard, [&](ShardSimulator& s) { return s.Apply(event, error); });
  }
  void AdvanceTo(int shard, int64_t t) {
    With(shard, [&](ShardSimulator& s) { s.AdvanceTo(t); });
  }

 private:
  struct Shard {
    engine::Mutex mu;
    std::unique_ptr<ShardSimulator> sim TALLY_PT_GUARDED_BY(mu);
  };

  ShardPlan plan_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace replay
