// Per-ClusterQueue time series (report.json `series`, report.html's plots) stay aligned with
// `sampleTimes` when ClusterQueues appear during the trace and shards end at different times:
// every shard numbers all ClusterQueues, but records values only for those that exist in it,
// padding a ClusterQueue's earlier samples with NaN when it appears (replay/sim/replay_stats.cc,
// RecordSample and PadSeries), and every shard samples up to the same time before the merge
// (replay/sim/simulator.cc: the shard that ran to its last timer had one sample more, and its
// series were one value longer than the report's sampleTimes).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/sim/simulator.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::Added;
using testing::Event;
using testing::Manifests;
using testing::Outcome;
using testing::WorkloadJson;

// A ClusterQueue without a cohort: its own shard.
std::string ClusterQueueJson(const std::string& name, const std::string& cpu = "4") {
  return R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":")"
         + name
         + R"("},"spec":{"namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":")"
         + cpu + R"("}]}]}]}})";
}

const CqSeries* Find(const ReplayReport& r, const std::string& name) {
  for (const CqSeries& s : r.series) {
    if (s.name == name) {
      return &s;
    }
  }
  return nullptr;
}

// The one-ClusterQueue manifests and `lines`, replayed on `threads`.
Outcome ReplayOn(int threads, const std::vector<std::string>& lines) {
  testing::ReplayHarness harness;
  SimulatorOptions options;
  options.threads = threads;
  return harness.Replay(Manifests("4"), lines, options);
}

TEST(CqSeriesTest, AClusterQueueCreatedMidTraceIsPaddedToEverySample) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    Outcome o = ReplayOn(threads, {
                                      Added(0, WorkloadJson("a", "2"), "2m"),
                                      Event("ADDED", 30, ClusterQueueJson("late")),
                                      Added(90, WorkloadJson("b", "2"), "1m"),
                                  });
    ASSERT_TRUE(o.completed);
    const ReplayReport& r = o.report;
    ASSERT_GT(r.sample_times.size(), 60u);
    ASSERT_EQ(r.series.size(), 2u);  // cq and late: nothing for ClusterQueues of other shards
    for (const CqSeries& s : r.series) {
      SCOPED_TRACE(s.name);
      EXPECT_EQ(s.pending.size(), r.sample_times.size());
      EXPECT_EQ(s.running.size(), r.sample_times.size());
      EXPECT_EQ(s.utilisation.size(), r.sample_times.size());
      EXPECT_EQ(s.mean_wait.size(), r.sample_times.size());
    }
    const CqSeries* cq = Find(r, "cq");
    const CqSeries* late = Find(r, "late");
    ASSERT_NE(cq, nullptr);
    ASSERT_NE(late, nullptr);
    for (size_t i = 0; i < r.sample_times.size(); ++i) {
      SCOPED_TRACE(r.sample_times[i]);
      EXPECT_FALSE(std::isnan(cq->running[i]));
      // NaN while `late` did not exist, a count once it did (a sample at an instant is taken
      // before that instant's events).
      EXPECT_EQ(std::isnan(late->running[i]), r.sample_times[i] <= 30);
      EXPECT_EQ(std::isnan(late->utilisation[i]), r.sample_times[i] <= 30);
    }
  }
}

// The utilisation series is the busiest slot's usage / nominal at each sample. A sample walks the
// slots again only when one changed since the last sample (ReplayStats::CqAccum's
// utilisation_stale): an admission and a finish change the usage, a quota edit only the nominal,
// and each must show in the next samples.
TEST(CqSeriesTest, UtilisationFollowsAdmissionsFinishesAndQuotaEdits) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    Outcome o = ReplayOn(threads, {
                                      Added(0, WorkloadJson("a", "2"), "1m"),    // 2 of 4, 0-60 s
                                      Added(120, WorkloadJson("b", "2"), "3m"),  // 120-300 s
                                      Event("MODIFIED", 180, ClusterQueueJson("cq", "8")),
                                  });
    ASSERT_TRUE(o.completed);
    const ReplayReport& r = o.report;
    const CqSeries* cq = Find(r, "cq");
    ASSERT_NE(cq, nullptr);
    ASSERT_EQ(cq->utilisation.size(), r.sample_times.size());
    // Away from the instants where something happens (a sample at an instant comes before that
    // instant's events): the value each stretch must have, and how many samples checked it.
    struct Stretch {
      double from;
      double to;
      float utilisation;
      int samples = 0;
    };
    std::vector<Stretch> stretches = {
        {5, 55, 0.5F}, {65, 115, 0.0F}, {125, 175, 0.5F}, {185, 295, 0.25F}};
    for (size_t i = 0; i < r.sample_times.size(); ++i) {
      const double t = r.sample_times[i];
      for (Stretch& s : stretches) {
        if (t >= s.from && t <= s.to) {
          SCOPED_TRACE(t);
          EXPECT_EQ(cq->utilisation[i], s.utilisation);
          ++s.samples;
        }
      }
    }
    for (const Stretch& s : stretches) {
      SCOPED_TRACE(s.from);
      EXPECT_GT(s.samples, 0);
    }
  }
}

// A ClusterQueue deleted during the trace and created again keeps one series: values while it
// exists, NaN while it does not. The samples record a list of the shard's existing ClusterQueues,
// rebuilt when the configuration changes; the gap is padded when it exists again. (A ClusterQueue
// that does not exist at the end is left out of the report.)
TEST(CqSeriesTest, AClusterQueueDeletedAndCreatedAgainHasNaNWhileItIsGone) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    Outcome o = ReplayOn(threads, {
                                      Added(0, WorkloadJson("a", "2"), "3m"),
                                      Event("ADDED", 30, ClusterQueueJson("late")),
                                      Event("DELETED", 90, ClusterQueueJson("late")),
                                      Event("ADDED", 150, ClusterQueueJson("late")),
                                      Added(150, WorkloadJson("b", "2"), "1m"),
                                  });
    ASSERT_TRUE(o.completed);
    const ReplayReport& r = o.report;
    ASSERT_GT(r.sample_times.size(), 150u);
    const CqSeries* late = Find(r, "late");
    ASSERT_NE(late, nullptr);
    ASSERT_EQ(late->running.size(), r.sample_times.size());
    size_t present = 0;
    for (size_t i = 0; i < r.sample_times.size(); ++i) {
      SCOPED_TRACE(r.sample_times[i]);
      const double t = r.sample_times[i];
      const bool existed = (t > 30 && t <= 90) || t > 150;
      EXPECT_EQ(std::isnan(late->running[i]), !existed);
      EXPECT_EQ(std::isnan(late->pending[i]), !existed);
      present += existed ? 1 : 0;
    }
    EXPECT_GT(present, 80u);
  }
}

}  // namespace
}  // namespace replay
