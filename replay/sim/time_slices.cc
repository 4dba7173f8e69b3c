#include "replay/sim/time_slices.h"

#include <algorithm>
#include <utility>

namespace replay {

TimeSlices::TimeSlices(ShardedReplay& engine, tbb::task_arena& arena, size_t slice_lines,
                       Flush flush)
    : engine_(engine),
      arena_(arena),
      slice_lines_(std::max<size_t>(slice_lines, 1)),
      flush_(std::move(flush)),
      next_(static_cast<size_t>(engine.num_shards())),
      paused_(static_cast<size_t>(engine.num_shards()), kNever) {}

TimeSlices::TimeMicros TimeSlices::EarliestPause() const {
  return paused_.empty() ? kNever : *std::min_element(paused_.begin(), paused_.end());
}

TimeSlices::TimeMicros TimeSlices::NextStep(TimeMicros step, size_t lines, TimeMicros max) {
  if (lines < kLinesFew) {
    return std::min(step * 2, max);
  }
  if (lines > kLinesMany) {
    return std::max(step / 2, kStepMin);
  }
  return step;
}

void TimeSlices::ReplayBatch(RoutedBatch& b) {
  const int n = engine_.num_shards();
  std::fill(next_.begin(), next_.end(), 0);
  while (true) {
    TimeMicros first = kNever;
    for (int k = 0; k < n; ++k) {
      const std::vector<size_t>& mine = b.routed[static_cast<size_t>(k)];
      if (const size_t j = next_[static_cast<size_t>(k)]; j < mine.size()) {
        first = std::min(first, b.lines[mine[j]].event.time);
      }
      first = std::min(first, engine_.With(k, [](ShardSimulator& s) { return s.next_due(); }));
    }
    const bool last = first == kNever || first >= b.last_time - slice_step_;
    const TimeMicros upto = last ? b.last_time : first + slice_step_;
    // Every shard advances to `upto`, or pauses once it has written `slice_lines_` lines: the
    // lines before the earliest pause are final. A shard that got further keeps its later lines
    // for the next write, and the next slice finds nothing to do for it before where it is.
    ForEachShard(engine_, arena_, [&](int k, ShardSimulator& s) {
      engine::PhaseScope profile(engine::Phase::kSimulate);
      const size_t max_lines = s.log().size() + slice_lines_;
      const std::vector<size_t>& mine = b.routed[static_cast<size_t>(k)];
      size_t& next = next_[static_cast<size_t>(k)];
      TimeMicros& paused = paused_[static_cast<size_t>(k)];
      paused = kNever;
      for (; next < mine.size() && (last || b.lines[mine[next]].event.time < upto); ++next) {
        PrefetchAhead(s, b, mine, next);
        if (!s.AdvanceWithin(b.lines[mine[next]].event.time, max_lines)) {
          paused = s.now();
          return;
        }
        ApplyEvents(k, s, b, next, next + 1);
      }
      if (!s.AdvanceWithin(upto, max_lines)) {
        paused = s.now();
      }
    });
    const TimeMicros paused = EarliestPause();
    if (last && paused == kNever) {
      return;  // the caller writes the lines before b.last_time
    }
    const size_t lines = flush_(std::min(upto, paused));
    if (paused != kNever) {
      // Too many lines for the step: a shard filled its log before the slice's end.
      slice_step_ = std::max(slice_step_ / 2, kStepMin);
      continue;
    }
    slice_step_ = NextStep(slice_step_, lines, kSliceStepMax);
  }
}

void TimeSlices::DrainBefore(TimeMicros horizon,
                             const std::function<void(TimeMicros due)>& progress) {
  const int n = engine_.num_shards();
  TimeMicros step = kStepMin;
  while (true) {
    TimeMicros due = kNever;
    for (int k = 0; k < n; ++k) {
      due = std::min(due, engine_.With(k, [](ShardSimulator& s) { return s.next_due(); }));
    }
    if (due == kNever || due >= horizon - step) {
      return;
    }
    // As in a slice of a batch, a shard pauses where its log is full.
    ForEachShard(engine_, arena_, [&](int k, ShardSimulator& s) {
      engine::PhaseScope profile(engine::Phase::kSimulate);
      paused_[static_cast<size_t>(k)] =
          s.AdvanceWithin(due + step, s.log().size() + slice_lines_) ? kNever : s.now();
    });
    const TimeMicros paused = EarliestPause();
    const size_t lines = flush_(std::min(due + step, paused));
    if (paused != kNever) {
      continue;
    }
    step = NextStep(step, lines, kTailStepMax);
    progress(due);
  }
}

}  // namespace replay
