#include "replay/sim/shard_pipeline.h"

#include <algorithm>

namespace replay {

ShardPipeline::ShardPipeline(int shards, int64_t window, Step step)
    : shards_(std::max(shards, 0)),
      window_(std::max<int64_t>(window, 1)),
      step_(std::move(step)),
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
  try {
    step_(shard, batch);
  } catch (...) {
    lock.lock();
    if (!error_) {
      error_ = std::current_exception();
    }
    lock.unlock();
  }
  lock.lock();
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

void ShardPipeline::WaitComplete(int64_t batch) {
  std::unique_lock<std::mutex> lock(mu_);
  while (complete_ <= batch) {
    if (!RunOne(lock)) {
      changed_.wait(lock);
    }
  }
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
      changed_.wait(lock);
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
