// File: test/replay/io/workload_loader_test_fixture.h
//
// Shared by workload_loader_test.cc and workload_loader_rules_test.cc: the helpers and fixture
// both use (one file would be over 800 lines).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/quantity.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"
#include "test/replay/io/loader_test_support.h"

namespace replay {

// The one message with this field path, or nullptr (a failure is recorded when there is not
// exactly one).
inline const LoadError* At(const std::vector<LoadError>& errors, const std::string& path) {
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

inline engine::DecimalQuantity Dec(const std::string& text) {
  engine::StatusOr<engine::DecimalQuantity> d = engine::ParseDecimalQuantity(text);
  EXPECT_TRUE(d.ok()) << text;
  return d.ok() ? *d : engine::DecimalQuantity{};
}

// Exact decimal equality of `list[name]` and `text`.
inline ::testing::AssertionResult Has(const engine::ResourceList& list, const std::string& name,
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

inline int64_t Micros(const std::string& text) {
  engine::StatusOr<int64_t> t = ParseRfc3339(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().message();
  return t.ok() ? *t : -1;
}

// --- Workload: fields ----------------------------------------------------------------------------

inline constexpr char kFullWorkload[] = R"(apiVersion: kueue.x-k8s.io/v1beta2
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

}  // namespace replay
