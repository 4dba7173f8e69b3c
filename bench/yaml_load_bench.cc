// Google Benchmark: a multi-document manifests text into yaml-cpp trees: LoadAllYaml
// (replay/io/yaml_tree.h, what tally uses: this text is in the simple subset, so the reader of
// replay/io/yaml_simple_subset.h builds them), the same from libfyaml's events (what LoadAllYaml
// did for every text before 2026-12-07, and still does outside the subset), and yaml-cpp's own
// parser (YAML::LoadAll, what tally used before 2026-11-27). Fixture: 1,000 ClusterQueues in the
// shape of Kueue's perf-test configs (about 300 KB). All give the same trees (test/replay/io/
// yaml_tree_test.cc, yaml_simple_subset_test.cc); items/s = documents/s, bytes/s = text read.
//
//   build/release/bench/yaml_load_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only
#include <fmt/format.h>

#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include "replay/io/manifest_loader.h"
#include "replay/io/yaml_tree.h"

namespace {

std::string Manifests(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    text += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq-{}\n"
        "  labels:\n    kueue.x-k8s.io/performance-scheduler-cleanup: \"true\"\nspec:\n"
        "  cohortName: cohort-{}\n  namespaceSelector: {{}}\n  preemption:\n"
        "    withinClusterQueue: LowerPriority\n    reclaimWithinCohort: Any\n"
        "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: rf\n"
        "      resources:\n      - name: cpu\n        nominalQuota: 20\n"
        "        borrowingLimit: 100\n",
        i, i % 10);
  }
  return text;
}

void BM_LoadAllYaml(benchmark::State& state) {
  const std::string text = Manifests(1000);
  for (auto _ : state) {
    std::vector<YAML::Node> docs = replay::LoadAllYaml(text);
    benchmark::DoNotOptimize(docs);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LoadAllYaml)->Unit(benchmark::kMillisecond);

void BM_LoadAllYaml_Libfyaml(benchmark::State& state) {
  const std::string text = Manifests(1000);
  for (auto _ : state) {
    std::vector<YAML::Node> docs = replay::internal::LoadAllYamlWithLibfyaml(text, 0);
    benchmark::DoNotOptimize(docs);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LoadAllYaml_Libfyaml)->Unit(benchmark::kMillisecond);

void BM_LoadAllYaml_YamlCpp(benchmark::State& state) {
  const std::string text = Manifests(1000);
  for (auto _ : state) {
    std::vector<YAML::Node> docs = YAML::LoadAll(text);
    benchmark::DoNotOptimize(docs);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LoadAllYaml_YamlCpp)->Unit(benchmark::kMillisecond);

// Manifests(count) with a LocalQueue and a Namespace per ClusterQueue, and the flavor.
std::string ManifestsWithQueues(int count) {
  std::string text =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: rf\n";
  text += Manifests(count);
  for (int i = 0; i < count; ++i) {
    text += fmt::format(
        "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-{}\n  labels:\n"
        "    kueue.x-k8s.io/performance-scheduler-cleanup: \"true\"\n---\n"
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: lq-{}\n"
        "  namespace: ns-{}\nspec:\n  clusterQueue: cq-{}\n",
        i, i, i, i);
  }
  return text;
}

void BM_LoadManifests(benchmark::State& state) {
  const std::string text = ManifestsWithQueues(1000);
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    replay::LoadResult result =
        arena.execute([&] { return replay::LoadManifestString(text, "bench.yaml"); });
    if (!result.ok()) {
      state.SkipWithError(result.errors.front().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * 3001);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LoadManifests)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
