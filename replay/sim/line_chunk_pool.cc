#include "replay/sim/line_chunk_pool.h"

#include <utility>

namespace replay {

LineChunkPool& LineChunkPool::Shared() {
  // Never destroyed: a ShardLog destroyed during static destruction may still give chunks back.
  static LineChunkPool* const pool = new LineChunkPool();
  return *pool;
}

std::unique_ptr<char[]> LineChunkPool::Take() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      std::unique_ptr<char[]> chunk = std::move(free_.back());
      free_.pop_back();
      return chunk;
    }
    ++allocated_;
  }
  return std::make_unique_for_overwrite<char[]>(kChunkBytes);  // outside the lock
}

void LineChunkPool::Give(std::unique_ptr<char[]> chunk) {
  if (chunk == nullptr) {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < kMaxFreeChunks) {
      free_.push_back(std::move(chunk));
      return;
    }
  }
  chunk.reset();  // outside the lock
}

void LineChunkPool::Trim() {
  std::vector<std::unique_ptr<char[]>> freed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    freed.swap(free_);
  }
}  // freed outside the lock

size_t LineChunkPool::allocated() {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_;
}

size_t LineChunkPool::free_chunks() {
  std::lock_guard<std::mutex> lock(mu_);
  return free_.size();
}

}  // namespace replay
