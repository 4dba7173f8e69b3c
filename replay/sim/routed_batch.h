// File: replay/sim/routed_batch.h
//
// A batch of trace lines on its way through the shards (simulator.cc): parsed and routed by the
// reader, replayed by each shard (in steps that may pause, shard_pipeline.h, or in slices of
// virtual time on one thread), taken back by the reader once complete for what follows the
// trace's order (counters, errors). BatchSlots holds the batches in flight; a slot is reused, so
// its vectors keep their capacity.
//
//   BatchSlots slots(window, shards);
//   RoutedBatch& b = slots.Take(number);       // the reader: fill b.lines, route them, Reset
//   ReplayStep(k, shard, b, slice_lines, &final_lines);  // each shard, until it returns true
//   slots.Get(number); ... slots.Release(number);         // the reader, once b is complete
//
// Thread safety: a slot's per-shard parts (routed[k] is read, outcomes[k], errors[k] and next[k]
// written)
// are used by shard k's step only; the rest is the reader's. BatchSlots is the reader's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "replay/io/event_reader.h"
#include "replay/io/parallel_reader.h"
#include "replay/sim/final_lines.h"
#include "replay/sim/shard_simulator.h"

namespace replay {

// What one shard made of one routed event: 8 bytes, written by the shard's thread and read by the
// reader's, so that a batch's outcomes cross between the cores in few cache lines (an
// EventError inline made it 120 bytes, two lines an event each way). A rejected event's error is
// kept apart, in its shard's `errors`.
struct Outcome {
  bool applied = false;
  uint32_t error = 0;  // when not applied: its index in RoutedBatch::errors[shard]
};

struct RoutedBatch {
  std::vector<ParsedLine> lines;
  size_t used = 0;                              // lines before --until
  std::vector<int> route;                       // per used line: its shard or kEveryShard
  std::vector<std::vector<size_t>> routed;      // per shard: its lines, in order
  std::vector<std::vector<Outcome>> outcomes;   // per shard: per routed line
  std::vector<std::vector<EventError>> errors;  // per shard: its rejected lines' errors
  std::vector<size_t> next;                     // per shard: its next line (a step may pause)
  bool any_event = false;
  int64_t last_time = 0;
  int64_t file_bytes_read = 0;

  // After routing: every shard starts at its first line, with an outcome per routed line.
  void ResetOutcomes();
  // The error of shard k's outcome `o` (not applied).
  const EventError& ErrorOf(size_t k, const Outcome& o) const { return errors[k][o.error]; }
};

// Fetches the fields of the events a few places after line j of `mine` (a shard's lines,
// b.routed[k]) into this core's cache, and what `shard` looks their workloads up in, for the
// loops that apply them one by one. With two threads or more a batch's lines are parsed on one
// core and applied on another, and the first touch of each event's fields and of its Workload
// missed the cache at every event (perf, moderate 1,000,000-workload trace: ReplayStep,
// ApplyWorkloadAdded and WorkloadKeyIndex::Find took 0.5 s more CPU on 2 threads than on 1).
// Always inlined: GCC 12 finds a function that only prefetches free of side effects and drops its
// calls; branch-free for the same reason (a branch whose only effect is a prefetch is dropped too).
// REQUIRES: j < mine.size() (the callers' loop condition; `last` would wrap on an empty list).
[[gnu::always_inline]] inline void PrefetchAhead(const ShardSimulator& shard, const RoutedBatch& b,
                                                 const std::vector<size_t>& mine, size_t j) {
  constexpr size_t kFar = 10;  // the event's own fields: they hold the pointers read below
  constexpr size_t kNear = 5;  // what those pointers point at
  const size_t last = mine.size() - 1;
  const TraceEvent& far = b.lines[mine[std::min(j + kFar, last)]].event;
  __builtin_prefetch(&far.time);
  __builtin_prefetch(&far.name);
  __builtin_prefetch(&far.object.workloads);
  const TraceEvent& near = b.lines[mine[std::min(j + kNear, last)]].event;
  __builtin_prefetch(near.name.data());
  // Its slot in the store's index. Hashing reads the name: inline in the header fetched as `far`
  // five events ago for short names; a long name's buffer is the one requested just above.
  shard.PrefetchWorkload(near.name);
  // An event that holds no Workload fetches its own header again (a select, not a branch: an
  // offset from a null data() would be undefined behaviour even for a prefetch).
  const char* spec = near.object.workloads.empty()
                         ? reinterpret_cast<const char*>(&near)
                         : reinterpret_cast<const char*>(near.object.workloads.data());
  for (size_t offset = 0; offset < sizeof(engine::WorkloadSpec); offset += 64) {
    __builtin_prefetch(spec + offset);
  }
}

// Shard k applies its lines [begin, end) of `b` (indices into b.routed[k]), recording outcomes.
// A line routed to every shard is applied to a copy: shards must not share a mutable event.
void ApplyEvents(int k, ShardSimulator& shard, RoutedBatch& b, size_t begin, size_t end);

// One step of shard k through batch `b` (the shard's lock held): from where its last step paused,
// each line after everything due before it, then everything due up to the batch's last instant.
// It pauses once the shard has written `slice_lines` lines in this step (a batch of a congested
// trace can cover an hour in which a shard writes a hundred megabytes of lines, which the reader
// can write only once every shard has got as far). At the end the shard hands its final lines
// over to `final_lines` (when not null). True when the shard is done with the batch.
bool ReplayStep(int k, ShardSimulator& shard, RoutedBatch& b, size_t slice_lines,
                FinalLines* final_lines);

// The slots of `window` batches in flight, by batch number. A batch takes the slot freed last (a
// slot keeps its parsed lines' storage: 1.4 KB a line), so that with few batches in flight
// (ShardPipeline::limit) few slots are ever touched.
class BatchSlots {
 public:
  BatchSlots(int64_t window, int shards);

  RoutedBatch& Get(int64_t batch) { return slots_[slot_of_[Index(batch)]]; }
  // Batch `batch` (fewer than `window` in flight) takes a free slot.
  RoutedBatch& Take(int64_t batch);
  // Batch `batch`'s slot is free again.
  void Release(int64_t batch) { free_.push_back(slot_of_[Index(batch)]); }

 private:
  size_t Index(int64_t batch) const {
    return static_cast<size_t>(batch % static_cast<int64_t>(slot_of_.size()));
  }

  std::vector<RoutedBatch> slots_;
  std::vector<size_t> free_;     // free slots, the last freed at the back
  std::vector<size_t> slot_of_;  // by batch number % window
};

}  // namespace replay
