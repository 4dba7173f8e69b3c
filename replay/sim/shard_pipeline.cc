#include "replay/sim/shard_pipeline.h"

#include <algorithm>
#include <chrono>

namespace replay {

namespace {
constexpr int64_t kShrinkAfterBatches = 32;
}  // namespace

ShardPipeline::ShardPipeline(int shards, int64_t window, Step step, int64_t start_window)
    : shards_(std::max(shards, 0)),
      window_(std::max<int64_t>(window, 1)),
      step_(std::move(step)),
      start_window_(start_window <= 0 ? window_ : std::min(start_window, window_)),
      limit_(start_window_),
      next_(static_cast<size_t>(shards_), 0),
      remaining_(static_cast<size_t>(window_), 0) {
  caught_up_.reserve(static_cast<size_t>(shards_));
  for (int k = 0; k < shards_; ++k) {
    caught_up_.push_back(k);
  }
}

void ShardPipeline::Push() {
  std::unique_lock<std::mutex> lock(mu_);
  remaining_[static_cast<size_t>(pushed_ % window_)] = shards_;
  for (int k : caught_up_) {
    ready_.emplace(pushed_, k);
  }
  caught_up_.clear();
  ++pushed_;
  if (pushed_ - pushed_at_last_check_ >= kShrinkAfterBatches) {
    if (!starved_since_check_ && limit_ > start_window_) {
      limit_ = std::max(limit_ / 2, start_window_);
      ++shrunk_;
    }
    starved_since_check_ = false;
    pushed_at_last_check_ = pushed_;
  }
  if (shards_ == 0) {
    complete_ = pushed_;
  }
  changed_.notify_all();
}

bool ShardPipeline::RunOne(std::unique_lock<std::mutex>& lock) {
  if (ready_.empty()) {
    return false;
  }
  const auto [batch, shard] = ready_.top();
  ready_.pop();
  lock.unlock();
  bool done = true;
  try {
    done = step_(shard, batch);
  } catch (...) {
    lock.lock();
    if (!error_) {
      error_ = std::current_exception();
    }
    lock.unlock();
  }
  lock.lock();
  if (!done) {
    ready_.emplace(batch, shard);  // the oldest step again: the next free thread goes on with it
    ++pauses_;
    changed_.notify_all();
    return true;
  }
  int64_t& next = next_[static_cast<size_t>(shard)];
  next = batch + 1;
  if (next < pushed_) {
    ready_.emplace(next, shard);
  } else {
    caught_up_.push_back(shard);
  }
  if (--remaining_[static_cast<size_t>(batch % window_)] == 0) {
    complete_ = batch + 1;  // a shard replays batches in order: every older batch is complete
  }
  changed_.notify_all();
  return true;
}

int64_t ShardPipeline::limit() {
  std::unique_lock<std::mutex> lock(mu_);
  return limit_;
}

bool ShardPipeline::GrowIfStarved() {
  if (closed_ || pushed_ - complete_ < limit_) {
    return false;  // waiting for the reader, not for a lagging shard
  }
  starved_since_check_ = true;
  if (limit_ >= window_) {
    return false;
  }
  limit_ = std::min(limit_ * 2, window_);
  ++grown_;
  pushed_at_last_check_ = pushed_;
  changed_.notify_all();
  return true;
}

void ShardPipeline::Block(std::unique_lock<std::mutex>& lock, bool reader) {
  (reader ? waits_.reader_waits : waits_.helper_waits) += 1;
  const auto start = std::chrono::steady_clock::now();
  changed_.wait(lock);
  (reader ? waits_.reader_nanos : waits_.helper_nanos) +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
}

ShardPipeline::Waits ShardPipeline::waits() {
  std::unique_lock<std::mutex> lock(mu_);
  return waits_;
}

bool ShardPipeline::ReaderSeesPause() {
  if (pauses_ == pauses_seen_by_reader_) {
    return false;
  }
  pauses_seen_by_reader_ = pauses_;
  return true;
}

int64_t ShardPipeline::pauses() {
  std::unique_lock<std::mutex> lock(mu_);
  return pauses_;
}

bool ShardPipeline::WaitRoom(int64_t oldest) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (complete_ > oldest) {
      return true;
    }
    if (pushed_ - oldest < limit_ || ReaderSeesPause()) {
      return false;
    }
    if (!RunOne(lock) && !GrowIfStarved()) {
      Block(lock, /*reader=*/true);
    }
  }
}

bool ShardPipeline::WaitComplete(int64_t batch) {
  std::unique_lock<std::mutex> lock(mu_);
  while (complete_ <= batch) {
    if (ReaderSeesPause()) {
      return false;
    }
    if (!RunOne(lock)) {
      Block(lock, /*reader=*/true);
    }
  }
  return true;
}

void ShardPipeline::Close() {
  std::unique_lock<std::mutex> lock(mu_);
  closed_ = true;
  changed_.notify_all();
}

void ShardPipeline::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!(closed_ && complete_ == pushed_)) {
    if (!RunOne(lock)) {
      GrowIfStarved();  // the reader may push more now; wait for it
      Block(lock, /*reader=*/false);
    }
  }
}

void ShardPipeline::Rethrow() {
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mu_);
    error = error_;
  }
  if (error) {
    std::rethrow_exception(error);
  }
}

}  // namespace replay
