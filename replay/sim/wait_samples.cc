#include "replay/sim/wait_samples.h"

#include <cmath>

namespace replay {
namespace {

constexpr double kMicrosPerSecond = 1e6;

// Kueue's bucket bounds in µs (a wait of exactly a bound is in that bucket): WaitBuckets()'s
// values (replay/sim/replay_report.h), which wait_samples_test compares with these.
constexpr std::array<int64_t, WaitSamples::kPrometheusBuckets - 1> kBoundsMicros = [] {
  std::array<int64_t, WaitSamples::kPrometheusBuckets - 1> b{};
  b[0] = 1'000'000;
  int64_t v = 2'500'000;
  for (size_t i = 1; i < b.size(); ++i, v *= 2) {
    b[i] = v;
  }
  return b;
}();

// The nearest rank of fraction `p` among `n` samples, as the sorted-list figures always had it.
int64_t NearestRank(double p, int64_t n) {
  const auto rank = static_cast<int64_t>(std::ceil(p * static_cast<double>(n)));
  return std::clamp<int64_t>(rank, 1, n);
}

}  // namespace

WaitSamples::Placement WaitSamples::Place(int64_t micros) {
  Placement p;
  p.micros = std::max<int64_t>(micros, 0);
  p.prometheus =
      static_cast<uint32_t>(std::lower_bound(kBoundsMicros.begin(), kBoundsMicros.end(), p.micros)
                            - kBoundsMicros.begin());
  p.bucket = Buckets::BucketIndex(p.micros);
  return p;
}

void WaitSamples::Record(const Placement& placement) {
  const int64_t micros = placement.micros;
  ++prometheus_[placement.prometheus];
  // The form depends only on the count (histogram beyond kExactUpTo): no other line is read.
  const bool exact = count_ <= static_cast<int64_t>(kExactUpTo);
  min_ = count_ == 0 ? micros : std::min(min_, micros);
  max_ = std::max(max_, micros);
  ++count_;
  sum_ += micros;
  if (exact) {
    exact_.push_back(micros);
    if (exact_.size() > kExactUpTo) {
      ToHistogram();
    }
  } else {
    staged_[staged_count_++] = placement.bucket;
    if (staged_count_ == kStaged) {
      CountStaged();
    }
  }
}

void WaitSamples::CountStaged() {
  size_t needed = 0;  // buckets
  for (size_t i = 0; i < staged_count_; ++i) {
    needed = std::max(needed, static_cast<size_t>(staged_[i]) + 1);
  }
  if (needed > histogram_.size()) {
    histogram_.resize(needed, 0);
  }
  // Independent adds: their cache misses overlap.
  for (size_t i = 0; i < staged_count_; ++i) {
    ++histogram_[static_cast<size_t>(staged_[i])];
  }
  staged_count_ = 0;
}

void WaitSamples::AddToHistogram(int64_t micros, int64_t n) {
  const auto index = static_cast<size_t>(Buckets::BucketIndex(micros));
  if (index >= histogram_.size()) {
    histogram_.resize(index + 1, 0);
  }
  histogram_[index] += n;
}

void WaitSamples::ToHistogram() {
  histogram_.assign(1, 0);  // not empty: the histogram form from now on
  for (int64_t w : exact_) {
    AddToHistogram(w, 1);
  }
  exact_.clear();
  exact_.shrink_to_fit();
}

void WaitSamples::Merge(const WaitSamples& other) {
  if (other.count_ == 0) {
    return;
  }
  for (size_t i = 0; i < other.prometheus_.size(); ++i) {
    prometheus_[i] += other.prometheus_[i];
  }
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
  // The union's form depends only on its count: exact while it has at most kExactUpTo samples.
  if (histogram_.empty() && static_cast<size_t>(count_) <= kExactUpTo) {
    exact_.insert(exact_.end(), other.exact_.begin(), other.exact_.end());
    return;
  }
  if (histogram_.empty()) {
    ToHistogram();
  }
  for (int64_t w : other.exact_) {
    AddToHistogram(w, 1);
  }
  for (size_t i = 0; i < other.staged_count_; ++i) {
    const auto bucket = static_cast<size_t>(other.staged_[i]);
    if (bucket >= histogram_.size()) {
      histogram_.resize(bucket + 1, 0);
    }
    ++histogram_[bucket];
  }
  for (size_t i = 0; i < other.histogram_.size(); ++i) {
    if (other.histogram_[i] != 0) {
      if (i >= histogram_.size()) {
        histogram_.resize(i + 1, 0);
      }
      histogram_[i] += other.histogram_[i];
    }
  }
}

WaitStats WaitSamples::Summarize() const {
  if (staged_count_ != 0) {
    WaitSamples counted = *this;
    counted.CountStaged();
    return counted.Summarize();
  }
  WaitStats s;
  s.count = count_;
  s.sum = static_cast<double>(sum_) / kMicrosPerSecond;
  s.mean = count_ == 0 ? 0 : s.sum / static_cast<double>(count_);
  s.max = static_cast<double>(max_) / kMicrosPerSecond;
  int64_t cumulative = 0;
  for (size_t i = 0; i < kBoundsMicros.size(); ++i) {
    cumulative += prometheus_[i];
    s.cumulative_buckets.push_back(cumulative);
  }
  if (count_ == 0) {
    return s;
  }
  if (histogram_.empty()) {
    // The four order statistics, not a sort: each nth_element works on what is above the last
    // (the ranks only grow), O(n) in all (a report summarises some groups of 4,096 samples; the
    // sorts were 4 % of a short replay).
    std::vector<int64_t> values = exact_;
    auto from = values.begin();
    for (auto [p, out] : {std::pair{0.10, &s.p10}, std::pair{0.50, &s.p50}, std::pair{0.90, &s.p90},
                          std::pair{0.99, &s.p99}}) {
      const auto nth = values.begin() + (NearestRank(p, count_) - 1);
      std::nth_element(from, nth, values.end());
      from = nth;
      *out = static_cast<double>(*nth) / kMicrosPerSecond;
    }
    return s;
  }
  auto at = [&](double p) {
    const int64_t rank = NearestRank(p, count_);
    int64_t seen = 0;
    for (size_t i = 0; i < histogram_.size(); ++i) {
      seen += histogram_[i];
      if (seen >= rank) {
        // The middle of the bucket; the exact extremes when the bucket reaches past them.
        const int64_t middle = Buckets::BucketMiddle(static_cast<int>(i));
        return static_cast<double>(std::clamp(middle, min_, max_)) / kMicrosPerSecond;
      }
    }
    // Not reached: the counts add up to count_.
    return static_cast<double>(max_) / kMicrosPerSecond;
  };
  s.p10 = at(0.10);
  s.p50 = at(0.50);
  s.p90 = at(0.90);
  s.p99 = at(0.99);
  return s;
}

}  // namespace replay
