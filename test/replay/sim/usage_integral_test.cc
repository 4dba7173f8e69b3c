// The usage figures of report.json (`usage`: meanUsage, meanBorrowed): ∫usage dt over the replay
// per ClusterQueue, flavor and resource. A slot's integral is brought up to date only when its
// usage or nominal quota changes, and at the end (replay/sim/replay_stats.cc, SyncSlots and
// Finish), in exact integer arithmetic: the figures are the same however the time was cut.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/sim/simulator.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::Added;
using testing::Manifests;
using testing::Outcome;
using testing::WorkloadJson;

const ResourceUsage* Usage(const ReplayReport& r, const std::string& flavor) {
  for (const ResourceUsage& u : r.usage) {
    if (u.flavor == flavor && u.resource == "cpu") {
      return &u;
    }
  }
  return nullptr;
}

// The ClusterQueue's first flavor is held whole by a workload that never finishes; its second
// changes five times meanwhile. The first's mean is its usage over the whole replay (its
// integral reaches the end though its usage last changed at its admission); the second's, its
// exact integral over the replay's duration.
TEST(UsageIntegralTest, AnUnchangedSlotIsIntegratedToTheEndAndAChangingOneExactly) {
  const std::string second_flavor =
      "    - name: spot\n      resources:\n      - {name: cpu, nominalQuota: \"4\"}";
  const std::string spot =
      "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
      "metadata: {name: spot}";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    testing::ReplayHarness harness;
    SimulatorOptions options;
    options.threads = threads;
    Outcome o = harness.Replay(Manifests("4", second_flavor, spot),
                               {
                                   Added(0, WorkloadJson("held", "4")),
                                   Added(10, WorkloadJson("b", "1"), "60s"),
                                   Added(100, WorkloadJson("c", "2"), "100s"),
                                   Added(150, WorkloadJson("d", "1"), "20s"),
                               },
                               options);
    ASSERT_TRUE(o.completed);
    const ReplayReport& r = o.report;
    const ResourceUsage* held = Usage(r, "default");
    const ResourceUsage* changing = Usage(r, "spot");
    ASSERT_NE(held, nullptr);
    ASSERT_NE(changing, nullptr);
    ASSERT_TRUE(o.Has({"\"type\":\"Admitted\"", "ns/held", "\"time\":\"2026-01-01T00:00:00Z\""}))
        << "admitted at the first instant: its mean is then its usage exactly";
    EXPECT_EQ(held->usage_at_end, 4000);
    EXPECT_EQ(held->peak_usage, 4000);
    EXPECT_DOUBLE_EQ(held->mean_usage, 4000);
    // b: 1 cpu for 60 s; c: 2 cpu for 100 s; d: 1 cpu for 20 s (milli-cpu x s).
    const double elapsed = static_cast<double>(r.end_time - r.start_time) / 1e6;
    ASSERT_GT(elapsed, 0);
    EXPECT_DOUBLE_EQ(changing->mean_usage, (1000.0 * 60 + 2000.0 * 100 + 1000.0 * 20) / elapsed);
    EXPECT_EQ(changing->usage_at_end, 0);
    EXPECT_EQ(changing->peak_usage, 3000);
  }
}

}  // namespace
}  // namespace replay
