// Google Benchmark: a multi-document manifests text into yaml-cpp trees, built from libfyaml's
// events (LoadAllYaml, replay/io/yaml_tree.h, what tally uses) against yaml-cpp's own parser
// (YAML::LoadAll, what it used before 2026-11-27). Fixture: 1,000 ClusterQueues in the shape of
// Kueue's perf-test configs (about 300 KB). Both give the same trees (test/replay/io/
// yaml_tree_test.cc); items/s = documents/s, bytes/s = text read.
//
//   build/release/bench/yaml_load_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only
#include <fmt/format.h>

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

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

void BM_LoadAllYaml_Libfyaml(benchmark::State& state) {
  const std::string text = Manifests(1000);
  for (auto _ : state) {
    std::vector<YAML::Node> docs = replay::LoadAllYaml(text);
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

}  // namespace
