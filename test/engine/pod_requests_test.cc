// A workload's effective requests (kueue-semantics.md §3, seed 000 for transformations).
#include "engine/pod_requests.h"

#include <gtest/gtest.h>

namespace engine {
namespace {

ResourceList L(std::initializer_list<std::pair<const char*, const char*>> entries) {
  ResourceList out;
  for (const auto& [name, text] : entries) {
    AddTo(out, name, *ParseDecimalQuantity(text));
  }
  return out;
}

int64_t Amount(const std::vector<CanonicalAmount>& list, const std::string& name) {
  for (const CanonicalAmount& a : list) {
    if (a.resource == name) {
      return a.amount.value();
    }
  }
  return -1;  // absent
}

ContainerResources C(ResourceList requests, ResourceList limits = {}, bool sidecar = false) {
  ContainerResources c;
  c.requests = std::move(requests);
  c.limits = std::move(limits);
  c.restartable_sidecar = sidecar;
  return c;
}

// §3.2 worked example: containers, a limit standing in for a request, a sidecar, an init
// container and overhead, count 3.
TEST(PodRequestsTest, WorkedExampleOfSection32) {
  PodResources pod;
  pod.containers = {C(L({{"cpu", "1"}, {"memory", "1Gi"}})),
                    C(L({{"cpu", "500m"}}), L({{"memory", "2Gi"}}))};
  pod.init_containers = {C(L({{"cpu", "250m"}, {"memory", "128Mi"}}), {}, /*sidecar=*/true),
                         C(L({{"cpu", "2"}, {"memory", "512Mi"}}))};
  pod.overhead = L({{"cpu", "100m"}, {"memory", "64Mi"}});
  std::vector<CanonicalAmount> total = PodSetRequests(pod, 3, 0, {});
  EXPECT_EQ(Amount(total, "cpu"), 7050);
  EXPECT_EQ(Amount(total, "memory"), 10'267'656'192);
}

TEST(PodRequestsTest, RoundingIsPerPodThenMultiplied) {
  PodResources pod;
  pod.containers = {C(L({{"nvidia.com/gpu", "500m"}}))};
  EXPECT_EQ(Amount(PodSetRequests(pod, 4, 0, {}), "nvidia.com/gpu"), 4);  // 1 per pod, not 2
}

TEST(PodRequestsTest, ReclaimablePodsReduceTheCount) {
  PodResources pod;
  pod.containers = {C(L({{"cpu", "1"}}))};
  EXPECT_EQ(Amount(PodSetRequests(pod, 5, 2, {}), "cpu"), 3000);
  EXPECT_EQ(Amount(PodSetRequests(pod, 5, 9, {}), "cpu"), 0);
}

TEST(PodRequestsTest, PodLevelRequestsReplaceCpuAndMemoryOnly) {
  PodResources pod;
  pod.containers = {C(L({{"cpu", "1"}, {"memory", "1Gi"}, {"example.com/x", "2"}}))};
  pod.pod_requests = L({{"cpu", "3"}, {"example.com/x", "7"}});
  std::vector<CanonicalAmount> r = PodSetRequests(pod, 1, 0, {});
  EXPECT_EQ(Amount(r, "cpu"), 3000);
  EXPECT_EQ(Amount(r, "memory"), 1'073'741'824);
  EXPECT_EQ(Amount(r, "example.com/x"), 2);
}

TEST(PodRequestsTest, ExclusionPrecedesTransformation) {
  ResourcesConfigSpec config;
  config.exclude_resource_prefixes = {"example.com/"};
  ResourceTransformationSpec rule;
  rule.input = "example.com/in";
  rule.strategy = TransformationStrategy::kReplace;
  rule.outputs = {{"out", *ParseDecimalQuantity("1")}};
  config.transformations = {rule};
  PodResources pod;
  pod.containers = {C(L({{"cpu", "1"}, {"example.com/in", "4"}}))};
  std::vector<CanonicalAmount> r = PodSetRequests(pod, 1, 0, config);
  EXPECT_EQ(Amount(r, "example.com/in"), -1);
  EXPECT_EQ(Amount(r, "out"), -1);  // excluded inputs never transform
  EXPECT_EQ(Amount(r, "cpu"), 1000);
}

TEST(PodRequestsTest, RetainKeepsInputReplaceDropsIt) {
  ResourceTransformationSpec retain;
  retain.input = "nvidia.com/mig-1g.5gb";
  retain.outputs = {{"example.com/accelerator-memory", *ParseDecimalQuantity("5Gi")},
                    {"example.com/credits", *ParseDecimalQuantity("10")}};
  ResourcesConfigSpec config;
  config.transformations = {retain};
  PodResources pod;
  pod.containers = {C(L({{"nvidia.com/mig-1g.5gb", "2"}}))};
  std::vector<CanonicalAmount> r = PodSetRequests(pod, 1, 0, config);
  EXPECT_EQ(Amount(r, "nvidia.com/mig-1g.5gb"), 2);
  EXPECT_EQ(Amount(r, "example.com/accelerator-memory"), 10 * 1'073'741'824LL);
  EXPECT_EQ(Amount(r, "example.com/credits"), 20);
  config.transformations[0].strategy = TransformationStrategy::kReplace;
  r = PodSetRequests(pod, 1, 0, config);
  EXPECT_EQ(Amount(r, "nvidia.com/mig-1g.5gb"), -1);
  EXPECT_EQ(Amount(r, "example.com/credits"), 20);
}

// §3.4 "transformAllowanceAboveIt": gpumem{Replace, multiplyBy gpu, overage:1},
// gpu{Retain, overage:-1024}.
TEST(PodRequestsTest, NegativeOutputsAreAllowancesClampedAtZero) {
  ResourceTransformationSpec gpumem;
  gpumem.input = "gpumem";
  gpumem.strategy = TransformationStrategy::kReplace;
  gpumem.multiply_by = "gpu";
  gpumem.outputs = {{"overage", *ParseDecimalQuantity("1")}};
  ResourceTransformationSpec gpu;
  gpu.input = "gpu";
  gpu.outputs = {{"overage", *ParseDecimalQuantity("-1024")}};
  ResourcesConfigSpec config;
  config.transformations = {gpumem, gpu};
  PodResources pod;
  pod.containers = {C(L({{"gpumem", "2048"}, {"gpu", "2"}}))};
  std::vector<CanonicalAmount> r = PodSetRequests(pod, 1, 0, config);
  EXPECT_EQ(Amount(r, "overage"), 2048);
  EXPECT_EQ(Amount(r, "gpu"), 2);
  EXPECT_EQ(Amount(r, "gpumem"), -1);
  pod.containers = {C(L({{"gpumem", "512"}, {"gpu", "2"}}))};
  EXPECT_EQ(Amount(PodSetRequests(pod, 1, 0, config), "overage"), 0);
}

TEST(PodRequestsTest, ReplaceWithoutOutputsIgnoresTheInput) {
  ResourceTransformationSpec drop;
  drop.input = "example.com/ignored";
  drop.strategy = TransformationStrategy::kReplace;
  ResourcesConfigSpec config;
  config.transformations = {drop};
  PodResources pod;
  pod.containers = {C(L({{"example.com/ignored", "3"}, {"cpu", "1"}}))};
  std::vector<CanonicalAmount> r = PodSetRequests(pod, 2, 0, config);
  EXPECT_EQ(Amount(r, "example.com/ignored"), -1);
  EXPECT_EQ(Amount(r, "cpu"), 2000);
}

}  // namespace
}  // namespace engine
