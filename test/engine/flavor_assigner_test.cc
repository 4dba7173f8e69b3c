// Flavor assignment (kueue-semantics.md §6, seed 003): modes, fungibility, preference, resumable
// scan, eligibility and Kueue's messages.
#include "engine/flavor_assigner.h"

#include <gtest/gtest.h>

#include "engine/cluster.h"

namespace engine {
namespace {

ResourceGroupSpec Group(std::vector<std::string> resources,
                        std::vector<std::pair<std::string, std::vector<int64_t>>> flavors) {
  ResourceGroupSpec g;
  g.covered_resources = resources;
  for (const auto& [name, nominals] : flavors) {
    FlavorQuotasSpec& f = g.flavors.emplace_back();
    f.flavor = name;
    for (size_t i = 0; i < resources.size(); ++i) {
      ResourceQuotaSpec q;
      q.resource = resources[i];
      q.nominal = Quantity(nominals[i]);
      f.resources.push_back(q);
    }
  }
  return g;
}

// Records what it was asked and answers with a fixed mode.
class FakeOracle : public PreemptionOracle {
 public:
  explicit FakeOracle(PreemptionMode mode, int borrow = 0) : mode_(mode), borrow_(borrow) {}
  OracleResult SimulatePreemption(const Workload&, CqId, FrSlot, Quantity amount) override {
    asked_.push_back(amount);
    return {mode_, borrow_};
  }
  std::vector<Quantity> asked_;

 private:
  PreemptionMode mode_;
  int borrow_;  // the borrowing level after the preemptions
};

class FlavorAssignerTest : public ::testing::Test {
 protected:
  void AddFlavor(const std::string& name) { spec_.flavors.emplace_back().name = name; }
  ClusterQueueSpec& AddCq(const std::string& name, const std::string& cohort,
                          std::vector<ResourceGroupSpec> groups) {
    ClusterQueueSpec& cq = spec_.cluster_queues.emplace_back();
    cq.name = name;
    cq.cohort = cohort;
    cq.resource_groups = std::move(groups);
    return cq;
  }
  void Build() { cluster_.Apply(spec_); }

  // A one-pod-set workload requesting `requests` (resource, canonical amount) for `count` pods.
  Workload MakeWorkload(std::vector<std::pair<std::string, int64_t>> per_pod, int32_t count = 1) {
    Workload w;
    w.key = "ns/w";
    PodSetRequest& ps = w.pod_sets.emplace_back();
    ps.name = "main";
    ps.count = count;
    ps.spec = &pod_set_spec_;
    std::sort(per_pod.begin(), per_pod.end());
    for (const auto& [r, v] : per_pod) {
      ResourceId id = cluster_.InternResource(r);
      ps.per_pod.push_back({id, Quantity(v)});
      ps.total.push_back({id, Quantity(v * count)});
    }
    return w;
  }

  Assignment Assign(const Workload& w, const std::string& cq, PreemptionOracle* oracle = nullptr,
                    const FlavorScanState* resume = nullptr) {
    AssignRequest req;
    req.workload = &w;
    req.cq = *cluster_.FindClusterQueue(cq);
    req.cluster = &cluster_;
    req.tree = &cluster_.tree();
    req.resume = resume;
    return AssignFlavors(req, oracle);
  }

  void Use(const std::string& cq, const std::string& flavor, const std::string& resource,
           int64_t amount) {
    cluster_.mutable_tree().AddUsage(cluster_.ClusterQueueNode(*cluster_.FindClusterQueue(cq)),
                                     *cluster_.FindSlot(flavor, resource), Quantity(amount));
  }

  std::string FlavorOf(const Assignment& a, const std::string& resource, size_t pod_set = 0) {
    for (const FlavorChoice& c : a.pod_sets[pod_set].flavors) {
      if (cluster_.Name(c.resource) == resource) {
        return cluster_.Name(c.flavor);
      }
    }
    return "";
  }

  ClusterSpec spec_;
  Cluster cluster_;
  PodSetSpec pod_set_spec_;
};

TEST_F(FlavorAssignerTest, FitsInFirstFlavorWithoutBorrowing) {
  AddFlavor("default");
  AddCq("a", "", {Group({"cpu", "memory"}, {{"default", {4000, 1024}}})});
  Build();
  Workload w = MakeWorkload({{"cpu", 1500}, {"memory", 512}}, 2);
  Assignment a = Assign(w, "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kFit);
  EXPECT_EQ(a.borrowing, 0);
  EXPECT_EQ(FlavorOf(a, "cpu"), "default");
  EXPECT_EQ(FlavorOf(a, "memory"), "default");
  EXPECT_EQ(a.Message(), "");
  ASSERT_EQ(a.usage.size(), 2u);
  EXPECT_EQ(a.usage[0].amount, Quantity(3000));
}

// The nomination memo hands its stored entries to the cycle by copy (engine/nomination_memo.h):
// a copy shares the pod sets instead of copying them, and an assignment made into one of two
// sharing copies (the cycle's entry, nominated afresh) leaves the other (the memo's) as it was.
TEST_F(FlavorAssignerTest, AssigningIntoASharedCopyLeavesTheOtherCopyAsItWas) {
  AddFlavor("small");
  AddFlavor("large");
  AddCq("a", "", {Group({"cpu"}, {{"small", {2000}}, {"large", {8000}}})});
  Build();
  const Workload fits_small = MakeWorkload({{"cpu", 1000}});
  const Workload needs_large = MakeWorkload({{"cpu", 1000}}, 4);
  const Assignment kept = Assign(fits_small, "a");
  ASSERT_EQ(FlavorOf(kept, "cpu"), "small");

  Assignment cycle = kept;
  EXPECT_TRUE(cycle.pod_sets.SharesWith(kept.pod_sets));
  EXPECT_TRUE(cycle.last_state.last_tried.SharesWith(kept.last_state.last_tried));
  const int kept_next = kept.last_state.NextFlavorIndex(0, *cluster_.FindResource("cpu"));

  AssignRequest req;
  req.workload = &needs_large;
  req.cq = *cluster_.FindClusterQueue("a");
  req.cluster = &cluster_;
  req.tree = &cluster_.tree();
  AssignFlavorsInto(req, nullptr, cycle);
  EXPECT_FALSE(cycle.pod_sets.SharesWith(kept.pod_sets));
  EXPECT_EQ(FlavorOf(cycle, "cpu"), "large");
  EXPECT_EQ(cycle.pod_sets[0].count, 4);
  EXPECT_FALSE(cycle.last_state.last_tried.SharesWith(kept.last_state.last_tried));
  // The kept copy still says what it said.
  EXPECT_EQ(FlavorOf(kept, "cpu"), "small");
  EXPECT_EQ(kept.last_state.NextFlavorIndex(0, *cluster_.FindResource("cpu")), kept_next);
  EXPECT_NE(cycle.last_state.NextFlavorIndex(0, *cluster_.FindResource("cpu")), kept_next);
  ASSERT_EQ(kept.pod_sets.size(), 1u);
  EXPECT_EQ(kept.pod_sets[0].count, 1);
  ASSERT_EQ(kept.pod_sets[0].requests.size(), 1u);
  EXPECT_EQ(kept.pod_sets[0].requests[0].amount, Quantity(1000));
}

TEST_F(FlavorAssignerTest, ExceedsMaxQuotaMessage) {
  AddFlavor("default");
  AddCq("a", "", {Group({"cpu"}, {{"default", {4000}}})});
  Build();
  Workload w = MakeWorkload({{"cpu", 5000}});
  Assignment a = Assign(w, "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kNoFit);
  EXPECT_EQ(a.Message(),
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor "
            "default, previously considered podsets requests (0) + current podset request (5) > "
            "maximum capacity (4)");
}

TEST_F(FlavorAssignerTest, WaitingForQuotaMessageSaysHowMuchMoreIsNeeded) {
  AddFlavor("default");
  AddCq("a", "", {Group({"cpu"}, {{"default", {4000}}})});
  Build();
  Use("a", "default", "cpu", 2000);
  Workload w = MakeWorkload({{"cpu", 4000}});
  // Without an oracle every preemption has no candidates: Preempt mode, message kept.
  Assignment a = Assign(w, "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kPreempt);
  EXPECT_EQ(a.Message(),
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
            "default, 2 more needed");
}

TEST_F(FlavorAssignerTest, ResourceNotCoveredIsNoFitButZeroRequestsAreIgnored) {
  AddFlavor("default");
  AddCq("a", "", {Group({"cpu"}, {{"default", {4000}}})});
  Build();
  Workload gpu = MakeWorkload({{"cpu", 1000}, {"nvidia.com/gpu", 1}});
  Assignment a = Assign(gpu, "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kNoFit);
  EXPECT_EQ(a.Message(),
            "couldn't assign flavors to pod set main: resource nvidia.com/gpu unavailable in "
            "ClusterQueue");
  Workload zero = MakeWorkload({{"cpu", 1000}, {"nvidia.com/gpu", 0}});
  EXPECT_EQ(Assign(zero, "a").Mode(), AssignmentMode::kFit);
}

TEST_F(FlavorAssignerTest, PodsResourceIsChargedOnePerPod) {
  AddFlavor("default");
  AddCq("a", "", {Group({"cpu", "pods"}, {{"default", {10000, 3}}})});
  Build();
  EXPECT_EQ(Assign(MakeWorkload({{"cpu", 1000}}, 3), "a").Mode(), AssignmentMode::kFit);
  Assignment a = Assign(MakeWorkload({{"cpu", 1000}}, 4), "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kNoFit);
  EXPECT_NE(a.Message().find("insufficient quota for pods in flavor default"), std::string::npos);
}

TEST_F(FlavorAssignerTest, OneFlavorForAllResourcesOfAGroup) {
  AddFlavor("small");
  AddFlavor("big");
  AddCq("a", "", {Group({"cpu", "memory"}, {{"small", {8000, 100}}, {"big", {8000, 1000}}})});
  Build();
  // cpu fits in "small" but memory does not: the whole group moves to "big".
  Assignment a = Assign(MakeWorkload({{"cpu", 1000}, {"memory", 500}}), "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(a, "cpu"), "big");
  EXPECT_EQ(FlavorOf(a, "memory"), "big");
}

TEST_F(FlavorAssignerTest, UntoleratedTaintAndAffinitySkipFlavors) {
  ResourceFlavorSpec& spot = spec_.flavors.emplace_back();
  spot.name = "spot";
  spot.node_taints.push_back({"instance", "spot", "NoSchedule"});
  ResourceFlavorSpec& arm = spec_.flavors.emplace_back();
  arm.name = "arm";
  arm.node_labels["kubernetes.io/arch"] = "arm64";
  AddFlavor("x86");
  spec_.flavors.back().node_labels["kubernetes.io/arch"] = "amd64";
  AddCq("a", "", {Group({"cpu"}, {{"spot", {4000}}, {"arm", {4000}}, {"x86", {4000}}})});
  Build();
  pod_set_spec_.node_selector["kubernetes.io/arch"] = "amd64";
  pod_set_spec_.node_selector["unrelated"] = "ignored";  // keys no flavor defines are dropped
  Assignment a = Assign(MakeWorkload({{"cpu", 1000}}), "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kFit);
  EXPECT_EQ(FlavorOf(a, "cpu"), "x86");
  ASSERT_EQ(a.pod_sets[0].attempts.size(), 3u);
  EXPECT_EQ(a.pod_sets[0].attempts[0].reasons[0],
            "untolerated taint {instance spot NoSchedule <nil>} in flavor spot");
  EXPECT_EQ(a.pod_sets[0].attempts[1].reasons[0], "flavor arm doesn't match node affinity");
  // A toleration opens the spot flavor.
  pod_set_spec_.tolerations.push_back({"instance", "Equal", "spot", "NoSchedule"});
  pod_set_spec_.node_selector.clear();
  EXPECT_EQ(FlavorOf(Assign(MakeWorkload({{"cpu", 1000}}), "a"), "cpu"), "spot");
}

TEST_F(FlavorAssignerTest, RequiredAffinityTermsAreReducedToFlavorKeys) {
  AddFlavor("a100");
  spec_.flavors.back().node_labels["gpu"] = "a100";
  AddFlavor("t4");
  spec_.flavors.back().node_labels["gpu"] = "t4";
  AddCq("a", "", {Group({"cpu"}, {{"a100", {4000}}, {"t4", {4000}}})});
  Build();
  NodeSelectorTerm term;
  term.match_expressions.push_back({"gpu", "In", {"t4"}});
  term.match_expressions.push_back({"zone", "In", {"z1"}});  // not a flavor key: dropped
  pod_set_spec_.required_affinity = {term};
  EXPECT_EQ(FlavorOf(Assign(MakeWorkload({{"cpu", 1000}}), "a"), "cpu"), "t4");
  // A term with only foreign keys becomes empty: the whole affinity is dropped.
  NodeSelectorTerm foreign;
  foreign.match_expressions.push_back({"zone", "In", {"z1"}});
  pod_set_spec_.required_affinity = {term, foreign};
  EXPECT_EQ(FlavorOf(Assign(MakeWorkload({{"cpu", 1000}}), "a"), "cpu"), "a100");
}

// The §6.5 example: f1 {N=4, 4 more borrowable in the cohort}, f2 {N=8, fully used by a
// lower-priority workload of the same CQ}; a 6-cpu request. f1 = fit level 1, f2 = preempt
// level 0.
class FungibilityTest : public FlavorAssignerTest {
 protected:
  void SetUpCluster(FungibilityPolicy borrow, FungibilityPolicy preempt,
                    FungibilityPreference preference) {
    AddFlavor("f1");
    AddFlavor("f2");
    ClusterQueueSpec& a = AddCq("a", "c", {Group({"cpu"}, {{"f1", {4000}}, {"f2", {8000}}})});
    a.flavor_fungibility = {borrow, preempt, preference, std::nullopt};
    a.preemption.within_cluster_queue = PreemptionPolicy::kLowerPriority;
    AddCq("b", "c", {Group({"cpu"}, {{"f1", {4000}}})});
    Build();
    Use("a", "f2", "cpu", 8000);
  }
  std::string Chosen() {
    FakeOracle oracle(PreemptionMode::kPreempt);
    Assignment a = Assign(MakeWorkload({{"cpu", 6000}}), "a", &oracle);
    return FlavorOf(a, "cpu");
  }
};

TEST_F(FungibilityTest, DefaultStopsAtTheFirstFlavorThatFitsByBorrowing) {
  SetUpCluster(FungibilityPolicy::kMayStopSearch, FungibilityPolicy::kTryNextFlavor,
               FungibilityPreference::kUnset);
  EXPECT_EQ(Chosen(), "f1");
}

TEST_F(FungibilityTest, TryNextOnBorrowStopsAtPreemptionWhenPreemptMayStop) {
  SetUpCluster(FungibilityPolicy::kTryNextFlavor, FungibilityPolicy::kMayStopSearch,
               FungibilityPreference::kUnset);
  EXPECT_EQ(Chosen(), "f2");
}

TEST_F(FungibilityTest, TryNextOnBothPicksByPreference) {
  SetUpCluster(FungibilityPolicy::kTryNextFlavor, FungibilityPolicy::kTryNextFlavor,
               FungibilityPreference::kUnset);
  EXPECT_EQ(Chosen(), "f1");  // BorrowingOverPreemption is the default
}

TEST_F(FungibilityTest, PreemptionOverBorrowingPrefersTheLocalPreemption) {
  SetUpCluster(FungibilityPolicy::kTryNextFlavor, FungibilityPolicy::kTryNextFlavor,
               FungibilityPreference::kPreemptionOverBorrowing);
  EXPECT_EQ(Chosen(), "f2");
}

TEST_F(FungibilityTest, MayStopOnBothStopsAtTheFirstUsableFlavor) {
  SetUpCluster(FungibilityPolicy::kMayStopSearch, FungibilityPolicy::kMayStopSearch,
               FungibilityPreference::kUnset);
  EXPECT_EQ(Chosen(), "f1");
}

// docs/kueue-vs-seeds.md, seed 003 "preempting while borrowing": f1 needs a preemption and still
// borrows after it, f2 fits within nominal. Seed 003's shouldTryNextFlavor stops at any Preempt
// when whenCanPreempt is Preempt (MayStopSearch), and its table has no row for Preempt+Borrow;
// Kueue's (flavorassigner.go: shouldTryNextFlavor) goes on while the mode borrows and
// whenCanBorrow is TryNextFlavor.
class PreemptWhileBorrowingTest : public FlavorAssignerTest {
 protected:
  std::string Chosen(FungibilityPolicy when_can_borrow) {
    AddFlavor("f1");
    AddFlavor("f2");
    ClusterQueueSpec& a = AddCq("a", "c", {Group({"cpu"}, {{"f1", {4000}}, {"f2", {8000}}})});
    a.flavor_fungibility = {when_can_borrow, FungibilityPolicy::kMayStopSearch,
                            FungibilityPreference::kUnset, std::nullopt};
    a.preemption.reclaim_within_cohort = PreemptionPolicy::kLowerPriority;
    a.preemption.borrow_within_cohort = PreemptionPolicy::kLowerPriority;
    AddCq("b", "c", {Group({"cpu"}, {{"f1", {4000}}})});
    Build();
    Use("a", "f1", "cpu", 4000);
    FakeOracle oracle(PreemptionMode::kPreempt, /*borrow=*/1);
    Assignment assignment = Assign(MakeWorkload({{"cpu", 6000}}), "a", &oracle);
    return FlavorOf(assignment, "cpu");
  }
};

TEST_F(PreemptWhileBorrowingTest, TryNextOnBorrowGoesOnPastAPreemptionThatBorrows) {
  EXPECT_EQ(Chosen(FungibilityPolicy::kTryNextFlavor), "f2");  // the seed's text: f1
}

TEST_F(PreemptWhileBorrowingTest, MayStopOnBothStopsAtThePreemptionThatBorrows) {
  EXPECT_EQ(Chosen(FungibilityPolicy::kMayStopSearch), "f1");  // seed and Kueue agree
}

TEST(FungibilityTableTest, ShouldTryNextFlavorMatchesTheDecisionTable) {
  using P = FungibilityPolicy;
  auto decide = [](PreemptionMode m, int borrow, P when_borrow, P when_preempt) {
    FlavorFungibilitySpec f{when_borrow, when_preempt, FungibilityPreference::kUnset, std::nullopt};
    return ShouldTryNextFlavor({m, borrow}, f) ? "continue" : "stop";
  };
  const P stop = P::kMayStopSearch;
  const P next = P::kTryNextFlavor;
  // Rows of the §6.5 table, columns (MayStop,TryNext) (TryNext,TryNext) (MayStop,MayStop)
  // (TryNext,MayStop).
  struct Row {
    PreemptionMode mode;
    int borrow;
    const char* expected[4];
  };
  const Row rows[] = {
      {PreemptionMode::kFit, 0, {"stop", "stop", "stop", "stop"}},
      {PreemptionMode::kFit, 1, {"stop", "continue", "stop", "continue"}},
      {PreemptionMode::kPreempt, 0, {"continue", "continue", "stop", "stop"}},
      {PreemptionMode::kReclaim, 2, {"continue", "continue", "stop", "continue"}},
      // Preempt while borrowing: seed 003's code stops in the last column, Kueue goes on.
      {PreemptionMode::kPreempt, 1, {"continue", "continue", "stop", "continue"}},
      {PreemptionMode::kNoCandidates, 0, {"continue", "continue", "continue", "continue"}},
      {PreemptionMode::kNoFit, 0, {"continue", "continue", "continue", "continue"}},
  };
  for (const Row& r : rows) {
    EXPECT_STREQ(decide(r.mode, r.borrow, stop, next), r.expected[0]);
    EXPECT_STREQ(decide(r.mode, r.borrow, next, next), r.expected[1]);
    EXPECT_STREQ(decide(r.mode, r.borrow, stop, stop), r.expected[2]);
    EXPECT_STREQ(decide(r.mode, r.borrow, next, stop), r.expected[3]);
  }
}

TEST(FungibilityTableTest, IsPreferredRanksNoCandidatesBelowViableModes) {
  FlavorFungibilitySpec f;
  EXPECT_TRUE(IsPreferred({PreemptionMode::kPreempt, 3}, {PreemptionMode::kNoCandidates, 0}, f));
  EXPECT_FALSE(IsPreferred({PreemptionMode::kNoFit, 0}, {PreemptionMode::kNoCandidates, 5}, f));
  EXPECT_TRUE(IsPreferred({PreemptionMode::kNoCandidates, 5}, {PreemptionMode::kNoFit, 0}, f));
  EXPECT_TRUE(IsPreferred({PreemptionMode::kReclaim, 0}, {PreemptionMode::kPreempt, 0}, f));
  f.preference = FungibilityPreference::kPreemptionOverBorrowing;
  EXPECT_TRUE(IsPreferred({PreemptionMode::kPreempt, 0}, {PreemptionMode::kFit, 1}, f));
}

// §6.6 example: flavors [f1, f2, f3]; f1 noFit, f2 fits -> idx 1; the next scan resumes at f3.
TEST_F(FlavorAssignerTest, ResumableScanStartsAfterTheLastTriedFlavor) {
  AddFlavor("f1");
  AddFlavor("f2");
  AddFlavor("f3");
  ClusterQueueSpec& cq =
      AddCq("a", "", {Group({"cpu"}, {{"f1", {1000}}, {"f2", {4000}}, {"f3", {4000}}})});
  cq.flavor_fungibility.when_can_borrow = FungibilityPolicy::kMayStopSearch;
  Build();
  Workload w = MakeWorkload({{"cpu", 2000}});
  Assignment first = Assign(w, "a");
  EXPECT_EQ(FlavorOf(first, "cpu"), "f2");
  ASSERT_EQ(first.last_state.last_tried.size(), 1u);
  EXPECT_EQ(first.last_state.last_tried[0][0].second, 1);
  EXPECT_TRUE(first.last_state.HasPendingFlavors());
  // Resuming: f3 is used even though f2 still has room.
  Assignment second = Assign(w, "a", nullptr, &first.last_state);
  EXPECT_EQ(FlavorOf(second, "cpu"), "f3");
  EXPECT_EQ(second.last_state.last_tried[0][0].second, -1);  // reached the last flavor
  EXPECT_FALSE(second.last_state.HasPendingFlavors());
  // After a wrap the scan starts from the first flavor again.
  Assignment third = Assign(w, "a", nullptr, &second.last_state);
  EXPECT_EQ(FlavorOf(third, "cpu"), "f2");
  // Nothing fits from the resume point: no flavor, nothing recorded (next scan starts at f1).
  Use("a", "f3", "cpu", 4000);
  Assignment none = Assign(w, "a", nullptr, &first.last_state);
  EXPECT_EQ(none.Mode(), AssignmentMode::kPreempt);  // f3 is "preempt" without candidates
}

TEST_F(FlavorAssignerTest, LaterPodSetsSeeEarlierPodSetsUsage) {
  AddFlavor("default");
  AddCq("a", "", {Group({"cpu"}, {{"default", {4000}}})});
  Build();
  Workload w = MakeWorkload({{"cpu", 3000}});
  PodSetRequest worker = w.pod_sets[0];
  worker.name = "worker";
  w.pod_sets.push_back(worker);
  Assignment a = Assign(w, "a");
  EXPECT_EQ(a.Mode(), AssignmentMode::kNoFit);
  EXPECT_EQ(a.Message(),
            "couldn't assign flavors to pod set worker: insufficient quota for cpu in flavor "
            "default, previously considered podsets requests (3) + current podset request (3) > "
            "maximum capacity (4)");
}

TEST_F(FlavorAssignerTest, OracleIsAskedOnlyWhenPreemptionCouldHelp) {
  AddFlavor("default");
  AddCq("a", "c", {Group({"cpu"}, {{"default", {2000}}})});
  AddCq("b", "c", {Group({"cpu"}, {{"default", {2000}}})});
  Build();
  Use("b", "default", "cpu", 3000);  // b borrows 1 from a
  FakeOracle oracle(PreemptionMode::kReclaim);
  // Within a's nominal: reclaim is possible, the oracle decides.
  Assignment a = Assign(MakeWorkload({{"cpu", 2000}}), "a", &oracle);
  EXPECT_EQ(oracle.asked_.size(), 1u);
  EXPECT_EQ(a.pod_sets[0].flavors[0].granular, PreemptionMode::kReclaim);
}

}  // namespace
}  // namespace engine
