// Tests of `tally import alibaba-gpu` (replay/import/alibaba_gpu_import.h): flavors and quotas from
// the node list, the mapping of pod rows, bad rows counted by reason, and the shipped sample
// replayed.
#include "replay/import/alibaba_gpu_import.h"

#include <fmt/format.h>

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::ReplayHarness;

constexpr const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";
constexpr const char* kNodes =
    "sn,cpu_milli,memory_mib,gpu,model\n"
    "n0,32000,131072,2,T4\n"
    "n1,64000,262144,8,V100M16\n"
    "n2,64000,262144,8,V100M16\n"
    "n3,16000,65536,0,\n";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

engine::StatusOr<ImportOutput> Import(ReplayHarness& h, const std::string& pods,
                                      int32_t tenants = 1) {
  AlibabaGpuImportOptions options;
  options.pods = h.Write("pods.csv", std::string(kPodHeader) + pods);
  options.nodes = h.Write("nodes.csv", kNodes);
  options.tenants = tenants;
  return ImportAlibabaGpu(options);
}

TEST(AlibabaGpuImportTest, NodeListBecomesFlavorsAndQuotas) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out = Import(h, "p0,1000,1024,1,1000,,LS,Running,0,60,0\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(Contains(out->manifests,
                       "name: gpu-v100m16\nspec:\n  nodeLabels:\n    alibaba.com/gpu-model: "
                       "\"V100M16\"\n"))
      << out->manifests;
  // One tenant: the whole capacity. V100M16: 2 nodes, 128 cores, 16 GPUs = 16000 gpu-milli.
  EXPECT_TRUE(Contains(out->manifests,
                       "- name: gpu-v100m16\n      resources:\n      - name: cpu\n        "
                       "nominalQuota: \"128000m\"\n      - name: memory\n        nominalQuota: "
                       "\"524288Mi\"\n      - name: \"alibaba.com/gpu-milli\"\n        "
                       "nominalQuota: \"16000\"\n"))
      << out->manifests;
  // CPU-only nodes come first (pods without GPUs take them before GPU nodes), with no GPU quota.
  EXPECT_LT(out->manifests.find("- name: cpu-only\n"), out->manifests.find("- name: gpu-t4\n"));
  EXPECT_TRUE(Contains(out->manifests,
                       "- name: cpu-only\n      resources:\n      - name: cpu\n        "
                       "nominalQuota: \"16000m\"\n      - name: memory\n        nominalQuota: "
                       "\"65536Mi\"\n      - name: \"alibaba.com/gpu-milli\"\n        "
                       "nominalQuota: \"0\"\n"))
      << out->manifests;
  EXPECT_TRUE(Contains(out->manifests, "name: alibaba-ls\nvalue: 500\n"));
}

TEST(AlibabaGpuImportTest, PodRowsMapToWorkloads) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out =
      Import(h,
             "p0,6000,12288,1,460,V100M16|T4,BE,Running,10,610,12\n"
             "p1,4000,8192,0,0,,Guaranteed,Running,20,80,20\n"
             "p2,8000,16384,2,1000,,LS,Pending,30,330,\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::string& e = out->events;
  // p0: shares 460/1000 of a GPU, runs from scheduling (12 s) to deletion (610 s), V100M16 or T4.
  EXPECT_TRUE(Contains(e, R"("time":"2023-01-01T00:00:10Z","runtime":"598000ms")")) << e;
  EXPECT_TRUE(Contains(e, R"("cpu":"6000m","memory":"12288Mi","alibaba.com/gpu-milli":"460")"))
      << e;
  EXPECT_TRUE(
      Contains(e, R"("key":"alibaba.com/gpu-model","operator":"In","values":["V100M16","T4"])"))
      << e;
  EXPECT_TRUE(Contains(e, R"("name":"alibaba-be"},"priority":100)")) << e;
  EXPECT_TRUE(Contains(e, R"("tally.dev/class":"qos-be")")) << e;
  // p1: no GPU request at all.
  EXPECT_TRUE(Contains(e, R"("requests":{"cpu":"4000m","memory":"8192Mi"}})")) << e;
  // p2: never scheduled: ADDED without runtime, DELETED when it gave up (330 s).
  EXPECT_TRUE(Contains(e, R"({"type":"ADDED","time":"2023-01-01T00:00:30Z","object")")) << e;
  EXPECT_TRUE(Contains(e, R"({"type":"DELETED","time":"2023-01-01T00:05:30Z")")) << e;
  EXPECT_TRUE(Contains(e, R"("alibaba.com/gpu-milli":"2000")")) << e;
  EXPECT_EQ(out->counts.used, 3);
}

TEST(AlibabaGpuImportTest, BadRowsAreSkippedByReasonAndCountsReconcile) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out = Import(h,
                                              "ok,1000,1024,1,1000,,LS,Running,0,60,0\n"
                                              "ok,1000,1024,1,1000,,LS,Running,0,60,0\n"
                                              "short,1000,1024\n"
                                              "Bad_Name,1000,1024,1,1000,,LS,Running,0,60,0\n"
                                              "c,-1,1024,1,1000,,LS,Running,0,60,0\n"
                                              "m,1000,x,1,1000,,LS,Running,0,60,0\n"
                                              "g,1000,1024,99,1000,,LS,Running,0,60,0\n"
                                              "gm,1000,1024,1,0,,LS,Running,0,60,0\n"
                                              "spec,1000,1024,1,1000,A100,LS,Running,0,60,0\n"
                                              "q,1000,1024,1,1000,,Gold,Running,0,60,0\n"
                                              "t,1000,1024,1,1000,,LS,Running,-5,60,0\n"
                                              "d,1000,1024,1,1000,,LS,Running,100,50,100\n"
                                              "r,1000,1024,1,1000,,LS,Running,100,100,100\n"
                                              "nd,1000,1024,1,1000,,LS,Running,0,-60,0\n"
                                              "ns,1000,1024,1,1000,,LS,Running,0,60,-1\n"
                                              "xs,1000,1024,1,1000,,LS,Running,0,60,soon\n"
                                              "sb,1000,1024,1,1000,,LS,Running,100,200,50\n");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->counts.read, 17);
  EXPECT_EQ(out->counts.used, 1);
  EXPECT_EQ(out->counts.read, out->counts.used + out->counts.skipped());
  const std::map<std::string, int64_t> want = {
      {"duplicate name", 1},    {"wrong number of columns", 1}, {"bad name", 1},
      {"bad cpu_milli", 1},     {"bad memory_mib", 1},          {"bad num_gpu", 1},
      {"bad gpu_milli", 1},     {"unknown gpu_spec model", 1},  {"bad qos", 1},
      {"bad creation_time", 1}, {"time before creation", 2},    {"no running time", 1},
      {"bad deletion_time", 1}, {"bad scheduled_time", 2}};
  EXPECT_EQ(out->counts.skipped_by_reason, want);
  EXPECT_TRUE(Contains(out->counts.first_errors[0], "pods.csv:3: name: \"ok\" was already read"))
      << out->counts.first_errors[0];
}

TEST(AlibabaGpuImportTest, AMissingOrWrongHeaderIsAnError) {
  ReplayHarness h;
  AlibabaGpuImportOptions options;
  options.pods = h.Write("pods.csv", "name,cpu_milli\np0,1000\n");
  options.nodes = h.Write("nodes.csv", kNodes);
  engine::StatusOr<ImportOutput> out = ImportAlibabaGpu(options);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "pods.csv:1: header"))
      << out.status().message();
  options.pods = h.Write("pods.csv", std::string(kPodHeader));
  options.nodes = h.Write("nodes.csv", "");
  out = ImportAlibabaGpu(options);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "nodes.csv: empty file"));
  // A bad node row stops the import: the quotas would be wrong.
  options.nodes = h.Write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,x,1,1,T4\n");
  out = ImportAlibabaGpu(options);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "nodes.csv:2: not a node row"));
}

TEST(AlibabaGpuImportTest, TenantQuotasSumToTheNodeList) {
  ReplayHarness h;
  std::string pods;
  for (int i = 0; i < 40; ++i) {
    pods += fmt::format("pod-{},1000,1024,1,1000,,LS,Running,{},{},{}\n", i, i, i + 60, i);
  }
  engine::StatusOr<ImportOutput> out = Import(h, pods, 3);
  ASSERT_TRUE(out.ok());
  int64_t gpu_milli = 0;
  const std::string needle = "- name: \"alibaba.com/gpu-milli\"\n        nominalQuota: \"";
  for (size_t at = out->manifests.find(needle); at != std::string::npos;
       at = out->manifests.find(needle, at + 1)) {
    gpu_milli += std::stoll(out->manifests.substr(at + needle.size()));
  }
  EXPECT_EQ(gpu_milli, 18000);  // 2 T4 + 16 V100M16 GPUs
  // The tenants are not round-robin: sequential names spread unevenly but all are used.
  for (int t = 0; t < 3; ++t) {
    EXPECT_TRUE(Contains(out->events, fmt::format(R"("namespace":"tenant-{}")", t)));
  }
}

TEST(AlibabaGpuImportTest, ShippedSampleReplaysEndToEnd) {
  ReplayHarness h;
  AlibabaGpuImportOptions options;
  options.pods = std::string(TALLY_SOURCE_DIR) + "/data/alibaba-gpu/pods.csv";
  options.nodes = std::string(TALLY_SOURCE_DIR) + "/data/alibaba-gpu/nodes.csv";
  engine::StatusOr<ImportOutput> out = ImportAlibabaGpu(options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 48);
  EXPECT_EQ(out->counts.used, 48);
  const testing::Outcome o =
      h.ReplayFiles(h.Write("m.yaml", out->manifests), h.Write("e.jsonl", out->events), {});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_read, 52);  // 48 ADDED + 4 DELETED
  EXPECT_EQ(o.report.events_rejected, 0);
  EXPECT_EQ(o.report.workloads_admitted, 48);
  EXPECT_EQ(o.live_workloads, 0u);
}

}  // namespace
}  // namespace replay
