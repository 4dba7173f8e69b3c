// Kueue's admissibility checks before flavor assignment (pkg/workload/resources.go:
// ValidateAdmissibility -> ValidateResources): a head whose requests exceed its limits is never
// nominated; it stays pending, QuotaReserved=False reason Misconfigured, with Kueue's message.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_spec.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

DecimalQuantity Q(const char* text) {
  return *ParseDecimalQuantity(text);
}

ClusterSpec OneQueue() {
  ClusterSpec spec;
  spec.flavors.emplace_back().name = "default";
  ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
  cq.name = "cq";
  cq.namespace_selector.is_null = false;  // {}: every namespace
  ResourceGroupSpec& g = cq.resource_groups.emplace_back();
  g.covered_resources = {"cpu", "memory"};
  FlavorQuotasSpec& fq = g.flavors.emplace_back();
  fq.flavor = "default";
  for (const char* r : {"cpu", "memory"}) {
    ResourceQuotaSpec q;
    q.resource = r;
    q.nominal = Quantity(std::string(r) == "cpu" ? 50'000 : int64_t{1} << 40);
    fq.resources.push_back(q);
  }
  LocalQueueSpec& lq = spec.local_queues.emplace_back();
  lq.name_space = "ns";
  lq.name = "main";
  lq.cluster_queue = "cq";
  return spec;
}

WorkloadSpec Wl(const std::string& name, int64_t created) {
  WorkloadSpec w;
  w.name_space = "ns";
  w.name = name;
  w.queue_name = "main";
  w.creation_time = created;
  PodSetSpec& ps = w.pod_sets.emplace_back();
  ps.name = "one";
  return w;
}

TEST(ValidateResourcesTest, RequestsWithinLimitsAreValid) {
  WorkloadSpec w = Wl("ok", 0);
  ContainerResources& c = w.pod_sets[0].resources.containers.emplace_back();
  AddTo(c.requests, "cpu", Q("100m"));
  AddTo(c.limits, "cpu", Q("100m"));
  AddTo(c.limits, "memory", Q("1Gi"));           // a limit alone stands in for the request
  AddTo(c.requests, "example.com/gpu", Q("2"));  // a request without a limit is not compared
  EXPECT_EQ(ValidateResources(w), "");
}

TEST(ValidateResourcesTest, KueueMessageForOneContainer) {
  WorkloadSpec w = Wl("bad", 0);
  ContainerResources& c = w.pod_sets[0].resources.containers.emplace_back();
  AddTo(c.requests, "cpu", Q("200m"));
  AddTo(c.limits, "cpu", Q("100m"));
  // The message of Kueue's scheduler_test.go "container resource requests exceed limits".
  EXPECT_EQ(ValidateResources(w),
            "resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid "
            "value: [\"cpu\"]: requests must not exceed its limits");
}

TEST(ValidateResourcesTest, ComparedInCanonicalUnitsAndAggregated) {
  WorkloadSpec w = Wl("bad", 0);
  // Rounded up to whole bytes both: 1.5 -> 2 and 2 -> 2, equal, valid.
  ContainerResources& fine = w.pod_sets[0].resources.containers.emplace_back();
  AddTo(fine.requests, "memory", Q("1.5"));
  AddTo(fine.limits, "memory", Q("2"));
  ContainerResources& init = w.pod_sets[0].resources.init_containers.emplace_back();
  AddTo(init.requests, "memory", Q("2Gi"));
  AddTo(init.limits, "memory", Q("1Gi"));
  AddTo(init.requests, "cpu", Q("2"));
  AddTo(init.limits, "cpu", Q("1"));
  PodSetSpec& second = w.pod_sets.emplace_back();
  second.name = "two";
  AddTo(second.resources.pod_requests, "cpu", Q("3"));
  AddTo(second.resources.pod_limits, "cpu", Q("2999m"));
  // Init containers first, then containers, then the pod level; names sorted; several errors
  // are an apimachinery aggregate "[a, b]".
  EXPECT_EQ(ValidateResources(w),
            "resources validation failed: [spec.podSets[0].template.spec.initContainers[0]: "
            "Invalid value: [\"cpu\",\"memory\"]: requests must not exceed its limits, "
            "spec.podSets[1].template.spec.resources: Invalid value: [\"cpu\"]: requests must "
            "not exceed its limits]");
}

struct Engine {
  explicit Engine(const ClusterSpec& spec)
      : store(cluster), queues(cluster, store), scheduler(cluster, store, queues) {
    cluster.Apply(spec);
  }
  WorkloadId Add(WorkloadSpec w) {
    WorkloadId id = *store.Add(std::move(w));
    cluster.Refresh();
    queues.Push(id);
    return id;
  }
  Cluster cluster;
  WorkloadStore store;
  QueueManager queues;
  Scheduler scheduler;
};

TEST(AdmissibilityTest, RequestsAboveLimitsStayPendingMisconfigured) {
  Engine e(OneQueue());
  WorkloadSpec bad = Wl("bad", 0);
  ContainerResources& c = bad.pod_sets[0].resources.containers.emplace_back();
  AddTo(c.requests, "cpu", Q("200m"));
  AddTo(c.limits, "cpu", Q("100m"));
  WorkloadId bad_id = e.Add(std::move(bad));
  WorkloadSpec good = Wl("good", 1);
  AddTo(good.pod_sets[0].resources.containers.emplace_back().requests, "cpu", Q("200m"));
  WorkloadId good_id = e.Add(std::move(good));

  // One head per ClusterQueue and cycle: the older, misconfigured one first.
  CycleResult r = e.scheduler.RunCycle(10);
  ASSERT_EQ(r.entries.size(), 1u);
  const CycleEntry& entry = r.entries[0];
  EXPECT_EQ(entry.workload, bad_id);
  EXPECT_EQ(entry.outcome, EntryOutcome::kNotNominated);
  EXPECT_TRUE(entry.misconfigured);
  EXPECT_EQ(entry.reason, RequeueReason::kGeneric);
  EXPECT_EQ(entry.message,
            "resources validation failed: spec.podSets[0].template.spec.containers[0]: "
            "Invalid value: [\"cpu\"]: requests must not exceed its limits");
  EXPECT_TRUE(entry.assignment.pod_sets.empty()) << "no flavor is tried";
  EXPECT_FALSE(e.store.Get(bad_id).quota_reserved);

  // BestEffortFIFO: the next head is admitted; the misconfigured one never is, whatever quota
  // frees up.
  CycleResult next = e.scheduler.RunCycle(20);
  ASSERT_EQ(next.entries.size(), 1u);
  EXPECT_EQ(next.entries[0].workload, good_id);
  EXPECT_EQ(next.entries[0].outcome, EntryOutcome::kAdmitted);
  EXPECT_FALSE(next.entries[0].misconfigured);
  e.queues.QueueAllInadmissible(30, e.scheduler.cycle());
  CycleResult again = e.scheduler.RunCycle(30);
  ASSERT_EQ(again.entries.size(), 1u);
  EXPECT_EQ(again.entries[0].workload, bad_id);
  EXPECT_TRUE(again.entries[0].misconfigured);
  EXPECT_FALSE(e.store.Get(bad_id).quota_reserved);
}

// A ClusterQueue's namespaceSelector is checked at every nomination (Kueue's
// ErrNamespaceMismatch), and the scheduler keeps each ClusterQueue's last verdict
// (Scheduler::NamespaceVerdict). A verdict must not outlive what it was made from: the
// namespace's labels, the selector, and the namespace itself.
class NamespaceSelectorTest : public ::testing::Test {
 protected:
  static ClusterSpec Spec(const std::string& team) {
    ClusterSpec spec = OneQueue();
    spec.cluster_queues[0].namespace_selector.match_labels = {{"team", team}};
    return spec;
  }
  static NamespaceSpec Ns(const std::string& name, const std::string& team) {
    NamespaceSpec ns;
    ns.name = name;
    ns.labels = {{"kubernetes.io/metadata.name", name}, {"team", team}};
    return ns;
  }
  // One cycle with one head (BestEffortFIFO: the inadmissible ones are moved back first).
  const CycleEntry& Cycle(TimeMicros now) {
    e.queues.QueueAllInadmissible(now, e.scheduler.cycle());
    result = e.scheduler.RunCycle(now);
    EXPECT_EQ(result.entries.size(), 1u);
    return result.entries.at(0);
  }
  static WorkloadSpec Small(const std::string& name, const std::string& name_space,
                            int64_t created) {
    WorkloadSpec w = Wl(name, created);
    w.name_space = name_space;
    AddTo(w.pod_sets[0].resources.containers.emplace_back().requests, "cpu", Q("100m"));
    return w;
  }

  Engine e{Spec("a")};
  CycleResult result;
};

TEST_F(NamespaceSelectorTest, AVerdictFollowsTheNamespacesLabels) {
  e.scheduler.SetNamespaces({Ns("ns", "b")});
  WorkloadId w = e.Add(Small("w", "ns", 0));
  const CycleEntry& mismatch = Cycle(10);
  EXPECT_EQ(mismatch.workload, w);
  EXPECT_EQ(mismatch.reason, RequeueReason::kNamespaceMismatch);
  EXPECT_TRUE(mismatch.misconfigured);
  // The namespace is relabelled: the ClusterQueue's cached "no" must not stand.
  e.scheduler.SetNamespace(Ns("ns", "a"));
  const CycleEntry& admitted = Cycle(20);
  EXPECT_EQ(admitted.workload, w);
  EXPECT_EQ(admitted.outcome, EntryOutcome::kAdmitted);
}

TEST_F(NamespaceSelectorTest, AVerdictFollowsTheSelectorAndTheNamespace) {
  ClusterSpec spec = Spec("a");
  spec.local_queues.push_back(spec.local_queues[0]);
  spec.local_queues.back().name_space = "other";
  e.cluster.Apply(spec);
  e.scheduler.SetNamespaces({Ns("ns", "a"), Ns("other", "b")});
  WorkloadId first = e.Add(Small("first", "ns", 0));
  EXPECT_EQ(Cycle(10).outcome, EntryOutcome::kAdmitted);
  EXPECT_TRUE(e.store.Get(first).quota_reserved);
  // Same ClusterQueue, same configuration and labels, another namespace: "yes" was for "ns".
  WorkloadId second = e.Add(Small("second", "other", 1));
  const CycleEntry& other = Cycle(20);
  EXPECT_EQ(other.workload, second);
  EXPECT_EQ(other.reason, RequeueReason::kNamespaceMismatch);
  // The selector changes to team b (a configuration edit): "other" matches now, "ns" no more.
  spec.cluster_queues[0].namespace_selector.match_labels = {{"team", "b"}};
  e.cluster.Apply(spec);
  EXPECT_EQ(Cycle(30).outcome, EntryOutcome::kAdmitted);
  WorkloadId third = e.Add(Small("third", "ns", 2));
  const CycleEntry& third_entry = Cycle(40);
  EXPECT_EQ(third_entry.workload, third);
  EXPECT_EQ(third_entry.reason, RequeueReason::kNamespaceMismatch);
}

}  // namespace
}  // namespace engine
