// The candidate list a preemption search collected is reused by a later search of the same
// question (engine/preemption_candidates.h, CandidateCollector::Collect): same preemptor,
// ClusterQueue, needed slots, hierarchical-advantage step, tree state and evicting / excluded
// sets. Each test changes one of them and checks that the list is collected afresh and reflects
// the change, or keeps all of them and checks that it is reused. The last tests do the same for
// the whole answer, which a search takes from the one just before it when that one asked the
// same question of the same state (Preemptor::FindTargets).
#include <gtest/gtest.h>

#include "test/engine/preemption_test_fixture.h"

namespace engine {
namespace {

using internal::CandidateVariant;

// The worked example of preemption_test.cc: A (nominal 10, a1 holds 2) and B (nominal 10, b1 8
// and b2 6, borrowing 4) in cohort C.
class PreemptionListReuseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    w.AddCq("A", "C", Cpu(10), Policy(P::kLowerPriority, P::kAny));
    w.AddCq("B", "C", Cpu(10));
    w.Build();
    w.Admit("a1", "A", 2, 0);
    w.Admit("b1", "B", 8, 5, Opt().ReservedAt(200));
    w.Admit("b2", "B", 6, 1, Opt().ReservedAt(100));
    a2 = w.Pending("a2", "A", 6, 3);
  }
  uint64_t Reused() { return w.preemptor().stats().lists_reused; }
  uint64_t AnswersReused() { return w.preemptor().stats().answers_reused; }
  std::vector<CandidateVariant> Variants() {
    std::vector<CandidateVariant> out;
    for (const internal::Candidate& c : w.preemptor().last_candidates().ordered) {
      out.push_back(c.variant);
    }
    return out;
  }

  // The candidates of the last search named `name` (one, in these tests).
  std::vector<WorkloadId> CandidatesNamed(const std::string& name) {
    std::vector<WorkloadId> out;
    for (const internal::Candidate& c : w.preemptor().last_candidates().ordered) {
      if (w.Get(c.workload).spec->name == name) {
        out.push_back(c.workload);
      }
    }
    return out;
  }

  World w;
  WorkloadId a2{};
};

TEST_F(PreemptionListReuseTest, TheTargetComputationReusesTheOraclesList) {
  // AssignFlavors asks the oracle for 6 cpu of default; GetTargets then asks the same question.
  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
  EXPECT_EQ(w.preemptor().stats().searches, 2u);
  EXPECT_EQ(Reused(), 1u);
  EXPECT_EQ(w.Candidates(), (Names{"b2", "b1", "a1"}));
}

TEST_F(PreemptionListReuseTest, AChangeOfTheTreeIsANewQuestion) {
  w.Oracle(a2, 6);
  w.Admit("b3", "B", 1, 0);  // reserves quota: the tree's state version moves
  OracleResult r = w.Oracle(a2, 6);
  EXPECT_EQ(Reused(), 0u);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  // b3 is a candidate now, first among B's (lowest priority).
  EXPECT_EQ(w.Candidates(), (Names{"b3", "b2", "b1", "a1"}));
}

TEST_F(PreemptionListReuseTest, ADifferentAdvantageIsANewQuestion) {
  // 6 cpu fit in A's nominal quota (2 + 6 <= 10): B's workloads are reclaimed by hierarchy.
  w.Oracle(a2, 6);
  EXPECT_EQ(Variants(), (std::vector<CandidateVariant>{CandidateVariant::kHierarchicalReclaim,
                                                       CandidateVariant::kHierarchicalReclaim,
                                                       CandidateVariant::kWithinClusterQueue}));
  // 9 cpu do not (2 + 9 > 10, nor in the cohort: 16 + 9 > 20): same slot, another list.
  w.Oracle(a2, 9);
  EXPECT_EQ(Reused(), 0u);
  EXPECT_EQ(Variants(), (std::vector<CandidateVariant>{CandidateVariant::kReclaimWithoutBorrowing,
                                                       CandidateVariant::kReclaimWithoutBorrowing,
                                                       CandidateVariant::kWithinClusterQueue}));
  // 5 cpu fit again, at the same step as 6: the first list is still remembered.
  w.Oracle(a2, 5);
  EXPECT_EQ(Reused(), 1u);
  EXPECT_EQ(Variants()[0], CandidateVariant::kHierarchicalReclaim);
}

TEST_F(PreemptionListReuseTest, ExcludedAndEvictingSetsAreNewQuestions) {
  w.Oracle(a2, 6);
  const std::vector<WorkloadId> excluded = CandidatesNamed("b2");
  ASSERT_EQ(excluded.size(), 1u);
  w.preemptor().SetExcluded(excluded);
  w.Oracle(a2, 6);
  EXPECT_EQ(Reused(), 0u);
  EXPECT_EQ(w.Candidates(), (Names{"b1", "a1"}));

  // Marked evicting: ordered first, so the list must be collected again too.
  w.preemptor().SetExcluded({});
  const std::vector<WorkloadId> evicting = CandidatesNamed("a1");
  ASSERT_EQ(evicting.size(), 1u);
  w.preemptor().SetEvicting(evicting);
  w.Oracle(a2, 6);
  EXPECT_EQ(Reused(), 0u);
  EXPECT_EQ(w.Candidates(), (Names{"a1", "b2", "b1"}));
}

// The scheduler keeps one Preemptor across cycles (Preemptor::StartCycle): a new cycle must
// forget the lists, sets and counters of the last one, as a Preemptor constructed anew would.
TEST_F(PreemptionListReuseTest, ANewCycleForgetsTheLastCyclesListsSetsAndCounters) {
  // b3 has no QuotaReserved condition: the candidate order takes the current time for it (§7.2).
  // At kNow it is the most recently reserved of B's priority-1 workloads, so it comes first.
  w.Admit("b3", "B", 1, 1, Opt().ReservedAt(std::nullopt));
  w.Oracle(a2, 6);
  EXPECT_EQ(w.Candidates(), (Names{"b3", "b2", "b1", "a1"}));
  const std::vector<WorkloadId> excluded = CandidatesNamed("b1");
  ASSERT_EQ(excluded.size(), 1u);
  w.preemptor().SetExcluded(excluded);
  w.Oracle(a2, 6);
  EXPECT_EQ(w.Candidates(), (Names{"b3", "b2", "a1"}));
  EXPECT_EQ(w.preemptor().stats().searches, 2u);

  // The next cycle runs at an earlier clock than b2's reservation (100): b3 now sorts after b2.
  // The tree is unchanged, so only forgetting the cached list shows the new order; and b1 is a
  // candidate again, the exclusion being the last cycle's.
  w.preemptor().StartCycle(50);
  EXPECT_EQ(w.preemptor().stats().searches, 0u);
  EXPECT_TRUE(w.preemptor().last_candidates().ordered.empty());
  w.Oracle(a2, 6);
  EXPECT_EQ(Reused(), 0u);
  EXPECT_EQ(w.Candidates(), (Names{"b2", "b3", "b1", "a1"}));
  // Within the new cycle, the same question reuses its list again.
  w.Oracle(a2, 6);
  EXPECT_EQ(Reused(), 1u);
}

TEST_F(PreemptionListReuseTest, NothingIsReusedInsideAWhatIf) {
  w.Oracle(a2, 6);
  ResourceTree& tree = w.cluster().mutable_tree();
  {
    // A what-if removal does not move the state version, so a list is never taken inside one.
    ResourceTree::WhatIf what_if(tree);
    const Workload& a1 = w.Get(w.preemptor().last_candidates().ordered.back().workload);
    tree.RemoveUsage(w.cluster().ClusterQueueNode(w.Cq("A")), a1.usage);
    w.Oracle(a2, 6);
    EXPECT_EQ(Reused(), 0u);
    tree.AddUsage(w.cluster().ClusterQueueNode(w.Cq("A")), a1.usage);
  }
  w.Oracle(a2, 6);
  EXPECT_EQ(Reused(), 1u);  // the list collected before the what-if
}

TEST_F(PreemptionListReuseTest, TheTargetComputationTakesTheOraclesAnswer) {
  // One slot needs preemption: GetTargets asks exactly what the oracle asked just before.
  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
  EXPECT_EQ(AnswersReused(), 1u);
  // Counted as the search it repeats: two searches, both found targets, one list reused.
  EXPECT_EQ(w.preemptor().stats().searches, 2u);
  EXPECT_EQ(w.preemptor().stats().found, 2u);
  EXPECT_EQ(w.preemptor().stats().candidates, 6u);
  EXPECT_EQ(Reused(), 1u);
}

TEST_F(PreemptionListReuseTest, AnOracleAnswerIsTakenOnlyForTheSameQuestionOfTheSameState) {
  const OracleResult first = w.Oracle(a2, 6);
  const OracleResult again = w.Oracle(a2, 6);
  EXPECT_EQ(AnswersReused(), 1u);
  EXPECT_EQ(again.mode, first.mode);
  EXPECT_EQ(again.borrow, first.borrow);
  // Another amount is another question (the oracle asks per amount under partial admission).
  w.Oracle(a2, 5);
  EXPECT_EQ(AnswersReused(), 1u);
  // The state moved: b3 reserves 1 cpu of B, and becomes the first candidate.
  w.Admit("b3", "B", 1, 0);
  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
  EXPECT_EQ(w.Candidates(), (Names{"b3", "b2", "b1", "a1"}));
  // Targets ran the oracle (a new question: the state moved) and then took its answer.
  EXPECT_EQ(AnswersReused(), 2u);
}

TEST_F(PreemptionListReuseTest, ASearchInsideAWhatIfIsNeitherTakenNorKeptAsTheAnswer) {
  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
  ResourceTree& tree = w.cluster().mutable_tree();
  const Workload& b2 = w.Get(CandidatesNamed("b2").front());
  const NodeId b_node = w.cluster().ClusterQueueNode(w.Cq("B"));
  {
    // With b2's usage gone, B borrows nothing and 6 cpu fit for a2 in the cohort already: the
    // search inside finds no one to take (or another set), and its answer must not outlive it.
    ResourceTree::WhatIf what_if(tree);
    tree.RemoveUsage(b_node, b2.usage);
    w.Oracle(a2, 6);
    EXPECT_EQ(AnswersReused(), 1u);  // the answer from before the what-if is not taken inside
    tree.RestoreUsage(b_node, b2.usage);
  }
  // The same question as before the what-if, but the last search ran inside it: searched again.
  const OracleResult r = w.Oracle(a2, 6);
  EXPECT_EQ(AnswersReused(), 1u);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
}

TEST_F(PreemptionListReuseTest, ANewCycleOrSetIsANewQuestionForTheAnswerToo) {
  w.Oracle(a2, 6);
  const std::vector<WorkloadId> excluded = CandidatesNamed("b2");
  w.preemptor().SetExcluded(excluded);
  // Without b2, a2 takes b1 (8 cpu of B, borrowing 4 before it was removed).
  EXPECT_EQ(w.Targets(a2), (Names{"b1:InCohortReclamation"}));
  EXPECT_EQ(AnswersReused(), 1u);  // Targets' own search took its oracle's, not the first one's
  w.preemptor().StartCycle(kNow);
  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
  EXPECT_EQ(AnswersReused(), 1u);  // counters start over with the cycle
  w.preemptor().SetBoundCheck(PreemptionBoundCheck::kOff);
  w.Oracle(a2, 6);
  EXPECT_EQ(AnswersReused(), 1u);  // the bound's mode changed: searched again
}

TEST_F(PreemptionListReuseTest, AQuotaChangeIsANewQuestionForTheAnswer) {
  // Reservations unchanged, the tree's quota moved: B's nominal quota up to 20 puts B (14 cpu)
  // within its quota, so b1 and b2 can no longer be reclaimed and a2 preempts a1 in its own queue.
  EXPECT_EQ(w.Oracle(a2, 6).mode, PreemptionMode::kReclaim);
  ResourceTree& tree = w.cluster().mutable_tree();
  tree.SetQuota(w.cluster().ClusterQueueNode(w.Cq("B")), w.Slot("default"),
                SlotQuota{Quantity(20 * kMilli)});
  tree.Refresh();
  EXPECT_EQ(w.Oracle(a2, 6).mode, PreemptionMode::kPreempt);
  EXPECT_EQ(AnswersReused(), 0u);
}

}  // namespace
}  // namespace engine
