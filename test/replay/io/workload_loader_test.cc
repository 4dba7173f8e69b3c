// Tests for the Workload, Namespace and AdmissionCheck parsers (replay/io/workload_fields.h).
// Run with the repository root as working directory (ctest does that): some tests load shipped
// files under data/.
#include <gtest/gtest.h>

#include "test/replay/io/workload_loader_test_fixture.h"

namespace replay {
namespace {

TEST(WorkloadLoaderTest, EveryFieldV1beta2) {
  LoadResult r = Load(kFullWorkload);
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.spec.workloads.size(), 1u);
  EXPECT_EQ(r.loaded_by_kind.at("Workload"), 1);
  EXPECT_EQ(r.workloads_skipped, 0);
  const engine::WorkloadSpec& wl = r.spec.workloads[0];
  EXPECT_EQ(wl.name, "train-7f173");
  EXPECT_EQ(wl.name_space, "team-a");
  EXPECT_EQ(wl.uid, "0b5d6c1e-1111-2222-3333-444455556666");
  EXPECT_EQ(wl.creation_time, 1710881357000000);
  EXPECT_EQ(wl.queue_name, "team-a-queue");
  EXPECT_EQ(wl.priority_class_name, "high");
  EXPECT_STREQ(engine::ToString(wl.priority_class_kind), "WorkloadPriorityClass");
  EXPECT_EQ(wl.priority, 1000);
  EXPECT_FALSE(wl.active);
  EXPECT_EQ(wl.maximum_execution_time_seconds, 3600);
  EXPECT_EQ(wl.source->line, 1);
  EXPECT_EQ(wl.source->document, 0);

  ASSERT_EQ(wl.pod_sets.size(), 2u);
  const engine::PodSetSpec& driver = wl.pod_sets[0];
  EXPECT_EQ(driver.name, "driver");
  EXPECT_EQ(driver.count, 1);
  EXPECT_FALSE(driver.min_count.has_value());
  EXPECT_EQ(driver.priority_class_name, "pod-high");
  const engine::PodResources& pod = driver.resources;
  ASSERT_EQ(pod.containers.size(), 2u);
  EXPECT_TRUE(Has(pod.containers[0].requests, "cpu", "1"));
  EXPECT_TRUE(Has(pod.containers[0].requests, "memory", "1Gi"));
  EXPECT_TRUE(pod.containers[0].limits.empty());
  EXPECT_TRUE(Has(pod.containers[1].requests, "cpu", "500m"));
  EXPECT_EQ(pod.containers[1].requests.size(), 1u);
  EXPECT_TRUE(Has(pod.containers[1].limits, "memory", "2Gi"));
  EXPECT_FALSE(pod.containers[0].restartable_sidecar);
  ASSERT_EQ(pod.init_containers.size(), 2u);
  EXPECT_TRUE(pod.init_containers[0].restartable_sidecar);
  EXPECT_TRUE(Has(pod.init_containers[0].requests, "cpu", "250m"));
  EXPECT_TRUE(Has(pod.init_containers[0].requests, "memory", "128Mi"));
  EXPECT_FALSE(pod.init_containers[1].restartable_sidecar);
  EXPECT_TRUE(Has(pod.init_containers[1].requests, "cpu", "2"));
  EXPECT_TRUE(Has(pod.overhead, "cpu", "100m"));
  EXPECT_TRUE(Has(pod.overhead, "memory", "64Mi"));
  EXPECT_TRUE(Has(pod.pod_requests, "cpu", "4"));
  EXPECT_TRUE(Has(pod.pod_limits, "memory", "8Gi"));
  EXPECT_EQ(
      driver.node_selector,
      (std::map<std::string, std::string>{{"cloud.google.com/gke-accelerator", "nvidia-l4"}}));
  ASSERT_EQ(driver.required_affinity.size(), 2u);
  ASSERT_EQ(driver.required_affinity[0].match_expressions.size(), 2u);
  const engine::NodeSelectorRequirement& in = driver.required_affinity[0].match_expressions[0];
  EXPECT_EQ(in.key, "instance-type");
  EXPECT_EQ(in.op, "In");
  EXPECT_EQ(in.values, (std::vector<std::string>{"spot", "on-demand"}));
  EXPECT_EQ(driver.required_affinity[0].match_expressions[1].op, "Exists");
  EXPECT_TRUE(driver.required_affinity[0].match_expressions[1].values.empty());
  EXPECT_EQ(driver.required_affinity[1].match_expressions[0].op, "Gt");
  ASSERT_EQ(driver.tolerations.size(), 2u);
  EXPECT_EQ(driver.tolerations[0].key, "spot");
  EXPECT_EQ(driver.tolerations[0].op, "Exists");
  EXPECT_EQ(driver.tolerations[0].effect, "NoSchedule");
  EXPECT_EQ(driver.tolerations[1].op, "Equal");
  EXPECT_EQ(driver.tolerations[1].value, "ml");
  EXPECT_EQ(driver.tolerations[1].effect, "");

  const engine::PodSetSpec& workers = wl.pod_sets[1];
  EXPECT_EQ(workers.count, 8);
  EXPECT_EQ(workers.min_count, 4);
  EXPECT_TRUE(Has(workers.resources.containers[0].requests, "cpu", "1.5"));
  EXPECT_TRUE(Has(workers.resources.containers[0].requests, "nvidia.com/gpu", "1"));
  // ResourceList is sorted by name.
  EXPECT_EQ(workers.resources.containers[0].requests[0].first, "cpu");
  EXPECT_EQ(workers.resources.containers[0].requests[1].first, "nvidia.com/gpu");

  ASSERT_EQ(wl.conditions->size(), 3u);
  EXPECT_EQ((*wl.conditions)[0].type, "QuotaReserved");
  EXPECT_TRUE((*wl.conditions)[0].status);
  EXPECT_EQ((*wl.conditions)[0].reason, "QuotaReserved");
  EXPECT_EQ((*wl.conditions)[0].last_transition, Micros("2024-03-19T20:50:00Z"));
  EXPECT_FALSE((*wl.conditions)[1].status);
  EXPECT_EQ((*wl.conditions)[1].last_transition, Micros("2024-03-19T20:50:00.5Z"));
  EXPECT_FALSE((*wl.conditions)[2].status);  // Unknown
  EXPECT_EQ((*wl.conditions)[2].last_transition, Micros("2024-03-19T19:50:01Z"));
  ASSERT_NE(wl.Condition("Admitted"), nullptr);
  EXPECT_EQ(wl.Condition("Finished"), nullptr);

  ASSERT_TRUE(wl.admission.has_value());
  EXPECT_EQ(wl.admission->cluster_queue, "cq");
  ASSERT_EQ(wl.admission->pod_set_assignments.size(), 2u);
  const engine::PodSetAssignmentSpec& a0 = wl.admission->pod_set_assignments[0];
  EXPECT_EQ(a0.name, "driver");
  EXPECT_EQ(a0.count, 1);
  EXPECT_EQ(a0.flavors,
            (std::map<std::string, std::string>{{"cpu", "on-demand"}, {"memory", "on-demand"}}));
  EXPECT_EQ(a0.resource_usage.at("cpu"), engine::Quantity(4000));  // milli
  EXPECT_EQ(a0.resource_usage.at("memory"), engine::Quantity(3422552064));
  const engine::PodSetAssignmentSpec& a1 = wl.admission->pod_set_assignments[1];
  EXPECT_EQ(a1.count, 6);
  EXPECT_EQ(a1.resource_usage.at("cpu"), engine::Quantity(9000));
  EXPECT_EQ(a1.resource_usage.at("nvidia.com/gpu"), engine::Quantity(6));

  EXPECT_EQ(wl.reclaimable_pods, (std::map<std::string, int32_t>{{"workers", 2}}));
  ASSERT_EQ(wl.admission_checks->size(), 2u);
  EXPECT_EQ((*wl.admission_checks)[0].name, "prov");
  EXPECT_EQ((*wl.admission_checks)[0].state, engine::CheckState::kReady);
  EXPECT_EQ((*wl.admission_checks)[1].state, engine::CheckState::kRetry);
  EXPECT_EQ(wl.requeue_count, 3);
  EXPECT_EQ(wl.requeue_at, Micros("2024-03-19T21:00:00Z"));
  ASSERT_EQ(wl.flavor_history->size(), 2u);
  EXPECT_EQ((*wl.flavor_history)[0].flavor, "reservation");
  EXPECT_EQ((*wl.flavor_history)[0].assignment_time, Micros("2024-03-19T20:30:00Z"));
  EXPECT_EQ((*wl.flavor_history)[0].used, int64_t{600} * 1'000'000);
  EXPECT_TRUE((*wl.flavor_history)[0].failed);
  EXPECT_FALSE((*wl.flavor_history)[0].failed_by_check);
  EXPECT_EQ((*wl.flavor_history)[1].flavor, "spot");
  EXPECT_EQ((*wl.flavor_history)[1].used, int64_t{90} * 1'000'000);
  EXPECT_FALSE((*wl.flavor_history)[1].failed);

  // Only the reference warnings: no LocalQueue and no ClusterQueue in this input.
  ASSERT_EQ(r.warnings.size(), 2u) << Dump(r.warnings);
  EXPECT_TRUE(Contains(At(r.warnings, "spec.queueName")->message,
                       "LocalQueue \"team-a-queue\" is not defined in namespace \"team-a\""));
  EXPECT_EQ(At(r.warnings, "spec.queueName")->line, 11);
  EXPECT_TRUE(Contains(At(r.warnings, "status.admission.clusterQueue")->message,
                       "ClusterQueue \"cq\" is not defined"));
}

TEST(WorkloadLoaderTest, Defaults) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets:
  - template:
      spec:
        containers:
        - name: c
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
  ASSERT_EQ(r.spec.workloads.size(), 1u);
  const engine::WorkloadSpec& wl = r.spec.workloads[0];
  EXPECT_EQ(wl.name_space, "default");
  EXPECT_EQ(wl.uid, "default/w");
  EXPECT_EQ(wl.creation_time, 0);
  EXPECT_EQ(wl.queue_name, "");
  EXPECT_EQ(wl.priority_class_name, "");
  EXPECT_STREQ(engine::ToString(wl.priority_class_kind), "");
  EXPECT_FALSE(wl.priority.has_value());
  EXPECT_TRUE(wl.active);
  EXPECT_FALSE(wl.maximum_execution_time_seconds.has_value());
  ASSERT_EQ(wl.pod_sets.size(), 1u);
  EXPECT_EQ(wl.pod_sets[0].name, "main");
  EXPECT_EQ(wl.pod_sets[0].count, 1);
  EXPECT_FALSE(wl.pod_sets[0].min_count.has_value());
  ASSERT_EQ(wl.pod_sets[0].resources.containers.size(), 1u);
  EXPECT_TRUE(wl.pod_sets[0].resources.containers[0].requests.empty());
  EXPECT_FALSE(wl.admission.has_value());
  EXPECT_TRUE(wl.conditions->empty());
  EXPECT_FALSE(wl.requeue_at.has_value());
  EXPECT_EQ(wl.requeue_count, 0);
}

TEST(WorkloadLoaderTest, V1beta1PriorityClassNameAndSource) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: a
spec:
  priorityClassName: high
  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass
  priority: 100
  podSets:
  - name: main
    count: 2
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: b
spec:
  priorityClassName: system-node-critical
  priorityClassSource: scheduling.k8s.io/priorityclass
  priority: 2000001000
  podSets:
  - template: {spec: {containers: [{name: c}]}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: c
spec:
  priorityClassName: legacy
  priority: 5
  active: true
  podSets:
  - template: {spec: {containers: [{name: c}]}}
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.spec.workloads.size(), 3u);
  EXPECT_EQ(r.loaded_by_kind.at("Workload"), 3);
  EXPECT_EQ(r.spec.workloads[0].priority_class_name, "high");
  EXPECT_STREQ(engine::ToString(r.spec.workloads[0].priority_class_kind), "WorkloadPriorityClass");
  EXPECT_EQ(r.spec.workloads[0].priority, 100);
  EXPECT_EQ(r.spec.workloads[0].pod_sets[0].count, 2);
  EXPECT_TRUE(Has(r.spec.workloads[0].pod_sets[0].resources.containers[0].requests, "cpu", "1"));
  EXPECT_EQ(r.spec.workloads[1].priority_class_name, "system-node-critical");
  EXPECT_STREQ(engine::ToString(r.spec.workloads[1].priority_class_kind), "PriorityClass");
  EXPECT_EQ(r.spec.workloads[1].priority, 2000001000);
  // No source: the pod PriorityClass (the only kind before WorkloadPriorityClass existed).
  EXPECT_STREQ(engine::ToString(r.spec.workloads[2].priority_class_kind), "PriorityClass");
}

TEST(WorkloadLoaderTest, V1beta2PodPriorityClassRef) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: a
spec:
  priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: batch-low}
  priority: -10
  podSets:
  - template: {spec: {containers: [{name: c}]}}
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_EQ(r.spec.workloads[0].priority_class_name, "batch-low");
  EXPECT_STREQ(engine::ToString(r.spec.workloads[0].priority_class_kind), "PriorityClass");
  EXPECT_EQ(r.spec.workloads[0].priority, -10);
}

TEST(WorkloadLoaderTest, PriorityClassFieldsOfTheOtherVersionAreErrors) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: a
spec:
  priorityClassName: high
  priority: 1
  podSets:
  - template: {spec: {containers: [{name: c}]}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: b
spec:
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}
  priority: 1
  podSets:
  - template: {spec: {containers: [{name: c}]}}
)");
  ASSERT_EQ(r.errors.size(), 2u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].ToString(),
            "test.yaml:6: document 0 Workload/default/a: spec.priorityClassName: field does not "
            "exist in kueue.x-k8s.io/v1beta2 (use spec.priorityClassRef)");
  EXPECT_EQ(r.errors[1].field_path, "spec.priorityClassRef");
  EXPECT_EQ(r.errors[1].line, 16);
  EXPECT_TRUE(Contains(r.errors[1].message, "use spec.priorityClassName and"));
}

TEST(WorkloadLoaderTest, NamespaceAndAdmissionCheck) {
  LoadResult r = Load(R"(apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    team: a
    tier: gold
---
apiVersion: v1
kind: Namespace
metadata:
  name: plain
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: prov
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters:
    apiGroup: kueue.x-k8s.io
    kind: ProvisioningRequestConfig
    name: prov-config
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata:
  name: budget
spec:
  controllerName: example.com/budget
  retryDelayMinutes: 15
status:
  conditions:
  - type: Active
    status: "False"
    reason: NoController
    message: no controller
    lastTransitionTime: "2024-01-01T00:00:00Z"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: ready
spec:
  controllerName: example.com/x
status:
  conditions:
  - type: Active
    status: "True"
    reason: Active
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
  EXPECT_EQ(r.loaded_by_kind.at("Namespace"), 2);
  EXPECT_EQ(r.loaded_by_kind.at("AdmissionCheck"), 3);
  EXPECT_EQ(r.skipped_unknown, 0);
  ASSERT_EQ(r.spec.namespaces.size(), 2u);
  EXPECT_EQ(r.spec.namespaces[0].name, "team-a");
  EXPECT_EQ(r.spec.namespaces[0].labels,
            (std::map<std::string, std::string>{
                {"kubernetes.io/metadata.name", "team-a"}, {"team", "a"}, {"tier", "gold"}}));
  EXPECT_EQ(r.spec.namespaces[1].labels,
            (std::map<std::string, std::string>{{"kubernetes.io/metadata.name", "plain"}}));
  EXPECT_EQ(r.spec.namespaces[1].source.document, 1);
  ASSERT_EQ(r.spec.admission_checks.size(), 3u);
  EXPECT_EQ(r.spec.admission_checks[0].name, "prov");
  EXPECT_EQ(r.spec.admission_checks[0].controller_name, "kueue.x-k8s.io/provisioning-request");
  EXPECT_TRUE(r.spec.admission_checks[0].active);
  EXPECT_EQ(r.spec.admission_checks[1].controller_name, "example.com/budget");
  EXPECT_FALSE(r.spec.admission_checks[1].active);
  EXPECT_TRUE(r.spec.admission_checks[2].active);
}

TEST(WorkloadLoaderTest, KubernetesSetsTheMetadataNameLabel) {
  LoadResult r = Load(R"(apiVersion: v1
kind: Namespace
metadata:
  name: team-b
  labels:
    kubernetes.io/metadata.name: something-else
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_EQ(r.spec.namespaces[0].labels.at("kubernetes.io/metadata.name"), "team-b");
}

TEST(WorkloadLoaderTest, ListItemsOfTheNewKinds) {
  LoadResult r = Load(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: team-a
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: AdmissionCheck
  metadata:
    name: prov
  spec:
    controllerName: c
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: Workload
  metadata:
    name: w1
    namespace: team-a
  spec:
    podSets:
    - template: {spec: {containers: [{name: c}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadList
items:
- metadata:
    name: w2
    namespace: team-a
  spec:
    podSets:
    - count: 2
      template: {spec: {containers: [{name: c}]}}
---
apiVersion: v1
kind: NamespaceList
items:
- metadata:
    name: team-b
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
  EXPECT_EQ(r.loaded_by_kind,
            (std::map<std::string, int>{{"AdmissionCheck", 1}, {"Namespace", 2}, {"Workload", 2}}));
  EXPECT_EQ(r.workloads_skipped, 0);
  EXPECT_EQ(r.skipped_unknown, 0);
  ASSERT_EQ(r.spec.workloads.size(), 2u);
  EXPECT_EQ(r.spec.workloads[0].source->line, 14);
  EXPECT_EQ(r.spec.workloads[1].name, "w2");
  EXPECT_EQ(r.spec.workloads[1].pod_sets[0].count, 2);
  EXPECT_EQ(r.spec.namespaces[1].name, "team-b");
}

// --- Workload: status.admission and QuotaReserved
// -------------------------------------------------

TEST(WorkloadLoaderTest, AdmissionWithoutQuotaReservedIsAWarningAndReserved) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  creationTimestamp: "2024-05-01T10:00:00Z"
spec:
  podSets:
  - count: 2
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - flavors: {cpu: default}
      resourceUsage: {cpu: 2}
      count: 2
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const LoadError* w = At(r.warnings, "status.admission");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->line, 12);
  EXPECT_TRUE(Contains(w->message, "without a QuotaReserved condition"));
  const engine::WorkloadSpec& wl = r.spec.workloads[0];
  ASSERT_TRUE(wl.admission.has_value());
  EXPECT_EQ(wl.admission->pod_set_assignments[0].name, "main");  // the default
  const engine::ConditionSpec* reserved = wl.Condition("QuotaReserved");
  ASSERT_NE(reserved, nullptr);
  EXPECT_TRUE(reserved->status);
  EXPECT_EQ(reserved->last_transition, Micros("2024-05-01T10:00:00Z"));
}

TEST(WorkloadLoaderTest, AdmissionWithQuotaReservedFalseIsIgnored) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets:
  - template: {spec: {containers: [{name: c}]}}
status:
  conditions:
  - {type: QuotaReserved, status: "False", reason: Pending, message: "",
     lastTransitionTime: "2024-05-01T10:00:00Z"}
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      flavors: {cpu: default}
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(Contains(At(r.warnings, "status.admission")->message, "is ignored"));
  EXPECT_FALSE(r.spec.workloads[0].admission.has_value());
  EXPECT_FALSE(r.spec.workloads[0].Condition("QuotaReserved")->status);
}

// --- Workload: errors
// ------------------------------------------------------------------------------

TEST(WorkloadLoaderTest, BadContainerQuantityNamesTheFullPath) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: ns
spec:
  podSets:
  - template:
      spec:
        containers:
        - name: a
          resources: {requests: {cpu: 1}}
        - name: b
          resources:
            requests:
              cpu: 2 cores
)");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].field_path,
            "spec.podSets[0].template.spec.containers[1].resources.requests.cpu");
  EXPECT_EQ(r.errors[0].line, 16);
  EXPECT_EQ(r.errors[0].kind, "Workload");
  EXPECT_EQ(r.errors[0].name, "ns/w");
  EXPECT_TRUE(Contains(r.errors[0].ToString(),
                       "test.yaml:16: document 0 Workload/ns/w: "
                       "spec.podSets[0].template.spec.containers[1].resources.requests.cpu: "));
  // The object is kept, without the bad quantity.
  ASSERT_EQ(r.spec.workloads.size(), 1u);
  EXPECT_TRUE(r.spec.workloads[0].pod_sets[0].resources.containers[1].requests.empty());
}

TEST(WorkloadLoaderTest, QuantityErrorsInEveryResourceList) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets:
  - template:
      spec:
        containers:
        - {name: a, resources: {limits: {memory: 1Qi}}}
        initContainers:
        - {name: i, resources: {requests: {cpu: x}}}
        overhead: {cpu: "--1"}
        resources: {requests: {memory: 1GB}}
)");
  ASSERT_EQ(r.errors.size(), 4u) << Dump(r.errors);
  const std::string base = "spec.podSets[0].template.spec.";
  At(r.errors, base + "containers[0].resources.limits.memory");
  At(r.errors, base + "initContainers[0].resources.requests.cpu");
  At(r.errors, base + "overhead.cpu");
  At(r.errors, base + "resources.requests.memory");
}

}  // namespace
}  // namespace replay
