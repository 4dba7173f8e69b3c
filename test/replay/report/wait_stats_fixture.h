// File: test/replay/report/wait_stats_fixture.h
//
// What the report writer tests share: WaitStats of a list of waits, summarised as the simulator
// does (count, sum, mean, max; p50 the middle one, p90/p99 the max), with cumulative Prometheus
// buckets over WaitBuckets().
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "replay/sim/replay_report.h"

namespace replay::testing_report {

inline WaitStats Stats(const std::vector<double>& waits) {
  WaitStats s;
  s.count = static_cast<int64_t>(waits.size());
  for (double w : waits) {
    s.sum += w;
    s.max = std::max(s.max, w);
  }
  s.mean = waits.empty() ? 0 : s.sum / static_cast<double>(waits.size());
  s.p50 = waits.empty() ? 0 : waits[waits.size() / 2];
  s.p90 = s.max;
  s.p99 = s.max;
  for (double bound : WaitBuckets()) {
    int64_t n = 0;
    for (double w : waits) {
      n += w <= bound ? 1 : 0;
    }
    s.cumulative_buckets.push_back(n);
  }
  return s;
}

}  // namespace replay::testing_report
