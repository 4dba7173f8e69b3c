// What the WorkloadStore keeps of a live Workload (engine/workload.h, docs/replay.md: the memory
// model): the names the engine reads from the spec instead of copying them, the resources-invalid
// flag whose message is made again when a nomination needs it, and the size of the one block a
// live workload costs, which the documented bytes per live Workload rest on.
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/pod_requests.h"
#include "engine/workload.h"
#include "engine/workload_spec.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

class StoredWorkloadTest : public ::testing::Test {
 protected:
  StoredWorkloadTest() : store_(cluster_) {
    ClusterSpec spec;
    spec.flavors.emplace_back().name = "f";
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = "cq";
    ResourceGroupSpec& g = cq.resource_groups.emplace_back();
    g.covered_resources = {"cpu"};
    FlavorQuotasSpec& f = g.flavors.emplace_back();
    f.flavor = "f";
    f.resources.push_back({"cpu", Quantity(4000), std::nullopt, std::nullopt});
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = "a-local-queue-named-past-the-short-string-buffer";
    lq.cluster_queue = "cq";
    cluster_.Apply(spec);
  }

  static WorkloadSpec Spec(const std::string& name, const std::string& uid, const char* limit) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = name;
    w.uid = uid;
    w.queue_name = "a-local-queue-named-past-the-short-string-buffer";
    PodSetSpec& ps = w.pod_sets.emplace_back();
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity("2"));
    if (limit != nullptr) {
      AddTo(c.limits, "cpu", *ParseDecimalQuantity(limit));
    }
    return w;
  }

  Cluster cluster_;
  WorkloadStore store_;
};

TEST_F(StoredWorkloadTest, UidAndLocalQueueAreTheSpecs) {
  WorkloadId with_uid = *store_.Add(Spec("a", "0b5d6c1e-1111-2222-3333-444455556666", nullptr));
  WorkloadId without = *store_.Add(Spec("b", "", nullptr));
  const Workload& a = store_.Get(with_uid);
  EXPECT_EQ(a.uid(), "0b5d6c1e-1111-2222-3333-444455556666");
  EXPECT_EQ(&a.uid(), &a.spec->uid) << "read from the spec, not a copy";
  EXPECT_EQ(a.local_queue(), "a-local-queue-named-past-the-short-string-buffer");
  EXPECT_EQ(&a.local_queue(), &a.spec->queue_name.str());
  // Kueue orders equal heads by uid; a Workload without one is ordered by its key.
  EXPECT_EQ(store_.Get(without).uid(), "ns/b");
  EXPECT_EQ(a.cluster_queue, *cluster_.FindClusterQueue("cq"));
  // A Workload built outside the store has no spec: empty names, not a null reference.
  Workload loose;
  EXPECT_EQ(loose.uid(), "");
  EXPECT_EQ(loose.local_queue(), "");
}

TEST_F(StoredWorkloadTest, ResourcesAboveLimitsAreFlaggedAndTheMessageMadeFromTheSpec) {
  const Workload& valid = store_.Get(*store_.Add(Spec("valid", "u1", "2")));
  const Workload& invalid = store_.Get(*store_.Add(Spec("invalid", "u2", "1")));
  EXPECT_FALSE(valid.invalid_resources);
  EXPECT_TRUE(invalid.invalid_resources);
  EXPECT_EQ(ValidateResources(*invalid.spec),
            "resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid "
            "value: [\"cpu\"]: requests must not exceed its limits");
}

// A caller that found the LocalQueue already (the replay checks it exists before adding) hands it
// over: the Workload is queued to the same ClusterQueue as when the store looks it up, and to none
// when that LocalQueue's ClusterQueue does not exist.
TEST_F(StoredWorkloadTest, AGivenLocalQueueResolvesAsTheStoresOwnLookup) {
  WorkloadSpec looked_up = Spec("looked-up", "", nullptr);
  WorkloadSpec given = Spec("given", "", nullptr);
  const LocalQueueSpec* lq = cluster_.FindLocalQueue(given.name_space, given.queue_name);
  ASSERT_NE(lq, nullptr);
  const WorkloadId a = *store_.AddSwapping(looked_up);
  const WorkloadId b = *store_.AddSwapping(given, lq);
  EXPECT_EQ(store_.Get(b).cluster_queue, store_.Get(a).cluster_queue);
  EXPECT_EQ(store_.Get(b).cluster_queue, *cluster_.FindClusterQueue("cq"));
  LocalQueueSpec dangling = *lq;
  dangling.cluster_queue = "no-such-cq";
  WorkloadSpec lost = Spec("lost", "", nullptr);
  const WorkloadId c = *store_.AddSwapping(lost, &dangling);
  EXPECT_FALSE(IsValid(store_.Get(c).cluster_queue));
  EXPECT_EQ(store_.ResolveQueue(dangling), std::nullopt);
  EXPECT_EQ(store_.ResolveQueue(*lq), store_.ResolveQueue(lq->name_space, lq->name));
}

// Cluster::ClusterQueueOf answers from a per-LocalQueue id kept through edits: a LocalQueue named
// before its ClusterQueue exists resolves once it is created, not while it is deleted, and follows
// an edit of the LocalQueue to another ClusterQueue; each answer is the name lookup's.
TEST_F(StoredWorkloadTest, LocalQueuesClusterQueueFollowsEditsAsTheNameLookupDoes) {
  auto by_name = [&](const LocalQueueSpec& lq) -> std::optional<CqId> {
    std::optional<CqId> cq = cluster_.FindClusterQueue(lq.cluster_queue);
    return cq && cluster_.Exists(*cq) ? cq : std::nullopt;
  };
  LocalQueueSpec early;
  early.name_space = "ns";
  early.name = "early";
  early.cluster_queue = "later";
  cluster_.UpsertLocalQueue(early);
  const LocalQueueSpec* lq = cluster_.FindLocalQueue("ns", "early");
  ASSERT_NE(lq, nullptr);
  EXPECT_EQ(cluster_.ClusterQueueOf(*lq), std::nullopt);

  ClusterQueueSpec later;
  later.name = "later";
  cluster_.UpsertClusterQueue(later);
  lq = cluster_.FindLocalQueue("ns", "early");
  ASSERT_TRUE(cluster_.ClusterQueueOf(*lq).has_value());
  EXPECT_EQ(cluster_.ClusterQueueOf(*lq), cluster_.FindClusterQueue("later"));
  EXPECT_EQ(store_.ResolveQueue(*lq), by_name(*lq));

  cluster_.DeleteClusterQueue("later");
  EXPECT_EQ(cluster_.ClusterQueueOf(*lq), std::nullopt);
  cluster_.UpsertClusterQueue(later);
  EXPECT_EQ(cluster_.ClusterQueueOf(*lq), cluster_.FindClusterQueue("later"));

  early.cluster_queue = "cq";
  cluster_.UpsertLocalQueue(early);
  lq = cluster_.FindLocalQueue("ns", "early");
  EXPECT_EQ(cluster_.ClusterQueueOf(*lq), cluster_.FindClusterQueue("cq"));
  early.cluster_queue = "never-created";
  cluster_.UpsertLocalQueue(early);
  lq = cluster_.FindLocalQueue("ns", "early");
  EXPECT_EQ(cluster_.ClusterQueueOf(*lq), std::nullopt);
  ClusterQueueSpec never;
  never.name = "never-created";
  cluster_.UpsertClusterQueue(never);
  EXPECT_EQ(cluster_.ClusterQueueOf(*lq), cluster_.FindClusterQueue("never-created"));
  for (const LocalQueueSpec& each : cluster_.local_queues()) {
    EXPECT_EQ(cluster_.ClusterQueueOf(each), by_name(each)) << each.name;
  }
}

// QueueManager skips the LocalQueue look-up of every push while no LocalQueue is stopped:
// Cluster::AnyLocalQueueStopped counts stop policies through edits of the same LocalQueue.
TEST_F(StoredWorkloadTest, AnyLocalQueueStoppedCountsStopPoliciesThroughEdits) {
  EXPECT_FALSE(cluster_.AnyLocalQueueStopped());
  LocalQueueSpec a;
  a.name_space = "ns";
  a.name = "a";
  a.cluster_queue = "cq";
  a.stop_policy = StopPolicy::kHold;
  cluster_.UpsertLocalQueue(a);
  EXPECT_TRUE(cluster_.AnyLocalQueueStopped());
  a.stop_policy = StopPolicy::kHoldAndDrain;  // still stopped: counted once
  cluster_.UpsertLocalQueue(a);
  LocalQueueSpec b = a;
  b.name = "b";
  cluster_.UpsertLocalQueue(b);
  a.stop_policy = StopPolicy::kNone;
  cluster_.UpsertLocalQueue(a);
  EXPECT_TRUE(cluster_.AnyLocalQueueStopped());  // b still is
  b.stop_policy = StopPolicy::kNone;
  cluster_.UpsertLocalQueue(b);
  EXPECT_FALSE(cluster_.AnyLocalQueueStopped());
}

// The flavor-scan state is allocated only for a Workload that was scanned, and an erased
// Workload's block lets it go: a later Workload in the same block (the store recycles blocks)
// starts unscanned and holds none of its 80 bytes.
TEST_F(StoredWorkloadTest, AScanStateIsNotCarriedIntoARecycledBlock) {
  WorkloadId first = *store_.Add(Spec("first", "u1", nullptr));
  EXPECT_FALSE(store_.Get(first).scan.allocated()) << "never scanned";
  FlavorScanState& scan = store_.Get(first).scan.Mutable();
  scan.valid = true;
  scan.last_tried = {{{ResourceId{}, 0}}};
  const WorkloadSpec* block = store_.Get(first).spec;
  store_.Erase(first);
  WorkloadId second = *store_.Add(Spec("second", "u2", nullptr));
  ASSERT_EQ(store_.Get(second).spec, block) << "the erased block is recycled";
  EXPECT_FALSE(store_.Get(second).scan.allocated());
  EXPECT_FALSE(store_.Get(second).scan->valid);
  EXPECT_FALSE(store_.Get(second).scan->HasPendingFlavors());
}

// The bytes per live Workload in docs/replay.md rest on these sizes (libstdc++ on x86-64, where
// the figures were measured): the store's block is one mimalloc size class (512 bytes since
// 2026-12-03: 896, then 768, then 640, then 512, then 384), the spec and the engine's view share
// it. A field added here moves a live Workload's cost: measure it and update the memory model,
// then this bound.
#if defined(__x86_64__) && defined(__GLIBCXX__)
TEST(StoredWorkloadSize, OneBlockWithinItsSizeClass) {
  EXPECT_LE(sizeof(StoredWorkload), 384u);
  EXPECT_LE(sizeof(WorkloadSpec), 208u);  // 320 until four names were interned (2026-12-03)
  EXPECT_LE(sizeof(Workload), 176u);  // 192 until the reservation lists were pooled (2026-12-03)
}
#endif

}  // namespace
}  // namespace engine
