// Where tally follows Kueue's code over a seed's text (docs/kueue-vs-seeds.md), for the rules no
// other test pins at engine level. Each test names the seed and Kueue's source.
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/flavor_assigner.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_spec.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

ResourceGroupSpec Cpu(const std::string& flavor, int64_t cores,
                      std::optional<int64_t> borrowing_limit = std::nullopt) {
  ResourceGroupSpec g;
  g.covered_resources = {"cpu"};
  FlavorQuotasSpec& fq = g.flavors.emplace_back();
  fq.flavor = flavor;
  ResourceQuotaSpec q;
  q.resource = "cpu";
  q.nominal = Quantity(cores * 1000);
  if (borrowing_limit) {
    q.borrowing_limit = Quantity(*borrowing_limit * 1000);
  }
  fq.resources.push_back(q);
  return g;
}

WorkloadSpec CpuWorkload(const std::string& name, const std::string& queue, int64_t cores) {
  WorkloadSpec w;
  w.name_space = "ns";
  w.name = name;
  w.queue_name = queue;
  PodSetSpec& ps = w.pod_sets.emplace_back();
  ps.name = "main";
  AddTo(ps.resources.containers.emplace_back().requests, "cpu",
        *ParseDecimalQuantity(std::to_string(cores)));
  return w;
}

// Seed 004 (KEP-79) admits a workload "if and only if, after admission, T(x,r) >= -borrowingLimit
// at all elements of the hierarchy". Kueue checks only the path from the ClusterQueue to the root
// (pkg/cache/scheduler/resource_node.go: available; kueue-semantics.md §4.2): a node off that
// path already in debt (here cohort p1, whose queue a holds 6 cores against 4 of quota while p1
// may not borrow) does not stop an admission elsewhere in the tree. Seed's text: d stays pending.
TEST(SeedRulesTest, DebtOffThePathDoesNotBlockAdmission) {
  ClusterSpec spec;
  spec.flavors.emplace_back().name = "default";
  CohortSpec& root = spec.cohorts.emplace_back();
  root.name = "root";
  CohortSpec& p1 = spec.cohorts.emplace_back();
  p1.name = "p1";
  p1.parent = "root";
  p1.resource_groups.push_back(Cpu("default", 0, /*borrowing_limit=*/0));
  CohortSpec& p2 = spec.cohorts.emplace_back();
  p2.name = "p2";
  p2.parent = "root";
  for (auto [cq_name, cohort, cores] : {std::tuple{"a", "p1", 4}, {"d", "p2", 10}}) {
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = cq_name;
    cq.cohort = cohort;
    cq.namespace_selector.is_null = false;  // {}: every namespace
    cq.resource_groups.push_back(Cpu("default", cores));
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = cq_name;
    lq.cluster_queue = cq_name;
  }
  Cluster cluster;
  WorkloadStore store(cluster);
  QueueManager queues(cluster, store);
  Scheduler scheduler(cluster, store, queues);
  cluster.Apply(spec);

  // a holds 6 cores (admitted before its quota shrank to 4): T(p1) = -2 < -BL(p1) = 0.
  WorkloadSpec held = CpuWorkload("held", "a", 6);
  AdmissionSpec& admission = held.admission.emplace();
  admission.cluster_queue = "a";
  PodSetAssignmentSpec& psa = admission.pod_set_assignments.emplace_back();
  psa.name = "main";
  psa.count = 1;
  psa.flavors["cpu"] = "default";
  psa.resource_usage["cpu"] = Quantity(6000);
  held.conditions.Mutable().push_back({"QuotaReserved", true, "QuotaReserved", 0});
  StatusOr<WorkloadId> held_id = store.Add(std::move(held));
  ASSERT_TRUE(held_id.ok());
  WorkloadId pending = *store.Add(CpuWorkload("new", "d", 3));
  cluster.Refresh();
  queues.Push(pending);

  ASSERT_TRUE(store.Get(*held_id).quota_reserved);  // charged: p1 is 2 cores in debt

  CycleResult r = scheduler.RunCycle(1);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].outcome, EntryOutcome::kAdmitted) << r.entries[0].message;
  EXPECT_TRUE(store.Get(pending).quota_reserved);
}

// Where tally keeps the seed's rule (docs/kueue-vs-seeds.md, last section): seed 003 restarts a
// saved flavor scan from the first flavor when the ClusterQueue's OR a cohort's generation
// changed; Kueue (scheduler.go: lastAssignmentOutdated) looks only at the ClusterQueue's
// (`--kueue-scan-reset`). Here only the cohort's generation moved since the scan that tried f1.
TEST(SeedRulesTest, CohortGenerationBumpRestartsTheScanUnlessKueueScanReset) {
  for (bool kueue_scan_reset : {false, true}) {
    SCOPED_TRACE(kueue_scan_reset ? "--kueue-scan-reset" : "seed 003 scan reset");
    ClusterSpec spec;
    spec.flavors.emplace_back().name = "f1";
    spec.flavors.emplace_back().name = "f2";
    spec.cohorts.emplace_back().name = "c";
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = "a";
    cq.cohort = "c";
    cq.namespace_selector.is_null = false;
    ResourceGroupSpec group = Cpu("f1", 4);
    group.flavors.push_back(Cpu("f2", 4).flavors[0]);
    cq.resource_groups.push_back(group);
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = "a";
    lq.cluster_queue = "a";
    Cluster cluster;
    WorkloadStore store(cluster);
    QueueManager queues(cluster, store);
    SchedulerOptions options;
    options.cohort_generation_resets_scan = !kueue_scan_reset;
    Scheduler scheduler(cluster, store, queues, options);
    cluster.Apply(spec);
    WorkloadId id = *store.Add(CpuWorkload("w", "a", 1));
    cluster.Refresh();

    // A scan saved after trying f1, against the current ClusterQueue generation and flavor
    // lists, but an older cohort generation.
    CqId a = *cluster.FindClusterQueue("a");
    NodeId node = cluster.ClusterQueueNode(a);
    const ResourceTree& tree = cluster.tree();
    FlavorScanState& scan = store.Get(id).scan.Mutable();
    scan.valid = true;
    scan.last_tried = {{{*cluster.FindResource("cpu"), 0}}};
    scan.cluster_queue_generation = tree.Generation(node);
    scan.cohort_generations = {tree.Generation(tree.Parent(node)) + 1};
    scan.flavor_lists = cluster.FlavorListsFingerprint(a);
    scan.scheduling_cycle = -10;

    CycleEntry entry = scheduler.Evaluate(id, 0);
    ASSERT_EQ(entry.assignment.pod_sets.size(), 1u);
    ASSERT_FALSE(entry.assignment.pod_sets[0].attempts.empty());
    // Seed: from the first flavor again (f1 fits); Kueue: resumes after f1.
    EXPECT_EQ(entry.assignment.pod_sets[0].attempts[0].index, kueue_scan_reset ? 1 : 0);
  }
}

}  // namespace
}  // namespace engine
