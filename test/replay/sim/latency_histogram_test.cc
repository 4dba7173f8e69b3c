// LatencyHistogram (replay/sim/latency_histogram.h): the bucket layout, the stated error bound
// over the whole int64 range, nearest-rank percentiles against a sorted-vector oracle, and merging
// as recording everything into one.
#include "replay/sim/latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace replay {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

using Buckets = std::vector<std::tuple<int64_t, int64_t, int64_t>>;  // lower, upper, count

Buckets Export(const LatencyHistogram& h) {
  Buckets out;
  h.ForEachNonEmptyBucket(
      [&](int64_t lower, int64_t upper, int64_t count) { out.emplace_back(lower, upper, count); });
  return out;
}

// |reported - exact| within the header's bound (and so within the issue's 5 %). Computed in
// long double: the difference of two int64 near 2^63 does not fit a double exactly.
::testing::AssertionResult WithinBound(int64_t reported, int64_t exact) {
  const long double error = std::fabs(static_cast<long double>(reported) - exact);
  const long double bound = static_cast<long double>(exact) * LatencyHistogram::kMaxRelativeError;
  if (error <= bound && error <= static_cast<long double>(exact) * 0.05L) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "reported " << reported << " for " << exact << ": error " << static_cast<double>(error)
         << " > " << static_cast<double>(bound);
}

// The reported value of `v` alone in its bucket, without the clamp to [Min, Max] hiding the
// bucket's error: 0 and the largest int64 around it, p50 is the rank of v.
int64_t Reported(int64_t v) {
  LatencyHistogram h;
  h.Record(0);
  h.Record(v);
  h.Record(kInt64Max);
  return h.ValueAtPercentile(50);
}

// Values from 1 ns to `hi` ns, uniform in log scale (latencies span orders of magnitude).
std::vector<int64_t> LogUniform(std::mt19937_64& rng, size_t n, double hi) {
  std::uniform_real_distribution<double> exponent(0, std::log(hi));
  std::vector<int64_t> out(n);
  for (int64_t& v : out) {
    v = static_cast<int64_t>(std::exp(exponent(rng)));
  }
  return out;
}

// The nearest-rank percentile of the header, computed on the sorted values.
int64_t Oracle(const std::vector<int64_t>& sorted, double percentile) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(percentile * n / 100.0)));
  return sorted[static_cast<size_t>(rank - 1)];
}

TEST(LatencyHistogramTest, BoundIsWithinTheIssuesFivePercent) {
  EXPECT_EQ(LatencyHistogram::kMaxRelativeError, 1.0 / 64);
  EXPECT_LE(LatencyHistogram::kMaxRelativeError, 0.05);
  EXPECT_EQ(LatencyHistogram::kBucketCount, 1888);
  // Fixed memory: the counts and four integers, no heap.
  EXPECT_LE(sizeof(LatencyHistogram), 16u * 1024);
}

TEST(LatencyHistogramTest, BucketsTileTheInt64RangeAndAreNarrow) {
  EXPECT_EQ(LatencyHistogram::BucketLowerBound(0), 0);
  for (int i = 0; i < LatencyHistogram::kBucketCount; ++i) {
    const int64_t lower = LatencyHistogram::BucketLowerBound(i);
    const int64_t upper = LatencyHistogram::BucketUpperBound(i);
    ASSERT_LE(lower, upper) << i;
    ASSERT_EQ(LatencyHistogram::BucketIndex(lower), i) << lower;
    ASSERT_EQ(LatencyHistogram::BucketIndex(upper), i) << upper;
    ASSERT_EQ(upper - lower + 1, LatencyHistogram::BucketWidth(i)) << i;
    if (i + 1 < LatencyHistogram::kBucketCount) {
      ASSERT_EQ(LatencyHistogram::BucketLowerBound(i + 1), upper + 1) << i;  // no gap, no overlap
    }
    if (lower < LatencyHistogram::kExactBelow) {
      ASSERT_EQ(lower, upper) << "exact below 64: " << i;
    } else {
      ASSERT_LE(LatencyHistogram::BucketWidth(i) * 32, lower) << i;
    }
  }
  EXPECT_EQ(LatencyHistogram::BucketUpperBound(LatencyHistogram::kBucketCount - 1), kInt64Max);
}

TEST(LatencyHistogramTest, SmallValuesAreExact) {
  for (int64_t v = 0; v < LatencyHistogram::kExactBelow; ++v) {
    EXPECT_EQ(Reported(v), v);
  }
}

TEST(LatencyHistogramTest, EdgeValuesWithinBound) {
  std::vector<int64_t> values;
  for (int64_t v = 0; v <= 100000; ++v) {
    values.push_back(v);
  }
  for (int k = 6; k < 63; ++k) {
    const int64_t p = int64_t{1} << k;
    for (int64_t d : {-2, -1, 0, 1, 2}) {
      values.push_back(p + d);
    }
    // The bucket edges just above 2^k: both ends of the widest-error buckets.
    for (int64_t s = 1; s < 4; ++s) {
      values.push_back(p + s * (p >> 5) - 1);
      values.push_back(p + s * (p >> 5));
    }
  }
  for (int64_t v :
       {int64_t{999'999'999'999}, int64_t{1'000'000'000'000}, kInt64Max - 1, kInt64Max}) {
    values.push_back(v);
  }
  for (int64_t v : values) {
    ASSERT_TRUE(WithinBound(Reported(v), v));
  }
}

TEST(LatencyHistogramTest, RandomValuesWithinBound) {
  std::mt19937_64 rng(21);
  // 1 ns to 10^12 ns (about 17 minutes), log-uniform; then anywhere in int64.
  for (int64_t v : LogUniform(rng, 200000, 1e12)) {
    ASSERT_TRUE(WithinBound(Reported(v), v));
  }
  std::uniform_int_distribution<int64_t> any(0, kInt64Max);
  for (int i = 0; i < 100000; ++i) {
    const int64_t v = any(rng);
    ASSERT_TRUE(WithinBound(Reported(v), v));
  }
}

TEST(LatencyHistogramTest, PercentilesMatchSortedOracle) {
  std::mt19937_64 rng(7);
  const std::vector<double> percentiles = {0, 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 100};
  for (size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{100}, size_t{1000}, size_t{10007}}) {
    std::vector<int64_t> values = LogUniform(rng, n, 1e9);
    LatencyHistogram h;
    for (int64_t v : values) {
      h.Record(v);
    }
    std::sort(values.begin(), values.end());
    EXPECT_EQ(h.Count(), static_cast<int64_t>(n));
    EXPECT_EQ(h.Min(), values.front());
    EXPECT_EQ(h.Max(), values.back());
    std::uniform_real_distribution<double> any_percentile(0, 100);
    std::vector<double> ps = percentiles;
    for (int i = 0; i < 50; ++i) {
      ps.push_back(any_percentile(rng));
    }
    for (double p : ps) {
      ASSERT_TRUE(WithinBound(h.ValueAtPercentile(p), Oracle(values, p)))
          << "n " << n << " p " << p;
    }
  }
}

TEST(LatencyHistogramTest, RecordWithCountIsRepeatedRecord) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int64_t> count(0, 50);
  LatencyHistogram weighted;
  LatencyHistogram repeated;
  std::vector<int64_t> expanded;
  for (int64_t v : LogUniform(rng, 500, 1e7)) {
    const int64_t c = count(rng);
    weighted.Record(v, c);
    for (int64_t i = 0; i < c; ++i) {
      repeated.Record(v);
      expanded.push_back(v);
    }
  }
  std::sort(expanded.begin(), expanded.end());
  EXPECT_EQ(Export(weighted), Export(repeated));
  EXPECT_EQ(weighted.Count(), static_cast<int64_t>(expanded.size()));
  EXPECT_EQ(weighted.Min(), expanded.front());
  EXPECT_EQ(weighted.Max(), expanded.back());
  for (double p : {0.0, 50.0, 90.0, 99.0, 100.0}) {
    EXPECT_TRUE(WithinBound(weighted.ValueAtPercentile(p), Oracle(expanded, p))) << p;
  }
}

TEST(LatencyHistogramTest, MergeIsRecordingIntoOneInAnyOrderOrGrouping) {
  std::mt19937_64 rng(11);
  std::vector<int64_t> values = LogUniform(rng, 4000, 1e12);
  values.push_back(0);
  values.push_back(kInt64Max);
  LatencyHistogram all;
  LatencyHistogram parts[4];
  for (size_t i = 0; i < values.size(); ++i) {
    all.Record(values[i]);
    parts[i % 4].Record(values[i], 1);
  }
  LatencyHistogram left;  // ((a + b) + c) + d
  for (const LatencyHistogram& p : parts) {
    left.Merge(p);
  }
  LatencyHistogram cd = parts[2];  // a + (b + (c + d)), built from the right
  cd.Merge(parts[3]);
  LatencyHistogram bcd = parts[1];
  bcd.Merge(cd);
  LatencyHistogram right = parts[0];
  right.Merge(bcd);
  LatencyHistogram reversed;  // d + c + b + a
  for (int i = 3; i >= 0; --i) {
    reversed.Merge(parts[i]);
  }
  for (const LatencyHistogram* h : {&left, &right, &reversed}) {
    EXPECT_EQ(Export(*h), Export(all));
    EXPECT_EQ(h->Count(), all.Count());
    EXPECT_EQ(h->Min(), all.Min());
    EXPECT_EQ(h->Max(), all.Max());
    for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.99, 100.0}) {
      EXPECT_EQ(h->ValueAtPercentile(p), all.ValueAtPercentile(p)) << p;
    }
  }
  // The empty histogram is the identity, on either side.
  LatencyHistogram with_empty = all;
  with_empty.Merge(LatencyHistogram());
  LatencyHistogram into_empty;
  into_empty.Merge(all);
  EXPECT_EQ(Export(with_empty), Export(all));
  EXPECT_EQ(Export(into_empty), Export(all));
  EXPECT_EQ(into_empty.Min(), all.Min());
  EXPECT_EQ(into_empty.Max(), all.Max());
}

TEST(LatencyHistogramTest, EmptyAndZeroCounts) {
  LatencyHistogram h;
  EXPECT_EQ(h.Count(), 0);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.Max(), 0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_TRUE(Export(h).empty());
  h.Record(12345, 0);  // nothing recorded: Min and Max stay those of an empty histogram
  EXPECT_EQ(h.Count(), 0);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_TRUE(Export(h).empty());
  LatencyHistogram merged;
  merged.Merge(h);
  EXPECT_EQ(merged.Count(), 0);
  EXPECT_EQ(merged.Min(), 0);
}

TEST(LatencyHistogramTest, ZeroAndHugeValues) {
  LatencyHistogram zeros;
  zeros.Record(0, 1000);
  EXPECT_EQ(zeros.Count(), 1000);
  EXPECT_EQ(zeros.Min(), 0);
  EXPECT_EQ(zeros.Max(), 0);
  EXPECT_EQ(zeros.ValueAtPercentile(0), 0);
  EXPECT_EQ(zeros.ValueAtPercentile(99), 0);
  EXPECT_EQ(Export(zeros), (Buckets{{0, 0, 1000}}));

  LatencyHistogram huge;
  huge.Record(kInt64Max, int64_t{1} << 40);
  huge.Record(kInt64Max - 1);
  EXPECT_EQ(huge.Count(), (int64_t{1} << 40) + 1);
  EXPECT_EQ(huge.Max(), kInt64Max);
  EXPECT_EQ(huge.Min(), kInt64Max - 1);
  // The middle of the top bucket is below Min: clamped up to it, never past the largest int64.
  EXPECT_EQ(huge.ValueAtPercentile(100), kInt64Max - 1);
  const Buckets exported = Export(huge);
  ASSERT_EQ(exported.size(), 1u);
  EXPECT_EQ(std::get<1>(exported[0]), kInt64Max);
  EXPECT_EQ(std::get<2>(exported[0]), (int64_t{1} << 40) + 1);

  // Both ends at once: the percentiles pick the right end.
  LatencyHistogram both = zeros;
  both.Merge(huge);
  EXPECT_EQ(both.ValueAtPercentile(0), 0);
  EXPECT_TRUE(WithinBound(both.ValueAtPercentile(100), kInt64Max));
}

TEST(LatencyHistogramTest, ExportHoldsEveryValueInOrder) {
  std::mt19937_64 rng(5);
  const std::vector<int64_t> values = LogUniform(rng, 3000, 1e10);
  LatencyHistogram h;
  for (int64_t v : values) {
    h.Record(v);
  }
  const Buckets exported = Export(h);
  int64_t total = 0;
  for (size_t i = 0; i < exported.size(); ++i) {
    const auto& [lower, upper, count] = exported[i];
    EXPECT_GT(count, 0);
    if (i > 0) {
      EXPECT_GT(lower, std::get<1>(exported[i - 1]));
    }
    total += count;
  }
  EXPECT_EQ(total, h.Count());
  for (int64_t v : values) {
    const auto it = std::find_if(exported.begin(), exported.end(), [&](const auto& b) {
      return std::get<0>(b) <= v && v <= std::get<1>(b);
    });
    ASSERT_NE(it, exported.end()) << v;
  }
}

}  // namespace
}  // namespace replay
