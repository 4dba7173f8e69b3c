// Time-to-admission samples in bounded memory (replay/sim/wait_samples.h): exact figures up to
// kExactUpTo samples, then percentiles within kMaxRelativeError of the exact nearest-rank value,
// with count, sum, mean, max and Prometheus buckets exact throughout; merging in any grouping
// gives what one group recording everything gives. The oracle is SummarizeWaits over the sorted
// list (replay/sim/replay_stats.h), which is how every figure was computed before.
#include "replay/sim/wait_samples.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "replay/sim/replay_stats.h"

namespace replay {
namespace {

std::vector<int64_t> RandomWaits(std::mt19937_64& rng, size_t n) {
  std::vector<int64_t> out;
  std::uniform_int_distribution<int> kind(0, 3);
  std::uniform_int_distribution<int> exponent(0, 40);
  for (size_t i = 0; i < n; ++i) {
    switch (kind(rng)) {
      case 0:
        out.push_back(0);  // admitted at once: the commonest wait
        break;
      case 1:
        out.push_back(static_cast<int64_t>(rng() % 200));  // exact region
        break;
      default:
        out.push_back(static_cast<int64_t>(rng() % (uint64_t{1} << exponent(rng))));
    }
  }
  return out;
}

void ExpectExactParts(const WaitStats& got, const WaitStats& want) {
  EXPECT_EQ(got.count, want.count);
  EXPECT_DOUBLE_EQ(got.sum, want.sum);
  EXPECT_DOUBLE_EQ(got.mean, want.mean);
  EXPECT_DOUBLE_EQ(got.max, want.max);
  EXPECT_EQ(got.cumulative_buckets, want.cumulative_buckets);
}

TEST(WaitSamples, UpToTheLimitEveryFigureIsExact) {
  std::mt19937_64 rng(7);
  // Sizes around the nearest ranks' steps (10, 11, 100, 101), many equal values (zeros): the
  // percentiles are order statistics picked one after the other (nth_element), each above the
  // last.
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{10}, size_t{11}, size_t{99},
                   size_t{100}, size_t{101}, size_t{1000}, WaitSamples::kExactUpTo}) {
    std::vector<int64_t> waits = RandomWaits(rng, n);
    WaitSamples samples;
    for (int64_t w : waits) {
      samples.Record(w);
    }
    EXPECT_TRUE(samples.exact());
    const WaitStats got = samples.Summarize();
    const WaitStats want = SummarizeWaits(waits);
    ExpectExactParts(got, want);
    EXPECT_EQ(got.p10, want.p10) << n;
    EXPECT_EQ(got.p50, want.p50) << n;
    EXPECT_EQ(got.p90, want.p90) << n;
    EXPECT_EQ(got.p99, want.p99) << n;
  }
}

// The Prometheus counts use bounds of their own (a constant array, inline in each group): a wait
// of exactly a bound of WaitBuckets() is in that bucket, a microsecond more is in the next, in the
// exact form and the histogram form alike.
TEST(WaitSamples, PrometheusBoundsAreWaitBucketsToTheMicrosecond) {
  ASSERT_EQ(WaitBuckets().size() + 1, WaitSamples::kPrometheusBuckets);
  std::vector<int64_t> waits;
  for (double bound : WaitBuckets()) {
    const auto micros = static_cast<int64_t>(bound * 1e6);
    for (int64_t w : {micros - 1, micros, micros + 1}) {
      waits.push_back(w);
    }
  }
  for (size_t copies : {size_t{1}, WaitSamples::kExactUpTo}) {  // exact, then histogram form
    WaitSamples samples;
    std::vector<int64_t> all;
    for (size_t c = 0; c < copies; ++c) {
      for (int64_t w : waits) {
        samples.Record(w);
        all.push_back(w);
      }
    }
    EXPECT_EQ(samples.exact(), copies == 1);
    EXPECT_EQ(samples.Summarize().cumulative_buckets, SummarizeWaits(all).cumulative_buckets);
  }
}

TEST(WaitSamples, BeyondTheLimitPercentilesAreWithinTheBound) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    std::vector<int64_t> waits = RandomWaits(rng, WaitSamples::kExactUpTo + 1 + rng() % 60'000);
    WaitSamples samples;
    for (int64_t w : waits) {
      samples.Record(w);
    }
    EXPECT_FALSE(samples.exact());
    const WaitStats got = samples.Summarize();
    const WaitStats want = SummarizeWaits(waits);
    ExpectExactParts(got, want);
    for (auto [g, w] : {std::pair{got.p50, want.p50}, {got.p90, want.p90}, {got.p99, want.p99}}) {
      // Seconds from µs: the bound is relative to the exact value (values below 128 µs exact).
      EXPECT_LE(std::abs(g - w), w * WaitSamples::kMaxRelativeError + 1e-12) << g << " vs " << w;
    }
  }
}

TEST(WaitSamples, AMinuteAndAnHourAreReportedWithinOnePercent) {
  WaitSamples samples;
  for (int i = 0; i < 10'000; ++i) {
    samples.Record(i < 6'000 ? 60'000'000 : 3'600'000'000);
  }
  const WaitStats s = samples.Summarize();
  EXPECT_NEAR(s.p50, 60, 60 * 0.01);
  EXPECT_NEAR(s.p90, 3600, 3600 * 0.01);
  EXPECT_EQ(s.max, 3600);
}

TEST(WaitSamples, MergingInAnyGroupingIsRecordingEverythingInOne) {
  std::mt19937_64 rng(3);
  for (size_t n : {size_t{500}, size_t{5'000}, size_t{40'000}}) {
    std::vector<int64_t> waits = RandomWaits(rng, n);
    WaitSamples whole;
    for (int64_t w : waits) {
      whole.Record(w);
    }
    const WaitStats want = whole.Summarize();
    for (int grouping = 0; grouping < 5; ++grouping) {
      std::vector<WaitSamples> parts(1 + rng() % 9);
      for (int64_t w : waits) {
        parts[rng() % parts.size()].Record(w);
      }
      std::shuffle(parts.begin(), parts.end(), rng);
      WaitSamples merged;
      for (const WaitSamples& p : parts) {
        merged.Merge(p);
      }
      const WaitStats got = merged.Summarize();
      EXPECT_EQ(merged.exact(), whole.exact()) << n;
      ExpectExactParts(got, want);
      EXPECT_EQ(got.p50, want.p50) << n;
      EXPECT_EQ(got.p90, want.p90) << n;
      EXPECT_EQ(got.p99, want.p99) << n;
    }
  }
}

}  // namespace
}  // namespace replay
