// File: replay/sim/shard_cpu.h
//
// How the shards' own work splits between them, with `tally replay --profile`. A shard's steps
// run one at a time (under its lock), so however many threads replay, a run lasts at least as
// long as its busiest shard's steps take: on the 16-tree trace one Cohort tree has over half of
// the shards' CPU time, and no number of threads makes that replay twice as fast as one. The
// profile prints the busiest shard's share and that bound (replay/report/profile_report.cc).
// Without --profile, WithShard is ShardedEngine::With and one relaxed load.
//
//   WithShard(shards, k, [&](ShardSimulator& s) { ... });  // shards.With, timed with --profile
//   std::vector<ShardCpuTime> times = ShardCpuTimes(shards); // after the run, shard by shard
//
// Thread safety: as ShardedEngine::With (a shard's time is added under its lock).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/base/phase_profile.h"
#include "replay/sim/replay_report.h"
#include "replay/sim/shard_simulator.h"
#include "replay/sim/sharded_replay.h"

namespace replay {

// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
int64_t ThreadCpuNanos();

namespace internal {
// Adds the calling thread's CPU time from its construction to its destruction to the shard's.
class ShardCpuTimer {
 public:
  explicit ShardCpuTimer(ShardSimulator& shard) : shard_(shard), start_(ThreadCpuNanos()) {}
  ~ShardCpuTimer() { shard_.AddCpuNanos(ThreadCpuNanos() - start_); }
  ShardCpuTimer(const ShardCpuTimer&) = delete;
  ShardCpuTimer& operator=(const ShardCpuTimer&) = delete;
  ShardCpuTimer(ShardCpuTimer&&) = delete;
  ShardCpuTimer& operator=(ShardCpuTimer&&) = delete;

 private:
  ShardSimulator& shard_;
  int64_t start_;
};
}  // namespace internal

// Runs `f(ShardSimulator&)` under shard `shard`'s lock and returns what it returns; with
// --profile (engine::PhaseProfile::Enabled) the calling thread's CPU time in it is added to the
// shard's (ShardSimulator::cpu_nanos).
template <typename F>
decltype(auto) WithShard(ShardedReplay& shards, int shard, F&& f) {
  return shards.With(shard, [&](ShardSimulator& s) -> decltype(auto) {
    if (!engine::PhaseProfile::Enabled()) {
      return f(s);
    }
    const internal::ShardCpuTimer timer(s);
    return f(s);
  });
}

// Each shard's CPU time in WithShard so far, by shard index, with the shard's label
// (engine::ShardPlan::labels).
std::vector<ShardCpuTime> ShardCpuTimes(ShardedReplay& shards);

}  // namespace replay
