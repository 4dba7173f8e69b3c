// A manifests file large enough to be cut into chunks is loaded chunk by chunk on the threads that
// parse it (replay/io/yaml_documents.h, ForEachYamlChunk; the manifest loader's ChunkLoads): the
// result must be the one of the same text parsed whole, on one thread, document after document.
// The oracle is that text with a lone carriage return at its end (in a comment after the last
// document), which YamlCutPoints refuses to cut: one chunk, every object loaded in order.
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "replay/io/manifest_loader.h"
#include "replay/io/yaml_documents.h"
#include "test/replay/io/loader_test_support.h"

namespace replay {
namespace {

// About 300 KB: ClusterQueues (some with a bad quantity, some with a field Kueue does not know,
// some naming a flavor that does not exist: a validation issue that points at a field line recorded
// in its chunk), LocalQueues, kinds tally skips or that look like a typo, Lists, empty documents,
// and three Configurations far apart (the second and third are duplicates of the first, whichever
// chunk they land in).
std::string ManyObjects() {
  std::string text =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n";
  for (int i = 0; i < 1500; ++i) {
    text += "---\n";
    if (i % 97 == 5) {
      continue;  // an empty document
    }
    if (i == 40 || i == 700 || i == 1400) {
      text += fmt::format(
          "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
          "fairSharing: {{}}\nwaitForPodsReady: {{enable: {}}}\n",
          i == 40 ? "true" : "false");
      continue;
    }
    if (i % 53 == 7) {
      text += fmt::format("apiVersion: batch/v1\nkind: Job\nmetadata: {{name: job-{}}}\n", i);
      continue;
    }
    if (i % 61 == 9) {
      text += fmt::format(
          "apiVersion: v1\nkind: List\nitems:\n"
          "- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: LocalQueue\n"
          "  metadata: {{name: lq-{0}-a, namespace: ns}}\n  spec: {{clusterQueue: cq-{0}}}\n"
          "- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: Cohort\n  metadata: {{name: co-{0}}}\n",
          i);
      continue;
    }
    if (i % 79 == 19) {  // a kind one typo away from one tally reads: a warning while loading
      text += fmt::format(
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQeue\nmetadata: {{name: typo-{}}}\n",
          i);
      continue;
    }
    const std::string extra = i % 83 == 17 ? "  unknownField: 1\n" : "";  // a warning too
    const std::string quota = i % 89 == 11 ? "\"4 cores\"" : std::to_string(i % 16 + 1);
    const std::string flavor = i % 71 == 13 ? "missing" : "default";
    text += fmt::format(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq-{0}\n"
        "spec:\n{4}  cohortName: co-{1}\n  namespaceSelector: {{}}\n  resourceGroups:\n"
        "  - coveredResources: [cpu, memory]\n    flavors:\n    - name: {2}\n      resources:\n"
        "      - name: cpu\n        nominalQuota: {3}\n      - name: memory\n"
        "        nominalQuota: 64Gi\n"
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
        "metadata: {{name: lq-{0}, namespace: ns}}\nspec: {{clusterQueue: cq-{0}}}\n",
        i, i % 9, flavor, quota, extra);
  }
  return text;
}

std::string Describe(const LoadResult& r) {
  std::string out =
      fmt::format("documents {} empty {} skipped {} workloads skipped {}\n", r.documents_read,
                  r.empty_documents, r.skipped_unknown, r.workloads_skipped);
  for (const auto& [kind, n] : r.loaded_by_kind) {
    out += fmt::format("loaded {} {}\n", kind, n);
  }
  for (const auto& [kind, n] : r.skipped_by_kind) {
    out += fmt::format("skipped {} {}\n", kind, n);
  }
  out += "errors:\n" + Dump(r.errors) + "warnings:\n" + Dump(r.warnings);
  for (const auto& cq : r.spec.cluster_queues) {
    out += fmt::format("cq {} {}:{}:{}\n", cq.name, cq.source.file, cq.source.document,
                       cq.source.line);
  }
  for (const auto& lq : r.spec.local_queues) {
    out += fmt::format("lq {} {}\n", lq.name, lq.source.document);
  }
  for (const auto& cohort : r.spec.cohorts) {
    out += fmt::format("cohort {} {}\n", cohort.name, cohort.source.line);
  }
  out += fmt::format("flavors {} configuration {} at {} wait {}\n", r.spec.flavors.size(),
                     r.spec.configuration.present, r.spec.configuration.source.line,
                     r.spec.configuration.wait_for_pods_ready.enable);
  return out;
}

TEST(ManifestLoaderChunksTest, ChunksLoadedOnTheirThreadsGiveTheResultOfTheWholeText) {
  const std::string text = ManyObjects();
  const std::string whole = text + "#\r";  // a lone CR: not cut
  ASSERT_GE(internal::YamlCutPoints(text, 4).size(), 3u);
  ASSERT_TRUE(internal::YamlCutPoints(whole, 4).empty());
  tbb::task_arena one(1);
  const LoadResult expected = one.execute([&] { return LoadManifestString(whole, "m.yaml"); });
  // What the text holds, so that equal descriptions compare something.
  ASSERT_EQ(expected.loaded_by_kind.at("Configuration"), 1);
  ASSERT_EQ(expected.skipped_by_kind.at("Job.batch"), 29);
  ASSERT_GT(expected.spec.cluster_queues.size(), 1000u);
  size_t duplicates = 0;
  size_t quantities = 0;
  for (const LoadError& e : expected.errors) {
    duplicates += Contains(e.message, "only one Configuration is allowed") ? 1 : 0;
    quantities += e.field_path.ends_with("nominalQuota") ? 1 : 0;
  }
  EXPECT_EQ(duplicates, 2u) << Dump(expected.errors);
  EXPECT_GT(quantities, 10u) << Dump(expected.errors);
  size_t unknown_fields = 0;
  size_t typos = 0;
  for (const LoadError& e : expected.warnings) {
    unknown_fields += e.field_path == "spec.unknownField" ? 1 : 0;
    typos += Contains(e.message, "did you mean ClusterQueue?") ? 1 : 0;
  }
  EXPECT_GT(unknown_fields, 10u) << Dump(expected.warnings);
  EXPECT_GT(typos, 10u) << Dump(expected.warnings);
  EXPECT_TRUE(expected.spec.configuration.wait_for_pods_ready.enable);  // the first one's
  const std::string want = Describe(expected);
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    const LoadResult got = arena.execute([&] { return LoadManifestString(text, "m.yaml"); });
    EXPECT_EQ(Describe(got), want) << threads << " threads";
  }
}

}  // namespace
}  // namespace replay
