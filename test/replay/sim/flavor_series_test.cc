// Quota utilisation by flavor over time (replay/sim/flavor_series.h; report.json
// series.flavors): own, borrowed, lent and idle summed over ClusterQueues on small replays with a
// known state at a known sample, merged over shards, the same for any number of threads.
#include "replay/sim/flavor_series.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/sim/replay_report.h"
#include "replay/sim/simulator.h"
#include "test/engine/cpu_cluster_spec.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::Added;
using testing::Outcome;
using testing::WorkloadJson;

// Flavor "default"; ClusterQueues a and b (10 cpu each) in Cohort pool, which holds
// `cohort_cpu` of its own; "solo" (8 cpu) in no cohort, so in a shard of its own; one
// LocalQueue lq-<cq> each.
std::string Manifests(int cohort_cpu) {
  std::string out = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
)";
  if (cohort_cpu > 0) {
    out += fmt::format(R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {{name: pool}}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "{}"}}
)",
                       cohort_cpu);
  }
  constexpr char kCq[] = R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {0}}}
spec:
  {2}
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "{1}"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq-{0}, namespace: ns}}
spec: {{clusterQueue: {0}}}
)";
  out += fmt::format(fmt::runtime(kCq), "a", 10, "cohortName: pool");
  out += fmt::format(fmt::runtime(kCq), "b", 10, "cohortName: pool");
  out += fmt::format(fmt::runtime(kCq), "solo", 8, "queueingStrategy: BestEffortFIFO");
  return out;
}

// a runs 4 cpu, solo 3, and b `b_cpu` (borrowing what is above its 10), all from 0 s for an hour;
// a workload too large for solo arrives at 30 s (the replay, and its samples, go on to there).
std::vector<std::string> Trace(int b_cpu) {
  return {Added(0, WorkloadJson("a0", "4", 0, "lq-a"), "1h"),
          Added(0, WorkloadJson("b0", std::to_string(b_cpu), 0, "lq-b"), "1h"),
          Added(0, WorkloadJson("s0", "3", 0, "lq-solo"), "1h"),
          Added(30, WorkloadJson("s1", "6", 0, "lq-solo"), "1h")};
}

struct At {
  float nominal, own, borrowed, lent, idle;
};

// The default/cpu figures at the first sample after the first event (`last`: at the last sample).
At Sample(const ReplayReport& r, bool last = false) {
  EXPECT_EQ(r.flavor_series.size(), 1u);
  EXPECT_GE(r.sample_times.size(), 2u);
  if (r.sample_times.size() < 2 || r.flavor_series.empty()) {
    return {};
  }
  const size_t i = last ? r.sample_times.size() - 1 : 1;
  const FlavorSeries& s = r.flavor_series.front();
  EXPECT_EQ(s.flavor, "default");
  EXPECT_EQ(s.resource, "cpu");
  for (const std::vector<float>* v : {&s.nominal, &s.own, &s.borrowed, &s.lent, &s.idle}) {
    EXPECT_EQ(v->size(), r.sample_times.size());
    EXPECT_TRUE(std::all_of(v->begin(), v->end(), [](float x) { return std::isfinite(x); }));
  }
  return {s.nominal[i], s.own[i], s.borrowed[i], s.lent[i], s.idle[i]};
}

Outcome ReplayScenario(int cohort_cpu, int b_cpu, int threads) {
  testing::ReplayHarness h;
  SimulatorOptions options;
  options.timings = false;
  options.threads = threads;
  return h.Replay(Manifests(cohort_cpu), Trace(b_cpu), options);
}

TEST(FlavorSeriesTest, BorrowingWithinTheCohortIsLent) {
  // b borrows 4 of a's 6 unused: own 4 + 10 + 3, lent 4, idle a's other 2 and solo's 5.
  const Outcome o = ReplayScenario(0, 14, 1);
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.shards, 2);
  const At at = Sample(o.report);
  EXPECT_EQ(at.nominal, 28000);
  EXPECT_EQ(at.own, 17000);
  EXPECT_EQ(at.borrowed, 4000);
  EXPECT_EQ(at.lent, 4000);
  EXPECT_EQ(at.idle, 7000);
  EXPECT_EQ(at.own + at.lent + at.idle, at.nominal);
  // At the end only s1 runs (6 of solo's 8, from s0's end at 1 h for an hour): nothing borrowed.
  ASSERT_GT(o.report.sample_times.back(), 3600);
  const At end = Sample(o.report, /*last=*/true);
  EXPECT_EQ(end.nominal, 28000);
  EXPECT_EQ(end.own, 6000);
  EXPECT_EQ(end.borrowed, 0);
  EXPECT_EQ(end.lent, 0);
  EXPECT_EQ(end.idle, 22000);
}

TEST(FlavorSeriesTest, BorrowingBeyondWhatClusterQueuesLentCameFromTheCohort) {
  // b uses 20: 10 borrowed, of which a's 6 unused (lent) and 4 from the Cohort's own quota.
  // solo's 5 unused are idle: it is in another tree, so lends to no one.
  const Outcome o = ReplayScenario(6, 20, 1);
  ASSERT_TRUE(o.completed);
  const At at = Sample(o.report);
  EXPECT_EQ(at.nominal, 28000);  // ClusterQueues' nominal only, not the Cohort's
  EXPECT_EQ(at.own, 17000);
  EXPECT_EQ(at.borrowed, 10000);
  EXPECT_EQ(at.lent, 6000);
  EXPECT_EQ(at.idle, 5000);
  EXPECT_EQ(at.own + at.lent + at.idle, at.nominal);
}

TEST(FlavorSeriesTest, SameForAnyNumberOfThreads) {
  const Outcome one = ReplayScenario(6, 20, 1);
  const Outcome two = ReplayScenario(6, 20, 2);
  ASSERT_TRUE(one.completed && two.completed);
  EXPECT_EQ(one.report.sample_times, two.report.sample_times);
  ASSERT_EQ(one.report.flavor_series.size(), two.report.flavor_series.size());
  for (size_t k = 0; k < one.report.flavor_series.size(); ++k) {
    const FlavorSeries& a = one.report.flavor_series[k];
    const FlavorSeries& b = two.report.flavor_series[k];
    EXPECT_EQ(a.nominal, b.nominal);
    EXPECT_EQ(a.own, b.own);
    EXPECT_EQ(a.borrowed, b.borrowed);
    EXPECT_EQ(a.lent, b.lent);
    EXPECT_EQ(a.idle, b.idle);
  }
}

TEST(FlavorSeriesTest, MergeAddsSampleBySampleAndKeepsOrder) {
  std::vector<FlavorSeries> out;
  MergeFlavorSeries({{"b", "cpu", {1, 2}, {1, 1}, {0, 1}, {0, 1}, {0, 0}}}, out);
  MergeFlavorSeries({{"a", "cpu", {5, 5}, {0, 5}, {0, 0}, {0, 0}, {5, 0}},
                     {"b", "cpu", {2, 2, 2}, {0, 1, 1}, {0, 0, 1}, {0, 0, 1}, {2, 1, 0}}},
                    out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].flavor, "a");
  EXPECT_EQ(out[1].flavor, "b");
  EXPECT_EQ(out[1].nominal, (std::vector<float>{3, 4, 2}));  // a missing sample counts as 0
  EXPECT_EQ(out[1].own, (std::vector<float>{1, 2, 1}));
  EXPECT_EQ(out[1].lent, (std::vector<float>{0, 1, 1}));
}

// Move is the pair of Counts it stands for: random usage and nominal moves of three
// ClusterQueues' figures (borrowing, lending, quota edits), sampled after each, give the same
// series either way.
TEST(FlavorSeriesTest, MoveIsALeaveThenAnEnter) {
  engine::Cluster cluster;
  cluster.Apply(engine::CpuClusterSpec({"cq"}));
  cluster.Refresh();
  const engine::FrSlot slot = *cluster.FindSlot("f", "cpu");
  FlavorSeriesRecorder counted;
  FlavorSeriesRecorder moved;
  struct Figures {
    int64_t usage = 0;
    int64_t nominal = 0;
  };
  std::vector<Figures> cqs(3);
  for (const Figures& f : cqs) {
    counted.Count(slot, f.usage, f.nominal, 1);
    moved.Count(slot, f.usage, f.nominal, 1);
  }
  std::mt19937_64 rng(22);
  std::uniform_int_distribution<int64_t> amount(0, 12'000);
  constexpr size_t kSamples = 400;
  for (size_t step = 0; step < kSamples; ++step) {
    Figures& f = cqs[std::uniform_int_distribution<size_t>(0, cqs.size() - 1)(rng)];
    const Figures next = {amount(rng), step % 7 == 0 ? amount(rng) : f.nominal};
    counted.Count(slot, f.usage, f.nominal, -1);
    counted.Count(slot, next.usage, next.nominal, 1);
    moved.Move(slot, f.usage, f.nominal, next.usage, next.nominal);
    f = next;
    counted.Sample();
    moved.Sample();
  }
  const std::vector<FlavorSeries> a = counted.Finish(cluster, kSamples);
  const std::vector<FlavorSeries> b = moved.Finish(cluster, kSamples);
  ASSERT_EQ(a.size(), 1U);
  ASSERT_EQ(b.size(), 1U);
  EXPECT_EQ(a[0].nominal, b[0].nominal);
  EXPECT_EQ(a[0].own, b[0].own);
  EXPECT_EQ(a[0].borrowed, b[0].borrowed);
  EXPECT_EQ(a[0].lent, b[0].lent);
  EXPECT_EQ(a[0].idle, b[0].idle);
  // The figures did move: the series are not a constant both ways would give.
  EXPECT_NE(*std::min_element(a[0].own.begin(), a[0].own.end()),
            *std::max_element(a[0].own.begin(), a[0].own.end()));
  EXPECT_GT(*std::max_element(a[0].borrowed.begin(), a[0].borrowed.end()), 0.0F);
}

}  // namespace
}  // namespace replay
