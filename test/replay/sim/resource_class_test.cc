// Resource classes (seed 001; docs/resource-classes.md) from manifests to decisions: the seed's
// examples load as written, Nodes with devices, load errors, and replays where quota fits but
// devices do not (next flavor, or waiting), first-fit placement in the decisions, node failure,
// class immutability, and the class status in the report.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "replay/io/manifest_loader.h"
#include "replay/sim/simulator.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::Added;
using testing::Outcome;
using testing::TimeField;

// The seed's three examples, verbatim (no apiVersion).
constexpr char kSeedClasses[] = R"(kind: ResourceClass
metadata:
  name: nvidia.high.mem
spec:
  resourceSelector:
    - matchExpressions:
        - key: "Kind"
          operator: "In"
          values:
            - "nvidia-gpu"
        - key: "memory"
          operator: "GtEq"
          values:
            - "30G"
---
kind: ResourceClass
metadata:
  name: hugepages-1gig
spec:
  resourceSelector:
    - matchExpressions:
        - key: "Kind"
          operator: "In"
          values:
            - "huge-pages"
        - key: "size"
          operator: "GtEq"
          values:
            - "1G"
---
kind: ResourceClass
metadata:
  name: fast.nic
spec:
  resourceSelector:
    - matchExpressions:
        - key: "Kind"
          operator: "In"
          values:
            - "nic"
        - key: "speed"
          operator: "GtEq"
          values:
            - "40GBPS"
)";

constexpr char kSeedNode[] = R"(---
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: {pool: a}
status:
  capacity: {cpu: "64"}
  devices:
  - {name: tesla-v100-32g, kind: nvidia-gpu, count: 4, properties: {memory: 32Gi}}
  - {name: tesla-k80-12g, kind: nvidia-gpu, count: 2, properties: {memory: 12Gi}}
  - {name: hugepages-2m, kind: huge-pages, count: 512, properties: {size: 2Mi}}
  - {name: hugepages-1g, kind: huge-pages, count: 16, properties: {size: 1Gi}}
  - {name: mlx-100g, kind: nic, count: 2, properties: {speed: 100GBPS}}
  - {name: intel-10g, kind: nic, count: 2, properties: {speed: 10GBPS}}
)";

std::string Dump(const std::vector<LoadError>& errors) {
  std::string out;
  for (const LoadError& e : errors) {
    out += e.ToString() + "\n";
  }
  return out;
}

TEST(ResourceClassLoadTest, SeedExamplesLoadAsWrittenAndSelectTheRightDevices) {
  LoadResult r = LoadManifestString(std::string(kSeedClasses) + kSeedNode, "seed.yaml");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
  ASSERT_EQ(r.spec.resource_classes.size(), 3u);
  EXPECT_EQ(r.spec.resource_classes[2].name, "fast.nic");
  ASSERT_EQ(r.spec.nodes.size(), 1u);
  EXPECT_EQ(r.spec.nodes[0].devices.size(), 6u);
  EXPECT_EQ(r.spec.nodes[0].devices[2].count, 512);
  engine::Cluster cluster;
  cluster.Apply(r.spec);
  std::map<std::string, int64_t> allocatable;
  for (const engine::ResourceClassStatus& s : cluster.devices().Status()) {
    allocatable[s.name] = s.allocatable;
    EXPECT_EQ(s.requested, 0);
  }
  EXPECT_EQ(allocatable["nvidia.high.mem"], 4);  // 32Gi >= 30G; 12Gi is not
  EXPECT_EQ(allocatable["hugepages-1gig"], 16);  // 1Gi >= 1G; 2Mi is not
  EXPECT_EQ(allocatable["fast.nic"], 2);         // 100GBPS >= 40GBPS; 10GBPS is not
}

TEST(ResourceClassLoadTest, ErrorsNameTheField) {
  struct Case {
    std::string yaml;
    std::string path;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"kind: ResourceClass\nmetadata: {name: c}\nspec:\n  resourceSelector:\n  - "
       "matchExpressions:\n    - {key: memory, operator: Bigger, values: [1]}\n",
       "spec.resourceSelector[0].matchExpressions[0].operator", "Unsupported value: \"Bigger\""},
      {"kind: ResourceClass\nmetadata: {name: c}\nspec:\n  resourceSelector:\n  - "
       "matchExpressions:\n    - {key: memory, operator: GtEq, values: [fast]}\n",
       "spec.resourceSelector[0].matchExpressions[0]", "fast"},
      {"kind: ResourceClass\nmetadata: {name: c}\nspec:\n  resourceSelector:\n  - "
       "matchExpressions:\n    - {key: memory, operator: Exists, values: [1]}\n",
       "spec.resourceSelector[0].matchExpressions[0]", ""},
      {"kind: ResourceClass\nmetadata: {name: c}\nspec:\n  resourceSelector:\n  - "
       "matchExpressions:\n    - {operator: Exists}\n",
       "spec.resourceSelector[0].matchExpressions[0].key", "Required value"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  devices:\n  - {kind: gpu}\n",
       "status.devices[0].name", "Required value"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  devices:\n  - {name: d, "
       "count: 0}\n",
       "status.devices[0].count", "must be at least 1"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  devices:\n  - {name: d}\n  - "
       "{name: d}\n",
       "status.devices[1].name", "Duplicate value"},
      {"apiVersion: v2\nkind: Node\nmetadata: {name: n}\n", "apiVersion", "want v1"},
  };
  for (const Case& c : cases) {
    LoadResult r = LoadManifestString(c.yaml, "x.yaml");
    ASSERT_EQ(r.errors.size(), 1u) << c.yaml << Dump(r.errors);
    EXPECT_EQ(r.errors[0].field_path, c.path) << c.yaml;
    EXPECT_NE(r.errors[0].message.find(c.message), std::string::npos)
        << c.yaml << r.errors[0].message;
    EXPECT_GT(r.errors[0].line, 0) << c.yaml;
  }
}

// Flavors a (nodes a1: 4 x 40Gi, a2: 4 x 80Gi) and, unless `only_a`, b (node b1: 8 x 80Gi);
// classes gpu.any (every nvidia-gpu) and gpu.big (memory >= 70G); ClusterQueue cq gives each
// flavor 16 of each class: more than the devices, so quota alone never stops anything here.
std::string Cluster(bool only_a) {
  std::string flavors_b = only_a ? "" : R"(
    - name: b
      resources: [{name: gpu.any, nominalQuota: 16}, {name: gpu.big, nominalQuota: 16}])";
  std::string out = fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: a}}
spec: {{nodeLabels: {{pool: a}}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: b}}
spec: {{nodeLabels: {{pool: b}}}}
---
kind: ResourceClass
metadata: {{name: gpu.any}}
spec:
  resourceSelector: [{{matchExpressions: [{{key: Kind, operator: In, values: [nvidia-gpu]}}]}}]
---
kind: ResourceClass
metadata: {{name: gpu.big}}
spec:
  resourceSelector:
  - matchExpressions:
    - {{key: Kind, operator: In, values: [nvidia-gpu]}}
    - {{key: memory, operator: GtEq, values: ["70G"]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [gpu.any, gpu.big]
    flavors:
    - name: a
      resources: [{{name: gpu.any, nominalQuota: 16}}, {{name: gpu.big, nominalQuota: 16}}]{}
  flavorFungibility: {{whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
)",
                                flavors_b);
  out += R"(---
apiVersion: v1
kind: Node
metadata: {name: a1, labels: {pool: a}}
status: {devices: [{name: a100-40g, kind: nvidia-gpu, count: 4, properties: {memory: 40Gi}}]}
---
apiVersion: v1
kind: Node
metadata: {name: a2, labels: {pool: a}}
status: {devices: [{name: a100-80g, kind: nvidia-gpu, count: 4, properties: {memory: 80Gi}}]}
---
apiVersion: v1
kind: Node
metadata: {name: b1, labels: {pool: b}}
status: {devices: [{name: h100-80g, kind: nvidia-gpu, count: 8, properties: {memory: 80Gi}}]}
)";
  return out;
}

// A Workload ns/<name> of `pods` pods, each asking `per_pod` devices of `resource_class`.
std::string GpuWorkload(const std::string& name, const std::string& resource_class, int pods,
                        int per_pod) {
  return fmt::format(
      R"({{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{{"name":"{0}","namespace":"ns"}},"spec":{{"queueName":"lq","podSets":[{{"name":"main","count":{2},"template":{{"spec":{{"containers":[{{"name":"c","resources":{{"requests":{{"{1}":"{3}"}}}}}}]}}}}}}]}}}})",
      name, resource_class, pods, per_pod);
}

std::string FlavorOf(const std::string& resource, const std::string& flavor) {
  return fmt::format(R"("flavors":{{"{}":"{}"}})", resource, flavor);
}

std::string Grant(const std::string& resource_class, const std::string& device, int count,
                  const std::string& node, int pod) {
  return fmt::format(
      R"({{"annotation":"scheduler.alpha.kubernetes.io/resClass_{}_{}={}","node":"{}","pod":{},"podSet":"main"}})",
      resource_class, device, count, node, pod);
}

const ReplayReport::ResourceClassFigures* ClassOf(const Outcome& o, const std::string& name) {
  for (const ReplayReport::ResourceClassFigures& c : o.report.resource_classes.classes) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

class ResourceClassReplayTest : public ::testing::Test {
 protected:
  Outcome Replay(const std::string& manifests, const std::vector<std::string>& lines) {
    return harness_.Replay(manifests, lines);
  }
  testing::ReplayHarness harness_;
};

// First-fit: w1's pod takes a1 (first node by name); w2's two pods of 3 do not fit on a (a1 is
// full, a2 has 4: one pod), although a's quota would take them: flavor b instead.
TEST_F(ResourceClassReplayTest, QuotaFitsDevicesDoNotSoTheNextFlavor) {
  Outcome o = Replay(Cluster(false), {Added(0, GpuWorkload("w1", "gpu.any", 1, 4), "10m"),
                                      Added(1, GpuWorkload("w2", "gpu.any", 2, 3), "10m")});
  ASSERT_TRUE(o.completed);
  std::vector<std::string> w1 = o.Find({R"("type":"Admitted")", "ns/w1"});
  ASSERT_EQ(w1.size(), 1u);
  EXPECT_NE(w1[0].find(FlavorOf("gpu.any", "a")), std::string::npos) << w1[0];
  EXPECT_NE(w1[0].find(R"("devices":[)" + Grant("gpu.any", "a100-40g", 4, "a1", 0) + "]"),
            std::string::npos)
      << w1[0];
  std::vector<std::string> w2 = o.Find({R"("type":"Admitted")", "ns/w2"});
  ASSERT_EQ(w2.size(), 1u);
  EXPECT_NE(w2[0].find(FlavorOf("gpu.any", "b")), std::string::npos) << w2[0];
  EXPECT_NE(w2[0].find(Grant("gpu.any", "h100-80g", 3, "b1", 0) + ","
                       + Grant("gpu.any", "h100-80g", 3, "b1", 1)),
            std::string::npos)
      << w2[0];
  // Admitted in that cycle on another flavor: not held back by devices.
  EXPECT_TRUE(o.report.resource_classes.devices_short.empty());
  const ReplayReport::ResourceClassFigures* any = ClassOf(o, "gpu.any");
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->allocatable_at_end, 16);
  EXPECT_EQ(any->requested_at_end, 0);  // everything finished
  EXPECT_EQ(any->peak_requested, 10);
  const ReplayReport::ResourceClassFigures* big = ClassOf(o, "gpu.big");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->allocatable_at_end, 12);  // a2 and b1
  EXPECT_EQ(big->peak_requested, 6);       // w2's devices on b1 are big ones
}

// Only flavor a: w2 waits for w1's devices although the quota is free (NoFit, inadmissible),
// then takes a1 and a2 once w1 finished.
TEST_F(ResourceClassReplayTest, QuotaAloneWouldHaveAdmittedItDevicesMakeItWait) {
  Outcome o = Replay(Cluster(true), {Added(0, GpuWorkload("w1", "gpu.any", 1, 4), "10m"),
                                     Added(1, GpuWorkload("w2", "gpu.any", 2, 3), "10m")});
  ASSERT_TRUE(o.completed);
  // w1 finishes at 10m; inadmissible workloads are requeued 1 s later (Kueue's batch period).
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w2", TimeField(601)}));
  EXPECT_TRUE(o.Has(
      {R"("type":"Admitted")", "ns/w2",
       Grant("gpu.any", "a100-40g", 3, "a1", 0) + "," + Grant("gpu.any", "a100-80g", 3, "a2", 1)}));
  EXPECT_EQ(o.report.resource_classes.devices_short, (std::set<std::string>{"ns/w2"}));
}

// A class selects big GPUs only: a pod asking 4 big ones skips a1 and takes a2.
TEST_F(ResourceClassReplayTest, ClassSelectsByMemory) {
  Outcome o = Replay(Cluster(true), {Added(0, GpuWorkload("w", "gpu.big", 1, 4), "10m")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w", Grant("gpu.big", "a100-80g", 4, "a2", 0)}));
}

// Node a1 fails under w1: evicted (NodeFailure), requeued, re-admitted on a2's devices.
TEST_F(ResourceClassReplayTest, NodeDeletedEvictsItsWorkloadsWhichRequeue) {
  const std::string a1 =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"a1","labels":{"pool":"a"}},"status":{"devices":[{"name":"a100-40g","kind":"nvidia-gpu","count":4,"properties":{"memory":"40Gi"}}]}})";
  Outcome o =
      Replay(Cluster(true), {Added(0, GpuWorkload("w1", "gpu.any", 1, 4), "10m"),
                             testing::Event("DELETED", 60, a1), testing::Event("ADDED", 3600, a1)});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_applied, 3);
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w1", R"("reason":"NodeFailure")", R"("node":"a1")",
                     TimeField(60)}));
  EXPECT_TRUE(o.Has({R"("type":"Requeued")", "ns/w1", R"("reason":"NodeFailure")"}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w1", Grant("gpu.any", "a100-80g", 4, "a2", 0)}));
  EXPECT_EQ(o.report.evictions_by_reason.at("NodeFailure"), 1);
  const ReplayReport::ResourceClassFigures* any = ClassOf(o, "gpu.any");
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->allocatable_at_end, 16);  // a1 is back
  // Over time: 16 devices, 12 while a1 was gone.
  EXPECT_NE(std::find(any->allocatable.begin(), any->allocatable.end(), 12.0f),
            any->allocatable.end());
}

// A Node MODIFIED so that its devices change (a1 down to 2 devices: one failed) evicts the
// workloads holding devices on it, like a deletion; a MODIFIED that changes nothing does not.
TEST_F(ResourceClassReplayTest, NodeModifiedDevicesEvictItsWorkloads) {
  const std::string a1_same =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"a1","labels":{"pool":"a"}},"status":{"devices":[{"name":"a100-40g","kind":"nvidia-gpu","count":4,"properties":{"memory":"40Gi"}}]}})";
  const std::string a1_fewer =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"a1","labels":{"pool":"a"}},"status":{"devices":[{"name":"a100-40g","kind":"nvidia-gpu","count":2,"properties":{"memory":"40Gi"}}]}})";
  Outcome o = Replay(Cluster(true), {Added(0, GpuWorkload("w1", "gpu.any", 1, 4), "10m"),
                                     testing::Event("MODIFIED", 30, a1_same),
                                     testing::Event("MODIFIED", 60, a1_fewer)});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_applied, 3);
  EXPECT_FALSE(o.Has({R"("type":"Evicted")", TimeField(30)}));
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/w1", R"("reason":"NodeFailure")", R"("node":"a1")",
                     TimeField(60)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/w1", Grant("gpu.any", "a100-80g", 4, "a2", 0)}));
  const ReplayReport::ResourceClassFigures* any = ClassOf(o, "gpu.any");
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->allocatable_at_end, 14);
  EXPECT_EQ(any->requested_at_end, 0);
}

// ResourceClass is immutable: a MODIFIED with other selectors is rejected, one with the same is
// applied; DELETED then ADDED changes it.
TEST_F(ResourceClassReplayTest, ClassIsImmutableAfterCreation) {
  const std::string same =
      R"({"kind":"ResourceClass","metadata":{"name":"gpu.any"},"spec":{"resourceSelector":[{"matchExpressions":[{"key":"Kind","operator":"In","values":["nvidia-gpu"]}]}]}})";
  const std::string other =
      R"({"kind":"ResourceClass","metadata":{"name":"gpu.any"},"spec":{"resourceSelector":[{"matchExpressions":[{"key":"memory","operator":"Gt","values":["50Gi"]}]}]}})";
  Outcome o = Replay(Cluster(true),
                     {testing::Event("MODIFIED", 0, other), testing::Event("MODIFIED", 1, same),
                      testing::Event("DELETED", 2, same), testing::Event("ADDED", 3, other)});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_read, 4);
  EXPECT_EQ(o.report.events_applied, 3);
  EXPECT_EQ(o.report.events_rejected, 1);
  const ReplayReport::ResourceClassFigures* any = ClassOf(o, "gpu.any");
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->allocatable_at_end, 12);  // re-created: only the 80Gi devices of a2 and b1
}

}  // namespace
}  // namespace replay
