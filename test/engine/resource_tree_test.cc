// The quota tree on the worked examples of kueue-semantics.md §4.4 and the two user stories of
// KEP-79 (seed 004). The random comparison against a from-scratch oracle is in
// resource_tree_property_test.cc.
#include "engine/resource_tree.h"

#include <gtest/gtest.h>

#include "engine/cluster.h"

namespace engine {
namespace {

constexpr FrSlot kSlot = MakeId<FrSlot>(0);

Quantity Q(int64_t v) {
  return Quantity(v);
}

class TreeBuilder {
 public:
  TreeBuilder() : tree_(1) {}
  NodeId Cohort(NodeId parent = kInvalidId<NodeId>, SlotQuota quota = {}) {
    return Add(NodeKind::kCohort, parent, quota);
  }
  NodeId Cq(NodeId parent, SlotQuota quota) { return Add(NodeKind::kClusterQueue, parent, quota); }
  ResourceTree& Build() {
    tree_.Refresh();
    return tree_;
  }

 private:
  NodeId Add(NodeKind kind, NodeId parent, SlotQuota quota) {
    NodeId n = tree_.AddNode(kind);
    tree_.SetParent(n, parent);
    tree_.SetQuota(n, kSlot, quota);
    return n;
  }
  ResourceTree tree_;
};

// §4.4 "Lending limit": Cohort C (no quota) <- CQ a {N=10, LL=4}, CQ b {N=0}.
// Issue 23, finding 21 (test/robustness/21-...yaml: one Cohort, no flavor or resource): a tree
// without slots is refreshed without touching a slot row (UBSan, which CI runs, flagged a
// reference bound to the empty slot array's null data).
TEST(ResourceTreeTest, ATreeWithoutSlotsRefreshes) {
  ResourceTree tree(0);
  NodeId cohort = tree.AddNode(NodeKind::kCohort);
  NodeId cq = tree.AddNode(NodeKind::kClusterQueue);
  tree.SetParent(cq, cohort);
  tree.Refresh();
  EXPECT_EQ(tree.Parent(cq), cohort);
  EXPECT_FALSE(tree.InCycle(cq));
}

// Issue 23, findings 05 and 18 (test/robustness/05-..., 18-...): a cohort chain 100,000 deep and
// a parent cycle of 100,000 cohorts, every node dirty, refresh in one linear pass (each dirty node
// walked to its root, and each cycle member marking the whole component again, took N^2 steps:
// minutes at this size). Checked: the heights along the chain, the cycle and the chain hanging
// below it marked, and a later edit that breaks the cycle clearing the marks.
TEST(ResourceTreeTest, RefreshIsLinearOnDeepChainsAndLongCycles) {
  constexpr int kN = 100'000;
  ResourceTree tree(0);
  std::vector<NodeId> chain;
  std::vector<NodeId> cycle;
  for (int i = 0; i < kN; ++i) {
    chain.push_back(tree.AddNode(NodeKind::kCohort));
    cycle.push_back(tree.AddNode(NodeKind::kCohort));
  }
  NodeId cq = tree.AddNode(NodeKind::kClusterQueue);
  for (int i = 1; i < kN; ++i) {
    tree.SetParent(chain[i], chain[i - 1]);
  }
  tree.SetParent(cq, chain[kN - 1]);
  for (int i = 0; i < kN; ++i) {
    tree.SetParent(cycle[i], cycle[(i + 1) % kN]);
  }
  NodeId tail = tree.AddNode(NodeKind::kCohort);  // hangs below the cycle
  tree.SetParent(tail, cycle[7]);
  tree.Refresh();
  EXPECT_FALSE(tree.InCycle(cq));
  EXPECT_EQ(tree.Height(chain[kN - 1]), 1);
  EXPECT_EQ(tree.Height(chain[0]), kN);
  EXPECT_TRUE(tree.InCycle(cycle[0]));
  EXPECT_TRUE(tree.InCycle(cycle[kN - 1]));
  EXPECT_TRUE(tree.InCycle(tail));
  tree.SetParent(cycle[0], kInvalidId<NodeId>);  // cycle[0] becomes the root of a chain
  tree.Refresh();
  EXPECT_FALSE(tree.InCycle(cycle[0]));
  EXPECT_FALSE(tree.InCycle(cycle[kN - 1]));
  EXPECT_FALSE(tree.InCycle(tail));
  EXPECT_EQ(tree.Height(cycle[0]), kN);
}

TEST(ResourceTreeTest, LendingLimitWorkedExample) {
  TreeBuilder b;
  NodeId c = b.Cohort();
  NodeId a = b.Cq(c, {Q(10), kUnlimited, Q(4)});
  NodeId bq = b.Cq(c, {Q(0)});
  ResourceTree& t = b.Build();
  EXPECT_EQ(t.LocalQuota(a, kSlot), Q(6));
  EXPECT_EQ(t.SubtreeQuota(c, kSlot), Q(4));
  // b asking 5 exceeds what it could ever get: potentialAvailable(b) = 0 + 4.
  EXPECT_EQ(t.PotentialAvailable(bq, kSlot), Q(4));
  EXPECT_FALSE(t.FitsOnPath(bq, kSlot, Q(5)));
  // a using 8: 6 stay local, 2 spill into the cohort.
  t.AddUsage(a, kSlot, Q(8));
  EXPECT_EQ(t.Usage(c, kSlot), Q(2));
  EXPECT_EQ(t.Available(bq, kSlot), Q(2));
  EXPECT_EQ(t.Available(a, kSlot), Q(2));
  // T(a) = 2, T(C) = min(4, 2) + 0 = 2 = S(C) - U(C).
  EXPECT_EQ(t.Balance(a, kSlot), Q(2));
  EXPECT_EQ(t.Balance(c, kSlot), Q(2));
  // Removing a's usage frees the cohort again.
  t.RemoveUsage(a, kSlot, Q(8));
  EXPECT_EQ(t.Usage(c, kSlot), Q(0));
  EXPECT_EQ(t.Available(bq, kSlot), Q(4));
}

// §4.4 "Borrowing limit in the middle": R(N=0) <- {P(N=0, BL=2) <- x(N=4)}, y(N=10).
TEST(ResourceTreeTest, BorrowingLimitInTheMiddleWorkedExample) {
  TreeBuilder b;
  NodeId r = b.Cohort();
  NodeId p = b.Cohort(r, {Q(0), Q(2)});
  NodeId x = b.Cq(p, {Q(4)});
  NodeId y = b.Cq(r, {Q(10)});
  ResourceTree& t = b.Build();
  EXPECT_EQ(t.SubtreeQuota(p, kSlot), Q(4));
  EXPECT_EQ(t.SubtreeQuota(r, kSlot), Q(14));
  EXPECT_EQ(t.Available(x, kSlot), Q(6));
  EXPECT_EQ(t.PotentialAvailable(x, kSlot), Q(6));
  EXPECT_TRUE(t.FitsOnPath(x, kSlot, Q(6)));
  EXPECT_FALSE(t.FitsOnPath(x, kSlot, Q(7)));  // a 7-cpu request is NoFit
  EXPECT_EQ(t.Available(y, kSlot), Q(14));
  EXPECT_EQ(t.Height(p), 1);
  EXPECT_EQ(t.Height(r), 2);
}

// §6.3: the borrowing level is the subtree height of the lowest ancestor that fits.
TEST(ResourceTreeTest, BorrowingLevelIsSubtreeHeight) {
  TreeBuilder b;
  NodeId root = b.Cohort(kInvalidId<NodeId>, {Q(100)});
  NodeId mid = b.Cohort(root, {Q(0)});
  NodeId x = b.Cq(mid, {Q(4)});
  NodeId y = b.Cq(mid, {Q(6)});
  ResourceTree& t = b.Build();
  (void)y;
  EXPECT_EQ(t.FindBorrowingLevel(x, kSlot, Q(4)).level, 0);  // within nominal
  EXPECT_TRUE(t.FindBorrowingLevel(x, kSlot, Q(4)).may_reclaim);
  EXPECT_EQ(t.FindBorrowingLevel(x, kSlot, Q(8)).level, 1);  // fits in mid (S=10)
  EXPECT_TRUE(t.FindBorrowingLevel(x, kSlot, Q(8)).may_reclaim);
  BorrowingLevel top = t.FindBorrowingLevel(x, kSlot, Q(50));  // only the root has room
  EXPECT_EQ(top.level, 2);
  EXPECT_FALSE(top.may_reclaim);
  EXPECT_TRUE(t.WouldBorrow(x, kSlot, Q(5)));
  EXPECT_FALSE(t.WouldBorrow(x, kSlot, Q(4)));
}

// Seed 004, story 1: production may borrow research quota, research may not borrow at all.
TEST(ResourceTreeTest, SeedStoryResearchAndProductionOrgs) {
  TreeBuilder b;
  NodeId company = b.Cohort();
  NodeId research = b.Cohort(company, {Q(0), Q(0)});  // borrowingLimit 0
  NodeId production = b.Cohort(company, {Q(0)});
  NodeId r1 = b.Cq(research, {Q(10)});
  NodeId r2 = b.Cq(research, {Q(10)});
  NodeId p1 = b.Cq(production, {Q(10)});
  ResourceTree& t = b.Build();
  // Research teams share inside their org (20) but cannot reach production's quota.
  EXPECT_EQ(t.Available(r1, kSlot), Q(20));
  EXPECT_FALSE(t.FitsOnPath(r1, kSlot, Q(21)));
  // Production can borrow all of research's idle quota.
  EXPECT_EQ(t.Available(p1, kSlot), Q(30));
  EXPECT_TRUE(t.FitsOnPath(p1, kSlot, Q(30)));
  t.AddUsage(p1, kSlot, Q(25));
  EXPECT_EQ(t.Balance(production, kSlot), Q(-15));
  EXPECT_EQ(t.Balance(research, kSlot), Q(20));
  EXPECT_EQ(t.Balance(company, kSlot), Q(5));
  // Research can still use what production has not taken.
  EXPECT_EQ(t.Available(r2, kSlot), Q(5));
  // The alternative of the story: production lends nothing (lendingLimit 0) — research gets 0
  // from it even without a borrowing limit of its own.
  TreeBuilder b2;
  NodeId company2 = b2.Cohort();
  NodeId research2 = b2.Cohort(company2, {Q(0)});
  NodeId production2 = b2.Cohort(company2, {Q(0), kUnlimited, Q(0)});
  NodeId r = b2.Cq(research2, {Q(10)});
  NodeId p = b2.Cq(production2, {Q(10)});
  ResourceTree& t2 = b2.Build();
  EXPECT_EQ(t2.Available(r, kSlot), Q(10));
  EXPECT_EQ(t2.Available(p, kSlot), Q(20));
}

// Seed 004, story 2: orgs do not borrow from each other; a special low-priority queue at the top
// borrows unused capacity from any of them.
TEST(ResourceTreeTest, SeedStorySpecialQueueBorrowsFromAllOrgs) {
  TreeBuilder b;
  NodeId top = b.Cohort();
  NodeId org_a = b.Cohort(top, {Q(0), Q(0)});
  NodeId org_b = b.Cohort(top, {Q(0), Q(0)});
  NodeId a1 = b.Cq(org_a, {Q(8)});
  NodeId b1 = b.Cq(org_b, {Q(12)});
  NodeId special = b.Cq(top, {Q(0)});  // borrowingLimit infinite
  ResourceTree& t = b.Build();
  EXPECT_EQ(t.Available(a1, kSlot), Q(8));
  EXPECT_EQ(t.Available(b1, kSlot), Q(12));
  EXPECT_EQ(t.Available(special, kSlot), Q(20));
  t.AddUsage(special, kSlot, Q(15));
  EXPECT_EQ(t.Available(a1, kSlot), Q(5));
  EXPECT_EQ(t.Available(b1, kSlot), Q(5));
  EXPECT_TRUE(t.FitsOnPath(special, kSlot, Q(5)));
  EXPECT_FALSE(t.FitsOnPath(special, kSlot, Q(6)));
  EXPECT_FALSE(t.FitsOnPath(a1, kSlot, Q(9)));  // org a never borrows from org b
}

TEST(ResourceTreeTest, UnlimitedQuotaAbsorbsEverything) {
  TreeBuilder b;
  NodeId c = b.Cohort();
  NodeId big = b.Cq(c, {kUnlimited});
  NodeId small = b.Cq(c, {Q(1)});
  ResourceTree& t = b.Build();
  EXPECT_TRUE(t.SubtreeQuota(c, kSlot).IsUnlimited());
  EXPECT_TRUE(t.Available(small, kSlot).IsUnlimited());
  t.AddUsage(big, kSlot, Q(1'000'000));
  EXPECT_TRUE(t.Available(small, kSlot).IsUnlimited());
}

TEST(ResourceTreeTest, RefreshRecomputesOnlyTouchedTreesAndBumpsGenerations) {
  TreeBuilder b;
  NodeId c1 = b.Cohort();
  NodeId a = b.Cq(c1, {Q(10)});
  NodeId c2 = b.Cohort();
  NodeId x = b.Cq(c2, {Q(10)});
  ResourceTree& t = b.Build();
  t.AddUsage(a, kSlot, Q(12));  // borrows 2... but c1 has only a: stays over quota
  uint64_t gen_a = t.Generation(a);
  uint64_t gen_c1 = t.Generation(c1);
  uint64_t gen_x = t.Generation(x);
  t.SetQuota(a, kSlot, {Q(20)});
  t.Refresh();
  EXPECT_GT(t.Generation(a), gen_a);
  EXPECT_GT(t.Generation(c1), gen_c1);
  EXPECT_EQ(t.Generation(x), gen_x);  // the other tree is untouched
  EXPECT_EQ(t.Usage(c1, kSlot), Q(12));
  EXPECT_EQ(t.Available(a, kSlot), Q(8));
  // Removing usage bumps the CQ and the cohorts where usage went down.
  uint64_t before_cq = t.Generation(a);
  uint64_t before_cohort = t.Generation(c1);
  t.RemoveUsage(a, kSlot, Q(2));
  EXPECT_GT(t.Generation(a), before_cq);
  EXPECT_GT(t.Generation(c1), before_cohort);
}

TEST(ResourceTreeTest, ReparentingMovesUsageBetweenTrees) {
  TreeBuilder b;
  NodeId c1 = b.Cohort();
  NodeId c2 = b.Cohort();
  NodeId a = b.Cq(c1, {Q(10)});
  NodeId other = b.Cq(c2, {Q(5)});
  ResourceTree& t = b.Build();
  t.AddUsage(a, kSlot, Q(7));
  EXPECT_EQ(t.Usage(c1, kSlot), Q(7));
  t.SetParent(a, c2);
  t.Refresh();
  EXPECT_EQ(t.Usage(c1, kSlot), Q(0));
  EXPECT_EQ(t.SubtreeQuota(c1, kSlot), Q(0));
  EXPECT_EQ(t.Usage(c2, kSlot), Q(7));
  EXPECT_EQ(t.Available(other, kSlot), Q(8));
}

TEST(ResourceTreeTest, CycleFreezesTheTreeAndBreakingItRestoresIt) {
  TreeBuilder b;
  NodeId p = b.Cohort();
  NodeId q = b.Cohort(p);
  NodeId a = b.Cq(q, {Q(10)});
  NodeId outside = b.Cq(kInvalidId<NodeId>, {Q(3)});
  ResourceTree& t = b.Build();
  t.AddUsage(a, kSlot, Q(4));
  t.SetParent(p, q);  // p -> q -> p
  t.Refresh();
  EXPECT_TRUE(t.InCycle(p));
  EXPECT_TRUE(t.InCycle(q));
  EXPECT_TRUE(t.InCycle(a));
  EXPECT_FALSE(t.InCycle(outside));
  EXPECT_EQ(t.Usage(a, kSlot), Q(4));  // admitted usage is kept
  t.RemoveUsage(a, kSlot, Q(1));       // a workload finishing inside the frozen tree
  EXPECT_EQ(t.Usage(a, kSlot), Q(3));
  t.SetParent(p, kInvalidId<NodeId>);
  t.Refresh();
  EXPECT_FALSE(t.InCycle(p));
  EXPECT_FALSE(t.InCycle(a));
  EXPECT_EQ(t.Usage(q, kSlot), Q(3));  // rebuilt from a: no lending limit, so all of it counts
  EXPECT_EQ(t.Usage(a, kSlot), Q(3));
  EXPECT_EQ(t.Available(a, kSlot), Q(7));
  EXPECT_EQ(t.Root(a), p);
}

TEST(ResourceTreeTest, ClusterBuildsImplicitCohortsAndInactiveQueues) {
  auto group = [](const char* flavor, int64_t millis) {
    ResourceQuotaSpec quota;
    quota.resource = "cpu";
    quota.nominal = Q(millis);
    ResourceGroupSpec g;
    g.covered_resources = {"cpu"};
    g.flavors.push_back(FlavorQuotasSpec{flavor, {quota}});
    return g;
  };
  ClusterSpec spec;
  spec.flavors.emplace_back().name = "default";
  ClusterQueueSpec cq;
  cq.name = "team-a";
  cq.cohort = "org";  // no Cohort object: implicit root
  cq.resource_groups.push_back(group("default", 4000));
  spec.cluster_queues.push_back(cq);
  ClusterQueueSpec missing = cq;
  missing.name = "team-b";
  missing.resource_groups = {group("spot", 2000)};
  spec.cluster_queues.push_back(missing);
  Cluster cluster;
  cluster.Apply(spec);
  CohortId org = *cluster.FindCohort("org");
  EXPECT_TRUE(cluster.IsImplicit(org));
  EXPECT_TRUE(cluster.Exists(org));
  CqId a = *cluster.FindClusterQueue("team-a");
  CqId b2 = *cluster.FindClusterQueue("team-b");
  EXPECT_EQ(cluster.Inactive(a), InactiveReason::kNone);
  EXPECT_EQ(cluster.Inactive(b2), InactiveReason::kFlavorNotFound);
  // The inactive CQ's quota still counts in its cohort (§2.2).
  FrSlot default_cpu = *cluster.FindSlot("default", "cpu");
  FrSlot spot_cpu = *cluster.FindSlot("spot", "cpu");
  EXPECT_EQ(cluster.tree().SubtreeQuota(cluster.CohortNode(org), default_cpu), Q(4000));
  EXPECT_EQ(cluster.tree().SubtreeQuota(cluster.CohortNode(org), spot_cpu), Q(2000));
  // Deleting a cohort object that still has children keeps it as an implicit cohort.
  CohortSpec explicit_org;
  explicit_org.name = "org";
  explicit_org.resource_groups.push_back(group("default", 1000));
  cluster.UpsertCohort(explicit_org);
  cluster.Refresh();
  EXPECT_FALSE(cluster.IsImplicit(org));
  EXPECT_EQ(cluster.tree().SubtreeQuota(cluster.CohortNode(org), default_cpu), Q(5000));
  cluster.DeleteCohort("org");
  cluster.Refresh();
  EXPECT_TRUE(cluster.IsImplicit(org));
  EXPECT_TRUE(cluster.Exists(org));
  EXPECT_EQ(cluster.tree().SubtreeQuota(cluster.CohortNode(org), default_cpu), Q(4000));
}

}  // namespace
}  // namespace engine
