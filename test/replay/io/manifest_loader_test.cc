// Tests for replay/io/manifest_loader.h. Run with the repository root as working directory (ctest
// does that): the last tests load every shipped example under data/.
#include <gtest/gtest.h>

#include "replay/io/input_limits.h"
#include "test/replay/io/manifest_loader_test_fixture.h"

namespace replay {
namespace {

TEST(ManifestLoaderTest, V1beta2CohortName) {
  LoadResult r = Load(std::string(kFlavor) + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohortName: research
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 4
        borrowingLimit: 2
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
  ASSERT_EQ(r.spec.cluster_queues.size(), 1u);
  const engine::ClusterQueueSpec& cq = r.spec.cluster_queues[0];
  EXPECT_EQ(cq.name, "team-a");
  EXPECT_EQ(cq.cohort, "research");
  EXPECT_EQ(cq.source.document, 1);
  EXPECT_EQ(cq.source.line, 6);
  ASSERT_EQ(cq.resource_groups.size(), 1u);
  const engine::ResourceQuotaSpec& q = cq.resource_groups[0].flavors[0].resources[0];
  EXPECT_EQ(q.nominal, engine::Quantity(4000));
  EXPECT_EQ(q.borrowing_limit, engine::Quantity(2000));
  EXPECT_FALSE(q.lending_limit.has_value());
  EXPECT_EQ(r.loaded_by_kind.at("ClusterQueue"), 1);
  EXPECT_EQ(r.loaded_by_kind.at("ResourceFlavor"), 1);
}

TEST(ManifestLoaderTest, V1beta1Cohort) {
  LoadResult r = Load(std::string(kFlavor) + R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohort: research
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.spec.cluster_queues.size(), 1u);
  EXPECT_EQ(r.spec.cluster_queues[0].cohort, "research");
}

TEST(ManifestLoaderTest, CohortFieldOfTheOtherVersionIsAnError) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohort: research
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-b
spec:
  cohortName: research
)");
  ASSERT_EQ(r.errors.size(), 2u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].ToString(),
            "test.yaml:6: document 0 ClusterQueue/team-a: spec.cohort: field does not exist in "
            "kueue.x-k8s.io/v1beta2 (use spec.cohortName)");
  EXPECT_EQ(r.errors[1].line, 13);
  EXPECT_EQ(r.errors[1].field_path, "spec.cohortName");
  EXPECT_TRUE(Contains(r.errors[1].message, "(use spec.cohort)"));
  EXPECT_EQ(r.spec.cluster_queues[0].cohort, "");
}

TEST(ManifestLoaderTest, CohortParentAcrossVersions) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1alpha1
kind: Cohort
metadata:
  name: old
spec:
  parent: root
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata:
  name: middle
spec:
  parentName: root
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: root
spec:
  fairSharing:
    weight: "0.5"
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 10
      - name: memory
        nominalQuota: 64Gi
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.spec.cohorts.size(), 3u);
  EXPECT_EQ(r.spec.cohorts[0].parent, "root");
  EXPECT_EQ(r.spec.cohorts[1].parent, "root");
  EXPECT_EQ(r.spec.cohorts[2].parent, "");
  EXPECT_EQ(r.spec.cohorts[2].fair_sharing_weight, 0.5);
  EXPECT_EQ(r.spec.cohorts[2].resource_groups[0].flavors[0].resources[1].nominal,
            engine::Quantity(64LL << 30));
  // A Cohort's flavors are not checked against ResourceFlavors.
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
}

TEST(ManifestLoaderTest, UnsupportedKueueVersionIsAnError) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1
kind: ClusterQueue
metadata:
  name: a
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].field_path, "apiVersion");
  EXPECT_TRUE(Contains(r.errors[0].message, "unsupported apiVersion \"kueue.x-k8s.io/v1\""));
}

// --- quantities ----------------------------------------------------------------------------------

TEST(ManifestLoaderTest, QuantitiesFromIntsFloatsAndStrings) {
  LoadResult r = Load(std::string(kFlavor) + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: q
spec:
  cohortName: c
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu, pods]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 0.5
        borrowingLimit: "20"
        lendingLimit: 250m
      - name: memory
        nominalQuota: "120Gi"
        borrowingLimit: 0.5
        lendingLimit: 1e3
      - name: nvidia.com/gpu
        nominalQuota: 500m
      - name: pods
        nominalQuota: 20
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const auto& res = r.spec.cluster_queues[0].resource_groups[0].flavors[0].resources;
  EXPECT_EQ(res[0].nominal, engine::Quantity(500));            // cpu in milli-units
  EXPECT_EQ(res[0].borrowing_limit, engine::Quantity(20000));  // "20" cores
  EXPECT_EQ(res[0].lending_limit, engine::Quantity(250));
  EXPECT_EQ(res[1].nominal, engine::Quantity(120LL << 30));
  EXPECT_EQ(res[1].borrowing_limit, engine::Quantity(1));  // 0.5 byte rounds up
  EXPECT_EQ(res[1].lending_limit, engine::Quantity(1000));
  EXPECT_EQ(res[2].nominal, engine::Quantity(1));  // half a GPU is charged as one
  EXPECT_EQ(res[3].nominal, engine::Quantity(20));
}

TEST(ManifestLoaderTest, BadQuantityNamesFieldAndLine) {
  LoadResult r = Load(std::string(kFlavor) + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 4
      - name: memory
        nominalQuota: 5Qi
)");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_TRUE(Contains(r.errors[0].ToString(),
                       "test.yaml:19: document 1 ClusterQueue/team-a: "
                       "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota: quantity "
                       "\"5Qi\" has unknown suffix \"Qi\""));
}

TEST(ManifestLoaderTest, MissingNominalQuotaIsAnError) {
  LoadResult r = Load(std::string(kFlavor) + R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalquota: 4
)");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].field_path, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota");
  EXPECT_EQ(r.errors[0].message, "Required value: nominalQuota is required");
  ASSERT_EQ(r.warnings.size(), 1u) << Dump(r.warnings);
  EXPECT_EQ(r.warnings[0].line, 17);
  EXPECT_EQ(r.warnings[0].message, "unknown field \"nominalquota\" (ignored)");
}

// --- validation through the loader ---------------------------------------------------------------

TEST(ManifestLoaderTest, ValidationIssuesPointAtTheFieldLine) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohortName: c
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: gpu-a100
      resources:
      - name: cpu
        nominalQuota: 4
        lendingLimit: 5
)");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].ToString(),
            "test.yaml:14: document 0 ClusterQueue/team-a: "
            "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"5\": "
            "must be less than or equal to nominalQuota (4)");
  // The missing flavor is a warning, kept apart from the errors.
  ASSERT_EQ(r.warnings.size(), 1u) << Dump(r.warnings);
  EXPECT_EQ(r.warnings[0].line, 10);
  EXPECT_EQ(r.warnings[0].field_path, "spec.resourceGroups[0].flavors[0].name");
}

TEST(ManifestLoaderTest, DuplicatesAcrossFilesNameTheFirst) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "tally_manifest_loader_test";
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "a.yaml") << kFlavor;
  std::ofstream(dir / "sub" / "b.yml") << "# again\n" << kFlavor;
  std::ofstream(dir / "notes.txt") << "not yaml: [";
  LoadResult r = LoadManifestFiles({dir.string()});
  EXPECT_EQ(r.files_read, 2);
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].file, (dir / "sub" / "b.yml").string());
  EXPECT_EQ(r.errors[0].line, 5);
  EXPECT_TRUE(Contains(r.errors[0].message,
                       "a ResourceFlavor with this name is already defined "
                       "at "
                           + (dir / "a.yaml").string() + ": document 0"));
  std::filesystem::remove_all(dir);
}

TEST(ManifestLoaderTest, MissingFileIsAnError) {
  LoadResult r = LoadManifestFiles({"no/such/file.yaml"});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_TRUE(Contains(r.errors[0].ToString(), "no/such/file.yaml: cannot read file"));
}

// --- kinds ---------------------------------------------------------------------------------------

TEST(ManifestLoaderTest, UnknownKindsAreSkippedAndCounted) {
  LoadResult r = Load(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: team-a
---
apiVersion: batch/v1
kind: Job
metadata:
  name: a
spec:
  template: {}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: b
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata:
  name: prov
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
spec:
  podSets: [{template: {spec: {containers: []}}}]
---
---
# only a comment
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_EQ(r.documents_read, 8);
  EXPECT_EQ(r.empty_documents, 2);
  EXPECT_EQ(r.skipped_unknown, 5);
  EXPECT_EQ(r.workloads_skipped, 0);  // Workloads are parsed (workload_loader_test.cc)
  EXPECT_EQ(r.skipped_by_kind,
            (std::map<std::string, int>{{"ConfigMap", 1},
                                        {"Deployment.apps", 1},
                                        {"Job.batch", 2},
                                        {"ProvisioningRequestConfig.kueue.x-k8s.io", 1}}));
  EXPECT_EQ(r.loaded_by_kind, (std::map<std::string, int>{{"Workload", 1}}));
}

TEST(ManifestLoaderTest, ListKind) {
  LoadResult r = Load(R"(apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata:
    name: default
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata:
    name: lq
    namespace: team-a
  spec:
    clusterQueue: cq
- apiVersion: batch/v1
  kind: Job
  metadata:
    name: j
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueueList
items:
- metadata:
    name: cq
  spec:
    namespaceSelector: {}
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
  ASSERT_EQ(r.spec.flavors.size(), 1u);
  ASSERT_EQ(r.spec.local_queues.size(), 1u);
  EXPECT_EQ(r.spec.local_queues[0].name_space, "team-a");
  EXPECT_EQ(r.spec.local_queues[0].source.line, 8);
  ASSERT_EQ(r.spec.cluster_queues.size(), 1u);
  EXPECT_FALSE(r.spec.cluster_queues[0].namespace_selector.is_null);
  EXPECT_EQ(r.skipped_unknown, 1);
}

// Issue 23, findings 01, 03, 03b: a List inside a List is an error, so a List that contains
// itself through an alias ends at once (it overflowed the stack) and lists nested through aliases
// are not expanded (9^7 objects, 3.5 GiB, before).
TEST(ManifestLoaderTest, ListsInsideListsAreRefusedSoAliasesCannotLoopOrMultiply) {
  // The alias loop and the alias bombs are refused before the List rule is reached: walked with
  // their aliases followed, they nest without end or pass --max-yaml-nodes (the next test).
  for (const auto& [file, message] :
       {std::pair{"test/robustness/01-yaml-self-alias-stack-overflow.yaml",
                  "nested deeper than 256 levels once aliases are followed"},
        std::pair{"test/robustness/03-yaml-alias-bomb-nested-lists-depth7.yaml",
                  "expands to more than 10000000 nodes"},
        std::pair{"test/robustness/03b-yaml-alias-bomb-nested-lists-depth9.yaml",
                  "expands to more than 10000000 nodes"}}) {
    SCOPED_TRACE(file);
    LoadResult r = LoadManifestFiles({file});
    ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
    EXPECT_NE(r.errors[0].message.find(message), std::string::npos) << r.errors[0].message;
    EXPECT_TRUE(r.spec.flavors.empty());
  }
  // One level of List with objects still loads (ListKind above); a list in a list does not.
  LoadResult nested = Load(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: List
  items:
  - apiVersion: kueue.x-k8s.io/v1beta2
    kind: ResourceFlavor
    metadata:
      name: default
)");
  ASSERT_EQ(nested.errors.size(), 1u);
  EXPECT_EQ(nested.errors[0].field_path, "items[0]");
  EXPECT_EQ(nested.errors[0].line, 4);
}

// One List of aliases of one Workload is as many Workloads to parse: a 570 KB file of 100,000
// aliases took 4.6 GB and over two minutes. Documents are walked with their aliases followed,
// within --max-yaml-nodes, before anything is parsed.
TEST(ManifestLoaderTest, AliasesRepeatingAnObjectAreBoundedByTheNodeLimit) {
  std::string text = R"(apiVersion: v1
kind: List
items:
- &w
  apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: f, labels: {a: b, c: d}}
)";
  for (int i = 0; i < 1000; ++i) {
    text += "- *w\n";
  }
  InputLimits small;
  small.yaml_max_nodes = 5'000;  // the document is about 13,000 nodes with its aliases followed
  SetInputLimits(small);
  LoadResult refused = Load(text);
  SetInputLimits(InputLimits{});
  ASSERT_EQ(refused.errors.size(), 1u) << Dump(refused.errors);
  EXPECT_NE(refused.errors[0].message.find(
                "YAML expands to more than 5000 nodes once aliases are followed"),
            std::string::npos)
      << refused.errors[0].message;
  EXPECT_NE(refused.errors[0].message.find("--max-yaml-nodes"), std::string::npos);
  EXPECT_GT(refused.errors[0].line, 1);
  EXPECT_TRUE(refused.spec.flavors.empty());
  // Within the default limit the same text is read: every alias is the same flavor again.
  LoadResult read = Load(text);
  EXPECT_EQ(read.spec.flavors.size(), 1001u);
  // A text without any '*' cannot hold an alias and is not walked; one with a '*' in a scalar is
  // walked and loads as before.
  LoadResult star = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f, labels: {glob: "a*b"}}
)");
  EXPECT_TRUE(star.errors.empty()) << Dump(star.errors);
  EXPECT_EQ(star.spec.flavors.size(), 1u);
}

// Objects per document (issue 23): a List above --max-objects-per-document loads none of its
// items, with one error naming the limit; the documents around it load.
TEST(ManifestLoaderTest, AListAboveTheObjectLimitLoadsNothing) {
  auto list = [](int items) {
    std::string text = "apiVersion: v1\nkind: List\nitems:\n";
    for (int i = 0; i < items; ++i) {
      text += "- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: f"
              + std::to_string(i) + "}}\n";
    }
    return text + "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
                  "metadata: {name: after}\n";
  };
  InputLimits limits;
  limits.max_objects_per_document = 3;
  SetInputLimits(limits);
  LoadResult ok = Load(list(3));
  LoadResult too_many = Load(list(4));
  SetInputLimits(InputLimits{});
  EXPECT_TRUE(ok.errors.empty()) << Dump(ok.errors);
  EXPECT_EQ(ok.spec.flavors.size(), 4u);
  ASSERT_EQ(too_many.errors.size(), 1u) << Dump(too_many.errors);
  EXPECT_EQ(too_many.errors[0].field_path, "items");
  EXPECT_EQ(too_many.errors[0].line, 4);
  EXPECT_NE(too_many.errors[0].message.find(
                "Too many: 4: a document may hold at most 3 objects, none loaded "
                "(--max-objects-per-document)"),
            std::string::npos)
      << too_many.errors[0].message;
  ASSERT_EQ(too_many.spec.flavors.size(), 1u);
  EXPECT_EQ(too_many.spec.flavors[0].name, "after");
}

TEST(ManifestLoaderTest, ClusterQueueFields) {
  LoadResult r = Load(std::string(kFlavor) + R"(---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: a
spec:
  cohort: c
  queueingStrategy: StrictFIFO
  stopPolicy: Hold
  namespaceSelector:
    matchLabels:
      team: a
    matchExpressions:
    - key: tier
      operator: In
      values: [gold, silver]
  flavorFungibility:
    whenCanBorrow: Borrow
    whenCanPreempt: Preempt
  preemption:
    reclaimWithinCohort: Any
    withinClusterQueue: LowerOrNewerEqualPriority
    borrowWithinCohort:
      policy: LowerPriority
      maxPriorityThreshold: 100
  admissionChecks: [prov, multikueue]
  fairSharing:
    weight: 2
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: b
spec:
  flavorFungibility:
    whenCanBorrow: TryNextFlavor
    whenCanPreempt: TryNextFlavor
    preference: PreemptionOverBorrowing
  admissionChecksStrategy:
    admissionChecks:
    - name: prov
      onFlavors: [default]
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const engine::ClusterQueueSpec& a = r.spec.cluster_queues[0];
  EXPECT_EQ(a.queueing_strategy, engine::QueueingStrategy::kStrictFifo);
  EXPECT_EQ(a.stop_policy, engine::StopPolicy::kHold);
  EXPECT_FALSE(a.namespace_selector.is_null);
  EXPECT_EQ(a.namespace_selector.match_labels.at("team"), "a");
  ASSERT_EQ(a.namespace_selector.match_expressions.size(), 1u);
  EXPECT_EQ(a.namespace_selector.match_expressions[0].values,
            (std::vector<std::string>{"gold", "silver"}));
  // v1beta1 Borrow / Preempt mean MayStopSearch.
  EXPECT_EQ(a.flavor_fungibility.when_can_borrow, engine::FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(a.flavor_fungibility.when_can_preempt, engine::FungibilityPolicy::kMayStopSearch);
  EXPECT_EQ(a.preemption.reclaim_within_cohort, engine::PreemptionPolicy::kAny);
  EXPECT_EQ(a.preemption.within_cluster_queue,
            engine::PreemptionPolicy::kLowerOrNewerEqualPriority);
  EXPECT_EQ(a.preemption.borrow_within_cohort, engine::PreemptionPolicy::kLowerPriority);
  EXPECT_EQ(a.preemption.max_priority_threshold, 100);
  ASSERT_EQ(a.admission_checks.size(), 2u);
  EXPECT_EQ(a.admission_checks[1].name, "multikueue");
  EXPECT_TRUE(a.admission_checks[1].on_flavors.empty());  // all flavors
  EXPECT_EQ(a.fair_sharing_weight, 2.0);
  const engine::ClusterQueueSpec& b = r.spec.cluster_queues[1];
  EXPECT_TRUE(b.namespace_selector.is_null);  // absent selects no namespace
  EXPECT_EQ(b.flavor_fungibility.preference,
            engine::FungibilityPreference::kPreemptionOverBorrowing);
  ASSERT_EQ(b.admission_checks.size(), 1u);
  EXPECT_EQ(b.admission_checks[0].on_flavors, std::vector<std::string>{"default"});
  // Defaults.
  EXPECT_EQ(b.queueing_strategy, engine::QueueingStrategy::kBestEffortFifo);
  EXPECT_EQ(b.preemption.reclaim_within_cohort, engine::PreemptionPolicy::kNever);
  EXPECT_FALSE(b.fair_sharing_weight.has_value());
}

TEST(ManifestLoaderTest, DeprecatedFungibilityValuesOnlyInV1beta1) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: a
spec:
  flavorFungibility:
    whenCanBorrow: Borrow
)");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].field_path, "spec.flavorFungibility.whenCanBorrow");
  EXPECT_EQ(r.errors[0].message,
            "Unsupported value: \"Borrow\": supported values: \"MayStopSearch\", "
            "\"TryNextFlavor\"");
}

}  // namespace
}  // namespace replay
