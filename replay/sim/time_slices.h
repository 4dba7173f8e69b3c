// File: replay/sim/time_slices.h
//
// Replaying in steps of virtual time, with the decision lines written between steps, so that the
// lines held at once stay few. The simulator (replay/sim/simulator.cc) uses it twice:
//   - one thread (not --strict) replays each batch of trace lines in slices (ReplayBatch);
//   - every run replays what follows the last event in steps (DrainBefore).
// A step ends where every shard got to its end, or where the first shard paused at its line limit
// (ShardSimulator::AdvanceWithin); the lines before that instant are final and are written. Its
// length adapts: doubled while steps write few lines, halved while they write many or pause.
// Advancing in steps gives what one call would (ShardSimulator::AdvanceTo), and each event is
// still applied after everything due before it: the decisions do not depend on the steps.
//
//   TimeSlices slices(engine, arena, slice_lines, [&](TimeMicros before) { return Flush(before);
//   }); slices.ReplayBatch(batch);                       // per batch, one thread
//   slices.DrainBefore(horizon, [&](TimeMicros due) { progress.Show(...); });
//
// Thread safety: one caller (the reader); the shards advance in parallel on `arena`, each under
// its lock.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <vector>

#include <tbb/task_arena.h>

#include "engine/base/ids.h"
#include "engine/base/phase_profile.h"
#include "replay/io/parallel_for.h"
#include "replay/sim/routed_batch.h"
#include "replay/sim/shard_cpu.h"
#include "replay/sim/sharded_replay.h"

namespace replay {

// Runs `f(shard index, ShardSimulator&)` for every shard of `shards`, in parallel on `arena`,
// each under its lock (WithShard: timed per shard with --profile).
template <typename F>
void ForEachShard(ShardedReplay& shards, tbb::task_arena& arena, F&& f) {
  ParallelFor(
      arena, static_cast<size_t>(shards.num_shards()), 1,
      [&](size_t, size_t k) {
        WithShard(shards, static_cast<int>(k),
                  [&](ShardSimulator& s) { f(static_cast<int>(k), s); });
      },
      engine::Phase::kSimulate);
}

class TimeSlices {
 public:
  using TimeMicros = engine::TimeMicros;
  // Writes the shards' lines older than `before` (every shard got there) and returns how many.
  using Flush = std::function<size_t(TimeMicros before)>;

  static constexpr TimeMicros kNever = std::numeric_limits<TimeMicros>::max();
  // The step after the last event: from 1 s to 10 min, so that the lines held between writes stay
  // about a megabyte or two. Kueue's large-scale config admits its 50,000 workloads after its
  // last event: one 10-minute step held 16 MiB of lines (massif), touched fresh and copied cold.
  static constexpr TimeMicros kStepMin = 1'000'000;
  static constexpr TimeMicros kTailStepMax = 600'000'000;
  // A batch's slices follow the same rule up to 2 hours. Capped at 10 minutes like the tail, a
  // 2,048-line batch of the moderate trace (20 ClusterQueue trees, an event every 10 s) took 34
  // slices of about 180 lines: every shard advanced 34 times a few events at a time, its state
  // cold each time (10 % of the 1M-workload trace's time on one thread, with the same
  // instructions). Halving on a pause keeps a step grown in a quiet stretch from holding a
  // storm's lines: without it the 16-tree trace peaked 16 MiB higher.
  static constexpr TimeMicros kSliceStepMax = 7'200'000'000;
  // A step that wrote fewer lines doubles; one that wrote more halves.
  static constexpr size_t kLinesFew = 2'000;
  static constexpr size_t kLinesMany = 10'000;

  // A shard pauses once it has written `slice_lines` lines in a step (at least 1).
  TimeSlices(ShardedReplay& engine, tbb::task_arena& arena, size_t slice_lines, Flush flush);

  // Replays `b` (every shard's routed events) in slices of virtual time, writing the lines before
  // each slice's end, up to the lines before b.last_time, which the caller writes. A slice starts
  // at the first thing due (an event of the batch or a shard's timer or cycle). A batch of 2,048
  // lines of a congested trace can cover an hour in which the shards write half a million lines
  // (126 MB held at once, in pages faulted in for it). Without the pause at `slice_lines`, a slice
  // that a quiet stretch had grown to ten minutes and that then met a preemption storm held 2.7
  // million lines: 68 MB of ShardLog chunks at the 16-tree trace's peak of 177 MiB.
  void ReplayBatch(RoutedBatch& b);

  // Advances every shard, in steps, while something is due before `horizon` minus a step, writing
  // the lines as they become final (the tail of a long congested trace is hours of finishes and
  // admissions). `progress(due)` is told where each step started. The caller then advances the
  // shards to `horizon` and writes the rest.
  void DrainBefore(TimeMicros horizon, const std::function<void(TimeMicros due)>& progress);

 private:
  // The earliest instant any shard paused at in the last step, or kNever.
  TimeMicros EarliestPause() const;
  // The step after one that wrote `lines` lines: doubled, up to `max`, when they were few (fewer
  // than kLinesFew); halved, down to kStepMin, when they were many (more than kLinesMany).
  static TimeMicros NextStep(TimeMicros step, size_t lines, TimeMicros max);

  ShardedReplay& engine_;
  tbb::task_arena& arena_;
  size_t slice_lines_;
  Flush flush_;
  TimeMicros slice_step_ = kStepMin;  // ReplayBatch's, kept from one batch to the next
  std::vector<size_t> next_;          // ReplayBatch: per shard, its next event in the batch
  std::vector<TimeMicros> paused_;    // per shard: where it paused in the last step, or kNever
};

}  // namespace replay
