// File: replay/sim/latency_histogram.cc
//
// The out-of-line half of LatencyHistogram (replay/sim/latency_histogram.h): merging and the
// percentile walk, both run once per report, not per decision.
#include "replay/sim/latency_histogram.h"

#include <cmath>

namespace replay {

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
  }
  total_ += other.total_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

int64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  if (total_ == 0) {
    return 0;
  }
  // Multiplying before dividing keeps whole ranks whole (99 * 100 / 100 is 99; 0.99 * 100 is not).
  const double p = std::clamp(percentile, 0.0, 100.0);
  const auto rank = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(p * static_cast<double>(total_) / 100.0)));
  int64_t seen = 0;
  for (int i = 0; i < kBucketCount; ++i) {
    seen += counts_[static_cast<size_t>(i)];
    if (seen >= rank) {
      // The middle of the bucket; the exact extremes are better when the bucket reaches past them.
      const int64_t middle = BucketMiddle(i);
      return std::clamp(middle, min_, max_);
    }
  }
  return max_;  // not reached: the counts add up to total_ >= rank
}

}  // namespace replay
