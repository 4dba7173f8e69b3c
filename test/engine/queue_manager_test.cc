// The queue manager against kueue-semantics.md §5.1 (heap order), §5.2 (heads, requeue,
// inadmissible-requeue), §9.1 (backoff) and §9.6 (scheduling equivalence hashing), plus a
// randomized comparison of the heap against a sorted reference.
#include <gtest/gtest.h>

#include "test/engine/queue_manager_test_fixture.h"

namespace engine {
namespace {

TEST_F(QueueManagerTest, HigherPriorityFirst) {
  Cq("cq");
  Build();
  Push("low-old", "cq", O().Prio(1).At(1));
  Push("high-new", "cq", O().Prio(5).At(9));
  EXPECT_EQ(Active("cq"), (V{"high-new", "low-old"}));
  EXPECT_EQ(Names(queues_->PopHeads(1)), V{"high-new"});
}

TEST_F(QueueManagerTest, EarlierQueueOrderTimeFirstAtEqualPriority) {
  Cq("cq");
  Build();
  Push("new", "cq", O().At(9).Uid("a"));
  Push("old", "cq", O().At(1).Uid("z"));
  EXPECT_EQ(Active("cq"), (V{"old", "new"}));
  EXPECT_EQ(Names(queues_->PopHeads(1)), V{"old"});
}

TEST_F(QueueManagerTest, QueueOrderTimeNotCreationTimeIsTheKey) {
  Cq("cq");
  Build();
  WorkloadId evicted = Add("evicted", "cq", O().At(1));
  WorkloadId fresh = Add("fresh", "cq", O().At(5));
  store_->Get(evicted).queue_order_time = 10;  // e.g. Evicted=True, PodsReadyTimeout at t=10
  queues_->Push(evicted, kNow);
  queues_->Push(fresh, kNow);
  EXPECT_EQ(Active("cq"), (V{"fresh", "evicted"}));
}

TEST_F(QueueManagerTest, SmallerUidBreaksTies) {
  Cq("cq");
  Build();
  Push("first-pushed", "cq", O().Uid("uid-b"));
  Push("second-pushed", "cq", O().Uid("uid-a"));
  EXPECT_EQ(Active("cq"), (V{"second-pushed", "first-pushed"}));
  EXPECT_EQ(Names(queues_->PopHeads(1)), V{"second-pushed"});
}

TEST_F(QueueManagerTest, QueueOrderLessFreeFunction) {
  Cq("cq");
  Build();
  const Workload& hi = store_->Get(Add("hi", "cq", O().Prio(2).At(5).Uid("z")));
  const Workload& lo = store_->Get(Add("lo", "cq", O().Prio(1).At(1).Uid("a")));
  const Workload& lo_late = store_->Get(Add("lo-late", "cq", O().Prio(1).At(2)));
  const Workload& lo_b = store_->Get(Add("lo-b", "cq", O().Prio(1).At(1).Uid("b")));
  EXPECT_TRUE(QueueOrderLess(hi, lo));
  EXPECT_FALSE(QueueOrderLess(lo, hi));
  EXPECT_TRUE(QueueOrderLess(lo, lo_late));
  EXPECT_TRUE(QueueOrderLess(lo, lo_b));
  EXPECT_FALSE(QueueOrderLess(lo, lo));
}

TEST_F(QueueManagerTest, StickyPreemptorFirstInBestEffortFifo) {
  Cq("cq");
  Build();
  Push("high", "cq", O().Prio(9));
  WorkloadId low = Push("low", "cq", O().Prio(1));
  queues_->SetPreemptor(Id("cq"), low);
  EXPECT_EQ(Active("cq"), (V{"low", "high"}));
  EXPECT_EQ(Names(queues_->PopHeads(1)), V{"low"});
}

TEST_F(QueueManagerTest, PreemptorIsNotStickyInStrictFifo) {
  Cq("cq", "", kStrict);
  Build();
  Push("high", "cq", O().Prio(9));
  WorkloadId low = Push("low", "cq", O().Prio(1));
  queues_->SetPreemptor(Id("cq"), low);
  EXPECT_EQ(queues_->Preemptor(Id("cq")), low);
  EXPECT_EQ(Active("cq"), (V{"high", "low"}));
}

TEST_F(QueueManagerTest, PendingPreemptionRequeueMakesStickyAndOtherReasonClears) {
  Cq("cq");
  Build();
  WorkloadId p = Push("preemptor", "cq", O().Prio(5));
  PopOne("cq");
  Push("higher", "cq", O().Prio(9));
  queues_->Requeue(p, R::kPendingPreemption, kNow, cycle_);
  EXPECT_EQ(queues_->Preemptor(Id("cq")), p);
  EXPECT_EQ(Active("cq"), (V{"preemptor", "higher"}));
  // Next cycle it is the head again; this time it fails after nomination: no longer preemptor.
  EXPECT_EQ(PopOne("cq"), p);
  queues_->Requeue(p, R::kFailedAfterNomination, kNow, cycle_);
  EXPECT_EQ(queues_->Preemptor(Id("cq")), std::nullopt);
  EXPECT_EQ(Active("cq"), (V{"higher", "preemptor"}));
}

TEST_F(QueueManagerTest, NewPreemptorReplacesOldAndRemoveClears) {
  Cq("cq");
  Build();
  Push("high", "cq", O().Prio(9));
  WorkloadId a = Push("a", "cq", O().Prio(1).At(1));
  WorkloadId b = Push("b", "cq", O().Prio(1).At(2));
  queues_->SetPreemptor(Id("cq"), a);
  EXPECT_EQ(Active("cq"), (V{"a", "high", "b"}));
  queues_->SetPreemptor(Id("cq"), b);
  EXPECT_EQ(Active("cq"), (V{"b", "high", "a"}));
  EXPECT_EQ(Names(queues_->PopHeads(1)), V{"b"});
  queues_->Remove(b);
  EXPECT_EQ(queues_->Preemptor(Id("cq")), std::nullopt);
  queues_->Push(b, kNow);
  EXPECT_EQ(Active("cq"), (V{"high", "a", "b"}));
}

// --- §5.2 heads ----------------------------------------------------------------------------

TEST_F(QueueManagerTest, PopHeadsOneHeadPerCqInNameOrder) {
  Cq("zeta");
  Cq("alpha");
  Cq("mid");
  Cq("empty");
  Build();
  Push("z1", "zeta");
  Push("z2", "zeta");
  Push("a1", "alpha");
  Push("m1", "mid");
  EXPECT_EQ(Names(queues_->PopHeads(7)), (V{"a1", "m1", "z1"}));
  EXPECT_EQ(queues_->LastPopCycle(Id("zeta")), 7);
  EXPECT_EQ(queues_->LastPopCycle(Id("empty")), -1);
  EXPECT_EQ(queues_->PendingCount(Id("zeta")), 2u);  // one in flight, one in the heap
  EXPECT_EQ(Names(queues_->PopHeads(8)), V{"z2"});
  EXPECT_FALSE(queues_->HasActive());
  EXPECT_TRUE(queues_->PopHeads(9).empty());
}

// A popped head is left where it was in its heap until something touches that ClusterQueue
// (engine/queue_manager.h, Settle): whatever comes between the pop and the requeue, the queue
// must read as if the pop had erased it at once.
TEST_F(QueueManagerTest, APoppedHeadIsOutOfItsQueueUntilRequeued) {
  Cq("cq");
  Cq("other");
  Build();
  WorkloadId a1 = Push("a1", "cq", O().At(10));  // alone with its scheduling hash
  Push("a2", "cq", O().At(20).Cpu("2"));         // another hash
  Push("o1", "other", O().At(10));
  EXPECT_EQ(PopOne("cq"), a1);
  EXPECT_EQ(queues_->Location(a1), L::kInflight);
  EXPECT_EQ(Active("cq"), V{"a2"});
  EXPECT_EQ(queues_->PendingCount(Id("cq")), 2u);
  EXPECT_EQ(queues_->ActiveCount(), 1u);  // a2; o1 is in flight too
  // Pushed while the head is out, with the head's hash (the two make a group once both are
  // queued): earlier, so it goes first.
  Push("a0", "cq", O().At(5));
  EXPECT_EQ(Active("cq"), (V{"a0", "a2"}));
  queues_->Requeue(a1, R::kFailedAfterNomination, kNow, cycle_);  // immediate
  EXPECT_EQ(queues_->Location(a1), L::kActive);
  EXPECT_EQ(Active("cq"), (V{"a0", "a1", "a2"}));
  EXPECT_EQ(Names(queues_->PopHeads(++cycle_)), V{"a0"});  // o1 is still in flight
}

TEST_F(QueueManagerTest, AHeadRequeuedUntouchedIsTheHeadAgain) {
  Cq("cq");
  Build();
  WorkloadId a = Push("a", "cq", O().At(1));
  Push("b", "cq", O().At(2).Cpu("2"));  // another hash: a group of its own
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(PopOne("cq"), a);
    EXPECT_EQ(queues_->ActiveCount(), 1u);
    queues_->Requeue(a, R::kFailedAfterNomination, kNow, cycle_);  // immediate
    EXPECT_EQ(queues_->ActiveCount(), 2u);
    EXPECT_EQ(queues_->PendingCount(Id("cq")), 2u);
    EXPECT_EQ(Active("cq"), (V{"a", "b"}));
  }
  // Into the inadmissible set instead (NoFit in BestEffortFIFO), with its hash recorded.
  EXPECT_EQ(PopOne("cq"), a);
  queues_->Requeue(a, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(Active("cq"), V{"b"});
  EXPECT_EQ(Inadmissible("cq"), V{"a"});
  EXPECT_EQ(Names(queues_->PopHeads(++cycle_)), V{"b"});
}

TEST_F(QueueManagerTest, AHeadRemovedOrDroppedAfterThePopLeavesItsQueue) {
  Cq("cq");
  Build();
  WorkloadId a = Push("a", "cq", O().At(1));
  WorkloadId b = Push("b", "cq", O().At(2));
  WorkloadId c = Push("c", "cq", O().At(3));
  EXPECT_EQ(PopOne("cq"), a);
  queues_->Remove(a);  // admitted
  EXPECT_EQ(queues_->Location(a), L::kNone);
  EXPECT_EQ(Active("cq"), (V{"b", "c"}));
  // A head the caller drops (already admitted elsewhere) stays in flight, out of the heap.
  EXPECT_EQ(PopOne("cq"), b);
  EXPECT_EQ(PopOne("cq"), c);  // b never requeued: the next cycle pops the next one
  EXPECT_EQ(queues_->Location(b), L::kInflight);
  EXPECT_EQ(queues_->PendingCount(Id("cq")), 2u);  // b and c, both in flight
  EXPECT_FALSE(queues_->HasActive());
}

TEST_F(QueueManagerTest, APreemptorSetWhileItsHeadIsOutOrdersTheHeapAfresh) {
  Cq("cq");
  Build();
  WorkloadId p = Push("p", "cq", O().Prio(5).At(1));
  WorkloadId q = Push("q", "cq", O().Prio(9).At(2).Cpu("2"));
  Push("r", "cq", O().Prio(1).At(3).Cpu("3"));
  EXPECT_EQ(PopOne("cq"), q);
  queues_->SetPreemptor(Id("cq"), p);  // a queued workload becomes the sticky preemptor
  EXPECT_EQ(Active("cq"), (V{"p", "r"}));
  queues_->Requeue(q, R::kFailedAfterNomination, kNow, cycle_);  // immediate
  EXPECT_EQ(Active("cq"), (V{"p", "q", "r"}));
  EXPECT_EQ(PopOne("cq"), p);
}

TEST_F(QueueManagerTest, AHeadThatPreemptsCycleAfterCycleStaysFirst) {
  Cq("cq");
  Build();
  WorkloadId p = Push("p", "cq", O().Prio(5).At(1));
  Push("r", "cq", O().Prio(1).At(2).Cpu("2"));
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(PopOne("cq"), p);
    queues_->SetPreemptor(Id("cq"), p);  // as the scheduler does before the requeue
    queues_->Requeue(p, R::kPendingPreemption, kNow, cycle_);
    EXPECT_EQ(queues_->Preemptor(Id("cq")), p);
    EXPECT_EQ(queues_->Location(p), L::kActive);
    if (round == 0) {
      Push("h", "cq", O().Prio(9).At(3).Cpu("3"));  // higher, but the preemptor is sticky
    }
    EXPECT_EQ(Active("cq"), (V{"p", "h", "r"}));
  }
  EXPECT_EQ(PopOne("cq"), p);
  queues_->Requeue(p, R::kFailedAfterNomination, kNow, cycle_);  // no longer the preemptor
  EXPECT_EQ(queues_->Preemptor(Id("cq")), std::nullopt);
  EXPECT_EQ(Active("cq"), (V{"h", "p", "r"}));
  EXPECT_EQ(Names(queues_->PopHeads(++cycle_)), V{"h"});
}

TEST_F(QueueManagerTest, InactiveClusterQueuesAreNeverPopped) {
  Cq("held", "", kBestEffort, StopPolicy::kHold);
  Cq("drained", "", kBestEffort, StopPolicy::kHoldAndDrain);
  Cq("no-flavor", "", kBestEffort, StopPolicy::kNone, "missing");
  Cq("ok");
  Build();
  Push("h", "held");
  Push("d", "drained");
  Push("f", "no-flavor");
  Push("o", "ok");
  EXPECT_EQ(Names(queues_->PopHeads(1)), V{"o"});
  EXPECT_TRUE(queues_->PopHeads(2).empty());
  EXPECT_TRUE(queues_->HasActive());  // the heaps still hold them
  EXPECT_EQ(Active("held"), V{"h"});
}

TEST_F(QueueManagerTest, StrictFifoBlocksOnItsHeadBestEffortMovesOn) {
  Cq("strict", "", kStrict);
  Cq("best", "", kBestEffort);
  Build();
  Push("s1", "strict", O().At(1).Cpu("1"));
  Push("s2", "strict", O().At(2).Cpu("2"));
  Push("b1", "best", O().At(1).Cpu("1"));
  Push("b2", "best", O().At(2).Cpu("2"));
  for (int i = 0; i < 3; ++i) {
    std::vector<WorkloadId> heads = queues_->PopHeads(++cycle_);
    ASSERT_FALSE(heads.empty());
    for (WorkloadId h : heads) {
      queues_->Requeue(h, R::kNoFit, kNow, cycle_);
    }
    EXPECT_EQ(Names(heads)[0], i < 2 ? (i == 0 ? "b1" : "b2") : "s1") << i;
    EXPECT_EQ(Names(heads).back(), "s1") << i;
  }
  EXPECT_EQ(Inadmissible("best"), (V{"b1", "b2"}));
  EXPECT_EQ(Active("strict"), (V{"s1", "s2"}));
}

// --- §5.2 requeue outcome per reason -------------------------------------------------------

struct ReasonCase {
  QueueingStrategy strategy;
  RequeueReason reason;
  QueueLocation expected;
};

class RequeueReasonTest : public QueueManagerTest,
                          public ::testing::WithParamInterface<ReasonCase> {};

TEST_P(RequeueReasonTest, ImmediateOrInadmissible) {
  const ReasonCase& c = GetParam();
  Cq("cq", "", c.strategy);
  Build();
  WorkloadId w = Push("w", "cq");
  ASSERT_EQ(PopOne("cq"), w);
  EXPECT_EQ(queues_->Location(w), L::kInflight);
  queues_->Requeue(w, c.reason, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), c.expected) << ToString(c.strategy) << " " << ToString(c.reason);
  EXPECT_EQ(queues_->PendingCount(Id("cq")), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    AllReasons, RequeueReasonTest,
    ::testing::Values(ReasonCase{kStrict, R::kGeneric, L::kActive},
                      ReasonCase{kStrict, R::kNoFit, L::kActive},
                      ReasonCase{kStrict, R::kPreemptionNoCandidates, L::kActive},
                      ReasonCase{kStrict, R::kPreemptionGated, L::kActive},
                      ReasonCase{kStrict, R::kNamespaceMismatch, L::kInadmissible},
                      ReasonCase{kStrict, R::kFailedAfterNomination, L::kActive},
                      ReasonCase{kStrict, R::kPendingPreemption, L::kActive},
                      ReasonCase{kStrict, R::kPendingMigration, L::kActive},
                      ReasonCase{kStrict, R::kPreemptionFailed, L::kActive},
                      ReasonCase{kBestEffort, R::kGeneric, L::kInadmissible},
                      ReasonCase{kBestEffort, R::kNoFit, L::kInadmissible},
                      ReasonCase{kBestEffort, R::kPreemptionNoCandidates, L::kInadmissible},
                      ReasonCase{kBestEffort, R::kPreemptionGated, L::kInadmissible},
                      ReasonCase{kBestEffort, R::kNamespaceMismatch, L::kInadmissible},
                      ReasonCase{kBestEffort, R::kFailedAfterNomination, L::kActive},
                      ReasonCase{kBestEffort, R::kPendingPreemption, L::kActive},
                      ReasonCase{kBestEffort, R::kPendingMigration, L::kActive},
                      ReasonCase{kBestEffort, R::kPreemptionFailed, L::kActive}));

TEST_F(QueueManagerTest, InadmissibleRequeueSinceLastPopMakesRequeueImmediate) {
  Cq("cq");
  Build();
  WorkloadId w = Push("w", "cq");
  PopOne("cq");
  queues_->QueueInadmissible(Id("cq"), kNow, cycle_);  // e.g. a workload finished mid-cycle
  EXPECT_EQ(queues_->LastInadmissibleRequeueCycle(Id("cq")), cycle_);
  queues_->Requeue(w, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kActive);
  // Not again after the next pop: the inadmissible-requeue is now older than the pop.
  PopOne("cq");
  queues_->Requeue(w, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
}

TEST_F(QueueManagerTest, InadmissibleRequeueBeforeThePopDoesNotCount) {
  Cq("cq");
  Build();
  WorkloadId w = Push("w", "cq");
  queues_->QueueInadmissible(Id("cq"), kNow, 1);
  PopOne("cq");
  queues_->Requeue(w, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
}

// QueueInadmissible skips ClusterQueues it has nothing to do for (requeue_work_); a pop must
// give the CQ work again, or the requeue after it would be missed.
TEST_F(QueueManagerTest, InadmissibleRequeueAfterAPopCountsAgain) {
  Cq("cq");
  Build();
  WorkloadId w = Push("w", "cq");
  for (int round = 0; round < 3; ++round) {
    queues_->QueueInadmissible(Id("cq"), kNow, cycle_);  // nothing to move: the CQ is idle now
    PopOne("cq");
    queues_->QueueInadmissible(Id("cq"), kNow, cycle_);  // a finish after the pop
    EXPECT_EQ(queues_->LastInadmissibleRequeueCycle(Id("cq")), cycle_);
    queues_->Requeue(w, R::kNoFit, kNow, cycle_);
    EXPECT_EQ(queues_->Location(w), L::kActive) << "round " << round;
  }
}

TEST_F(QueueManagerTest, InadmissibleRequeueInAnotherTreeDoesNotCount) {
  Cq("cq");
  Cq("other");
  Build();
  WorkloadId w = Push("w", "cq");
  PopOne("cq");
  queues_->QueueInadmissible(Id("other"), kNow, cycle_);
  queues_->Requeue(w, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
}

TEST_F(QueueManagerTest, PendingFlavorsForceImmediateRequeue) {
  Cq("cq");
  Build();
  WorkloadId w = Push("w", "cq");
  ResourceId cpu = *cluster_.FindResource("cpu");
  store_->Get(w).scan.Mutable().valid = true;
  store_->Get(w).scan.Mutable().last_tried = {{{cpu, 0}}};  // flavor 0 tried, more remain
  PopOne("cq");
  queues_->Requeue(w, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kActive);
  // A scan that reached the last flavor (-1) has nothing pending.
  store_->Get(w).scan.Mutable().last_tried = {{{cpu, -1}}};
  PopOne("cq");
  queues_->Requeue(w, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
}

}  // namespace
}  // namespace engine
