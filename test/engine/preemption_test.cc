// Classical preemption (kueue-semantics.md §7.1-§7.5): candidates, ordering, the minimal target
// set with fill-back, reasons and the oracle the flavor assigner consults. Clusters are built with
// Cluster::Apply, reserved workloads through WorkloadStore::Add with status.admission, and the
// preemptor's assignment with AssignFlavors using the Preemptor as its oracle.
#include <gtest/gtest.h>

#include "test/engine/preemption_test_fixture.h"

namespace engine {
namespace {

TEST(PreemptionReasonTest, ToString) {
  EXPECT_STREQ(ToString(PreemptionReason::kInClusterQueue), "InClusterQueue");
  EXPECT_STREQ(ToString(PreemptionReason::kInCohortReclamation), "InCohortReclamation");
  EXPECT_STREQ(ToString(PreemptionReason::kInCohortReclaimWhileBorrowing),
               "InCohortReclaimWhileBorrowing");
}

// §7.3 worked example. Cohort <- A{N=10, reclaim=Any, within=LowerPriority}, B{N=10}. A runs
// a1(2, p0); B runs b1(8, p5), b2(6, p1), so B borrows 4. a2(6, p3) arrives: Available(A) = 4.
TEST(PreemptionTest, WorkedExampleReclaimsTheLowerPriorityBorrower) {
  World w;
  w.AddCq("A", "C", Cpu(10), Policy(P::kLowerPriority, P::kAny));
  w.AddCq("B", "C", Cpu(10));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  // b1 reserved more recently than b2: only priority puts b2 first.
  w.Admit("b1", "B", 8, 5, Opt().ReservedAt(200));
  w.Admit("b2", "B", 6, 1, Opt().ReservedAt(100));
  WorkloadId a2 = w.Pending("a2", "A", 6, 3);

  Assignment a = w.Assign(a2);
  ASSERT_EQ(a.Mode(), AssignmentMode::kPreempt);
  ASSERT_EQ(a.pod_sets[0].flavors.size(), 1u);
  EXPECT_EQ(a.pod_sets[0].flavors[0].granular, PreemptionMode::kReclaim);
  EXPECT_EQ(a.pod_sets[0].flavors[0].borrow, 0);

  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
  // Candidates b2, b1 (HierarchicalReclaim, lower priority first), then a1 (WithinCQ).
  EXPECT_EQ(w.Candidates(), (Names{"b2", "b1", "a1"}));

  OracleResult r = w.Oracle(a2, 6);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  EXPECT_EQ(r.borrow, 0);
}

// withinClusterQueue: LowerPriority needs a strictly lower priority; LowerOrNewerEqualPriority
// also takes an equal-priority candidate that queued strictly after the preemptor.
TEST(PreemptionTest, WithinClusterQueuePolicies) {
  struct Case {
    TimeMicros preemptor_created;
    int32_t candidate_priority;
    PreemptionPolicy within;
    bool preempts;
  };
  const Case cases[] = {
      {50, 3, P::kLowerPriority, false},               // equal priority: never
      {50, 2, P::kLowerPriority, true},                // lower priority
      {50, 3, P::kLowerOrNewerEqualPriority, true},    // preemptor queued strictly first
      {100, 3, P::kLowerOrNewerEqualPriority, false},  // same timestamp: not strictly before
      {200, 3, P::kLowerOrNewerEqualPriority, false},  // preemptor is the newer one
      {50, 4, P::kLowerOrNewerEqualPriority, false},   // higher priority: never
      {50, 2, P::kNever, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(ToString(c.within)) + " p=" + std::to_string(c.candidate_priority)
                 + " t=" + std::to_string(c.preemptor_created));
    World w;
    w.AddCq("A", "", Cpu(10), Policy(c.within));
    w.Build();
    w.Admit("a1", "A", 10, c.candidate_priority, Opt().Created(100));
    WorkloadId in = w.Pending("in", "A", 1, 3, c.preemptor_created);
    if (c.preempts) {
      EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue"}));
      EXPECT_EQ(w.Oracle(in, 1).mode, PreemptionMode::kPreempt);
    } else {
      EXPECT_EQ(w.Targets(in), Names{});
      EXPECT_EQ(w.Oracle(in, 1).mode, PreemptionMode::kNoCandidates);
    }
  }
}

// reclaimWithinCohort: Any reclaims a higher-priority borrower, LowerPriority does not.
TEST(PreemptionTest, ReclaimWithinCohortAnyVersusLowerPriority) {
  for (PreemptionPolicy reclaim : {P::kAny, P::kLowerPriority}) {
    SCOPED_TRACE(ToString(reclaim));
    World w;
    w.AddCq("A", "C", Cpu(10), Policy(P::kNever, reclaim));
    w.AddCq("B", "C", Cpu(10));
    w.Build();
    w.Admit("b1", "B", 16, 5);  // B borrows 6
    WorkloadId in = w.Pending("in", "A", 8, 1);
    if (reclaim == P::kAny) {
      EXPECT_EQ(w.Targets(in), (Names{"b1:InCohortReclamation"}));
      EXPECT_EQ(w.Oracle(in, 8).mode, PreemptionMode::kReclaim);
    } else {
      EXPECT_EQ(w.Targets(in), Names{});
      OracleResult r = w.Oracle(in, 8);
      EXPECT_EQ(r.mode, PreemptionMode::kNoCandidates);
      EXPECT_EQ(r.borrow, 0);  // 8 fits in A's nominal: level 0
    }
  }
}

// borrowWithinCohort LowerPriority: without hierarchical advantage, a lower-priority borrower may
// be reclaimed while the preemptor borrows, unless its priority is above maxPriorityThreshold
// (then only without borrowing, which cannot work here). C <- A{N=4}, B{N=2}; B runs b1(6, p1)
// and b2(6, p2); A asks 6 (it must borrow 2), so both victims are needed.
TEST(PreemptionTest, BorrowWithinCohortMaxPriorityThreshold) {
  for (std::optional<int32_t> threshold :
       {std::optional<int32_t>(1), std::optional<int32_t>(2), std::optional<int32_t>()}) {
    SCOPED_TRACE(threshold ? std::to_string(*threshold) : "unset");
    World w;
    w.AddCq("A", "C", Cpu(4), Policy(P::kNever, P::kLowerPriority, P::kLowerPriority, threshold));
    w.AddCq("B", "C", Cpu(2));
    w.Build();
    w.Admit("b1", "B", 6, 1);
    w.Admit("b2", "B", 6, 2);
    WorkloadId in = w.Pending("in", "A", 6, 10);
    if (threshold == 1) {
      // b2 (p2 > 1) is ReclaimWithoutBorrowing: skipped while borrowing; without borrowing A
      // cannot fit 6 in N=4.
      EXPECT_EQ(w.Targets(in), Names{});
      EXPECT_EQ(w.Oracle(in, 6).mode, PreemptionMode::kNoCandidates);
    } else {
      EXPECT_EQ(w.Targets(in),
                (Names{"b1:InCohortReclaimWhileBorrowing", "b2:InCohortReclaimWhileBorrowing"}));
      OracleResult r = w.Oracle(in, 6);
      EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
      EXPECT_EQ(r.borrow, 1);  // still borrowing from the cohort afterwards
    }
  }
}

// borrowWithinCohort never lets a borrowing preemptor take a candidate of its own or higher
// priority, even with reclaimWithinCohort=Any: b2 (p20) is ReclaimWithoutBorrowing.
TEST(PreemptionTest, BorrowWithinCohortSparesEqualOrHigherPriority) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kNever, P::kAny, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(2));
  w.Build();
  w.Admit("b1", "B", 6, 1);
  w.Admit("b2", "B", 6, 20);
  WorkloadId in = w.Pending("in", "A", 6, 10);
  EXPECT_EQ(w.Targets(in), Names{});
  EXPECT_EQ(w.Candidates(), (Names{"b1", "b2"}));
}

// Attempt list, default order [borrow, no-borrow]: the first attempt that fits wins.
// R <- P{A{N=4}, B{N=4}}, Q{C{N=4}}. A runs a1(2) and asks 4 more; 4 fits in P's quota, so c1
// (C borrows 4) is a hierarchical candidate. Borrowing allowed, reclaiming c1 suffices; the
// no-borrow attempt would have preempted a1 instead.
TEST(PreemptionTest, BorrowingAttemptComesFirstByDefault) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("P", "R");
  w.AddCohort("Q", "R");
  w.AddCq("A", "P", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "P", Cpu(4));
  w.AddCq("C", "Q", Cpu(4));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  w.Admit("c1", "C", 8, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), (Names{"c1:InCohortReclamation"}));
  EXPECT_EQ(w.Candidates(), (Names{"c1", "a1"}));
}

// Attempt list: borrowWithinCohort forbidden, the preemptor under nominal and no hierarchical
// candidate -> [no-borrow, borrow]. C <- A{N=4}, B{N=4}, D{N=2}; A runs a1(1, p0), a2(2, p1);
// B borrows with b1. A asks 3. Borrowing, removing a1 would do (A then borrows 1 from D's free
// quota); the no-borrow attempt runs first and must bring A within N=4: a2 goes, a1 and b1 are
// filled back.
TEST(PreemptionTest, NoBorrowAttemptFirstWhenOnlyPriorityCandidates) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(4));
  w.AddCq("D", "C", Cpu(2));
  w.Build();
  w.Admit("a1", "A", 1, 0);
  w.Admit("a2", "A", 2, 1);
  w.Admit("b1", "B", 5, 1);
  WorkloadId in = w.Pending("in", "A", 3, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a2:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"b1", "a1", "a2"}));
}

// Attempt list: borrowWithinCohort forbidden and the preemptor's CQ not strictly under nominal
// on the needed slot -> [borrow] only. Same cohort as above, but A uses all of N=4 with a1(1, p0)
// and a2(3, p1) and asks 2: a1 goes, and A borrows. (A no-borrow attempt would have taken a2.)
TEST(PreemptionTest, OnlyBorrowingAttemptWhenPreemptorAtNominal) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(4));
  w.AddCq("D", "C", Cpu(2));
  w.Build();
  w.Admit("a1", "A", 1, 0);
  w.Admit("a2", "A", 3, 1);
  w.Admit("b1", "B", 5, 1);
  WorkloadId in = w.Pending("in", "A", 2, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue"}));
}

// Attempt list: when borrowing fails, the no-borrow attempt runs. With maxPriorityThreshold=0,
// b1 (p1) is ReclaimWithoutBorrowing; A{N=4} runs a1(2) and asks 4: borrowing, a1 alone frees
// too little; without borrowing, b1 and a1 both go.
TEST(PreemptionTest, NoBorrowAttemptAfterBorrowingFails) {
  World w;
  w.AddCq("A", "C", Cpu(4),
          Policy(P::kLowerPriority, P::kLowerPriority, P::kLowerPriority, /*threshold=*/0));
  w.AddCq("B", "C", Cpu(10));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  w.Admit("b1", "B", 12, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue", "b1:InCohortReclamation"}));
}

// Fill-back: a1 is removed first (lowest priority) but turns out unnecessary once a2 is gone.
TEST(PreemptionTest, FillBackSparesAnUnnecessaryVictim) {
  World w;
  w.AddCq("A", "", Cpu(10), Policy(P::kLowerPriority));
  w.Build();
  w.Admit("a1", "A", 2, 1);
  w.Admit("a2", "A", 7, 2);
  WorkloadId in = w.Pending("in", "A", 6, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a2:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"a1", "a2"}));
  EXPECT_EQ(w.Oracle(in, 6).mode, PreemptionMode::kPreempt);
}

// Fill-back keeps a target whose re-admission would not fit, and the last one always.
TEST(PreemptionTest, FillBackKeepsNecessaryVictims) {
  World w;
  w.AddCq("A", "", Cpu(6), Policy(P::kLowerPriority));
  w.Build();
  w.Admit("low", "A", 2, -1);
  w.Admit("mid", "A", 2, 0);
  w.Admit("high", "A", 2, 1);
  WorkloadId in = w.Pending("in", "A", 3, 1);
  EXPECT_EQ(w.Targets(in), (Names{"low:InClusterQueue", "mid:InClusterQueue"}));
}

// Candidates must use a slot needing preemption through their admitted flavors: the preemptor
// is assigned flavor f1, so a lower-priority workload on f2 is no candidate.
TEST(PreemptionTest, CandidatesNotUsingTheNeededFlavorAreIgnored) {
  World w;
  w.AddFlavor("f1");
  w.AddFlavor("f2");
  w.AddCq("A", "", {{"f1", Cpu(4)}, {"f2", Cpu(4)}}, Policy(P::kLowerPriority));
  w.Build();
  w.Admit("on-f2", "A", 4, 1, Opt().Flavor("f2"));
  w.Admit("on-f1", "A", 4, 2, Opt().Flavor("f1"));
  WorkloadId in = w.Pending("in", "A", 4, 5);
  Assignment a = w.Assign(in);
  ASSERT_EQ(a.pod_sets[0].flavors.size(), 1u);
  EXPECT_EQ(w.cluster().Name(a.pod_sets[0].flavors[0].flavor), "f1");
  std::vector<PreemptionTarget> t = w.preemptor().GetTargets(w.Get(in), w.Cq("A"), a);
  EXPECT_EQ(w.Names(t), (Names{"on-f1:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"on-f1"}));
  // The oracle on f2 sees only the f2 workload.
  EXPECT_EQ(w.Oracle(in, 4, "f2").mode, PreemptionMode::kPreempt);
  EXPECT_EQ(w.Candidates(), (Names{"on-f2"}));
}

}  // namespace
}  // namespace engine
