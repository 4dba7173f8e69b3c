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
// value seen (about 15 KiB for waits of hours), and kStaged samples not yet counted in it.
//
// Staged samples: in the histogram form a sample's bucket is first written to a small inline
// array and counted with the next kStaged - 1 ones in one loop. A replay records into four groups
// per admission, each histogram 15 KiB somewhere in memory: counted one at a time, each count was
// a cache miss that stalled the simulation (perf: 82 % of AddToHistogram's samples on the one
// add; 5.9 % of the moderate 1,000,000-workload trace). In the loop the misses overlap. For the
// same reason what Record writes is in few cache lines (the counts, sum and extremes in the first
// 64 bytes, the staged buckets in the next), and a caller that records one wait into several
// groups places it once and prefetches them all first (Place, Prefetch).
//
// Merge is associative and commutative: the union's form depends only on its count, so shards
// merged in any order or grouping summarise exactly like one group that recorded everything.
//
// Thread safety: none; a value type (each shard records its own, the driver merges).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "replay/sim/log_linear_buckets.h"
#include "replay/sim/replay_report.h"

namespace replay {

class alignas(64) WaitSamples {
 public:
  static constexpr size_t kExactUpTo = 4096;
  // Bucket geometry (replay/sim/log_linear_buckets.h): within 1/128 of the value recorded.
  using Buckets = LogLinearBuckets<6>;
  static constexpr double kMaxRelativeError = Buckets::kMaxRelativeError;
  // Kueue's wait bounds (WaitBuckets(): 1 s, then 2.5 s doubling 13 times), then +Inf.
  static constexpr size_t kPrometheusBuckets = 15;

  // Where a wait goes, the same in every group: its Prometheus bucket and histogram bucket.
  struct Placement {
    int64_t micros = 0;
    uint32_t prometheus = 0;
    int32_t bucket = 0;
  };
  static Placement Place(int64_t micros);

  // Adds one wait of `micros` (>= 0; a negative wait counts as 0).
  void Record(int64_t micros) { Record(Place(micros)); }
  void Record(const Placement& placement);
  // Asks the cache for the lines Record(placement) writes.
  void Prefetch(const Placement& placement) const {
    __builtin_prefetch(this, 1);
    __builtin_prefetch(&staged_, 1);
    __builtin_prefetch(&prometheus_[placement.prometheus], 1);
  }
  // Adds everything `other` recorded.
  void Merge(const WaitSamples& other);
  int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool exact() const { return histogram_.empty(); }
  // Count, mean, nearest-rank p50/p90/p99, max and the Prometheus buckets, in seconds.
  WaitStats Summarize() const;

 private:
  void ToHistogram();
  void AddToHistogram(int64_t micros, int64_t n);
  // Counts the staged buckets in the histogram.
  void CountStaged();

  static constexpr size_t kStaged = 15;

  // The first cache line: what every Record writes.
  std::vector<int64_t> exact_;  // every sample, while count_ <= kExactUpTo
  int64_t count_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
  __int128 sum_ = 0;  // µs
  // The second: the histogram form's buckets not yet counted in histogram_.
  std::array<int32_t, kStaged> staged_{};
  uint32_t staged_count_ = 0;
  std::vector<int64_t> histogram_;  // afterwards: counts per bucket, up to the largest used
  // Per Kueue bucket bound (WaitBuckets(), then +Inf): waits above the previous bound, up to it.
  // Inline, not a vector: an admission records into four groups, and the counts' own heap block
  // was a cache miss more per group (perf: Record 2.8 % of the moderate trace's cycles).
  std::array<int64_t, kPrometheusBuckets> prometheus_{};
};

}  // namespace replay
