// File: replay/sim/final_lines.h
//
// Decision lines on their way from shards that run free (replay/sim/shard_pipeline.h) to
// decisions.jsonl. A shard's step hands over its lines before the instant it has replayed up to
// (all of them are final for that shard) and records that instant, its progress. The writer takes
// the lines before the earliest progress of all shards, the frontier: no shard can write a line
// before it any more, so those lines can be merged by time and written (simulator.cc).
//
// A step hands over at its end, paused or done, under its own small lock: the writer never waits
// for a shard that is replaying, and a shard in a storm holds one slice of its lines, not a whole
// batch's. Lines handed over at or after the frontier wait in the writer's per-shard log.
//
//   FinalLines lines(num_shards);
//   step of shard k (its lock held):  lines.HandOver(k, shard.log(), shard.now());
//   the writer:                       if (lines.TakeFinal(taken)) MergeByTime(taken, ...);
//
// Thread safety: HandOver for shard k from one thread at a time (the shard's); TakeFinal and
// empty() from one thread, the writer.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "replay/sim/shard_log.h"

namespace replay {

class FinalLines {
 public:
  explicit FinalLines(int shards);

  // Moves `log`'s lines before `until` to the writer and records `until` as shard k's progress.
  // `until` never decreases for a shard.
  void HandOver(int shard, ShardLog& log, int64_t until);
  // The earliest progress of all shards (INT64_MIN before every shard has handed over once).
  int64_t Frontier() const;
  // When the frontier has moved since the last take: every shard's lines before it into
  // `taken[k]` (emptied first), and true. The lines after it stay for a later take.
  bool TakeFinal(std::vector<ShardLog>& taken);
  // No line is waiting (handed over and not taken).
  bool empty();
  // The most lines left waiting after a take (handed over, at or after the frontier): what the
  // shards that ran ahead of the slowest one held (writer only).
  size_t peak_waiting() const { return peak_waiting_; }

 private:
  // The most emptied logs a shard keeps for its next hand-overs (each keeps its first chunks).
  static constexpr size_t kSpareLogs = 2;

  struct Shard {
    std::mutex mu;                  // guards queued and spare
    std::vector<ShardLog> queued;   // handed over, in order, not yet seen by the writer
    std::vector<ShardLog> spare;    // emptied by the writer, for the next hand-over
    std::atomic<int64_t> progress;  // written after the lines before it are queued
    ShardLog waiting;               // the writer's: handed over, at or after the frontier
  };
  std::vector<std::unique_ptr<Shard>> shards_;
  int64_t taken_before_;
  size_t peak_waiting_ = 0;
};

}  // namespace replay
