#include "replay/sim/final_lines.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace replay {

FinalLines::FinalLines(int shards) : taken_before_(std::numeric_limits<int64_t>::min()) {
  for (int k = 0; k < shards; ++k) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->progress.store(std::numeric_limits<int64_t>::min(), std::memory_order_relaxed);
  }
}

void FinalLines::HandOver(int shard, ShardLog& log, int64_t until) {
  Shard& s = *shards_[static_cast<size_t>(shard)];
  if (log.size() > 0 && log.Time(0) < until) {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.spare.empty()) {
      s.queued.emplace_back();
    } else {
      s.queued.push_back(std::move(s.spare.back()));
      s.spare.pop_back();
    }
    log.TakeBefore(until, s.queued.back());
  }
  // Release: a writer that reads this progress finds the lines before it queued.
  s.progress.store(until, std::memory_order_release);
}

int64_t FinalLines::Frontier() const {
  int64_t frontier = std::numeric_limits<int64_t>::max();
  for (const std::unique_ptr<Shard>& s : shards_) {
    frontier = std::min(frontier, s->progress.load(std::memory_order_acquire));
  }
  return frontier;
}

bool FinalLines::TakeFinal(std::vector<ShardLog>& taken) {
  const int64_t frontier = Frontier();
  if (shards_.empty() || frontier <= taken_before_) {
    return false;
  }
  taken_before_ = frontier;
  taken.resize(shards_.size());
  size_t waiting = 0;
  for (size_t k = 0; k < shards_.size(); ++k) {
    Shard& s = *shards_[k];
    {
      std::lock_guard<std::mutex> lock(s.mu);
      for (ShardLog& q : s.queued) {
        s.waiting.Append(q);  // q is left empty, with chunks for a later hand-over
        if (s.spare.size() < kSpareLogs) {
          s.spare.push_back(std::move(q));
        }
      }
      s.queued.clear();
    }
    s.waiting.TakeBefore(frontier, taken[k]);
    waiting += s.waiting.size();
  }
  peak_waiting_ = std::max(peak_waiting_, waiting);
  return true;
}

bool FinalLines::empty() {
  for (const std::unique_ptr<Shard>& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    if (!s->queued.empty() || s->waiting.size() > 0) {
      return false;
    }
  }
  return true;
}

}  // namespace replay
