// Workload, Namespace and AdmissionCheck parsers, continued: the validation rules of pod sets,
// spec, metadata and status, duplicates and the shipped examples (helpers in
// workload_loader_test_fixture.h).
#include <gtest/gtest.h>

#include "replay/io/input_limits.h"
#include "test/replay/io/workload_loader_test_fixture.h"

namespace replay {
namespace {

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

// Containers per pod template (issue 23): Kubernetes sets no number, so tally does
// (--max-containers, default 10,000), for containers and init containers each.
TEST(WorkloadLoaderTest, ContainersAreBoundedByTheLimit) {
  auto workload = [](int containers, int init) {
    std::string yaml = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets:
  - name: main
    template:
      spec:
        containers:
)";
    for (int i = 0; i < containers; ++i) {
      yaml += fmt::format("        - {{name: c{}, resources: {{requests: {{cpu: 1m}}}}}}\n", i);
    }
    yaml += "        initContainers:\n";
    for (int i = 0; i < init; ++i) {
      yaml += fmt::format("        - {{name: i{}}}\n", i);
    }
    return Load(yaml);
  };
  InputLimits limits;
  limits.max_containers = 3;
  SetInputLimits(limits);
  LoadResult ok = workload(3, 3);
  LoadResult too_many = workload(4, 1);
  LoadResult too_many_init = workload(1, 4);
  SetInputLimits(InputLimits{});
  EXPECT_TRUE(ok.ok()) << Dump(ok.errors);
  EXPECT_EQ(ok.spec.workloads[0].pod_sets[0].resources.containers.size(), 3u);
  ASSERT_EQ(too_many.errors.size(), 1u) << Dump(too_many.errors);
  EXPECT_EQ(too_many.errors[0].field_path, "spec.podSets[0].template.spec.containers");
  EXPECT_EQ(too_many.errors[0].message,
            "Too many: 4: must have at most 3 items (--max-containers)");
  EXPECT_EQ(too_many.errors[0].line, 11);  // the list's first item
  ASSERT_EQ(too_many_init.errors.size(), 1u) << Dump(too_many_init.errors);
  EXPECT_EQ(too_many_init.errors[0].field_path, "spec.podSets[0].template.spec.initContainers");
  // The default takes them.
  EXPECT_TRUE(workload(4, 4).ok());
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
  EXPECT_STREQ(engine::ToString(wl.priority_class_kind), "WorkloadPriorityClass");
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
