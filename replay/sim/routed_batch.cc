#include "replay/sim/routed_batch.h"

#include "engine/base/phase_profile.h"
#include "engine/shard/shard_plan.h"

namespace replay {

void RoutedBatch::ResetOutcomes() {
  for (size_t k = 0; k < routed.size(); ++k) {
    outcomes[k].assign(routed[k].size(), Outcome{});
    errors[k].clear();
    next[k] = 0;
  }
}

void ApplyEvents(int k, ShardSimulator& shard, RoutedBatch& b, size_t begin, size_t end) {
  const std::vector<size_t>& mine = b.routed[static_cast<size_t>(k)];
  std::vector<Outcome>& out = b.outcomes[static_cast<size_t>(k)];
  for (size_t j = begin; j < end; ++j) {
    const size_t i = mine[j];
    EventError error;
    if (b.route[i] == engine::ShardPlan::kEveryShard) {
      TraceEvent copy = b.lines[i].event;
      out[j].applied = shard.Apply(copy, error);
    } else {
      out[j].applied = shard.Apply(b.lines[i].event, error);
    }
    if (!out[j].applied) {
      std::vector<EventError>& errors = b.errors[static_cast<size_t>(k)];
      out[j].error = static_cast<uint32_t>(errors.size());
      errors.push_back(std::move(error));
    }
  }
}

bool ReplayStep(int k, ShardSimulator& shard, RoutedBatch& b, size_t slice_lines,
                FinalLines* final_lines) {
  engine::PhaseScope profile(engine::Phase::kSimulate);
  const std::vector<size_t>& mine = b.routed[static_cast<size_t>(k)];
  const size_t max_lines = shard.log().size() + slice_lines;
  // The cursor in a local, stored back once: the shards' cursors share a cache line, and two
  // threads stepping two shards of one batch would move it between the cores at every event.
  size_t next = b.next[static_cast<size_t>(k)];
  bool done = true;
  for (; next < mine.size(); ++next) {
    PrefetchAhead(shard, b, mine, next);
    if (!shard.AdvanceWithin(b.lines[mine[next]].event.time, max_lines)) {
      done = false;
      break;
    }
    ApplyEvents(k, shard, b, next, next + 1);
  }
  b.next[static_cast<size_t>(k)] = next;
  done = done && shard.AdvanceWithin(b.last_time, max_lines);
  if (final_lines != nullptr) {
    engine::PhaseScope output(engine::Phase::kOutput);
    final_lines->HandOver(k, shard.log(), done ? b.last_time : shard.now());
  }
  return done;
}

BatchSlots::BatchSlots(int64_t window, int shards)
    : slots_(static_cast<size_t>(window)), slot_of_(static_cast<size_t>(window)) {
  for (RoutedBatch& b : slots_) {
    b.routed.resize(static_cast<size_t>(shards));
    b.outcomes.resize(static_cast<size_t>(shards));
    b.errors.resize(static_cast<size_t>(shards));
    b.next.resize(static_cast<size_t>(shards));
  }
  for (size_t i = slots_.size(); i-- > 0;) {
    free_.push_back(i);
  }
}

RoutedBatch& BatchSlots::Take(int64_t batch) {
  slot_of_[Index(batch)] = free_.back();
  free_.pop_back();
  return Get(batch);
}

}  // namespace replay
