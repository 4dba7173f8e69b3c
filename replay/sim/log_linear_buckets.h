// File: replay/sim/log_linear_buckets.h
//
// HdrHistogram's bucket layout, shared by the replay's histograms (latency_histogram.h for the
// engine's per-decision latency, wait_samples.h for time to admission): each power of two is split
// into 2^kBits linear sub-buckets.
//
// Layout (index -> values held, all bounds inclusive):
//   values 0 .. 2^(kBits+1) - 1 have a bucket each (exact);
//   a value v whose highest set bit is 2^k (k > kBits) is in one of the 2^kBits buckets of width
//   w = 2^(k-kBits) that split [2^k, 2^(k+1) - 1]; so every bucket's width is at most
//   1/2^kBits of its lower bound. kBucketCount buckets cover every non-negative int64.
//
// A value reported as the middle of its bucket (lower + w/2) is within w/2 <= v/2^(kBits+1) of
// the value recorded: kMaxRelativeError.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace replay {

template <int kBits>
struct LogLinearBuckets {
  static constexpr int kSubBucketBits = kBits;
  static constexpr int64_t kSubBuckets = int64_t{1} << kBits;
  // Values below this have a bucket each: splitting their powers of two into kSubBuckets would
  // make buckets narrower than 1.
  static constexpr int64_t kExactBelow = 2 * kSubBuckets;
  static constexpr int kBucketCount =
      static_cast<int>((63 - kBits - 1) * kSubBuckets + 2 * kSubBuckets);
  // |reported - recorded| <= recorded * kMaxRelativeError for every value reported.
  static constexpr double kMaxRelativeError = 1.0 / static_cast<double>(2 * kSubBuckets);

  // The bucket holding `value` (>= 0).
  static constexpr int BucketIndex(int64_t value) {
    const auto v = static_cast<uint64_t>(value);
    // Values below kExactBelow keep shift 0; above, each doubling shifts one more bit out so that
    // v >> shift stays in [kSubBuckets, 2 * kSubBuckets): the sub-bucket within its power of two.
    const int shift = std::max(0, static_cast<int>(std::bit_width(v)) - (kBits + 1));
    return static_cast<int>(static_cast<int64_t>(shift) * kSubBuckets
                            + static_cast<int64_t>(v >> shift));
  }
  // The smallest and largest value of bucket `index` (0 <= index < kBucketCount).
  static constexpr int64_t BucketLowerBound(int index) {
    if (index < kSubBuckets) {
      return index;
    }
    const int shift = index / static_cast<int>(kSubBuckets) - 1;
    return (index - static_cast<int64_t>(shift) * kSubBuckets) << shift;
  }
  static constexpr int64_t BucketUpperBound(int index) {
    return BucketLowerBound(index) + (BucketWidth(index) - 1);
  }
  static constexpr int64_t BucketWidth(int index) {
    return index < 2 * kSubBuckets ? 1 : int64_t{1} << (index / static_cast<int>(kSubBuckets) - 1);
  }
  // The value a bucket reports: its middle.
  static constexpr int64_t BucketMiddle(int index) {
    return BucketLowerBound(index) + BucketWidth(index) / 2;
  }
};

static_assert(LogLinearBuckets<5>::BucketIndex(std::numeric_limits<int64_t>::max())
                  == LogLinearBuckets<5>::kBucketCount - 1,
              "the last bucket holds the largest int64");
static_assert(LogLinearBuckets<6>::BucketUpperBound(LogLinearBuckets<6>::kBucketCount - 1)
                  == std::numeric_limits<int64_t>::max(),
              "the buckets end exactly at the largest int64");

}  // namespace replay
