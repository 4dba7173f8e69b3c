// Tests of `tally import alibaba-dlrm` (replay/import/alibaba_dlrm_import.h): the mapping of
// instance rows (requests, role affinity, priority, runtimes, instances running before the trace,
// never scheduled), bad rows counted by reason, quotas from the peak demand, and the shipped sample
// imported and replayed.
#include "replay/import/alibaba_dlrm_import.h"

#include <fmt/format.h>

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::ReplayHarness;

constexpr const char* kHeader =
    "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
    "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
    "creation_time,scheduled_time,deletion_time\n";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The event line of workload `name` of `type` ("" if none).
std::string EventOf(const std::string& events, const std::string& type, const std::string& name) {
  size_t begin = 0;
  while (begin < events.size()) {
    size_t end = events.find('\n', begin);
    end = end == std::string::npos ? events.size() : end;
    std::string line = events.substr(begin, end - begin);
    if (Contains(line, fmt::format(R"({{"type":"{}")", type))
        && Contains(line, fmt::format(R"("name":"{}")", name))) {
      return line;
    }
    begin = end + 1;
  }
  return "";
}

// A CN row of `app` asking `cpu` vCPUs, with the three times as given.
std::string CnRow(const std::string& name, const std::string& app, int cpu,
                  const std::string& times) {
  return fmt::format("{},CN,{},{},{},0,0,1,1,40.0,40.0,85.0,100.0,-1,{}\n", name, app, cpu, cpu,
                     times);
}

engine::StatusOr<ImportOutput> Import(ReplayHarness& h, const std::string& rows,
                                      int32_t tenants = 1, double headroom = 1.0) {
  AlibabaDlrmImportOptions options;
  options.path = h.Write("trace.csv", std::string(kHeader) + rows);
  options.tenants = tenants;
  options.headroom = headroom;
  return ImportAlibabaDlrm(options);
}

TEST(AlibabaDlrmImportTest, InstanceRowsMapToWorkloads) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out =
      Import(h,
             "inst_0,HN,app_a,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,3600.5\n"
             "inst_1,CN,app_b,64,64,0,0,1,1,937.5,937.5,255.0,300.0,-1,475.00000000000006,623.0,\n"
             "inst_2,CN,app_b,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,610.0,683.0,91730.0\n"
             "inst_3,CN,app_b,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,1000.0,,1600.5\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 4);
  EXPECT_EQ(out->counts.used, 4);
  const std::string& e = out->events;

  // inst_0: running before the trace began: ADDED at its start already admitted on flavor hn,
  // running until its deletion; a GPU, RDMA share and memory in MiB.
  const std::string i0 = EventOf(e, "ADDED", "inst-0");
  EXPECT_TRUE(Contains(i0, R"("time":"2025-01-01T00:00:00Z","runtime":"3600500ms")")) << i0;
  EXPECT_TRUE(Contains(i0, R"("namespace":"app-a")")) << i0;
  EXPECT_TRUE(Contains(i0, R"("queueName":"app-a")")) << i0;
  EXPECT_TRUE(Contains(i0, R"("name":"alibaba-ls"},"priority":500)")) << i0;
  EXPECT_TRUE(Contains(i0, R"("tally.dev/class":"role-hn")")) << i0;
  EXPECT_TRUE(Contains(
      i0,
      R"("requests":{"cpu":"12000m","memory":"122880Mi","nvidia.com/gpu":"1","alibaba.com/rdma-percent":"25"})"))
      << i0;
  EXPECT_TRUE(Contains(i0, R"("key":"alibaba.com/node-role","operator":"In","values":["HN"])"))
      << i0;
  EXPECT_TRUE(Contains(i0, R"("admission":{"clusterQueue":"tenant-0","podSetAssignments":[{)"
                           R"("name":"main","flavors":{"cpu":"hn","memory":"hn",)"))
      << i0;
  EXPECT_TRUE(Contains(i0, R"("type":"QuotaReserved","status":"True")")) << i0;

  // inst_1: arrives at 475 s, never deleted (no runtime); 937.5 GiB is 960000 MiB; no GPU.
  const std::string i1 = EventOf(e, "ADDED", "inst-1");
  EXPECT_TRUE(Contains(i1, R"("time":"2025-01-01T00:07:55Z","object")")) << i1;
  EXPECT_FALSE(Contains(i1, "runtime")) << i1;
  EXPECT_FALSE(Contains(i1, "status")) << i1;
  EXPECT_TRUE(Contains(
      i1, R"("requests":{"cpu":"64000m","memory":"960000Mi","alibaba.com/rdma-percent":"1"})"))
      << i1;
  EXPECT_TRUE(Contains(i1, R"("values":["CN"])")) << i1;

  // inst_2: runs from scheduling (683 s) to deletion (91730 s).
  EXPECT_TRUE(Contains(EventOf(e, "ADDED", "inst-2"),
                       R"("time":"2025-01-01T00:10:10Z","runtime":"91047000ms")"));

  // inst_3: never scheduled: ADDED at creation, DELETED when it gave up.
  EXPECT_TRUE(Contains(EventOf(e, "ADDED", "inst-3"), R"("time":"2025-01-01T00:16:40Z","object")"));
  EXPECT_FALSE(Contains(EventOf(e, "ADDED", "inst-3"), "runtime"));
  EXPECT_TRUE(Contains(EventOf(e, "DELETED", "inst-3"), R"("time":"2025-01-01T00:26:40.500000Z")"));

  // Events in time order: the instance running at the start comes first.
  EXPECT_LT(e.find(R"("name":"inst-0")"), e.find(R"("name":"inst-1")"));
  // One LocalQueue per app, both in the one tenant's ClusterQueue; flavors by role.
  EXPECT_TRUE(Contains(out->manifests,
                       "kind: LocalQueue\nmetadata:\n  name: app-b\n  namespace: "
                       "app-b\nspec:\n  clusterQueue: tenant-0\n"))
      << out->manifests;
  EXPECT_TRUE(Contains(out->manifests,
                       "name: hn\nspec:\n  nodeLabels:\n    alibaba.com/node-role: \"HN\"\n"));
  EXPECT_TRUE(Contains(out->manifests, "name: alibaba-ls\nvalue: 500\n"));
}

TEST(AlibabaDlrmImportTest, BadRowsAreSkippedByReasonAndCountsReconcile) {
  ReplayHarness h;
  const std::string ok_times = "10.0,10.0,100.0";
  std::string rows = CnRow("ok", "app", 8, ok_times);
  rows += CnRow("ok", "app", 8, ok_times);                                 // duplicate
  rows += "short,CN,app,8\n";                                              // columns
  rows += CnRow("bad/name", "app", 8, ok_times);                           // instance_sn
  rows += CnRow("role", "app", 8, ok_times).replace(5, 2, "XN");           // role
  rows += CnRow("app", "App Name", 8, ok_times);                           // app_name
  rows += CnRow("cpu", "app", -8, ok_times);                               // cpu_request
  rows += "gpu,HN,app,8,8,0.5,1,1,1,40.0,40.0,85.0,100.0,-1,10,10,20\n";   // gpu_request
  rows += "rdma,HN,app,8,8,1,1,101,1,40.0,40.0,85.0,100.0,-1,10,10,20\n";  // rdma_request
  rows += "mem,HN,app,8,8,1,1,1,1,x,40.0,85.0,100.0,-1,10,10,20\n";        // memory_request
  rows += "disk,HN,app,8,8,1,1,1,1,40.0,40.0,85.0,,-1,10,10,20\n";         // disk_limit
  rows += "spread,HN,app,8,8,1,1,1,1,40.0,40.0,85.0,100.0,-2,10,10,20\n";  // max_instance_per_node
  rows += CnRow("neg", "app", 8, "-5.0,10.0,100.0");                       // creation_time
  rows += CnRow("text", "app", 8, "10.0,soon,100.0");                      // scheduled_time
  rows += CnRow("huge", "app", 8, "10.0,10.0,1e300");                      // deletion_time
  rows += CnRow("early", "app", 8, "10.0,5.0,100.0");                      // scheduled < created
  rows += CnRow("gone", "app", 8, "10.0,,5.0");                            // deleted < created
  rows += CnRow("zero", "app", 8, "10.0,20.0,20.0");                       // no running time
  rows += CnRow("zero-start", "app", 8, ",,0");                            // no running time
  engine::StatusOr<ImportOutput> out = Import(h, rows);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 19);
  EXPECT_EQ(out->counts.used, 1);
  EXPECT_EQ(out->counts.read, out->counts.used + out->counts.skipped());
  const std::map<std::string, int64_t> want = {{"duplicate instance_sn", 1},
                                               {"wrong number of columns", 1},
                                               {"bad instance_sn", 1},
                                               {"bad role", 1},
                                               {"bad app_name", 1},
                                               {"bad cpu_request", 1},
                                               {"bad gpu_request", 1},
                                               {"bad rdma_request", 1},
                                               {"bad memory_request", 1},
                                               {"bad disk_limit", 1},
                                               {"bad max_instance_per_node", 1},
                                               {"bad creation_time", 1},
                                               {"bad scheduled_time", 1},
                                               {"bad deletion_time", 1},
                                               {"time before creation", 2},
                                               {"no running time", 2}};
  EXPECT_EQ(out->counts.skipped_by_reason, want);
  ASSERT_EQ(out->counts.first_errors.size(), 18u);
  EXPECT_TRUE(
      Contains(out->counts.first_errors[0], "trace.csv:3: instance_sn: \"ok\" was already read"))
      << out->counts.first_errors[0];
  EXPECT_TRUE(Contains(out->counts.first_errors[1], "trace.csv:4: 4 columns, want 17"))
      << out->counts.first_errors[1];
  EXPECT_TRUE(Contains(out->counts.first_errors[11], "trace.csv:14: creation_time: \"-5.0\""))
      << out->counts.first_errors[11];
}

TEST(AlibabaDlrmImportTest, AMissingOrWrongHeaderIsAnError) {
  ReplayHarness h;
  AlibabaDlrmImportOptions options;
  options.path = h.Write("wrong.csv", "instance_sn,role,app_name\ninst_0,CN,app\n");
  engine::StatusOr<ImportOutput> out = ImportAlibabaDlrm(options);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "wrong.csv:1: header"))
      << out.status().message();
  options.path = h.Write("empty.csv", "\n\n");
  out = ImportAlibabaDlrm(options);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "empty file"));
  options.path = h.Write("missing.csv", "") + ".not-there";
  EXPECT_FALSE(ImportAlibabaDlrm(options).ok());
}

// The nominal quotas of `resource` on `flavor`, summed over the ClusterQueues.
int64_t QuotaSum(const std::string& manifests, const std::string& flavor,
                 const std::string& resource) {
  int64_t sum = 0;
  const std::string flavor_needle = fmt::format("    - name: {}\n", flavor);
  const std::string needle = fmt::format("- name: \"{}\"\n        nominalQuota: \"", resource);
  for (size_t at = manifests.find(flavor_needle); at != std::string::npos;
       at = manifests.find(flavor_needle, at + 1)) {
    sum += std::stoll(manifests.substr(manifests.find(needle, at) + needle.size()));
  }
  return sum;
}

TEST(AlibabaDlrmImportTest, QuotasAreThePeakDemandSplitBetweenTenants) {
  ReplayHarness h;
  // CN: 10 + 20 + 40 vCPUs over [0,100), [50,150), [100,200) (released before the next arrives
  // at 100): peak 60 at [100,150); plus 4 from the start for ever: 64 cores. HN: 2 GPUs at once.
  std::string rows;
  rows += CnRow("a", "app-1", 10, "0.0,0.0,100.0");
  rows += CnRow("b", "app-2", 20, "50.0,50.0,150.0");
  rows += CnRow("c", "app-3", 40, "100.0,100.0,200.0");
  rows += CnRow("d", "app-4", 4, ",,");
  // Placed on arrival, e runs [60, 60 + (90 - 70)): its wait is not demand.
  rows += CnRow("e", "app-5", 2, "60.0,70.0,90.0");
  rows += "g0,HN,app-1,6,6,1,1,25,25,100.0,100.0,85.0,100.0,-1,0.0,0.0,50.0\n";
  rows += "g1,HN,app-2,6,6,1,1,25,25,100.0,100.0,85.0,100.0,-1,10.0,10.0,60.0\n";
  rows += "g2,HN,app-3,6,6,1,1,25,25,100.0,100.0,85.0,100.0,-1,55.0,55.0,70.0\n";
  // Never scheduled: no demand.
  rows += CnRow("never", "app-1", 500, "5.0,,500.0");
  for (int32_t tenants : {1, 3, 7}) {
    engine::StatusOr<ImportOutput> out = Import(h, rows, tenants);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(QuotaSum(out->manifests, "cn", "cpu"), 64000) << tenants;
    EXPECT_EQ(QuotaSum(out->manifests, "cn", "alibaba.com/rdma-percent"), 4) << tenants;
    EXPECT_EQ(QuotaSum(out->manifests, "cn", "nvidia.com/gpu"), 0) << tenants;
    EXPECT_EQ(QuotaSum(out->manifests, "hn", "nvidia.com/gpu"), 2) << tenants;
    EXPECT_EQ(QuotaSum(out->manifests, "hn", "cpu"), 12000) << tenants;
    EXPECT_EQ(QuotaSum(out->manifests, "hn", "memory"), 2 * 102400) << tenants;
    EXPECT_EQ(QuotaSum(out->manifests, "hn", "alibaba.com/rdma-percent"), 50) << tenants;
  }
  // Headroom scales each total, rounded up.
  engine::StatusOr<ImportOutput> out = Import(h, rows, 2, 0.5);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(QuotaSum(out->manifests, "cn", "cpu"), 32000);
  EXPECT_EQ(QuotaSum(out->manifests, "hn", "nvidia.com/gpu"), 1);
  EXPECT_EQ(QuotaSum(out->manifests, "cn", "alibaba.com/rdma-percent"), 2);
}

TEST(AlibabaDlrmImportTest, ShippedSampleReplaysEndToEnd) {
  ReplayHarness h;
  AlibabaDlrmImportOptions options;
  options.path = std::string(TALLY_SOURCE_DIR) + "/data/alibaba-dlrm/trace.csv";
  engine::StatusOr<ImportOutput> out = ImportAlibabaDlrm(options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 48);
  EXPECT_EQ(out->counts.used, 48);
  const testing::Outcome o =
      h.ReplayFiles(h.Write("m.yaml", out->manifests), h.Write("e.jsonl", out->events), {});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_read, 49);  // 48 ADDED + 1 DELETED (the never scheduled)
  EXPECT_EQ(o.report.events_rejected, 0);
  EXPECT_EQ(o.report.workloads_created, 48);
  EXPECT_EQ(o.report.workloads_initially_admitted, 15);
  // At headroom 1 every instance that ran is admitted on arrival, the never scheduled one is
  // deleted while pending, and nothing waits.
  EXPECT_EQ(o.report.workloads_admitted, 32);
  EXPECT_EQ(o.report.workloads_initially_admitted + o.report.workloads_admitted + 1,
            o.report.workloads_created);
  EXPECT_EQ(o.report.pending_at_end, 0);
  EXPECT_EQ(o.report.deleted, 1);
  EXPECT_EQ(o.report.wait_overall.max, 0.0);

  // Below the peak the replay queues: still every event applied.
  options.headroom = 0.8;
  out = ImportAlibabaDlrm(options);
  ASSERT_TRUE(out.ok());
  const testing::Outcome tight =
      h.ReplayFiles(h.Write("m2.yaml", out->manifests), h.Write("e2.jsonl", out->events), {});
  ASSERT_TRUE(tight.completed);
  EXPECT_EQ(tight.report.events_rejected, 0);
  EXPECT_GT(tight.report.wait_overall.max, 0.0);
}

// Issue 23, finding 07b: a cpu_request of 1e13 is skipped as out of range (it used to wrap into
// a negative quantity and pass the range check).
TEST(AlibabaDlrmImportTest, AnOverflowingQuantityIsSkipped) {
  AlibabaDlrmImportOptions options;
  options.path = "test/robustness/07b-alibaba-dlrm-cpu-exponent-overflow.csv";
  engine::StatusOr<ImportOutput> out = ImportAlibabaDlrm(options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 1);
  EXPECT_EQ(out->counts.used, 0);
  EXPECT_EQ(out->counts.skipped_by_reason,
            (std::map<std::string, int64_t>{{"bad cpu_request", 1}}));
}

}  // namespace
}  // namespace replay
