// File: replay/sim/wait_samples.h
//
// Time-to-admission samples of one group (all workloads, a LocalQueue, a class, a priority, a
// ClusterQueue) in memory that does not grow with the trace (issue 22). A group keeps its
// samples exactly while it has at most kExactUpTo of them (figures as from the sorted list);
// beyond that it keeps a log-linear histogram, HdrHistogram's layout with 64 linear sub-buckets
// per power of two (microseconds; values below 128 µs exact), and the percentiles are within
// kMaxRelativeError (1/128, 0.78 %) of the exact nearest-rank value. What is exact in both forms:
// the count, the sum and mean, the max, and the Prometheus bucket counts at Kueue's bounds.
//
// Memory: at most kExactUpTo samples (32 KiB), then one int64 count per bucket up to the largest
// value seen (about 15 KiB for waits of hours).
//
// Merge is associative and commutative: the union's form depends only on its count, so shards
// merged in any order or grouping summarise exactly like one group that recorded everything.
//
// Thread safety: none; a value type (each shard records its own, the driver merges).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "replay/sim/replay_report.h"

namespace replay {

class WaitSamples {
 public:
  static constexpr size_t kExactUpTo = 4096;
  static constexpr int kSubBucketBits = 6;
  static constexpr int64_t kSubBuckets = int64_t{1} << kSubBucketBits;
  static constexpr double kMaxRelativeError = 1.0 / static_cast<double>(2 * kSubBuckets);

  // Adds one wait of `micros` (>= 0; a negative wait counts as 0).
  void Record(int64_t micros);
  // Adds everything `other` recorded.
  void Merge(const WaitSamples& other);
  int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool exact() const { return histogram_.empty(); }
  // Count, mean, nearest-rank p50/p90/p99, max and the Prometheus buckets, in seconds.
  WaitStats Summarize() const;

  // --- Bucket geometry (as replay/sim/latency_histogram.h, with kSubBucketBits) ---
  static constexpr int BucketIndex(int64_t value) {
    const auto v = static_cast<uint64_t>(value);
    const int shift = std::max(0, static_cast<int>(std::bit_width(v)) - (kSubBucketBits + 1));
    return static_cast<int>(static_cast<int64_t>(shift) * kSubBuckets
                            + static_cast<int64_t>(v >> shift));
  }
  static constexpr int64_t BucketLowerBound(int index) {
    if (index < kSubBuckets) {
      return index;
    }
    const int shift = index / static_cast<int>(kSubBuckets) - 1;
    return (index - static_cast<int64_t>(shift) * kSubBuckets) << shift;
  }
  static constexpr int64_t BucketWidth(int index) {
    return index < 2 * kSubBuckets ? 1 : int64_t{1} << (index / static_cast<int>(kSubBuckets) - 1);
  }

 private:
  void ToHistogram();
  void AddToHistogram(int64_t micros, int64_t n);

  int64_t count_ = 0;
  __int128 sum_ = 0;  // µs
  int64_t min_ = 0;
  int64_t max_ = 0;
  // Per Kueue bucket bound (WaitBuckets(), then +Inf): waits above the previous bound, up to it.
  std::vector<int64_t> prometheus_;
  std::vector<int64_t> exact_;      // every sample, while count_ <= kExactUpTo
  std::vector<int64_t> histogram_;  // afterwards: counts per bucket, up to the largest used
};

}  // namespace replay
