// Tests for the Workload, Namespace and AdmissionCheck parsers (replay/io/workload_fields.h) and
// the RFC 3339 parser (replay/io/time_parse.h). Run with the repository root as working directory
// (ctest does that): some tests load shipped files under data/.
#include <fmt/format.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/quantity.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

std::string Dump(const std::vector<LoadError>& errors) {
  std::string out;
  for (const LoadError& e : errors) {
    out += e.ToString() + "\n";
  }
  return out;
}

LoadResult Load(const std::string& yaml) {
  return LoadManifestString(yaml, "test.yaml");
}

// The one message with this field path, or nullptr (a failure is recorded when there is not
// exactly one).
const LoadError* At(const std::vector<LoadError>& errors, const std::string& path) {
  const LoadError* found = nullptr;
  int count = 0;
  for (const LoadError& e : errors) {
    if (e.field_path == path) {
      found = &e;
      ++count;
    }
  }
  EXPECT_EQ(count, 1) << "messages at " << path << ":\n" << Dump(errors);
  return count == 1 ? found : nullptr;
}

engine::DecimalQuantity Dec(const std::string& text) {
  engine::StatusOr<engine::DecimalQuantity> d = engine::ParseDecimalQuantity(text);
  EXPECT_TRUE(d.ok()) << text;
  return d.ok() ? *d : engine::DecimalQuantity{};
}

// Exact decimal equality of `list[name]` and `text`.
::testing::AssertionResult Has(const engine::ResourceList& list, const std::string& name,
                               const std::string& text) {
  for (const auto& [resource, amount] : list) {
    if (resource == name) {
      if (engine::CompareDecimal(amount, Dec(text)) == 0) {
        return ::testing::AssertionSuccess();
      }
      return ::testing::AssertionFailure() << name << " is not " << text;
    }
  }
  return ::testing::AssertionFailure() << name << " is missing";
}

int64_t Micros(const std::string& text) {
  engine::StatusOr<int64_t> t = ParseRfc3339(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().message();
  return t.ok() ? *t : -1;
}

// --- time_parse ----------------------------------------------------------------------------------

TEST(TimeParseTest, UtcAndFractions) {
  EXPECT_EQ(Micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Micros("2024-03-19T20:49:17Z"), 1710881357000000);
  EXPECT_EQ(Micros("2024-03-19T20:49:17.5Z"), 1710881357500000);
  EXPECT_EQ(Micros("2024-03-19T20:49:17.000001Z"), 1710881357000001);
  EXPECT_EQ(Micros("2024-03-19T20:49:17.123456789Z"), 1710881357123456);  // truncated
  EXPECT_EQ(Micros("2024-03-19t20:49:17z"), 1710881357000000);
}

TEST(TimeParseTest, Offsets) {
  EXPECT_EQ(Micros("2024-03-19T21:49:17+01:00"), 1710881357000000);
  EXPECT_EQ(Micros("2024-03-19T15:19:17.25-05:30"), 1710881357250000);
  EXPECT_EQ(Micros("2024-03-20T00:00:00+00:00"), Micros("2024-03-20T00:00:00Z"));
  EXPECT_EQ(Micros("2024-03-20T00:00:00-00:00"), Micros("2024-03-20T00:00:00Z"));
  // The offset crosses the day, the month and the year.
  EXPECT_EQ(Micros("2024-01-01T01:00:00+02:00"), Micros("2023-12-31T23:00:00Z"));
}

TEST(TimeParseTest, CalendarEdges) {
  EXPECT_EQ(Micros("2024-02-29T00:00:00Z"), 1709164800LL * 1000000);
  EXPECT_EQ(Micros("2000-02-29T00:00:00Z") + 86400LL * 1000000, Micros("2000-03-01T00:00:00Z"));
  EXPECT_EQ(Micros("1969-12-31T23:59:59Z"), -1000000);
  EXPECT_EQ(Micros("1969-12-31T23:59:59.5Z"), -500000);
  EXPECT_EQ(Micros("1600-03-01T00:00:00Z"), -11670912000LL * 1000000);
  EXPECT_EQ(Micros("9999-12-31T23:59:59Z"), 253402300799LL * 1000000);
  EXPECT_EQ(Micros("0001-01-01T00:00:00Z"), -62135596800LL * 1000000);
}

TEST(TimeParseTest, Errors) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"", "empty timestamp"},
      {"2024-03-19", "no time of day"},
      {"2024-03-19 20:49:17Z", "separated by 'T'"},
      {"2024-03-19T20:49:17", "no time zone"},
      {"2024-3-19T20:49:17Z", "YYYY-MM-DD"},
      {"24-03-19T20:49:17Z", "YYYY-MM-DD"},
      {"2024-03-19T20:49Z", "hh:mm:ss"},
      {"2024-13-01T00:00:00Z", "month out of range"},
      {"2024-00-01T00:00:00Z", "month out of range"},
      {"2023-02-29T00:00:00Z", "day out of range"},
      {"1900-02-29T00:00:00Z", "day out of range"},
      {"2024-04-31T00:00:00Z", "day out of range"},
      {"2024-03-00T00:00:00Z", "day out of range"},
      {"2024-03-19T24:00:00Z", "hour out of range"},
      {"2024-03-19T20:60:00Z", "minute out of range"},
      {"2024-03-19T20:49:60Z", "second out of range"},
      {"2024-03-19T20:49:17.Z", "no digits after the decimal point"},
      {"2024-03-19T20:49:17+0100", "+hh:mm"},
      {"2024-03-19T20:49:17+24:00", "offset out of range"},
      {"2024-03-19T20:49:17Q", "'Z' or an offset"},
      {"2024-03-19T20:49:17Z junk", "after the time zone"},
  };
  for (const Case& c : cases) {
    engine::StatusOr<int64_t> t = ParseRfc3339(c.text);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_TRUE(Contains(t.status().message(), c.why)) << c.text;
  }
}

TEST(TimeParseTest, FormatRoundTrips) {
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(1710881357000000), "2024-03-19T20:49:17Z");
  EXPECT_EQ(FormatRfc3339(1710881357250000), "2024-03-19T20:49:17.250000Z");
  EXPECT_EQ(FormatRfc3339(-500000), "1969-12-31T23:59:59.500000Z");
  for (const char* text : {"2024-02-29T12:34:56Z", "1999-12-31T23:59:59.999999Z",
                           "1960-06-15T08:00:00.000001Z", "2100-03-01T00:00:00Z"}) {
    EXPECT_EQ(FormatRfc3339(Micros(text)), text);
  }
}

// --- Workload: fields ----------------------------------------------------------------------------

constexpr char kFullWorkload[] = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: train-7f173
  namespace: team-a
  uid: 0b5d6c1e-1111-2222-3333-444455556666
  creationTimestamp: "2024-03-19T20:49:17Z"
  labels:
    app: train
spec:
  queueName: team-a-queue
  priorityClassRef:
    group: kueue.x-k8s.io
    kind: WorkloadPriorityClass
    name: high
  priority: 1000
  active: false
  maximumExecutionTimeSeconds: 3600
  podSets:
  - name: driver
    count: 1
    template:
      spec:
        priorityClassName: pod-high
        containers:
        - name: c1
          image: busybox
          resources:
            requests:
              cpu: 1
              memory: 1Gi
        - name: c2
          resources:
            requests:
              cpu: 500m
            limits:
              memory: 2Gi
        initContainers:
        - name: s1
          restartPolicy: Always
          resources:
            requests: {cpu: 250m, memory: 128Mi}
        - name: i1
          resources:
            requests: {cpu: "2", memory: 512Mi}
        overhead:
          cpu: 100m
          memory: 64Mi
        resources:
          requests:
            cpu: "4"
          limits:
            memory: 8Gi
        nodeSelector:
          cloud.google.com/gke-accelerator: nvidia-l4
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions:
                - key: instance-type
                  operator: In
                  values: [spot, on-demand]
                - key: zone
                  operator: Exists
              - matchExpressions:
                - key: gpu-count
                  operator: Gt
                  values: ["4"]
        tolerations:
        - key: spot
          operator: Exists
          effect: NoSchedule
        - key: dedicated
          value: ml
  - name: workers
    count: 8
    minCount: 4
    template:
      spec:
        containers:
        - name: w
          resources:
            requests:
              cpu: 1500m
              nvidia.com/gpu: 1
status:
  conditions:
  - type: QuotaReserved
    status: "True"
    reason: QuotaReserved
    message: Quota reserved in ClusterQueue cq
    lastTransitionTime: "2024-03-19T20:50:00Z"
  - type: Admitted
    status: "False"
    reason: Pending
    message: waiting for checks
    lastTransitionTime: "2024-03-19T20:50:00.5Z"
  - type: Evicted
    status: Unknown
    reason: Unknown
    lastTransitionTime: "2024-03-19T20:50:01+01:00"
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: driver
      count: 1
      flavors:
        cpu: on-demand
        memory: on-demand
      resourceUsage:
        cpu: "4"
        memory: 3422552064
    - name: workers
      count: 6
      flavors:
        cpu: spot
        nvidia.com/gpu: spot
      resourceUsage:
        cpu: "9"
        nvidia.com/gpu: "6"
  reclaimablePods:
  - name: workers
    count: 2
  admissionChecks:
  - name: prov
    state: Ready
    lastTransitionTime: "2024-03-19T20:51:00Z"
    message: ""
  - name: budget
    state: Retry
    lastTransitionTime: "2024-03-19T20:51:00Z"
    message: ""
  requeueState:
    count: 3
    requeueAt: "2024-03-19T21:00:00Z"
  flavorAssignmentHistory:
  - resourceFlavor: reservation
    assignmentTime: "2024-03-19T20:30:00Z"
    usedTime: 10m0s
    failed: true
    failedBy: TimeoutForPodsReadyExceeded
  - resourceFlavor: spot
    assignmentTime: "2024-03-19T20:50:00Z"
    usedTime: 1m30s
  accumulatedPastExecutionTimeSeconds: 120
)";

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
  EXPECT_EQ(wl.priority_class_kind, "WorkloadPriorityClass");
  EXPECT_EQ(wl.priority, 1000);
  EXPECT_FALSE(wl.active);
  EXPECT_EQ(wl.maximum_execution_time_seconds, 3600);
  EXPECT_EQ(wl.source.line, 1);
  EXPECT_EQ(wl.source.document, 0);

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

  ASSERT_EQ(wl.conditions.size(), 3u);
  EXPECT_EQ(wl.conditions[0].type, "QuotaReserved");
  EXPECT_TRUE(wl.conditions[0].status);
  EXPECT_EQ(wl.conditions[0].reason, "QuotaReserved");
  EXPECT_EQ(wl.conditions[0].last_transition, Micros("2024-03-19T20:50:00Z"));
  EXPECT_FALSE(wl.conditions[1].status);
  EXPECT_EQ(wl.conditions[1].last_transition, Micros("2024-03-19T20:50:00.5Z"));
  EXPECT_FALSE(wl.conditions[2].status);  // Unknown
  EXPECT_EQ(wl.conditions[2].last_transition, Micros("2024-03-19T19:50:01Z"));
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
  ASSERT_EQ(wl.admission_checks.size(), 2u);
  EXPECT_EQ(wl.admission_checks[0].name, "prov");
  EXPECT_EQ(wl.admission_checks[0].state, engine::CheckState::kReady);
  EXPECT_EQ(wl.admission_checks[1].state, engine::CheckState::kRetry);
  EXPECT_EQ(wl.requeue_count, 3);
  EXPECT_EQ(wl.requeue_at, Micros("2024-03-19T21:00:00Z"));
  ASSERT_EQ(wl.flavor_history.size(), 2u);
  EXPECT_EQ(wl.flavor_history[0].flavor, "reservation");
  EXPECT_EQ(wl.flavor_history[0].assignment_time, Micros("2024-03-19T20:30:00Z"));
  EXPECT_EQ(wl.flavor_history[0].used, int64_t{600} * 1'000'000);
  EXPECT_TRUE(wl.flavor_history[0].failed);
  EXPECT_FALSE(wl.flavor_history[0].failed_by_check);
  EXPECT_EQ(wl.flavor_history[1].flavor, "spot");
  EXPECT_EQ(wl.flavor_history[1].used, int64_t{90} * 1'000'000);
  EXPECT_FALSE(wl.flavor_history[1].failed);

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
  EXPECT_EQ(wl.priority_class_kind, "");
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
  EXPECT_TRUE(wl.conditions.empty());
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
  EXPECT_EQ(r.spec.workloads[0].priority_class_kind, "WorkloadPriorityClass");
  EXPECT_EQ(r.spec.workloads[0].priority, 100);
  EXPECT_EQ(r.spec.workloads[0].pod_sets[0].count, 2);
  EXPECT_TRUE(Has(r.spec.workloads[0].pod_sets[0].resources.containers[0].requests, "cpu", "1"));
  EXPECT_EQ(r.spec.workloads[1].priority_class_name, "system-node-critical");
  EXPECT_EQ(r.spec.workloads[1].priority_class_kind, "PriorityClass");
  EXPECT_EQ(r.spec.workloads[1].priority, 2000001000);
  // No source: the pod PriorityClass (the only kind before WorkloadPriorityClass existed).
  EXPECT_EQ(r.spec.workloads[2].priority_class_kind, "PriorityClass");
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
  EXPECT_EQ(r.spec.workloads[0].priority_class_kind, "PriorityClass");
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
  EXPECT_EQ(r.spec.workloads[0].source.line, 14);
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

TEST(WorkloadLoaderTest, PodSetRules) {
  struct Case {
    const char* pod_sets;  // YAML for spec.podSets
    const char* path;
    const char* message;
  };
  const Case cases[] = {
      {"[]", "spec.podSets", "Required value"},
      {"[{name: a, count: -1, template: {spec: {containers: []}}}]", "spec.podSets[0].count",
       "Invalid value: -1: must be greater than or equal to 0"},
      {"[{name: a, count: 2, minCount: 3, template: {spec: {containers: []}}}]",
       "spec.podSets[0].minCount", "minCount should be positive and less or equal to count (2)"},
      {"[{name: a, count: 2, minCount: 0, template: {spec: {containers: []}}}]",
       "spec.podSets[0].minCount", "must be greater than or equal to 1"},
      {"[{name: a, count: 2, minCount: 1, template: {spec: {containers: []}}},"
       " {name: b, count: 2, minCount: 1, template: {spec: {containers: []}}}]",
       "spec.podSets", "Invalid value: 2: at most one podSet can use minCount"},
      {"[{name: a, template: {spec: {containers: []}}}, {name: a, template: {spec: "
       "{containers: []}}}]",
       "spec.podSets[1].name", "Duplicate value: \"a\": already the name of spec.podSets[0]"},
      {"[{template: {spec: {containers: []}}}, {template: {spec: {containers: []}}}]",
       "spec.podSets[1].name", "Duplicate value: \"main\""},
      {"[{name: Driver_1, template: {spec: {containers: []}}}]", "spec.podSets[0].name",
       "Invalid value: \"Driver_1\": a lowercase RFC 1123 label"},
      {"[{name: a}]", "spec.podSets[0].template", "Required value"},
      {"[{name: a, template: {metadata: {}}}]", "spec.podSets[0].template.spec", "Required value"},
      {"[{name: a, template: {spec: {nodeName: x}}}]", "spec.podSets[0].template.spec.containers",
       "Required value"},
      {"[{template: {spec: {containers: [{name: c, resources: {requests: {pods: 1}}}]}}}]",
       "spec.podSets[0].template.spec.containers[0].resources.requests.pods",
       "Invalid value: \"pods\": the key is reserved for internal kueue use"},
      {"[{template: {spec: {containers: [], initContainers: [{name: i, restartPolicy: "
       "OnFailure}]}}}]",
       "spec.podSets[0].template.spec.initContainers[0].restartPolicy",
       "Unsupported value: \"OnFailure\": supported values: \"Always\""},
      {"[{template: {spec: {containers: [], affinity: {nodeAffinity: "
       "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: "
       "[{key: k, operator: Equals}]}]}}}}}}]",
       "spec.podSets[0].template.spec.affinity.nodeAffinity."
       "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]."
       "operator",
       "Unsupported value: \"Equals\""},
      {"[{template: {spec: {containers: [], tolerations: [{key: k, operator: Maybe}]}}}]",
       "spec.podSets[0].template.spec.tolerations[0].operator", "Unsupported value: \"Maybe\""},
      {"[{template: {spec: {containers: [], tolerations: [{key: k, effect: NoRun}]}}}]",
       "spec.podSets[0].template.spec.tolerations[0].effect", "Unsupported value: \"NoRun\""},
      {"[{template: {spec: {containers: [], nodeSelector: [a]}}}]",
       "spec.podSets[0].template.spec.nodeSelector", "expected a map, found a list"},
      {"{main: {}}", "spec.podSets", "expected a list, found a map"},
  };
  for (const Case& c : cases) {
    const std::string yaml = std::string(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets: )") + c.pod_sets + "\n";
    LoadResult r = Load(yaml);
    ASSERT_EQ(r.errors.size(), 1u) << c.pod_sets << "\n" << Dump(r.errors);
    EXPECT_EQ(r.errors[0].field_path, c.path) << c.pod_sets;
    EXPECT_TRUE(Contains(r.errors[0].message, c.message)) << c.pod_sets;
    EXPECT_EQ(r.errors[0].line, 6) << c.pod_sets;
    EXPECT_EQ(r.spec.workloads.size(), 1u) << "the object is kept";
  }
}

TEST(WorkloadLoaderTest, AtMost18PodSets) {
  auto workload = [](int pod_sets) {
    std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets:
)";
    for (int i = 0; i < pod_sets; ++i) {
      yaml += fmt::format("  - {{name: ps-{}, template: {{spec: {{containers: []}}}}}}\n", i);
    }
    return Load(yaml);
  };
  LoadResult ok = workload(18);
  EXPECT_TRUE(ok.ok()) << Dump(ok.errors);
  EXPECT_EQ(ok.spec.workloads[0].pod_sets.size(), 18u);
  LoadResult too_many = workload(19);
  ASSERT_EQ(too_many.errors.size(), 1u) << Dump(too_many.errors);
  EXPECT_EQ(too_many.errors[0].field_path, "spec.podSets");
  EXPECT_EQ(too_many.errors[0].message, "Too many: 19: must have at most 18 items");
}

TEST(WorkloadLoaderTest, SpecRules) {
  struct Case {
    const char* spec;  // YAML lines under spec: (podSets added)
    const char* path;
    const char* message;
  };
  const Case cases[] = {
      {"priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}",
       "spec.priority", "Required value: priority should not be nil when priorityClassRef is set"},
      {"priorityClassRef: {group: scheduling.k8s.io, kind: WorkloadPriorityClass, name: high}\n"
       "  priority: 1",
       "spec.priorityClassRef.kind", "only the PriorityClass kind is allowed"},
      {"priorityClassRef: {group: kueue.x-k8s.io, kind: PriorityClass, name: high}\n  priority: 1",
       "spec.priorityClassRef.kind", "only the WorkloadPriorityClass kind is allowed"},
      {"priorityClassRef: {group: example.com, kind: PriorityClass, name: high}\n  priority: 1",
       "spec.priorityClassRef.group", "Unsupported value: \"example.com\""},
      {"priorityClassRef: {kind: PriorityClass, name: high}\n  priority: 1",
       "spec.priorityClassRef.group", "Required value"},
      {"priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass}\n  priority: 1",
       "spec.priorityClassRef.name", "Required value"},
      {"priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: High}\n"
       "  priority: 1",
       "spec.priorityClassRef.name", "Invalid value: \"High\""},
      {"priority: \"10\"", "spec.priority", "expected an integer, found the string \"10\""},
      {"priority: 3000000000", "spec.priority", "does not fit in int32"},
      {"active: maybe", "spec.active", "expected true or false"},
      {"maximumExecutionTimeSeconds: 0", "spec.maximumExecutionTimeSeconds",
       "must be greater than or equal to 1"},
      {"queueName: Team_Queue", "spec.queueName", "Invalid value: \"Team_Queue\""},
  };
  for (const Case& c : cases) {
    const std::string yaml = std::string(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets: [{template: {spec: {containers: []}}}]
  )") + c.spec + "\n";
    LoadResult r = Load(yaml);
    ASSERT_EQ(r.errors.size(), 1u) << c.spec << "\n" << Dump(r.errors);
    EXPECT_EQ(r.errors[0].field_path, c.path) << c.spec;
    EXPECT_TRUE(Contains(r.errors[0].message, c.message)) << c.spec;
    EXPECT_GT(r.errors[0].line, 0);
  }
}

TEST(WorkloadLoaderTest, V1beta1PriorityRules) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: w
spec:
  priorityClassName: high
  priorityClassSource: example.com/other
  podSets: [{template: {spec: {containers: []}}}]
)");
  ASSERT_EQ(r.errors.size(), 2u) << Dump(r.errors);
  EXPECT_TRUE(Contains(At(r.errors, "spec.priority")->message,
                       "priority should not be nil when priorityClassName is set"));
  EXPECT_TRUE(Contains(At(r.errors, "spec.priorityClassSource")->message,
                       "Unsupported value: \"example.com/other\""));
}

TEST(WorkloadLoaderTest, MetadataRules) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: Bad_Name
  namespace: team.a
  creationTimestamp: "2024-03-19 20:49:17"
spec:
  podSets: [{template: {spec: {containers: []}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  namespace: x
spec:
  podSets: [{template: {spec: {containers: []}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: no-spec
)");
  ASSERT_EQ(r.errors.size(), 5u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].field_path, "metadata.name");
  EXPECT_EQ(r.errors[0].line, 4);
  EXPECT_EQ(r.errors[1].field_path, "metadata.namespace");
  EXPECT_EQ(r.errors[1].line, 5);
  EXPECT_EQ(r.errors[2].field_path, "metadata.creationTimestamp");
  EXPECT_EQ(r.errors[2].line, 6);
  EXPECT_TRUE(Contains(r.errors[2].message, "separated by 'T'"));
  EXPECT_EQ(r.errors[3].field_path, "metadata.name");
  EXPECT_EQ(r.errors[3].document, 1);
  EXPECT_EQ(r.errors[4].field_path, "spec.podSets");
  EXPECT_EQ(r.errors[4].name, "default/no-spec");
  EXPECT_EQ(r.spec.workloads.size(), 2u) << "a Workload without a name is dropped";
}

TEST(WorkloadLoaderTest, StatusRules) {
  struct Case {
    const char* status;  // YAML under status:
    const char* path;
    const char* message;
  };
  const Case cases[] = {
      {"conditions: [{type: QuotaReserved, status: Yes, reason: R}]", "status.conditions[0].status",
       "Unsupported value: \"Yes\": supported values: \"True\", \"False\", \"Unknown\""},
      {"conditions: [{type: QuotaReserved, reason: R}]", "status.conditions[0].status",
       "Required value"},
      {"conditions: [{status: \"True\", reason: R}]", "status.conditions[0].type",
       "Required value"},
      {"conditions: [{type: Admitted, status: \"True\", reason: R, lastTransitionTime: yesterday}]",
       "status.conditions[0].lastTransitionTime", "is not RFC 3339"},
      {"conditions: [{type: Admitted, status: \"True\"}, {type: Admitted, status: \"False\"}]",
       "status.conditions[1].type", "Duplicate value: \"Admitted\""},
      {"conditions: [{type: QuotaReserved, status: \"True\"}]\n  admission:\n"
       "    clusterQueue: cq\n    podSetAssignments: [{name: other}]",
       "status.admission.podSetAssignments[0].name", "Not found: \"other\""},
      {"conditions: [{type: QuotaReserved, status: \"True\"}]\n  admission:\n"
       "    clusterQueue: cq\n    podSetAssignments: [{name: main}, {name: main}]",
       "status.admission.podSetAssignments[1].name", "Duplicate value: \"main\""},
      {"conditions: [{type: QuotaReserved, status: \"True\"}]\n  admission:\n"
       "    podSetAssignments: [{name: main}]",
       "status.admission.clusterQueue", "Required value"},
      {"conditions: [{type: QuotaReserved, status: \"True\"}]\n  admission:\n"
       "    clusterQueue: cq\n    podSetAssignments: [{name: main, count: 2, resourceUsage: "
       "{cpu: 3, memory: 3}}]",  // 3 cpu is 3000m: a multiple of 2
       "status.admission.podSetAssignments[0].resourceUsage.memory",
       "Invalid value: \"3\": is not a multiple of 2"},
      {"conditions: [{type: QuotaReserved, status: \"True\"}]\n  admission:\n"
       "    clusterQueue: cq\n    podSetAssignments: [{name: main, resourceUsage: {memory: 1XB}}]",
       "status.admission.podSetAssignments[0].resourceUsage.memory", "unknown suffix"},
      {"conditions: [{type: QuotaReserved, status: \"True\"}]\n  admission:\n"
       "    clusterQueue: cq\n    podSetAssignments: [{name: main, count: -2}]",
       "status.admission.podSetAssignments[0].count", "must be greater than or equal to 0"},
      {"reclaimablePods: [{name: other, count: 1}]", "status.reclaimablePods[0].name",
       "Unsupported value: \"other\": supported values: \"main\""},
      {"reclaimablePods: [{name: main, count: 5}]", "status.reclaimablePods[0].count",
       "Invalid value: 5: should be less or equal to 4"},
      {"reclaimablePods: [{name: main}]", "status.reclaimablePods[0].count", "Required value"},
      {"reclaimablePods: [{name: main, count: 1}, {name: main, count: 2}]",
       "status.reclaimablePods[1].name", "Duplicate value: \"main\""},
      {"admissionChecks: [{name: prov, state: Done}]", "status.admissionChecks[0].state",
       "Unsupported value: \"Done\": supported values: \"Pending\", \"Ready\", \"Retry\", "
       "\"Rejected\""},
      {"admissionChecks: [{name: prov}]", "status.admissionChecks[0].state", "Required value"},
      {"admissionChecks: [{state: Ready}]", "status.admissionChecks[0].name", "Required value"},
      {"admissionChecks: [{name: a, state: Ready}, {name: a, state: Pending}]",
       "status.admissionChecks[1].name", "Duplicate value: \"a\""},
      {"flavorAssignmentHistory: [{assignmentTime: \"2024-03-19T20:50:00Z\"}]",
       "status.flavorAssignmentHistory[0].resourceFlavor", "Required value"},
      {"flavorAssignmentHistory: [{resourceFlavor: spot, usedTime: 10 minutes}]",
       "status.flavorAssignmentHistory[0].usedTime", ""},
      {"flavorAssignmentHistory: [{resourceFlavor: spot, failedBy: Preempted}]",
       "status.flavorAssignmentHistory[0].failedBy",
       "supported values: \"TimeoutForPodsReadyExceeded\", \"AdmissionCheckRejected\""},
      {"flavorAssignmentHistory: [{resourceFlavor: spot}, {resourceFlavor: spot}]",
       "status.flavorAssignmentHistory[1].resourceFlavor", "Duplicate value: \"spot\""},
      {"requeueState: {count: -1}", "status.requeueState.count",
       "must be greater than or equal to 0"},
      {"requeueState: {requeueAt: 2024-03-19}", "status.requeueState.requeueAt", "no time of day"},
  };
  for (const Case& c : cases) {
    const std::string yaml = std::string(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets: [{count: 4, template: {spec: {containers: []}}}]
status:
  )") + c.status + "\n";
    LoadResult r = Load(yaml);
    ASSERT_EQ(r.errors.size(), 1u) << c.status << "\n" << Dump(r.errors);
    EXPECT_EQ(r.errors[0].field_path, c.path) << c.status;
    EXPECT_TRUE(Contains(r.errors[0].message, c.message)) << c.status;
    EXPECT_GE(r.errors[0].line, 8) << c.status;
  }
}

TEST(WorkloadLoaderTest, UnknownFieldsAreWarnings) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  queueNmae: q
  podSets:
  - count: 1
    replicas: 3
    template: {spec: {containers: []}}
status:
  admited: true
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  At(r.warnings, "spec.queueNmae");
  At(r.warnings, "spec.podSets[0].replicas");
  At(r.warnings, "status.admited");
}

// --- Namespace and AdmissionCheck: errors
// ---------------------------------------------------------

TEST(WorkloadLoaderTest, NamespaceAndAdmissionCheckErrors) {
  LoadResult r = Load(R"(apiVersion: v1
kind: Namespace
metadata:
  name: team.a
  labels:
    "bad key!": x
    ok: "bad value!"
---
apiVersion: v2
kind: Namespace
metadata:
  name: b
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: prov
spec:
  parameters: {}
---
apiVersion: kueue.x-k8s.io/v1
kind: AdmissionCheck
metadata:
  name: prov2
)");
  ASSERT_EQ(r.errors.size(), 6u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].field_path, "metadata.name");
  EXPECT_TRUE(Contains(r.errors[0].message, "RFC 1123 label"));
  EXPECT_EQ(r.errors[1].field_path, "metadata.labels.bad key!");
  EXPECT_TRUE(Contains(r.errors[1].message, "qualified name"));
  EXPECT_EQ(r.errors[2].field_path, "metadata.labels.ok");
  EXPECT_EQ(r.errors[2].line, 7);
  EXPECT_TRUE(Contains(r.errors[2].message, "label value"));
  EXPECT_EQ(r.errors[3].ToString(),
            "test.yaml:9: document 1 Namespace: apiVersion: unsupported apiVersion \"v2\" for "
            "Namespace (want v1)");
  EXPECT_EQ(r.errors[4].field_path, "spec.controllerName");
  EXPECT_EQ(r.errors[4].name, "prov");
  EXPECT_TRUE(Contains(r.errors[5].message, "unsupported apiVersion"));
}

// --- checks across objects
// -------------------------------------------------------------------------

TEST(WorkloadLoaderTest, DuplicatesAndReferences) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq
spec:
  namespaceSelector: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: lq
  namespace: team-a
spec:
  clusterQueue: cq
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: team-a
  uid: u-1
spec:
  queueName: lq
  podSets: [{template: {spec: {containers: []}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: team-b
  uid: u-1
spec:
  queueName: lq
  podSets: [{template: {spec: {containers: []}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: team-a
spec:
  podSets: [{template: {spec: {containers: []}}}]
status:
  conditions: [{type: QuotaReserved, status: "True", reason: QuotaReserved}]
  admission:
    clusterQueue: elsewhere
    podSetAssignments: [{name: main}]
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: prov
spec:
  controllerName: c
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: prov
spec:
  controllerName: c
)");
  ASSERT_EQ(r.errors.size(), 4u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].document, 3);
  EXPECT_EQ(r.errors[0].field_path, "metadata.uid");
  EXPECT_EQ(r.errors[0].line, 31);
  EXPECT_TRUE(Contains(r.errors[0].message, "Duplicate value: \"u-1\""));
  EXPECT_EQ(r.errors[1].document, 4);
  EXPECT_EQ(r.errors[1].field_path, "metadata.name");
  EXPECT_EQ(r.errors[1].line, 39);
  EXPECT_TRUE(Contains(r.errors[1].message,
                       "Duplicate value: \"team-a/w\": a Workload with this name is already "
                       "defined at test.yaml: document 2 (line 16)"));
  EXPECT_EQ(r.errors[2].kind, "Namespace");
  EXPECT_EQ(r.errors[3].kind, "AdmissionCheck");
  EXPECT_TRUE(Contains(r.errors[3].message, "an AdmissionCheck with this name"));
  // Warnings: team-b has no LocalQueue lq; the third Workload's ClusterQueue is missing (the
  // duplicate is not checked further).
  ASSERT_EQ(r.warnings.size(), 1u) << Dump(r.warnings);
  EXPECT_EQ(r.warnings[0].document, 3);
  EXPECT_EQ(r.warnings[0].field_path, "spec.queueName");
  EXPECT_EQ(r.warnings[0].line, 33);
}

// --- shipped files
// ----------------------------------------------------------------------------------

TEST(WorkloadLoaderTest, DocsWorkloadExample) {
  LoadResult r = LoadManifestFiles({"data/kueue-examples/docs-extracted/concepts__workload.yaml"});
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.spec.workloads.size(), 1u);
  const engine::WorkloadSpec& wl = r.spec.workloads[0];
  EXPECT_EQ(wl.name, "sample-job");
  EXPECT_EQ(wl.name_space, "team-a");
  EXPECT_EQ(wl.uid, "team-a/sample-job");
  EXPECT_TRUE(wl.active);
  EXPECT_EQ(wl.queue_name, "team-a-queue");
  ASSERT_EQ(wl.pod_sets.size(), 1u);
  EXPECT_EQ(wl.pod_sets[0].name, "main");
  EXPECT_EQ(wl.pod_sets[0].count, 3);
  ASSERT_EQ(wl.pod_sets[0].resources.containers.size(), 1u);
  EXPECT_TRUE(Has(wl.pod_sets[0].resources.containers[0].requests, "cpu", "1"));
  EXPECT_TRUE(Has(wl.pod_sets[0].resources.containers[0].requests, "memory", "200Mi"));
  // The docs show the Workload alone: its LocalQueue is elsewhere.
  ASSERT_EQ(r.warnings.size(), 1u) << Dump(r.warnings);
  EXPECT_EQ(r.warnings[0].field_path, "spec.queueName");
}

TEST(WorkloadLoaderTest, DocsWorkloadWithPriorityExample) {
  LoadResult r = LoadManifestFiles(
      {"data/kueue-examples/docs-extracted/tasks__manage__run_job_with_workload_priority.yaml"});
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.spec.workloads.size(), 1u);
  const engine::WorkloadSpec& wl = r.spec.workloads[0];
  EXPECT_EQ(wl.name_space, "default");
  EXPECT_EQ(wl.priority_class_name, "sample-priority");
  EXPECT_EQ(wl.priority_class_kind, "WorkloadPriorityClass");
  EXPECT_EQ(wl.priority, 10000);
  ASSERT_EQ(wl.pod_sets.size(), 1u);
  EXPECT_EQ(wl.pod_sets[0].name, "dummy-job");
  EXPECT_EQ(wl.pod_sets[0].count, 3);
  ASSERT_EQ(r.spec.priority_classes.size(), 1u);
  EXPECT_EQ(r.spec.priority_classes[0].value, 10000);
}

TEST(WorkloadLoaderTest, ShippedNamespacesAndAdmissionChecks) {
  LoadResult r =
      LoadManifestFiles({"data/kueue-examples/site/static/examples/sample-admission-check.yaml"});
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.spec.admission_checks.size(), 1u);
  EXPECT_EQ(r.spec.admission_checks[0].name, "prov-test");
  EXPECT_EQ(r.spec.admission_checks[0].controller_name, "ProvisioningRequestController");
  LoadResult hami = LoadManifestFiles(
      {"data/kueue-examples/site/static/examples/serving-workloads/sample-hami.yaml"});
  ASSERT_TRUE(hami.ok()) << Dump(hami.errors);
  ASSERT_EQ(hami.spec.namespaces.size(), 1u);
  EXPECT_EQ(hami.spec.namespaces[0].name, "kueue-test");
}

// The scenarios written for `tally schedule` load cleanly, as one cluster each.
TEST(WorkloadLoaderTest, Scenarios) {
  for (const char* file :
       {"data/scenarios/hierarchical-gpu.yaml", "data/scenarios/fungibility.yaml"}) {
    LoadResult r = LoadManifestFiles({file});
    EXPECT_TRUE(r.ok()) << file << ":\n" << Dump(r.errors);
    EXPECT_TRUE(r.warnings.empty()) << file << ":\n" << Dump(r.warnings);
    EXPECT_EQ(r.skipped_unknown, 0) << file;
    EXPECT_GE(r.spec.workloads.size(), 5u) << file;
    for (const engine::WorkloadSpec& wl : r.spec.workloads) {
      EXPECT_GT(wl.creation_time, 0) << file << " " << wl.name;
      EXPECT_TRUE(wl.priority.has_value()) << file << " " << wl.name;
    }
  }
  LoadResult gpu = LoadManifestFiles({"data/scenarios/hierarchical-gpu.yaml"});
  int admitted = 0;
  for (const engine::WorkloadSpec& wl : gpu.spec.workloads) {
    if (wl.admission.has_value()) {
      ++admitted;
      const engine::ConditionSpec* reserved = wl.Condition("QuotaReserved");
      ASSERT_NE(reserved, nullptr) << wl.name;
      EXPECT_TRUE(reserved->status) << wl.name;
      EXPECT_GT(reserved->last_transition, wl.creation_time) << wl.name;
    }
  }
  EXPECT_GE(admitted, 3);
  EXPECT_GE(gpu.spec.workloads.size(), 12u);
  EXPECT_GE(gpu.spec.cluster_queues.size(), 4u);
  EXPECT_GE(gpu.spec.namespaces.size(), 3u);
}

}  // namespace
}  // namespace replay
