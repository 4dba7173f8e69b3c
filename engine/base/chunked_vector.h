// File: engine/base/chunked_vector.h
//
// Records by dense id (a WorkloadId's index, say) in chunks of kChunk records instead of one
// array that doubles. A doubling array holds up to twice the records in use, and while it grows
// the old array and the new one both: a per-id table of 48 bytes cost about 79 bytes per live
// Workload in a replay (docs/replay.md, "Memory"). Here the slack is at most one chunk, and
// growing allocates one more chunk without moving the others.
//
// The first chunk grows by doubling up to kChunk records, so that a table of a few records (a
// shard with a handful of workloads, a test) stays small.
//
//   ChunkedVector<Entry> entries;
//   entries.resize(n);          // grows only: records [size(), n) value-initialised
//   entries[i].pos = 3;         // i < size()
//
// References to records stay valid across resize, except those into the first chunk while it
// still grows (fewer than kChunk records).
//
// Thread safety: none (as std::vector).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "engine/base/check.h"

namespace engine {

template <typename T, size_t kChunk = 512>
class ChunkedVector {
  static_assert(kChunk > 0 && (kChunk & (kChunk - 1)) == 0, "a power of two");

 public:
  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;
  ChunkedVector(const ChunkedVector& other) { *this = other; }
  ChunkedVector& operator=(const ChunkedVector& other) {
    if (this != &other) {
      chunks_.clear();
      size_ = 0;
      first_capacity_ = 0;
      resize(other.size_);
      for (size_t i = 0; i < other.size_; ++i) {
        (*this)[i] = other[i];
      }
    }
    return *this;
  }
  ~ChunkedVector() = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) {
    TALLY_DCHECK(i < size_);
    return chunks_[i / kChunk][i % kChunk];
  }
  const T& operator[](size_t i) const {
    TALLY_DCHECK(i < size_);
    return chunks_[i / kChunk][i % kChunk];
  }

  // Grows to `n` records, the new ones value-initialised. Never shrinks (a smaller `n` is a no-op):
  // the tables this serves are indexed by ids that are recycled, not returned.
  void resize(size_t n) {
    if (n > size_) [[unlikely]] {
      Grow(n);
    }
  }

  // Bytes allocated for records (for tests and memory accounting).
  size_t allocated_bytes() const {
    return chunks_.empty() ? 0 : (first_capacity_ + (chunks_.size() - 1) * kChunk) * sizeof(T);
  }

 private:
  // Out of line, so that the callers' checks before an access stay small enough to inline.
  [[gnu::noinline]] void Grow(size_t n) {
    GrowFirstChunk(std::min(n, kChunk));
    while (chunks_.size() * kChunk < n) {
      chunks_.push_back(std::make_unique<T[]>(kChunk));
    }
    size_ = n;
  }
  // Makes the first chunk hold at least `n` (<= kChunk) records.
  void GrowFirstChunk(size_t n) {
    if (n <= first_capacity_) {
      return;
    }
    const size_t capacity = std::min(kChunk, std::max(n, 2 * first_capacity_));
    std::unique_ptr<T[]> grown = std::make_unique<T[]>(capacity);
    for (size_t i = 0; i < std::min(size_, first_capacity_); ++i) {
      grown[i] = std::move(chunks_[0][i]);
    }
    if (chunks_.empty()) {
      chunks_.push_back(std::move(grown));
    } else {
      chunks_[0] = std::move(grown);
    }
    first_capacity_ = capacity;
  }

  std::vector<std::unique_ptr<T[]>> chunks_;  // [0] holds first_capacity_ records, the rest kChunk
  size_t first_capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace engine
