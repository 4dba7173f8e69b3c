// File: engine/shard/sharded_engine.h
//
// The lock-sharded concurrent engine: one state per shard (engine/shard/shard_plan.h), each behind
// its own lock. The engine knows nothing of what a shard's state is: the replay keeps a
// ShardSimulator per shard (replay/sim/sharded_replay.h), a benchmark may keep a bare scheduler.
//
// Thread-safety contract:
//  - Every method may be called from any thread, concurrently.
//  - Calls on different shards never wait for each other: shards share no mutable state (each
//    state has its own cluster, quota tree, workload store, queues, scheduler, clock and log).
//  - Calls on one shard serialise on that shard's lock, in the order the threads get it. For a
//    deterministic replay a caller gives each shard its events in trace order (the driver in
//    replay/sim/simulator.cc hands a shard's events to one task).
//  - The plan and the number of shards never change after construction.
// The locks are annotated for clang's thread-safety analysis (engine/base/mutex.h): touching a
// shard's state without its lock does not compile under -Wthread-safety.
//
//   ShardedEngine<ShardSimulator> engine(plan, [&](int i) { return MakeShard(i); });
//   engine.With(shard, [&](ShardSimulator& s) { s.AdvanceTo(t); ... });   // from any thread
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "engine/base/mutex.h"
#include "engine/shard/shard_plan.h"

namespace engine {

template <typename State>
class ShardedEngine {
 public:
  // `make(i)` returns shard i's state as a std::unique_ptr<State>, for i in [0, plan.num_shards()).
  template <typename Make>
  ShardedEngine(ShardPlan plan, Make&& make)
      : ShardedEngine(std::move(plan), std::forward<Make>(make), [](size_t n, auto&& make_one) {
          for (size_t i = 0; i < n; ++i) {
            make_one(i);
          }
        }) {}
  // The same, with the states made through `for_each(n, make_one)`, which calls make_one(i) once
  // for each i in [0, n), possibly on several threads at once: `make` must then be safe to call
  // concurrently for different shards (the replay builds its shards' engines in parallel).
  template <typename Make, typename ForEach>
  ShardedEngine(ShardPlan plan, Make&& make, ForEach&& for_each) : plan_(std::move(plan)) {
    std::vector<std::unique_ptr<State>> owners(static_cast<size_t>(plan_.num_shards()));
    for_each(owners.size(), [&](size_t i) { owners[i] = make(static_cast<int>(i)); });
    for (std::unique_ptr<State>& owner : owners) {
      auto shard = std::make_unique<Shard>();
      shard->owner = std::move(owner);
      MutexLock lock(shard->mu);
      shard->state = shard->owner.get();
      shards_.push_back(std::move(shard));
    }
  }
  ShardedEngine(const ShardedEngine&) = delete;
  ShardedEngine& operator=(const ShardedEngine&) = delete;
  ShardedEngine(ShardedEngine&&) = delete;  // the shards' locks stay where they are
  ShardedEngine& operator=(ShardedEngine&&) = delete;
  ~ShardedEngine() = default;

  int num_shards() const { return static_cast<int>(shards_.size()); }
  const ShardPlan& plan() const { return plan_; }

  // Runs `f(State&)` with the shard's lock held and returns what it returns.
  template <typename F>
  decltype(auto) With(int shard, F&& f) {
    Shard& s = *shards_[static_cast<size_t>(shard)];
    MutexLock lock(s.mu);
    return std::forward<F>(f)(*s.state);
  }

 private:
  struct Shard {
    Mutex mu;
    // Owns the state and is touched only by the constructor and the destructor; every access
    // goes through `state`, which clang checks. (clang cannot check pt_guarded_by on a
    // unique_ptr of a template parameter, so the guarded pointer is a plain one.)
    std::unique_ptr<State> owner;
    State* state TALLY_PT_GUARDED_BY(mu) = nullptr;
  };

  ShardPlan plan_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace engine
