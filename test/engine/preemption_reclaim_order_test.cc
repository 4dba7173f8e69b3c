// Classical preemption, continued: reclaiming from lenders and across cohort levels, candidate
// validity, ordering and the policy test (helpers in preemption_test_fixture.h).
#include <gtest/gtest.h>

#include "test/engine/preemption_test_fixture.h"

namespace engine {
namespace {

// Lending limits (Kueue's preemption_test "reclaim quota from lender"): lend1{N=6, LL=4},
// lend2{N=6, LL=2}; only lend2-mid is reclaimable (lend2-high has the preemptor's priority).
TEST(PreemptionTest, ReclaimQuotaFromLender) {
  World w;
  w.AddCq("lend1", "cohort-lend", Cpu(6, std::nullopt, 4),
          Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("lend2", "cohort-lend", Cpu(6, std::nullopt, 2),
          Policy(P::kLowerPriority, P::kLowerPriority));
  w.Build();
  w.Admit("lend1-low", "lend1", 3, -1);
  w.Admit("lend2-mid", "lend2", 3, 0);
  w.Admit("lend2-high", "lend2", 4, 1);
  WorkloadId in = w.Pending("in", "lend1", 3, 1);
  EXPECT_EQ(w.Targets(in), (Names{"lend2-mid:InCohortReclamation"}));
  EXPECT_EQ(w.Candidates(), (Names{"lend2-mid", "lend1-low"}));
}

// Lending limits cap what reclaiming can free (Kueue's lending-limit preemption case):
// lend1{N=5, LL=2}, lend2{N=3, LL=1}; lend2 borrows with lend2-low(5, p0). lend1 asks 7 with
// borrowWithinCohort: with the lending limits the cohort offers lend1 at most 3 + 3 = 6, so
// even reclaiming everything cannot fit 7; without lending limits (S(cohort) = 8) it can.
TEST(PreemptionTest, LendingLimitsBoundWhatReclaimFrees) {
  for (bool limits : {true, false}) {
    SCOPED_TRACE(limits ? "with lending limits" : "without");
    World w;
    w.AddCq("lend1", "cohort-lend", limits ? Cpu(5, std::nullopt, 2) : Cpu(5),
            Policy(P::kLowerPriority, P::kLowerPriority, P::kLowerPriority));
    w.AddCq("lend2", "cohort-lend", limits ? Cpu(3, std::nullopt, 1) : Cpu(3),
            Policy(P::kLowerPriority, P::kLowerPriority));
    w.Build();
    w.Admit("lend2-low", "lend2", 5, 0);
    WorkloadId in = w.Pending("in", "lend1", 7, 5);
    // With lending limits the O(depth) bound already proves the search hopeless; the full search
    // (bound off) must agree, and collects lend2-low as its only candidate either way.
    OracleResult r = w.Oracle(in, 7);
    EXPECT_EQ(w.preemptor().stats().rejected_by_bound, limits ? 1U : 0U);
    w.preemptor().SetBoundCheck(PreemptionBoundCheck::kOff);
    OracleResult full = w.Oracle(in, 7);
    EXPECT_EQ(w.Candidates(), (Names{"lend2-low"}));
    EXPECT_EQ(full.mode, r.mode);
    EXPECT_EQ(full.borrow, r.borrow);
    if (limits) {
      EXPECT_EQ(r.mode, PreemptionMode::kNoCandidates);
    } else {
      EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
      EXPECT_EQ(r.borrow, 1);
    }
  }
}

// Three levels: R <- P1{A, B}, P2{C, D}, P3{E, F}, all CQs N=4. C borrows 8 (P2 above its quota,
// D within its own); E borrows 2 from its sibling F (E above nominal, but P3 within quota). From
// A, reclaiming searches only P2's subtree and there only C: d1 and e1 are no candidates
// although they are as low and newer.
TEST(PreemptionTest, ThreeLevelsSearchOnlySubtreesAboveQuota) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("P1", "R");
  w.AddCohort("P2", "R");
  w.AddCohort("P3", "R");
  w.AddCq("A", "P1", Cpu(4), Policy(P::kNever, P::kAny));
  w.AddCq("B", "P1", Cpu(4));
  w.AddCq("C", "P2", Cpu(4));
  w.AddCq("D", "P2", Cpu(4));
  w.AddCq("E", "P3", Cpu(4));
  w.AddCq("F", "P3", Cpu(4));
  w.Build();
  w.Admit("c1", "C", 12, 0, Opt().ReservedAt(100));
  w.Admit("d1", "D", 2, 0, Opt().ReservedAt(300));  // D is within its quota: not searched
  w.Admit("e1", "E", 6, 0, Opt().ReservedAt(200));
  WorkloadId in = w.Pending("in", "A", 6, 5);
  // A asks 6 > N=4, but 6 fits in P1's quota: hierarchical advantage at R's level.
  EXPECT_EQ(w.Targets(in), (Names{"c1:InCohortReclamation"}));
  EXPECT_EQ(w.Candidates(), (Names{"c1"}));
  OracleResult r = w.Oracle(in, 6);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  EXPECT_EQ(r.borrow, 1);  // fits within P1 (height 1)
}

// The preemptor's non-lendable quota counts towards hierarchical advantage: R <- P{A{N=4, LL=2},
// B{N=4}}, Q{C{N=4}, D{N=4}}. A asks 6: 2 come from its local quota, the remaining 4 fit in
// P's quota (S(P) = 2 + 4 = 6, B uses 2), so c1 in Q is reclaimable by hierarchy even though A
// borrows. Without the advantage c1 would be ReclaimWithoutBorrowing, out of reach for a
// borrowing preemptor.
TEST(PreemptionTest, LocalQuotaCountsTowardsHierarchicalAdvantage) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("P", "R");
  w.AddCohort("Q", "R");
  w.AddCq("A", "P", Cpu(4, std::nullopt, 2), Policy(P::kNever, P::kAny));
  w.AddCq("B", "P", Cpu(4));
  w.AddCq("C", "Q", Cpu(4));
  w.AddCq("D", "Q", Cpu(4));
  w.Build();
  w.Admit("b0", "B", 2, 9);
  w.Admit("c1", "C", 10, 0);
  WorkloadId in = w.Pending("in", "A", 6, 5);
  EXPECT_EQ(w.Targets(in), (Names{"c1:InCohortReclamation"}));
  OracleResult r = w.Oracle(in, 6);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  EXPECT_EQ(r.borrow, 1);
}

// Validity also re-checks the candidate's ancestors below the LCA: R <- A{N=6}, Q{C{N=2},
// D{N=6}}, E{N=2}. C borrows inside Q with c1(3) and c2(3); d1, e1 and a0 are out of reach
// (priority 9). After c1 is removed C is still above its quota but Q no longer is, so c2 is not
// reclaimable, and c1 alone frees too little (E's borrowing still weighs on R).
TEST(PreemptionTest, CandidateInvalidatedWhenAnAncestorFallsWithinQuota) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("Q", "R");
  w.AddCq("A", "R", Cpu(6), Policy(P::kNever, P::kLowerPriority));
  w.AddCq("C", "Q", Cpu(2));
  w.AddCq("D", "Q", Cpu(6));
  w.AddCq("E", "R", Cpu(2));
  w.Build();
  w.Admit("a0", "A", 4, 9);
  w.Admit("c1", "C", 3, 0);
  w.Admit("c2", "C", 3, 1);
  w.Admit("d1", "D", 4, 9);
  w.Admit("e1", "E", 4, 9);
  WorkloadId in = w.Pending("in", "A", 2, 5);
  EXPECT_EQ(w.Targets(in), Names{});
  EXPECT_EQ(w.Candidates(), (Names{"c1", "c2"}));
}

// A candidate becomes invalid when earlier removals bring its CQ back within quota (§7.3).
// C <- A{N=10}, B{N=4}, D{N=4}. D borrows 2 with d1, which A may not reclaim (higher priority);
// B borrows 2 with b1(3) and b2(3). Once b1 is gone B is within quota, so b2 cannot be
// reclaimed, and b1 alone frees too little: no targets (removing b2 too would have fitted).
TEST(PreemptionTest, CandidateInvalidatedBySimulatedRemovals) {
  World w;
  w.AddCq("A", "C", Cpu(10), Policy(P::kNever, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(4));
  w.AddCq("D", "C", Cpu(4));
  w.Build();
  w.Admit("a0", "A", 6, 9);
  w.Admit("d1", "D", 6, 9);
  w.Admit("b1", "B", 3, 0);
  w.Admit("b2", "B", 3, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), Names{});
  EXPECT_EQ(w.Candidates(), (Names{"b1", "b2"}));
}

// Attempt list: borrowWithinCohort forbidden, the preemptor under nominal and only priority
// (non-hierarchical) candidates -> [no-borrow, borrow]. b1 is ReclaimWithoutBorrowing: valid only
// in the no-borrow attempt, where A must also give up a1 to stay within N=4.
TEST(PreemptionTest, NoBorrowAttemptReclaimsWithoutBorrowingCandidates) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(10));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  w.Admit("b1", "B", 12, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue", "b1:InCohortReclamation"}));
  OracleResult r = w.Oracle(in, 4);
  EXPECT_EQ(r.mode, PreemptionMode::kPreempt);
  EXPECT_EQ(r.borrow, 0);
}

// CandidatesOrdering: evicting first; other CQs before the own CQ; lower priority first; more
// recent reservation first (missing = now); uid.
TEST(PreemptionTest, CandidatesOrdering) {
  World w;
  w.AddCq("self", "C", Cpu(10), Policy(P::kLowerPriority, P::kAny));
  w.AddCq("other", "C", Cpu(1));
  w.Build();
  w.Admit("high", "self", 1, 10, Opt().ReservedAt(100));
  WorkloadId ev = w.Admit("ev", "self", 1, 10, Opt().ReservedAt(100));
  w.Admit("old", "self", 1, 0, Opt().ReservedAt(50).Uid("z-old"));
  w.Admit("tie", "self", 1, 0, Opt().ReservedAt(50).Uid("a-tie"));
  w.Admit("current", "self", 1, 0, Opt().ReservedAt(150));
  w.Admit("nocond", "self", 1, 0, Opt().ReservedAt(std::nullopt));
  w.Admit("low", "self", 1, -10, Opt().ReservedAt(100));
  w.Admit("other-wl", "other", 2, 10, Opt().ReservedAt(100));
  WorkloadId in = w.Pending("in", "self", 10, 100);
  std::vector<WorkloadId> evicting = {ev};
  w.preemptor().SetEvicting(evicting);
  w.Targets(in);
  EXPECT_EQ(w.Candidates(),
            (Names{"ev", "other-wl", "low", "nocond", "current", "tie", "old", "high"}));
}

// Equal priority and reservation time: the smaller uid goes first, whatever the insertion order
// or the name.
TEST(PreemptionTest, OrderingTiesBrokenByUid) {
  World w;
  w.AddCq("A", "", Cpu(2), Policy(P::kLowerPriority));
  w.Build();
  w.Admit("x", "A", 1, 0, Opt().Uid("uid-b"));
  w.Admit("y", "A", 1, 0, Opt().Uid("uid-a"));
  WorkloadId in = w.Pending("in", "A", 1, 5);
  EXPECT_EQ(w.Targets(in), (Names{"y:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"y", "x"}));
}

// Inactive ClusterQueues are absent from Kueue's snapshot: their workloads are no candidates,
// though their usage still counts.
TEST(PreemptionTest, InactiveClusterQueueWorkloadsAreNoCandidates) {
  for (bool stopped : {false, true}) {
    SCOPED_TRACE(stopped ? "stopped" : "active");
    World w;
    w.AddCq("A", "C", Cpu(10), Policy(P::kNever, P::kAny));
    w.AddCq("B", "C", Cpu(10));
    if (stopped) {
      w.CqSpec("B").stop_policy = StopPolicy::kHold;
    }
    w.Build();
    w.Admit("b1", "B", 16, 0);
    WorkloadId in = w.Pending("in", "A", 8, 5);
    EXPECT_EQ(w.Targets(in), stopped ? Names{} : (Names{"b1:InCohortReclamation"}));
  }
}

// Simulations edit the tree in place: afterwards every node's usage (and generation) is exactly
// what it was, after the assigner's oracle calls, GetTargets and direct oracle calls, whether
// targets were found or not.
TEST(PreemptionTest, TreeRestoredExactly) {
  World w;
  w.AddFlavor("f1");
  w.AddFlavor("f2");
  w.AddCohort("R", "");
  w.AddCohort("P1", "R");
  w.AddCohort("P2", "R");
  w.AddCq("A", "P1", {{"f1", Cpu(4, 2, 1)}, {"f2", Cpu(4, std::nullopt, 2)}},
          Policy(P::kLowerPriority, P::kAny, P::kLowerPriority));
  w.AddCq("B", "P1", {{"f1", Cpu(4, std::nullopt, 3)}, {"f2", Cpu(4)}});
  w.AddCq("C", "P2", {{"f1", Cpu(6)}, {"f2", Cpu(2, std::nullopt, 1)}});
  w.Build();
  w.Admit("a1", "A", 3, 0, Opt().Flavor("f1"));
  w.Admit("a2", "A", 2, 1, Opt().Flavor("f2"));
  w.Admit("b1", "B", 6, 0, Opt().Flavor("f1"));
  w.Admit("b2", "B", 3, 2, Opt().Flavor("f2"));
  w.Admit("c1", "C", 5, 0, Opt().Flavor("f2"));
  w.Admit("c2", "C", 8, 1, Opt().Flavor("f1"));
  WorkloadId in = w.Pending("in", "A", 5, 3);

  const ResourceTree& tree = w.cluster().tree();
  auto state = [&] {
    std::vector<int64_t> s;
    for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
      NodeId node = MakeId<NodeId>(n);
      s.push_back(static_cast<int64_t>(tree.Generation(node)));
      for (uint32_t i = 0; i < tree.num_slots(); ++i) {
        s.push_back(tree.Usage(node, MakeId<FrSlot>(i)).value());
      }
    }
    return s;
  };
  const std::vector<int64_t> before = state();
  Assignment a = w.Assign(in);
  EXPECT_EQ(state(), before);
  std::vector<PreemptionTarget> targets = w.preemptor().GetTargets(w.Get(in), w.Cq("A"), a);
  EXPECT_FALSE(targets.empty());
  EXPECT_EQ(state(), before);
  for (const char* flavor : {"f1", "f2"}) {
    for (int64_t cores : {1, 5, 9, 40}) {
      w.Oracle(in, cores, flavor);
      EXPECT_EQ(state(), before) << flavor << " " << cores;
    }
  }
}

// The comparator alone (§7.2 CandidatesOrdering), key by key.
TEST(PreemptionOrderingTest, CandidateBefore) {
  using internal::Candidate;
  using internal::CandidateBefore;
  const WorkloadUid uid_a = "a";
  const WorkloadUid uid_b = "b";
  Candidate base;
  base.uid = &uid_b;
  base.priority = 5;
  base.reserved_at = 100;
  base.own_cq = true;
  auto with = [&](auto f) {
    Candidate c = base;
    f(c);
    c.SetOrderKey();  // as the collector does once the fields are set
    return c;
  };
  // Extremes of each packed field must not spill into the next one.
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) {
                                c.own_cq = false;
                                c.priority = INT32_MAX;
                              }),
                              with([](Candidate& c) {
                                c.own_cq = true;
                                c.priority = INT32_MIN;
                              })));
  EXPECT_FALSE(CandidateBefore(with([](Candidate& c) {
                                 c.priority = INT32_MAX;
                                 c.own_cq = false;
                               }),
                               with([](Candidate& c) {
                                 c.own_cq = false;
                                 c.priority = INT32_MIN;
                               })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) {
                                c.priority = -1;
                                c.reserved_at = 0;
                              }),
                              with([](Candidate& c) {
                                c.priority = 0;
                                c.reserved_at = INT64_MAX;
                              })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.reserved_at = INT64_MAX; }),
                              with([](Candidate& c) { c.reserved_at = -1; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.evicting = true; }),
                              with([](Candidate& c) { c.priority = -100; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.own_cq = false; }),
                              with([](Candidate& c) { c.priority = -100; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.priority = 4; }),
                              with([](Candidate& c) { c.reserved_at = 900; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.reserved_at = 101; }),
                              with([&](Candidate& c) { c.uid = &uid_a; })));
  EXPECT_TRUE(CandidateBefore(with([&](Candidate& c) { c.uid = &uid_a; }),
                              with([](Candidate& c) { c.workload = MakeId<WorkloadId>(0); })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) {
                                c.evicting = true;
                                c.own_cq = true;
                              }),
                              with([](Candidate& c) {
                                c.own_cq = false;
                                c.priority = INT32_MIN;
                              })));
  Candidate first = with([](Candidate& c) { c.workload = MakeId<WorkloadId>(1); });
  Candidate second = with([](Candidate& c) { c.workload = MakeId<WorkloadId>(2); });
  EXPECT_TRUE(CandidateBefore(first, second));
  EXPECT_FALSE(CandidateBefore(second, first));
  EXPECT_FALSE(CandidateBefore(first, first));
}

TEST(PreemptionPolicyTest, SatisfiesPreemptionPolicy) {
  using internal::SatisfiesPreemptionPolicy;
  EXPECT_FALSE(SatisfiesPreemptionPolicy(P::kNever, 5, 0, 1, 10));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kAny, 1, 10, 5, 0));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kLowerPriority, 5, 10, 4, 0));
  EXPECT_FALSE(SatisfiesPreemptionPolicy(P::kLowerPriority, 5, 0, 5, 10));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kLowerOrNewerEqualPriority, 5, 0, 5, 10));
  EXPECT_FALSE(SatisfiesPreemptionPolicy(P::kLowerOrNewerEqualPriority, 5, 10, 5, 10));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kLowerOrNewerEqualPriority, 5, 20, 4, 10));
}

}  // namespace
}  // namespace engine
