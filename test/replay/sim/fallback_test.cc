// Flavor fallbacks with timeouts (seed 002; docs/fallback.md) replayed end to end: the seed's
// integration scenarios with three flavors, both failure policies, the AdmissionCheckRejected
// trigger, several resource groups, the interleaving the seed warns about, and the report.
#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/sim/replay_stats.h"
#include "replay/sim/simulator.h"
#include "replay/sim/wait_samples.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::Added;
using testing::kT0;
using testing::Outcome;
using testing::TimeField;
using testing::WorkloadJson;

// Flavors f1, f2, f3 (4 cpu each) in one group of ClusterQueue "cq", each with a 10m timeout
// unless `rules` says otherwise; `supply` documents (FlavorSupply) and `extra_cq` spec lines are
// appended.
std::string ThreeFlavors(const std::string& policy, const std::string& supply,
                         const std::string& rules = "", const std::string& extra_cq = "") {
  const std::string default_rules = R"(
      - {name: f1, timeout: 10m}
      - {name: f2, timeout: 10m}
      - {name: f3, timeout: 10m})";
  return fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: f1}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: f2}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: f3}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {{name: f1, resources: [{{name: cpu, nominalQuota: "4"}}]}}
    - {{name: f2, resources: [{{name: cpu, nominalQuota: "4"}}]}}
    - {{name: f3, resources: [{{name: cpu, nominalQuota: "4"}}]}}
  flavorFungibility:
    fallbackStrategy:
      failurePolicy: {0}
      rules:{1}
{3}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
{2}
)",
                     policy, rules.empty() ? default_rules : rules, supply, extra_cq);
}

// A FlavorSupply document: `flavor` cannot deliver in [from, to) seconds after kT0.
std::string Stockout(const std::string& flavor, double from, double to) {
  return fmt::format(R"(---
apiVersion: replay.tally.dev/v1alpha1
kind: FlavorSupply
metadata: {{name: {0}}}
spec:
  stockouts:
  - {{from: "{1}", to: "{2}"}}
)",
                     flavor, testing::At(from), testing::At(to));
}

std::string FlavorOf(const std::string& flavor) {
  return fmt::format(R"("flavors":{{"cpu":"{}"}})", flavor);
}

class FallbackTest : public ::testing::Test {
 protected:
  Outcome Replay(const std::string& manifests, const std::vector<std::string>& lines,
                 SimulatorOptions options = {}) {
    return harness_.Replay(manifests, lines, options);
  }
  testing::ReplayHarness harness_;
};

// Seed, integration test 1: flavor 1 is saturated, so flavor 2 is tried; flavor 2 fails, so
// flavor 1 is tried again, and flavor 3 when flavor 1 still has no capacity.
TEST_F(FallbackTest, SaturatedFirstFlavorThenSecondFailsThenThirdWhileFirstIsStillFull) {
  Outcome o = Replay(ThreeFlavors("DeactivateWorkload", Stockout("f2", 0, 86400)),
                     {Added(0, WorkloadJson("hog", "4"), "20m"),  // holds f1 until 1200 s
                      Added(1, WorkloadJson("w", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/hog", FlavorOf("f1"), TimeField(0)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f2"), TimeField(1)}));
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w", R"("failedFlavors":"f2")",
                     R"("reason":"FlavorFallbackTimeout")", TimeField(601)}));
  EXPECT_TRUE(
      o.Has({R"("type":"Requeued")", "ns/w", R"("reason":"FlavorFallback")", TimeField(601)}));
  // f1 is still held by hog: f3, with f2's failure in the history.
  std::vector<std::string> f3 = o.Find({R"("type":"Admitted")", "ns/w", FlavorOf("f3")});
  ASSERT_EQ(f3.size(), 1u);
  EXPECT_NE(f3[0].find(TimeField(601)), std::string::npos) << f3[0];
  EXPECT_NE(
      f3[0].find(R"("f2":{"assignmentTime":")" + testing::At(1)
                 + R"(","failed":true,"failedBy":"TimeoutForPodsReadyExceeded","used":"10m"})"),
      std::string::npos)
      << f3[0];
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/w", TimeField(661)}));
  EXPECT_EQ(o.report.fallbacks.timeouts, 1);
  EXPECT_EQ(o.report.fallbacks.by_flavor.at("f2"), 1);
  EXPECT_DOUBLE_EQ(o.report.fallbacks.wasted_quota_seconds.at("f2/cpu"), 4.0 * 600);
}

// The same with f1 freed while f2 is being tried (the seed's "non-trivial interleaving"): the
// attempt on f2 is not interrupted; when it times out the scan starts over and f1, which has not
// failed, is taken.
TEST_F(FallbackTest, FirstFlavorFreedDuringTheAttemptIsTriedAgainAfterTheTimeout) {
  Outcome o = Replay(ThreeFlavors("DeactivateWorkload", Stockout("f2", 0, 86400)),
                     {Added(0, WorkloadJson("hog", "4"), "5m"),  // f1 free again at 300 s
                      Added(1, WorkloadJson("w", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f2"), TimeField(1)}));
  EXPECT_FALSE(o.Has({"ns/w", TimeField(300)})) << "the attempt on f2 goes on";
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w", "FlavorFallbackTimeout", TimeField(601)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f1"), TimeField(601)}));
  EXPECT_FALSE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f3")}));
}

// Seed, integration test 2: DeactivateWorkload once every flavor failed.
TEST_F(FallbackTest, DeactivateWorkloadAfterEveryFlavorFailed) {
  std::string supply =
      Stockout("f1", 0, 86400) + Stockout("f2", 0, 86400) + Stockout("f3", 0, 86400);
  Outcome o =
      Replay(ThreeFlavors("DeactivateWorkload", supply), {Added(0, WorkloadJson("w", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f1"), TimeField(0)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f2"), TimeField(600)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f3"), TimeField(1200)}));
  EXPECT_TRUE(o.Has({R"("type":"Deactivated")", "ns/w", R"("reason":"FlavorFallbackExhausted")",
                     TimeField(1800)}));
  EXPECT_EQ(o.report.fallbacks.timeouts, 3);
  EXPECT_EQ(o.report.fallbacks.exhausted, 1);
  EXPECT_EQ(o.report.fallbacks.retries, 0);
  EXPECT_EQ(o.report.deactivated, 1);
  for (const char* key : {"f1/cpu", "f2/cpu", "f3/cpu"}) {
    EXPECT_DOUBLE_EQ(o.report.fallbacks.wasted_quota_seconds.at(key), 4.0 * 600) << key;
  }
}

// Seed, integration test 3: RetryAllFlavors clears the history and starts over from flavor 1.
TEST_F(FallbackTest, RetryAllFlavorsResetsTheHistoryAndStartsOver) {
  std::string supply =
      Stockout("f1", 0, 2000) + Stockout("f2", 0, 86400) + Stockout("f3", 0, 86400);
  Outcome o =
      Replay(ThreeFlavors("RetryAllFlavors", supply), {Added(0, WorkloadJson("w", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w", R"("failedFlavors":"f3")", TimeField(1800)}));
  // Reset: f1 again at 1800 with an empty history, ready when its stockout ends at 2000.
  std::vector<std::string> again = o.Find({R"("type":"Admitted")", "ns/w", TimeField(1800)});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_NE(again[0].find(FlavorOf("f1")), std::string::npos);
  EXPECT_NE(again[0].find(R"("flavorAssignmentHistory":{"f1":{"assignmentTime":")"
                          + testing::At(1800) + R"(","failed":false,"used":"0s"}})"),
            std::string::npos)
      << again[0];
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/w", TimeField(2060)}));
  EXPECT_EQ(o.report.fallbacks.retries, 1);
  EXPECT_EQ(o.report.fallbacks.exhausted, 0);
  EXPECT_EQ(o.report.deactivated, 0);
}

// A flavor without a timeout never fails: the group is never exhausted, the workload waits.
TEST_F(FallbackTest, FlavorWithoutTimeoutIsNeverLeft) {
  const std::string rules = R"(
      - {name: f1, timeout: 10m}
      - {name: f2})";
  Outcome o = Replay(
      ThreeFlavors("DeactivateWorkload", Stockout("f1", 0, 86400) + Stockout("f2", 0, 3000), rules),
      {Added(0, WorkloadJson("w", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f2"), TimeField(600)}));
  EXPECT_FALSE(o.Has({"ns/w", R"("type":"Deactivated")"}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/w", TimeField(3060)}));
}

// Timeouts given as timeoutMinutes (the seed's Go type) behave as `timeout`.
TEST_F(FallbackTest, TimeoutMinutesSpellingBehavesAsTimeout) {
  const std::string rules = R"(
      - {name: f1, timeoutMinutes: 10}
      - {name: f2, timeout: 10m})";
  Outcome o = Replay(ThreeFlavors("DeactivateWorkload", Stockout("f1", 0, 86400), rules),
                     {Added(0, WorkloadJson("w", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w", R"("failedFlavors":"f1")", TimeField(600)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f2"), TimeField(600)}));
}

// Trigger AdmissionCheckRejected: a check completing inside f1's stockout rejects; with the rule
// the workload falls back to f2 instead of being deactivated.
TEST_F(FallbackTest, AdmissionCheckRejectedFallsBackWithTheRuleAndDeactivatesWithout) {
  const std::string check = R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec: {controllerName: kueue.x-k8s.io/provisioning-request})";
  const std::string cq_checks = R"(  admissionChecksStrategy:
    admissionChecks: [{name: prov}])";
  SimulatorOptions options;
  options.admission_check_delay = 60'000'000;
  const std::string with_rule = R"(
      - {name: f1, trigger: AdmissionCheckRejected})";
  Outcome o = Replay(
      ThreeFlavors("DeactivateWorkload", Stockout("f1", 0, 86400) + check, with_rule, cq_checks),
      {Added(0, WorkloadJson("w", "4"), "1m")}, options);
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"QuotaReserved")", "ns/w", FlavorOf("f1"), TimeField(0)}));
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w", R"("reason":"AdmissionCheckRejected")",
                     R"("failedFlavors":"f1")", TimeField(60)}));
  EXPECT_TRUE(o.Has({R"("type":"QuotaReserved")", "ns/w", FlavorOf("f2"), TimeField(60)}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/w", TimeField(180)}));
  EXPECT_EQ(o.report.fallbacks.check_rejections, 1);

  const std::string timeout_only = R"(
      - {name: f1, timeout: 10m})";
  Outcome without = Replay(
      ThreeFlavors("DeactivateWorkload", Stockout("f1", 0, 86400) + check, timeout_only, cq_checks),
      {Added(0, WorkloadJson("w", "4"), "1m")}, options);
  ASSERT_TRUE(without.completed);
  EXPECT_TRUE(without.Has(
      {R"("type":"Deactivated")", "ns/w", R"("reason":"AdmissionCheckRejected")", TimeField(60)}));
  EXPECT_EQ(without.report.fallbacks.check_rejections, 0);
}

// Without any fallback strategy the report has no fallbacks section and nothing changes.
// A recorded workload that already failed f1 (status.flavorAssignmentHistory) resumes where it
// was: f1 stays excluded although it is free, and the history carries into the decisions.
TEST_F(FallbackTest, RecordedHistoryExcludesFailedFlavors) {
  std::string wl = WorkloadJson("w", "4");
  wl.insert(wl.size() - 1,
            fmt::format(R"(,"status":{{"flavorAssignmentHistory":[{{"resourceFlavor":"f1",)"
                        R"("assignmentTime":"{}","usedTime":"10m","failed":true,)"
                        R"("failedBy":"TimeoutForPodsReadyExceeded"}}]}})",
                        testing::At(0)));
  Outcome o = Replay(ThreeFlavors("DeactivateWorkload", ""), {Added(700, wl, "1m")});
  ASSERT_TRUE(o.completed);
  std::vector<std::string> admitted = o.Find({R"("type":"Admitted")", "ns/w"});
  ASSERT_EQ(admitted.size(), 1u);
  EXPECT_NE(admitted[0].find(FlavorOf("f2")), std::string::npos) << admitted[0];
  EXPECT_NE(admitted[0].find(R"("f1":{"assignmentTime":")" + testing::At(0)
                             + R"(","failed":true,"failedBy":"TimeoutForPodsReadyExceeded")"),
            std::string::npos)
      << admitted[0];
}

// FlavorSupply in the trace: a stockout announced at t=0 makes w fall back from f1; once the
// object is deleted, f1 delivers again for x.
TEST_F(FallbackTest, FlavorSupplyEventsChangeTheModelMidTrace) {
  const std::string supply = fmt::format(
      R"({{"apiVersion":"replay.tally.dev/v1alpha1","kind":"FlavorSupply","metadata":{{"name":"f1-supply"}},)"
      R"("spec":{{"flavor":"f1","stockouts":[{{"from":"{}","to":"{}"}}]}}}})",
      testing::At(0), testing::At(86400));
  Outcome o =
      Replay(ThreeFlavors("DeactivateWorkload", ""),
             {testing::Event("ADDED", 0, supply), Added(1, WorkloadJson("w", "4"), "1m"),
              testing::Event("DELETED", 1000, supply), Added(1001, WorkloadJson("x", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_read, 4);
  EXPECT_EQ(o.report.events_applied, 4);
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w", R"("failedFlavors":"f1")", TimeField(601)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", FlavorOf("f2"), TimeField(601)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/x", FlavorOf("f1"), TimeField(1001)}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/x", TimeField(1061)}));
  EXPECT_EQ(o.report.fallbacks.time_to_start.count, 2);
}

// Time to start is kept like every wait group, in memory that does not grow with the trace
// (issue 22): past WaitSamples::kExactUpTo workloads its percentiles come from a histogram,
// within WaitSamples::kMaxRelativeError of the exact ones; count, mean and max stay exact. 6,000
// workloads of 4 cpu all arrive at once and three flavors of 4 cpu run them three at a time for
// 1 s; the next three start 1 s after that (Kueue's inadmissible batch period, docs/replay.md), so
// the k-th to start waits 2 * floor(k / 3) s.
TEST_F(FallbackTest, TimeToStartOfManyWorkloadsIsSummarisedWithinTheHistogramBound) {
  constexpr int kWorkloads = 6000;
  static_assert(static_cast<size_t>(kWorkloads) > WaitSamples::kExactUpTo);
  std::vector<std::string> lines;
  std::vector<int64_t> want;
  for (int i = 0; i < kWorkloads; ++i) {
    lines.push_back(Added(0, WorkloadJson(fmt::format("w{}", i), "4"), "1s"));
    want.push_back(int64_t{i / 3} * 2'000'000);
  }
  Outcome o = Replay(ThreeFlavors("DeactivateWorkload", ""), lines);
  ASSERT_TRUE(o.completed);
  const WaitStats exact = SummarizeWaits(want);
  const WaitStats& got = o.report.fallbacks.time_to_start;
  EXPECT_EQ(got.count, kWorkloads);
  EXPECT_DOUBLE_EQ(got.mean, exact.mean);
  EXPECT_DOUBLE_EQ(got.max, exact.max);
  EXPECT_EQ(got.cumulative_buckets, exact.cumulative_buckets);
  for (auto [g, e] : {std::pair{got.p50, exact.p50}, {got.p90, exact.p90}, {got.p99, exact.p99}}) {
    EXPECT_NEAR(g, e, e * WaitSamples::kMaxRelativeError) << "exact " << e;
  }
}

TEST_F(FallbackTest, NoStrategyNoFallbackSection) {
  Outcome o = Replay(testing::Manifests("4"), {Added(0, WorkloadJson("w", "4"), "1m")});
  ASSERT_TRUE(o.completed);
  EXPECT_FALSE(o.report.fallbacks.enabled);
  EXPECT_FALSE(o.Has({"flavorAssignmentHistory"}));
}

// The shipped scenarios (data/fallback/README.md): with the strategy, jobs start sooner than
// without it, where a stocked-out flavor would otherwise hold them until the pods-ready timeout.
std::string ShippedFile(const std::string& relative) {
  std::ifstream in(std::string(TALLY_SOURCE_DIR) + "/data/fallback/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> ShippedEvents(const std::string& scenario) {
  std::istringstream in(ShippedFile(scenario + "/events.jsonl"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(R"({"format")", 0) != 0) {  // the optional header is not an event
      lines.push_back(line);
    }
  }
  return lines;
}

TEST_F(FallbackTest, ShippedSpotStockoutStartsSoonerWithTheStrategy) {
  const std::vector<std::string> events = ShippedEvents("spot-stockout");
  ASSERT_EQ(events.size(), 192u);
  Outcome with = Replay(ShippedFile("spot-stockout/manifests.yaml"), events);
  Outcome without = Replay(ShippedFile("spot-stockout/manifests-no-fallback.yaml"), events);
  ASSERT_TRUE(with.completed && without.completed);
  const WaitStats& a = with.report.fallbacks.time_to_start;
  const WaitStats& b = without.report.fallbacks.time_to_start;
  EXPECT_EQ(a.count, 192);
  EXPECT_EQ(b.count, 192);
  EXPECT_LT(a.mean, b.mean / 3);  // 5.7 minutes against 21.4
  EXPECT_LT(a.p99, b.p99 / 5);    // 20.8 minutes against 3.35 hours
  // Without the strategy the stocked-out spot attempts end in the pods-ready timeout instead.
  EXPECT_EQ(with.report.fallbacks.by_flavor.at("spot"), with.report.fallbacks.timeouts);
  EXPECT_GT(without.report.evictions_by_reason.at("PodsReadyTimeout"), 0);
  EXPECT_EQ(with.report.evictions_by_reason.count("PodsReadyTimeout"), 0u);
}

TEST_F(FallbackTest, ShippedFlavorAbcCutsTheTailAtTheCostOfWastedQuota) {
  const std::vector<std::string> events = ShippedEvents("flavor-abc");
  ASSERT_EQ(events.size(), 236u);
  Outcome with = Replay(ShippedFile("flavor-abc/manifests.yaml"), events);
  Outcome without = Replay(ShippedFile("flavor-abc/manifests-no-fallback.yaml"), events);
  ASSERT_TRUE(with.completed && without.completed);
  EXPECT_LT(with.report.fallbacks.time_to_start.p99, without.report.fallbacks.time_to_start.p99);
  EXPECT_GT(with.report.fallbacks.wasted_quota_seconds.at("flavor-b/cpu"), 0.0);
}

}  // namespace
}  // namespace replay
