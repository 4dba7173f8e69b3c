// Manifest loader, continued: fallback strategies, flavors, priority classes, local queues, the
// Configuration, broken input and the shipped examples (helpers in manifest_loader_test_fixture.h).
#include <fmt/format.h>

#include <string>

#include <gtest/gtest.h>

#include "test/replay/io/manifest_loader_test_fixture.h"

namespace replay {
namespace {

TEST(ManifestLoaderTest, FallbackStrategy) {
  LoadResult r = Load(FallbackQueue(R"(    fallbackStrategy:
      failurePolicy: RetryAllFlavors
      rules:
      - name: reservation
        timeout: 10m
      - {name: spot, timeout: 1h30m}
      - {name: "*", trigger: AdmissionCheckRejected}
      - name: on-demand
)"));
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const std::optional<engine::FlavorFallbackSpec>& f =
      r.spec.cluster_queues[0].flavor_fungibility.fallback;
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->failure_policy, engine::FallbackFailurePolicy::kRetryAllFlavors);
  ASSERT_EQ(f->rules.size(), 4u);
  EXPECT_EQ(f->rules[0].flavor, "reservation");
  EXPECT_EQ(f->rules[0].trigger, engine::FallbackTrigger::kTimeoutForPodsReadyExceeded);
  EXPECT_EQ(f->rules[0].timeout, int64_t{600} * 1'000'000);
  EXPECT_EQ(f->rules[1].timeout, int64_t{5400} * 1'000'000);
  EXPECT_EQ(f->rules[2].flavor, "*");
  EXPECT_EQ(f->rules[2].trigger, engine::FallbackTrigger::kAdmissionCheckRejected);
  EXPECT_FALSE(f->rules[2].timeout.has_value());
  EXPECT_FALSE(f->rules[3].timeout.has_value());  // no timeout: never left
}

TEST(ManifestLoaderTest, FallbackStrategySeedSpellings) {
  LoadResult r = Load(FallbackQueue(R"(    flavorFallbackStrategy:
      strategy: TimeoutBased
      rules:
      - {name: reservation, timeoutMinutes: 10}
)"));
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const std::optional<engine::FlavorFallbackSpec>& f =
      r.spec.cluster_queues[0].flavor_fungibility.fallback;
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->failure_policy, engine::FallbackFailurePolicy::kDeactivateWorkload);  // default
  ASSERT_EQ(f->rules.size(), 1u);
  EXPECT_EQ(f->rules[0].timeout, int64_t{600} * 1'000'000);
}

TEST(ManifestLoaderTest, FallbackStrategyErrorsNameTheField) {
  struct Case {
    std::string fungibility;
    std::string path;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"    fallbackStrategy: {rules: []}\n    flavorFallbackStrategy: {rules: []}\n",
       "spec.flavorFungibility.flavorFallbackStrategy", "not both"},
      {"    fallbackStrategy: {failurePolicy: Evict}\n",
       "spec.flavorFungibility.fallbackStrategy.failurePolicy",
       "supported values: \"DeactivateWorkload\", \"RetryAllFlavors\""},
      {"    fallbackStrategy: {strategy: AdmissionCheckBased}\n",
       "spec.flavorFungibility.fallbackStrategy.strategy", "supported values: \"TimeoutBased\""},
      {"    fallbackStrategy: {rules: [{timeout: 10m}]}\n",
       "spec.flavorFungibility.fallbackStrategy.rules[0].name", "Required value"},
      {"    fallbackStrategy: {rules: [{name: spot, timeout: 10m, timeoutMinutes: 10}]}\n",
       "spec.flavorFungibility.fallbackStrategy.rules[0].timeoutMinutes", "not both"},
      {"    fallbackStrategy: {rules: [{name: spot, timeout: ten}]}\n",
       "spec.flavorFungibility.fallbackStrategy.rules[0].timeout", ""},
      {"    fallbackStrategy: {rules: [{name: spot, timeoutMinutes: 0}]}\n",
       "spec.flavorFungibility.fallbackStrategy.rules[0].timeoutMinutes", "must be positive"},
      {"    fallbackStrategy: {rules: [{name: spot, trigger: PodFailed}]}\n",
       "spec.flavorFungibility.fallbackStrategy.rules[0].trigger",
       "\"TimeoutForPodsReadyExceeded\", \"AdmissionCheckRejected\""},
      {"    fallbackStrategy: {rules: [{name: gpu}]}\n",
       "spec.flavorFungibility.fallbackStrategy.rules[0].name",
       "not a flavor of this ClusterQueue"},
  };
  for (const Case& c : cases) {
    LoadResult r = Load(FallbackQueue(c.fungibility));
    ASSERT_EQ(r.errors.size(), 1u) << c.fungibility << Dump(r.errors);
    EXPECT_EQ(r.errors[0].field_path, c.path) << c.fungibility;
    EXPECT_TRUE(Contains(r.errors[0].message, c.message)) << c.fungibility;
    EXPECT_GT(r.errors[0].line, 0) << c.fungibility;
  }
  // A misspelt key is dropped by the API server: a warning, as for every other kind.
  LoadResult typo =
      Load(FallbackQueue("    fallbackStrategy: {rules: [{name: spot, timeot: 10m}]}\n"));
  EXPECT_TRUE(typo.ok()) << Dump(typo.errors);
  ASSERT_EQ(typo.warnings.size(), 1u) << Dump(typo.warnings);
  EXPECT_EQ(typo.warnings[0].field_path, "spec.flavorFungibility.fallbackStrategy.rules[0].timeot");
}

TEST(ManifestLoaderTest, FlavorsPriorityClassesAndLocalQueues) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: spot
spec:
  nodeLabels:
    cloud.google.com/gke-spot: "true"
  nodeTaints:
  - key: spot
    value: "true"
    effect: NoSchedule
  tolerations:
  - key: spot
    operator: Exists
    effect: NoSchedule
  topologyName: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: -2000
description: urgent
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: lq
spec:
  clusterQueue: missing
  stopPolicy: HoldAndDrain
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const engine::ResourceFlavorSpec& rf = r.spec.flavors[0];
  EXPECT_EQ(rf.node_labels.at("cloud.google.com/gke-spot"), "true");
  ASSERT_EQ(rf.node_taints.size(), 1u);
  EXPECT_EQ(rf.node_taints[0].effect, "NoSchedule");
  ASSERT_EQ(rf.tolerations.size(), 1u);
  EXPECT_EQ(rf.tolerations[0].op, "Exists");
  EXPECT_EQ(rf.topology_name, "default");
  EXPECT_EQ(r.spec.priority_classes[0].value, -2000);
  EXPECT_EQ(r.spec.priority_classes[0].description, "urgent");
  EXPECT_EQ(r.spec.local_queues[0].name_space, "default");
  EXPECT_EQ(r.spec.local_queues[0].stop_policy, engine::StopPolicy::kHoldAndDrain);
  ASSERT_EQ(r.warnings.size(), 1u) << Dump(r.warnings);
  EXPECT_TRUE(Contains(r.warnings[0].ToString(),
                       "test.yaml:30: document 2 LocalQueue/default/lq: spec.clusterQueue: "
                       "ClusterQueue \"missing\" is not defined"));
}

// --- Configuration -------------------------------------------------------------------------------

TEST(ManifestLoaderTest, Configuration) {
  LoadResult r = Load(R"(apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
fairSharing:
  enable: true
resources:
  excludeResourcePrefixes: [networking.example.com/]
  transformations:
  - input: nvidia.com/mig-1g.5gb
    strategy: Replace
    outputs:
      example.com/accelerator-memory: 5Gi
      example.com/credits: 10
  - input: example.com/gpumem
    multiplyBy: nvidia.com/gpu
    outputs:
      example.com/overage: -1024
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const engine::ConfigurationSpec& config = r.spec.configuration;
  EXPECT_TRUE(config.present);
  EXPECT_TRUE(config.fair_sharing);
  ASSERT_EQ(config.resources.transformations.size(), 2u);
  const engine::ResourceTransformationSpec& t0 = config.resources.transformations[0];
  EXPECT_EQ(t0.strategy, engine::TransformationStrategy::kReplace);
  ASSERT_EQ(t0.outputs.size(), 2u);
  EXPECT_EQ(t0.outputs[0].first, "example.com/accelerator-memory");
  EXPECT_EQ(engine::ToCanonical(t0.outputs[0].second, false), engine::Quantity(5LL << 30));
  const engine::ResourceTransformationSpec& t1 = config.resources.transformations[1];
  EXPECT_EQ(t1.strategy, engine::TransformationStrategy::kRetain);  // default
  EXPECT_EQ(t1.multiply_by, "nvidia.com/gpu");
  EXPECT_TRUE(t1.outputs[0].second.negative);
  EXPECT_EQ(r.loaded_by_kind.at("Configuration"), 1);
}

TEST(ManifestLoaderTest, ConfigurationV1beta2FairSharingByPresence) {
  LoadResult r = Load(R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {}
)");
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.spec.configuration.fair_sharing);
  r = Load("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing: {}\n");
  EXPECT_FALSE(r.spec.configuration.fair_sharing);  // v1beta1 needs enable: true
}

TEST(ManifestLoaderTest, ConfigurationErrors) {
  LoadResult r = Load(R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  excludeResourcePrefixes: [nvidia.com/]
  transformations:
  - input: nvidia.com/mig-1g.5gb
    strategy: Swap
---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
)");
  ASSERT_EQ(r.errors.size(), 3u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].line, 6);
  EXPECT_TRUE(Contains(r.errors[0].message, "matches resources.excludeResourcePrefixes[0]"));
  EXPECT_EQ(r.errors[1].line, 7);
  EXPECT_EQ(r.errors[1].field_path, "resources.transformations[0].strategy");
  EXPECT_EQ(r.errors[1].message,
            "Unsupported value: \"Swap\": supported values: \"Retain\", \"Replace\"");
  EXPECT_EQ(r.errors[2].document, 1);
  EXPECT_TRUE(Contains(r.errors[2].message, "only one Configuration is allowed"));
}

// --- malformed input ----------------------------------------------------------------------------

TEST(ManifestLoaderTest, BrokenYamlHasFileAndLine) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: [unclosed
)");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].file, "test.yaml");
  EXPECT_GT(r.errors[0].line, 0);
  EXPECT_EQ(r.errors[0].document, -1);
  EXPECT_TRUE(Contains(r.errors[0].ToString(), "test.yaml:"));
  EXPECT_TRUE(Contains(r.errors[0].message, "not valid YAML"));
  EXPECT_TRUE(r.spec.flavors.empty());
}

// A large file is loaded as it is parsed, a chunk of documents at a time
// (replay/io/yaml_documents.h). One found not to be YAML near its end loads nothing, as when it
// was parsed whole before any of it was loaded: its first thousand ClusterQueues are taken back,
// with their errors, and the one error names the broken line. A valid one loads every object,
// with the file's line numbers in every chunk.
TEST(ManifestLoaderTest, ALargeFileBrokenAtItsEndLoadsNothing) {
  std::string text;
  constexpr int kQueues = 1500;
  for (int i = 0; i < kQueues; ++i) {
    // Every tenth queue has an error of its own (a negative quota), on a line of its own.
    text += fmt::format(R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq-{}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources:
      - name: cpu
        nominalQuota: "{}"
)",
                        i, i % 10 == 0 ? "-1" : "4");
  }
  ASSERT_GT(text.size(), size_t{256} << 10);  // several chunks
  LoadResult valid = Load(text);
  EXPECT_EQ(valid.spec.cluster_queues.size(), static_cast<size_t>(kQueues));
  EXPECT_EQ(valid.documents_read, kQueues);
  // The negative quota of cq-1490 (document 1490): its line in the file, far past the first chunk.
  const int lines_per_queue = 14;
  bool found = false;
  for (const LoadError& e : valid.errors) {
    if (e.name == "cq-1490") {
      found = true;
      EXPECT_EQ(e.document, 1490);
      EXPECT_EQ(e.line, 1490 * lines_per_queue + 14) << e.ToString();
    }
  }
  EXPECT_TRUE(found) << Dump(valid.errors);

  const std::string broken = text + "---\nkind: [unclosed\n";
  LoadResult r = Load(broken);
  ASSERT_EQ(r.errors.size(), 1u) << r.errors.size()
                                 << " errors, the first: " << r.errors.front().ToString();
  EXPECT_TRUE(Contains(r.errors[0].message, "not valid YAML")) << r.errors[0].message;
  // The end of the text, after the unclosed bracket's line: where the whole text's parse stops.
  EXPECT_EQ(r.errors[0].line, kQueues * lines_per_queue + 3);
  EXPECT_TRUE(r.spec.cluster_queues.empty());
  EXPECT_EQ(r.documents_read, 0);
  EXPECT_TRUE(r.loaded_by_kind.empty());
}

TEST(ManifestLoaderTest, GoTemplateGetsAHint) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: {{ .Namespace }}
  name: {{ .Name }}
spec:
  clusterQueue: {{ .ClusterQueue }}
)");
  ASSERT_FALSE(r.errors.empty());
  EXPECT_TRUE(Contains(r.errors[0].ToString(), "test.yaml:4: "));
  EXPECT_TRUE(Contains(r.errors[0].message, "template must be rendered before loading"));
}

TEST(ManifestLoaderTest, WrongTypesAreErrorsWithPaths) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: a
spec:
  resourceGroups:
    coveredResources: [cpu]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: b
spec:
  cohortName: [x]
  resourceGroups:
  - coveredResources: cpu
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: {value: 4}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: p1
value: high
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: p2
value: 1.5
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: p3
value: "100"
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: p4
value: 4294967296
---
- just
- a list
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
spec: 7
)");
  std::vector<std::string> lines;
  for (const LoadError& e : r.errors) {
    lines.push_back(e.ToString());
  }
  // Long entries are split string literals, not missing commas.
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::vector<std::string> want = {
      "test.yaml:7: document 0 ClusterQueue/a: spec.resourceGroups: expected a list, found a map",
      "test.yaml:14: document 1 ClusterQueue/b: spec.cohortName: expected a string, found a list",
      "test.yaml:16: document 1 ClusterQueue/b: spec.resourceGroups[0].coveredResources: expected "
      "a list, found a scalar",
      // Validation sees the group without its unreadable coveredResources; its own
      // "coveredResources: Required value" is dropped as a consequence of the load error.
      "test.yaml:20: document 1 ClusterQueue/b: spec.resourceGroups[0].flavors[0].resources: "
      "Invalid value: must have the same number of resources as the coveredResources (1 listed, 0 "
      "covered)",
      "test.yaml:21: document 1 ClusterQueue/b: "
      "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: expected a string, found a map",
      "test.yaml:27: document 2 WorkloadPriorityClass/p1: value: expected an integer, found "
      "\"high\"",
      "test.yaml:33: document 3 WorkloadPriorityClass/p2: value: expected an integer, found "
      "\"1.5\"",
      "test.yaml:39: document 4 WorkloadPriorityClass/p3: value: expected an integer, found the "
      "string \"100\"",
      "test.yaml:45: document 5 WorkloadPriorityClass/p4: value: value 4294967296 does not fit in "
      "int32",
      "test.yaml:47: document 6: expected a Kubernetes object (a map with apiVersion and kind), "
      "found a list",
      "test.yaml:50: document 7 LocalQueue: metadata.name: Required value: metadata.name is "
      "required",
  };
  // NOLINTEND(bugprone-suspicious-missing-comma)
  EXPECT_EQ(lines, want) << Dump(r.errors);
  EXPECT_EQ(r.spec.cluster_queues.size(), 2u);
  EXPECT_EQ(r.spec.priority_classes.size(), 4u);
}

TEST(ManifestLoaderTest, DuplicateKeysAndMissingKind) {
  LoadResult r = Load(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a
spec:
  topologyName: x
  topologyName: y
---
metadata:
  name: fragment
)");
  ASSERT_EQ(r.errors.size(), 2u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].line, 7);
  EXPECT_EQ(r.errors[0].field_path, "spec.topologyName");
  EXPECT_TRUE(Contains(r.errors[0].message, "duplicate key \"topologyName\""));
  EXPECT_EQ(r.errors[1].line, 9);
  EXPECT_TRUE(Contains(r.errors[1].message, "not a Kubernetes object: no apiVersion and no kind"));
}

TEST(ManifestLoaderTest, NoExceptionEscapesOnOddInput) {
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const char* inputs[] = {
      "",
      "---\n---\n",
      "42",
      "apiVersion: 1\nkind: 2\n",
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: []\n",
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec:\n"
      "  resourceGroups: [[1], {flavors: {}}, null]\n  preemption: x\n  namespaceSelector: []\n",
      "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
      "apiVersion: v1\nkind: List\nitems: [1, null, {kind: Cohort}]\n",
      "? [a]\n: b\n",
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nresources:\n"
      "  transformations: [{outputs: {[x]: 1, y: }}]\n",
      "&a [*a]",
  };
  // NOLINTEND(bugprone-suspicious-missing-comma)
  for (const char* input : inputs) {
    LoadResult r = Load(input);
    SUCCEED() << Dump(r.errors);
  }
}

// --- the shipped examples ------------------------------------------------------------------------

// Files that are not Kueue manifests and must produce a clear error rather than load.
// Paths are relative to the repository root; "file#N" names block N of a documentation file.
const std::set<std::string>& ExpectedFailures() {
  static const auto* const failures = new std::set<std::string>{
      // Go templates (Kueue's e2e performance tests render them with clusterloader2).
      "data/kueue-examples/test/performance/e2e/jobs/config.yaml",
      "data/kueue-examples/test/performance/e2e/jobs/job.yaml",
      "data/kueue-examples/test/performance/e2e/jobs/local-queue.yaml",
      "data/kueue-examples/test/performance/e2e/podgroups/templates/cluster-queue.yaml",
      "data/kueue-examples/test/performance/e2e/podgroups/templates/local-queue.yaml",
      "data/kueue-examples/test/performance/e2e/podgroups/templates/pod.yaml",
      "data/kueue-examples/test/performance/e2e/podgroups/test-config.yaml",
      // YAML, but not Kubernetes objects: the scheduler performance generator and its ranges.
      "data/kueue-examples/test/performance/scheduler/configs/baseline/generator.yaml",
      "data/kueue-examples/test/performance/scheduler/configs/baseline/rangespec.yaml",
      "data/kueue-examples/test/performance/scheduler/configs/large-scale/generator.yaml",
      "data/kueue-examples/test/performance/scheduler/configs/large-scale/rangespec.yaml",
      "data/kueue-examples/test/performance/scheduler/configs/tas/generator.yaml",
      "data/kueue-examples/test/performance/scheduler/configs/tas/rangespec.yaml",
      // Documentation blocks that are not YAML: `<...>` elisions, `kubectl describe` output.
      "data/kueue-examples/docs-extracted/concepts__admission_check___index.yaml#1",
      "data/kueue-examples/docs-extracted/concepts__admission_check___index.yaml#2",
      "data/kueue-examples/docs-extracted/tasks__troubleshooting__troubleshooting_jobs.yaml#0",
      "data/kueue-examples/docs-extracted/tasks__troubleshooting__troubleshooting_jobs.yaml#1",
      // Documentation fragments: a bare `metadata:` excerpt with no apiVersion or kind.
      "data/kueue-examples/docs-extracted/concepts__concurrent_admission.yaml#1",
      "data/kueue-examples/docs-extracted/tasks__manage__setup_concurrent_admission.yaml#1",
      // Abbreviated in the docs: they cover cpu and memory but list only cpu, which Kueue
      // rejects ("flavors must have the same number of resources as the coveredResources").
      "data/kueue-examples/docs-extracted/concepts__cluster_queue.yaml#4",
      "data/kueue-examples/docs-extracted/concepts__cluster_queue.yaml#5",
      // Abbreviated in the docs: a Workload cut off (`...`) before its podSets, which Kueue
      // requires (1 to 18).
      "data/kueue-examples/docs-extracted/concepts__workload_priority_class.yaml#1",
  };
  return *failures;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A file extracted from documentation (`# block N` comments) holds independent examples (the
// same names recur across blocks); each block is loaded on its own. Other files load whole.
struct Unit {
  std::string label;  // "path" or "path#N"
  std::string text;
};

std::vector<Unit> UnitsOf(const std::string& path) {
  const std::string text = ReadFile(path);
  if (text.find("\n# block 0\n") == std::string::npos) {
    return {{path, text}};
  }
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  // A block starts at "---" followed by "# block N"; other "---" separate documents in a block.
  std::vector<Unit> units;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "---" && i + 1 < lines.size() && lines[i + 1].rfind("# block ", 0) == 0) {
      units.push_back({path + "#" + lines[i + 1].substr(8), ""});
      ++i;
    } else if (!units.empty()) {
      units.back().text += lines[i] + "\n";
    }
  }
  return units;
}

std::vector<std::string> ShippedYamlFiles() {
  std::vector<std::string> files;
  for (const char* dir : {"data/kueue-examples", "data/kueue-mlbatch", "data/kueue-ai-on-gke"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
        files.push_back(entry.path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ManifestLoaderTest, EveryShippedExampleLoads) {
  std::vector<std::string> files = ShippedYamlFiles();
  ASSERT_GE(files.size(), 130u) << "run from the repository root";
  std::set<std::string> failed;
  std::map<std::string, int> loaded;
  int workloads_skipped = 0;
  for (const std::string& file : files) {
    for (const Unit& unit : UnitsOf(file)) {
      LoadResult r = LoadManifestString(unit.text, unit.label);
      if (ExpectedFailures().count(unit.label) != 0) {
        failed.insert(unit.label);
        ASSERT_FALSE(r.errors.empty()) << unit.label << " was expected to fail";
        for (const LoadError& e : r.errors) {
          EXPECT_EQ(e.file, unit.label);
          EXPECT_GT(e.line, 0) << e.ToString();
        }
        continue;
      }
      for (const auto& [kind, count] : r.loaded_by_kind) {
        loaded[kind] += count;
      }
      workloads_skipped += r.workloads_skipped;
      EXPECT_TRUE(r.ok()) << unit.label << ":\n" << Dump(r.errors);
    }
  }
  // Every listed failure exists (the list does not rot).
  for (const std::string& label : ExpectedFailures()) {
    EXPECT_EQ(failed.count(label), 1u) << label << " is listed but was not loaded";
  }
  // Object counts over the loadable examples (the same counts as an independent PyYAML pass).
  EXPECT_EQ(loaded["ClusterQueue"], 56);
  EXPECT_EQ(loaded["ResourceFlavor"], 34);
  EXPECT_EQ(loaded["LocalQueue"], 31);
  EXPECT_EQ(loaded["Cohort"], 10);
  EXPECT_EQ(loaded["WorkloadPriorityClass"], 6);
  EXPECT_EQ(loaded["Workload"], 2);
  EXPECT_EQ(loaded["Namespace"], 1);
  EXPECT_EQ(loaded["AdmissionCheck"], 5);
  EXPECT_EQ(workloads_skipped, 0);
}

// The kueueviz demo is one coherent cluster: flavors, hierarchical cohorts, queues, priorities.
TEST(ManifestLoaderTest, KueuevizDemoIsOneCleanCluster) {
  LoadResult r = LoadManifestFiles({"data/kueue-examples/cmd/kueueviz/examples"});
  EXPECT_TRUE(r.ok()) << Dump(r.errors);
  EXPECT_TRUE(r.warnings.empty()) << Dump(r.warnings);
  EXPECT_EQ(r.files_read, 8);
  EXPECT_EQ(r.spec.cluster_queues.size(), 4u);
  EXPECT_EQ(r.spec.cohorts.size(), 5u);
  EXPECT_EQ(r.spec.flavors.size(), 3u);
  EXPECT_EQ(r.spec.local_queues.size(), 3u);
  EXPECT_EQ(r.spec.priority_classes.size(), 3u);
}

}  // namespace
}  // namespace replay
