// The per-flavor history of seed 002 (engine/flavor_fallback.h): rule lookup, deadlines from the
// time already used, several attempts sharing a timeout, success clearing it, failure, exclusion
// by the flavor assigner, exhaustion per resource group, and the RetryAllFlavors reset.
#include "engine/flavor_fallback.h"

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/flavor_assigner.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

constexpr TimeMicros kMinute = 60'000'000;

ResourceGroupSpec Group(const std::string& resource, std::initializer_list<const char*> flavors) {
  ResourceGroupSpec g;
  g.covered_resources = {resource};
  for (const char* f : flavors) {
    FlavorQuotasSpec& fq = g.flavors.emplace_back();
    fq.flavor = f;
    fq.resources.push_back({resource, Quantity(resource == "cpu" ? 8000 : 8), {}, {}});
  }
  return g;
}

// cq: group 1 covers cpu with c1, c2; group 2 covers nvidia.com/gpu with g1, g2.
// Rules: c1 10m, c2 none, g1 5m, "*" 7m (so g2 gets 7m).
class FlavorFallbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterSpec spec;
    for (const char* f : {"c1", "c2", "g1", "g2"}) {
      spec.flavors.emplace_back().name = f;
    }
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = "cq";
    cq.namespace_selector.is_null = false;
    cq.resource_groups = {Group("cpu", {"c1", "c2"}), Group("nvidia.com/gpu", {"g1", "g2"})};
    FlavorFallbackSpec fb;
    fb.rules = {{"c1", FallbackTrigger::kTimeoutForPodsReadyExceeded, 10 * kMinute},
                {"c2", FallbackTrigger::kTimeoutForPodsReadyExceeded, std::nullopt},
                {"g1", FallbackTrigger::kTimeoutForPodsReadyExceeded, 5 * kMinute},
                {"*", FallbackTrigger::kTimeoutForPodsReadyExceeded, 7 * kMinute},
                {"g2", FallbackTrigger::kAdmissionCheckRejected, std::nullopt}};
    cq.flavor_fungibility.fallback = fb;
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = "lq";
    lq.cluster_queue = "cq";
    WorkloadSpec& w = spec.workloads.emplace_back();
    w.name_space = "ns";
    w.name = "w";
    w.queue_name = "lq";
    PodSetSpec& ps = w.pod_sets.emplace_back();
    ps.count = 1;
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity("1"));
    AddTo(c.requests, "nvidia.com/gpu", *ParseDecimalQuantity("1"));
    cluster_.Apply(spec);
    id_ = *store_.Add(spec.workloads[0]);
    cluster_.Refresh();
  }

  FlavorId F(const char* name) { return *cluster_.FindFlavor(name); }
  Workload& W() { return store_.Get(id_); }
  // Reserves the workload on cpu flavor `cpu` and gpu flavor `gpu` at `now`.
  void Reserve(const char* cpu, const char* gpu, TimeMicros now) {
    AdmittedPodSet ps;
    ps.name = "main";
    ps.count = 1;
    ps.flavors = {{*cluster_.FindResource("cpu"), F(cpu)},
                  {*cluster_.FindResource("nvidia.com/gpu"), F(gpu)}};
    store_.Reserve(id_, W().cluster_queue, {ps}, {}, now);
    StartFallbackAttempt(cluster_, W(), now);
  }

  Cluster cluster_;
  WorkloadStore store_{cluster_};
  WorkloadId id_{};
};

TEST_F(FlavorFallbackTest, RuleOfTheFlavorBeatsTheWildcard) {
  const FlavorFallbackSpec& fb = *cluster_.Spec(W().cluster_queue).flavor_fungibility.fallback;
  const auto timeout = FallbackTrigger::kTimeoutForPodsReadyExceeded;
  EXPECT_EQ(FindFallbackRule(fb, "g1", timeout)->timeout, 5 * kMinute);
  EXPECT_EQ(FindFallbackRule(fb, "g2", timeout)->timeout, 7 * kMinute);  // "*"
  EXPECT_FALSE(FindFallbackRule(fb, "c2", timeout)->timeout.has_value());
  EXPECT_EQ(FindFallbackRule(fb, "g2", FallbackTrigger::kAdmissionCheckRejected)->flavor, "g2");
  EXPECT_EQ(FindFallbackRule(fb, "c1", FallbackTrigger::kAdmissionCheckRejected), nullptr);
}

TEST_F(FlavorFallbackTest, DeadlineIsTheEarliestOfTheAssignedFlavors) {
  Reserve("c1", "g1", 100);
  EXPECT_EQ(FallbackDeadline(cluster_, W()), 100 + 5 * kMinute);  // g1 before c1
  EXPECT_EQ(W().fallback->Find(F("c1"))->assignment_time, 100);
  EXPECT_EQ(W().fallback->Find(F("g1"))->assignment_time, 100);
}

TEST_F(FlavorFallbackTest, AttemptsShareTheTimeoutAndQueueTimeDoesNotCount) {
  Reserve("c1", "g2", 0);
  EXPECT_EQ(FallbackDeadline(cluster_, W()), 7 * kMinute);  // g2 ("*") before c1 (10m)
  // Preempted after 3 minutes, before its pods were ready.
  EXPECT_TRUE(EndFallbackAttempt(cluster_, W(), 3 * kMinute).empty());
  store_.Release(id_);
  EXPECT_EQ(W().fallback->Find(F("c1"))->used, 3 * kMinute);
  // An hour in the queue, then the same flavors again: 4 minutes left on g2, 7 on c1.
  Reserve("c1", "g2", 63 * kMinute);
  EXPECT_EQ(FallbackDeadline(cluster_, W()), 63 * kMinute + 4 * kMinute);
  std::vector<FlavorId> failed = EndFallbackAttempt(cluster_, W(), 67 * kMinute);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], F("g2"));
  EXPECT_TRUE(W().fallback->IsFailed(F("g2")));
  EXPECT_FALSE(W().fallback->IsFailed(F("c1")));
  EXPECT_EQ(W().fallback->Find(F("c1"))->used, 7 * kMinute);
}

TEST_F(FlavorFallbackTest, PodsReadyClearsTheTimeUsed) {
  Reserve("c1", "g1", 0);
  EndFallbackAttempt(cluster_, W(), 2 * kMinute);
  store_.Release(id_);
  Reserve("c1", "g1", 10 * kMinute);
  OnFallbackPodsReady(cluster_, W());
  EXPECT_EQ(W().fallback->Find(F("g1"))->used, 0);
  EXPECT_FALSE(FallbackDeadline(cluster_, W()).has_value()) << "no attempt open";
  EXPECT_TRUE(EndFallbackAttempt(cluster_, W(), 90 * kMinute).empty());
  EXPECT_FALSE(W().fallback->IsFailed(F("g1")));
}

TEST_F(FlavorFallbackTest, FailedFlavorIsExcludedByTheFlavorAssigner) {
  Reserve("c1", "g1", 0);
  EndFallbackAttempt(cluster_, W(), 5 * kMinute);  // g1 fails
  store_.Release(id_);
  AssignRequest req;
  req.workload = &W();
  req.cq = W().cluster_queue;
  req.cluster = &cluster_;
  req.tree = &cluster_.tree();
  Assignment a = AssignFlavors(req, nullptr);
  ASSERT_EQ(a.Mode(), AssignmentMode::kFit);
  for (const FlavorChoice& c : a.pod_sets[0].flavors) {
    EXPECT_NE(c.flavor, F("g1"));
  }
  EXPECT_EQ(a.pod_sets[0].flavors.size(), 2u);
}

TEST_F(FlavorFallbackTest, ExhaustedWhenEveryFlavorOfOneGroupFailedThenResetForgetsAll) {
  Reserve("c1", "g1", 0);
  EndFallbackAttempt(cluster_, W(), 5 * kMinute);  // g1
  store_.Release(id_);
  EXPECT_FALSE(FallbackExhausted(cluster_, W()));
  Reserve("c1", "g2", 5 * kMinute);
  EXPECT_EQ(FailOnAdmissionCheckRejected(cluster_, W()), std::vector<FlavorId>{F("g2")});
  EXPECT_TRUE(FallbackExhausted(cluster_, W())) << "g1 and g2 both failed";
  ResetFallbackHistory(W());
  EXPECT_TRUE(W().fallback->empty());
  EXPECT_EQ(W().fallback->resets, 1);
  EXPECT_FALSE(FallbackExhausted(cluster_, W()));
}

TEST_F(FlavorFallbackTest, CpuGroupWithAFlavorWithoutTimeoutIsNeverExhausted) {
  Reserve("c1", "g1", 0);
  EndFallbackAttempt(cluster_, W(), 20 * kMinute);  // c1 (10m) and g1 (5m) fail
  store_.Release(id_);
  EXPECT_TRUE(W().fallback->IsFailed(F("c1")));
  Reserve("c2", "g2", 20 * kMinute);
  EndFallbackAttempt(cluster_, W(), 500 * kMinute);  // c2 has no timeout; g2 (7m) fails
  EXPECT_FALSE(W().fallback->IsFailed(F("c2")));
  EXPECT_TRUE(FallbackExhausted(cluster_, W())) << "the gpu group has no flavor left";
}

}  // namespace
}  // namespace engine
