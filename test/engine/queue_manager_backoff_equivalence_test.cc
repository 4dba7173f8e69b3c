// Queues, continued: requeue backoff, equivalence hashing of identical workloads and what follows
// (helpers in queue_manager_test_fixture.h).
#include <gtest/gtest.h>

#include "test/engine/queue_manager_test_fixture.h"

namespace engine {
namespace {

TEST_F(QueueManagerTest, RequeueOfRemovedWorkloadIsIgnoredAndInflightPushIsIgnored) {
  Cq("cq");
  Build();
  WorkloadId w = Push("w", "cq");
  PopOne("cq");
  queues_->Push(w, kNow);  // an update while in flight: the Requeue decides
  EXPECT_EQ(queues_->Location(w), L::kInflight);
  EXPECT_FALSE(queues_->HasActive());
  queues_->Remove(w);  // admitted
  queues_->Requeue(w, R::kFailedAfterNomination, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kNone);
  EXPECT_EQ(queues_->PendingCount(Id("cq")), 0u);
}

// --- §9.1 backoff --------------------------------------------------------------------------

TEST_F(QueueManagerTest, BackoffKeepsPushedWorkloadOutOfTheHeap) {
  Cq("cq");
  Build();
  WorkloadId w = Add("w", "cq", O().RequeueAt(kNow + 60 * kSecond));
  queues_->Push(w, kNow);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
  EXPECT_TRUE(queues_->PopHeads(1).empty());
  // An inadmissible-requeue before requeueAt leaves it; at requeueAt it moves.
  queues_->QueueInadmissible(Id("cq"), kNow + 59 * kSecond, 2);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
  queues_->QueueInadmissible(Id("cq"), kNow + 60 * kSecond, 3);
  EXPECT_EQ(queues_->Location(w), L::kActive);
}

TEST_F(QueueManagerTest, BackoffExpiredOnPushAtRequeueAt) {
  Cq("cq");
  Build();
  WorkloadId w = Add("w", "cq", O().RequeueAt(kNow));
  queues_->Push(w, kNow);
  EXPECT_EQ(queues_->Location(w), L::kActive);
}

TEST_F(QueueManagerTest, BackoffOverridesImmediateRequeue) {
  Cq("cq", "", kStrict);
  Build();
  WorkloadId w = Push("w", "cq");
  PopOne("cq");
  queues_->SetRequeueState(w, kNow + kSecond, false);
  queues_->Requeue(w, R::kFailedAfterNomination, kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
  // Backoff end: the workload controller pushes it again.
  queues_->Push(w, kNow + kSecond);
  EXPECT_EQ(queues_->Location(w), L::kActive);
}

TEST_F(QueueManagerTest, RequeuedFalseWithoutRequeueAtNeverExpires) {
  Cq("cq");
  Build();
  WorkloadId w = Add("w", "cq", O().RequeuedFalse());
  queues_->Push(w, kNow);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
  queues_->QueueInadmissible(Id("cq"), kNow + 1'000'000 * kSecond, 1);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
  queues_->SetRequeueState(w, std::nullopt, false);  // reactivated: Requeued=True
  queues_->Push(w, kNow);
  EXPECT_EQ(queues_->Location(w), L::kActive);
}

// --- §9.6 scheduling equivalence hashing ---------------------------------------------------

TEST_F(QueueManagerTest, IdenticalWorkloadsBehindNoFitHeadGoInadmissibleTogether) {
  Cq("cq");
  Build();
  WorkloadId head = Push("head", "cq", O().At(1));
  Push("twin1", "cq", O().At(2));
  Push("other", "cq", O().At(3).Cpu("2"));
  Push("twin2", "cq", O().At(4));
  ASSERT_EQ(PopOne("cq"), head);
  queues_->Requeue(head, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(Inadmissible("cq"), (V{"head", "twin1", "twin2"}));
  EXPECT_EQ(Active("cq"), V{"other"});
  EXPECT_TRUE(queues_->HashRecorded(Id("cq"), store_->Get(head).scheduling_hash));

  // Later pushes of the hash go straight to the inadmissible set; other hashes do not.
  WorkloadId late_twin = Push("late-twin", "cq", O().At(5));
  WorkloadId late_other = Push("late-other", "cq", O().At(6).Cpu("3"));
  EXPECT_EQ(queues_->Location(late_twin), L::kInadmissible);
  EXPECT_EQ(queues_->Location(late_other), L::kActive);

  // Until the next inadmissible-requeue, which also clears the record.
  queues_->QueueInadmissible(Id("cq"), kNow, cycle_);
  EXPECT_FALSE(queues_->HashRecorded(Id("cq"), store_->Get(head).scheduling_hash));
  EXPECT_TRUE(queues_->PendingInadmissible(Id("cq")).empty());
  WorkloadId after = Push("after", "cq", O().At(7));
  EXPECT_EQ(queues_->Location(after), L::kActive);
  EXPECT_EQ(Active("cq"),
            (V{"head", "twin1", "other", "twin2", "late-twin", "late-other", "after"}));
}

TEST_F(QueueManagerTest, PreemptionNoCandidatesAlsoRecordsTheHash) {
  Cq("cq");
  Build();
  WorkloadId head = Push("head", "cq", O().At(1));
  Push("twin", "cq", O().At(2));
  PopOne("cq");
  queues_->Requeue(head, R::kPreemptionNoCandidates, kNow, cycle_);
  EXPECT_EQ(Inadmissible("cq"), (V{"head", "twin"}));
}

TEST_F(QueueManagerTest, OtherInadmissibleReasonsDoNotRecordTheHash) {
  for (RequeueReason reason : {R::kGeneric, R::kPreemptionGated, R::kNamespaceMismatch}) {
    spec_ = ClusterSpec();
    spec_.flavors.push_back(Flavor("default"));
    cluster_ = Cluster();
    Cq("cq");
    Build();
    WorkloadId head = Push("head", "cq", O().At(1));
    Push("twin", "cq", O().At(2));
    PopOne("cq");
    queues_->Requeue(head, reason, kNow, cycle_);
    EXPECT_EQ(Inadmissible("cq"), V{"head"}) << ToString(reason);
    EXPECT_EQ(Active("cq"), V{"twin"}) << ToString(reason);
  }
}

TEST_F(QueueManagerTest, StrictFifoNeverBulkMoves) {
  Cq("cq", "", kStrict);
  Build();
  WorkloadId head = Push("head", "cq", O().At(1));
  Push("twin", "cq", O().At(2));
  // A StrictFIFO NoFit is parked only while the head is backing off; the twins stay queued.
  PopOne("cq");
  queues_->SetRequeueState(head, kNow + kSecond, false);
  queues_->Requeue(head, R::kNoFit, kNow, cycle_);
  EXPECT_EQ(Inadmissible("cq"), V{"head"});
  EXPECT_EQ(Active("cq"), V{"twin"});
  EXPECT_FALSE(queues_->HashRecorded(Id("cq"), store_->Get(head).scheduling_hash));
}

TEST_F(QueueManagerTest, HashRecordsArePerClusterQueue) {
  Cq("a");
  Cq("b");
  Build();
  WorkloadId head = Push("head", "a");
  PopOne("a");
  queues_->Requeue(head, R::kNoFit, kNow, cycle_);
  WorkloadId twin_in_b = Push("twin-in-b", "b");
  EXPECT_EQ(queues_->Location(twin_in_b), L::kActive);
}

TEST(SchedulingHashTest, EqualForEquivalentAndDifferentOtherwise) {
  ClusterSpec spec;
  spec.local_queues.push_back(LocalQueue("lq", "cq", "ns"));
  Cluster cluster;
  cluster.Apply(spec);
  WorkloadStore store(cluster);
  int n = 0;
  // The base workload sets every hashed field, so that each variant below changes one value
  // without changing any list length.
  auto hash = [&](auto mutate) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = Cat({"w", std::to_string(n++)});
    w.queue_name = "lq";
    w.priority = 3;
    PodSetSpec ps;
    ps.name = "main";
    ps.count = 2;
    ps.min_count = 1;
    ps.resources.containers.push_back(Container("1"));
    ps.node_selector["zone"] = "a";
    NodeSelectorRequirement r;
    r.key = "zone";
    r.op = "In";
    r.values = {"a"};
    ps.required_affinity.emplace_back().match_expressions.push_back(r);
    Toleration t;
    t.key = "gpu";
    t.op = "Exists";
    ps.tolerations.push_back(t);
    ps.priority_class_name = "high";
    w.pod_sets.push_back(ps);
    mutate(w);
    WorkloadId id = *store.Add(w);
    return ComputeSchedulingHash(store.Get(id), cluster);
  };
  using W = WorkloadSpec;
  const uint64_t base = hash([](W&) {});
  EXPECT_NE(base, kSchedulingHashUnknown);
  // Name, uid, creation time and queue do not matter.
  EXPECT_EQ(base, hash([](W& w) {
              w.uid = "other";
              w.creation_time = 99;
            }));
  // "1000m" is "1".
  EXPECT_EQ(base, hash([](W& w) {
              w.pod_sets[0].resources.containers[0].requests = {{"cpu", Dec("1000m")}};
            }));
  // Every scheduling-relevant field does.
  EXPECT_NE(base, hash([](W& w) { w.priority = 4; }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].count = 3; }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].name = "workers"; }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].min_count = 2; }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].min_count = std::nullopt; }));
  EXPECT_NE(hash([](W& w) { w.pod_sets[0].min_count = 0; }),
            hash([](W& w) { w.pod_sets[0].min_count = std::nullopt; }));
  EXPECT_NE(base, hash([](W& w) { w.reclaimable_pods.Mutable()["main"] = 1; }));
  EXPECT_NE(base, hash([](W& w) {
              w.pod_sets[0].resources.containers[0].requests = {{"cpu", Dec("2")}};
            }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].node_selector["zone"] = "b"; }));
  EXPECT_NE(base, hash([](W& w) {
              w.pod_sets[0].required_affinity[0].match_expressions[0].key = "region";
            }));
  EXPECT_NE(base, hash([](W& w) {
              w.pod_sets[0].required_affinity[0].match_expressions[0].values = {"b"};
            }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].tolerations[0].key = "tpu"; }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].tolerations[0].effect = "NoSchedule"; }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets[0].priority_class_name = "low"; }));
  EXPECT_NE(base, hash([](W& w) { w.pod_sets.push_back(w.pod_sets[0]); }));
}

// SchedulingHasher remembers the pod-set part of the hash by request-list buffer: Workloads of one
// pooled list share it. Through adds, erases, reclaimable pods (which give a Workload requests of
// its own, written in place when nothing else holds them) and priorities, it gives what
// ComputeSchedulingHash gives. A memo keyed by a buffer's address without holding it fails here:
// a list written over in place, or freed and allocated again for other requests, hits.
TEST(SchedulingHashTest, TheHasherEqualsTheFunctionAsListsAreSharedFreedAndWritten) {
  ClusterSpec spec;
  spec.local_queues.push_back(LocalQueue("lq", "cq", "ns"));
  Cluster cluster;
  cluster.Apply(spec);
  WorkloadStore store(cluster);
  SchedulingHasher hasher;
  std::mt19937 rng(11);
  std::vector<WorkloadId> live;
  int checked = 0;
  for (int step = 0; step < 4000; ++step) {
    const uint32_t op = rng() % 8;
    if (op < 2 && !live.empty()) {
      const size_t victim = rng() % live.size();
      store.Erase(live[victim]);
      live[victim] = live.back();
      live.pop_back();
      continue;
    }
    if (op == 2 && !live.empty()) {
      const WorkloadId id = live[rng() % live.size()];
      store.SetReclaimablePods(id, {{"main", static_cast<int32_t>(rng() % 3)}});
      store.Get(id).scheduling_hash = kSchedulingHashUnknown;
    } else {
      WorkloadSpec w;
      w.name_space = "ns";
      w.name = Cat({"w", std::to_string(step)});
      w.queue_name = "lq";
      w.priority = static_cast<int32_t>(rng() % 3);
      PodSetSpec& ps = w.pod_sets.emplace_back();
      ps.name = "main";
      ps.count = 1 + static_cast<int32_t>(rng() % 4);
      ps.resources.containers.push_back(Container(rng() % 2 == 0 ? "1" : "2"));
      live.push_back(*store.Add(std::move(w)));
    }
    for (int i = 0; i < 3 && !live.empty(); ++i) {
      const Workload& w = store.Get(live[rng() % live.size()]);
      ASSERT_EQ(hasher.Compute(w, cluster), ComputeSchedulingHash(w, cluster)) << "step " << step;
      ++checked;
    }
  }
  EXPECT_GT(checked, 8000);
}

// --- §5.2 inadmissible-requeue scope -------------------------------------------------------

TEST_F(QueueManagerTest, QueueInadmissibleCoversTheWholeCohortTreeOnly) {
  // Tree 1: root <- {mid <- a, b}; tree 2: other <- c; lone d.
  Cohort("root");
  Cohort("mid", "root");
  Cohort("other");
  Cq("a", "mid");
  Cq("b", "root");
  Cq("c", "other");
  Cq("d");
  Build();
  std::vector<WorkloadId> ws;
  for (const char* cq : {"a", "b", "c", "d"}) {
    ws.push_back(Push(Cat({"w-", cq}), cq));
  }
  for (WorkloadId h : queues_->PopHeads(++cycle_)) {
    queues_->Requeue(h, R::kNoFit, kNow, cycle_);
  }
  for (WorkloadId w : ws) {
    ASSERT_EQ(queues_->Location(w), L::kInadmissible);
  }
  queues_->QueueInadmissible(Id("a"), kNow, cycle_);  // a leaf deep in tree 1
  EXPECT_EQ(queues_->Location(ws[0]), L::kActive);
  EXPECT_EQ(queues_->Location(ws[1]), L::kActive);
  EXPECT_EQ(queues_->Location(ws[2]), L::kInadmissible);
  EXPECT_EQ(queues_->Location(ws[3]), L::kInadmissible);
  EXPECT_EQ(queues_->LastInadmissibleRequeueCycle(Id("c")), -1);

  queues_->QueueInadmissible(Id("d"), kNow, cycle_);  // a lone CQ: only itself
  EXPECT_EQ(queues_->Location(ws[2]), L::kInadmissible);
  EXPECT_EQ(queues_->Location(ws[3]), L::kActive);

  queues_->QueueAllInadmissible(kNow, cycle_);
  EXPECT_EQ(queues_->Location(ws[2]), L::kActive);
}

// The ClusterQueues under a root are cached between finishes; a configuration edit that moves a
// ClusterQueue to another tree, or deletes one, must show in the next requeue.
TEST_F(QueueManagerTest, QueueInadmissibleFollowsTreeEdits) {
  Cohort("t1");
  Cohort("t2");
  Cq("a", "t1");
  Cq("c", "t2");
  Build();
  WorkloadId wa = Push("w-a", "a");
  WorkloadId wc = Push("w-c", "c");
  auto park = [&] {
    for (WorkloadId h : queues_->PopHeads(++cycle_)) {
      queues_->Requeue(h, R::kNoFit, kNow, cycle_);
    }
  };
  park();
  queues_->QueueInadmissible(Id("a"), kNow, cycle_);  // builds the cache for t1
  EXPECT_EQ(queues_->Location(wc), L::kInadmissible);
  park();
  ClusterQueueSpec moved = cluster_.Spec(Id("c"));
  moved.cohort = "t1";
  cluster_.UpsertClusterQueue(moved);
  cluster_.Refresh();
  queues_->QueueInadmissible(Id("a"), kNow, cycle_);  // c is in t1 now
  EXPECT_EQ(queues_->Location(wa), L::kActive);
  EXPECT_EQ(queues_->Location(wc), L::kActive);
}

TEST_F(QueueManagerTest, QueueInadmissibleIgnoresTreesWithACycle) {
  Cohort("x", "y");
  Cohort("y", "x");
  Cq("a", "x");
  Build();
  WorkloadId w = Push("w", "a", O().RequeuedFalse());  // parked (a is inactive anyway)
  queues_->SetRequeueState(w, std::nullopt, false);
  queues_->QueueInadmissible(Id("a"), kNow, 1);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
  queues_->QueueAllInadmissible(kNow, 1);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
}

TEST_F(QueueManagerTest, NamespaceFilterKeepsMismatchedWorkloadsParked) {
  Cq("cq");
  Build();
  WorkloadId w = Push("w", "cq");
  PopOne("cq");
  queues_->Requeue(w, R::kNamespaceMismatch, kNow, cycle_);
  bool matches = false;
  queues_->SetNamespaceFilter([&](CqId, const Workload&) { return matches; });
  queues_->QueueInadmissible(Id("cq"), kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kInadmissible);
  matches = true;
  queues_->QueueInadmissible(Id("cq"), kNow, cycle_);
  EXPECT_EQ(queues_->Location(w), L::kActive);
}

// A ClusterQueue that selects every namespace skips the per-workload filter altogether.
TEST_F(QueueManagerTest, SelectsAllNamespacesSkipsTheFilter) {
  Cq("all");
  Cq("some");
  Build();
  WorkloadId a = Push("a", "all");
  WorkloadId b = Push("b", "some");
  ASSERT_EQ(queues_->PopHeads(++cycle_).size(), 2u);
  queues_->Requeue(a, R::kNamespaceMismatch, kNow, cycle_);
  queues_->Requeue(b, R::kNamespaceMismatch, kNow, cycle_);
  int filter_calls = 0;
  queues_->SetNamespaceFilter(
      [&](CqId, const Workload&) {
        ++filter_calls;
        return false;
      },
      [&](CqId cq) { return cq == Id("all"); });
  queues_->QueueAllInadmissible(kNow, cycle_);
  EXPECT_EQ(queues_->Location(a), L::kActive);
  EXPECT_EQ(queues_->Location(b), L::kInadmissible);
  EXPECT_EQ(filter_calls, 1);  // only for b
}

// --- Orphans, removal, counts --------------------------------------------------------------

TEST_F(QueueManagerTest, WorkloadsWithoutAQueueAreOrphansUntilAdopted) {
  Cq("cq");
  Build();
  WorkloadId o1 = Push("o1", "late", O().Queue("lq-late"));
  WorkloadId o2 = Push("o2", "late", O().Queue("lq-late"));
  WorkloadId o3 = Push("o3", "late", O().Queue("lq-never"));
  EXPECT_EQ(queues_->Location(o1), L::kOrphan);
  EXPECT_EQ(queues_->OrphanCount(), 3u);
  EXPECT_EQ(queues_->Orphans("default/lq-late"), (std::vector<WorkloadId>{o1, o2}));
  queues_->Remove(o2);
  EXPECT_EQ(queues_->OrphanCount(), 2u);
  EXPECT_TRUE(queues_->AdoptOrphans().empty());

  ClusterSpec more;
  more.cluster_queues.emplace_back().name = "late";
  more.local_queues.push_back(LocalQueue("lq-late", "late"));
  cluster_.Apply(more);
  EXPECT_EQ(queues_->AdoptOrphans(), std::vector<WorkloadId>{o1});
  EXPECT_EQ(queues_->Location(o1), L::kActive);
  EXPECT_EQ(queues_->Location(o3), L::kOrphan);
  EXPECT_EQ(queues_->OrphanCount(), 1u);
  EXPECT_EQ(Names(queues_->PopHeads(1)), (V{"o1"}));
}

TEST_F(QueueManagerTest, WorkloadsOfAStoppedLocalQueueAreOrphans) {
  Cq("cq");
  spec_.local_queues.push_back(LocalQueue("lq-held", "cq"));
  spec_.local_queues.back().stop_policy = StopPolicy::kHold;
  Build();
  WorkloadId held = Push("held", "cq", O().Queue("lq-held"));
  WorkloadId open = Push("open", "cq");
  EXPECT_EQ(queues_->Location(held), L::kOrphan);
  EXPECT_EQ(queues_->Location(open), L::kActive);
  EXPECT_TRUE(queues_->AdoptOrphans().empty());  // still stopped
  LocalQueueSpec resumed = LocalQueue("lq-held", "cq");
  ClusterSpec change;
  change.local_queues.push_back(resumed);
  cluster_.Apply(change);
  EXPECT_EQ(queues_->AdoptOrphans(), std::vector<WorkloadId>{held});
  EXPECT_EQ(Active("cq"), (V{"held", "open"}));
}

TEST_F(QueueManagerTest, RemoveFromEveryLocation) {
  Cq("cq");
  Build();
  WorkloadId active = Push("active", "cq", O().At(2));
  WorkloadId parked = Push("parked", "cq", O().RequeueAt(kNow + kSecond));
  WorkloadId inflight = Push("inflight", "cq", O().At(1));
  ASSERT_EQ(PopOne("cq"), inflight);
  EXPECT_EQ(queues_->PendingCount(Id("cq")), 3u);
  queues_->Remove(active);
  queues_->Remove(parked);
  queues_->Remove(inflight);
  queues_->Remove(inflight);  // twice is fine
  EXPECT_EQ(queues_->PendingCount(Id("cq")), 0u);
  EXPECT_FALSE(queues_->HasActive());
}

TEST_F(QueueManagerTest, PushAgainRefreshesKeys) {
  Cq("cq");
  Build();
  WorkloadId a = Push("a", "cq", O().Prio(1));
  Push("b", "cq", O().Prio(2));
  store_->Get(a).priority = 5;
  store_->Get(a).scheduling_hash = kSchedulingHashUnknown;
  queues_->Push(a, kNow);
  EXPECT_EQ(Active("cq"), (V{"a", "b"}));
  EXPECT_EQ(queues_->PendingCount(Id("cq")), 2u);
}

// Bulk moves stay exact under heavy churn: enough (cq, hash) keys to grow the hash index several
// times, with collisions and deletions in its probe runs.
TEST_F(QueueManagerTest, HashBulkMovesStayExactUnderChurn) {
  const std::vector<std::string> cqs = {"c0", "c1", "c2", "c3"};
  for (const std::string& cq : cqs) {
    Cq(cq);
  }
  Build();
  std::mt19937 rng(11);
  std::vector<WorkloadId> ids;
  std::vector<std::string> cpus;
  for (int i = 0; i < 3000; ++i) {
    cpus.push_back(Cat({std::to_string(1 + rng() % 300), "00m"}));
    ids.push_back(Add(Cat({"w", std::to_string(i)}), cqs[rng() % cqs.size()],
                      O().At(static_cast<TimeMicros>(rng() % 1000)).Cpu(cpus.back().c_str())));
  }
  for (int step = 0; step < 30000; ++step) {
    WorkloadId id = ids[rng() % ids.size()];
    if (queues_->Location(id) == L::kNone) {
      queues_->Push(id, kNow);
    } else if (rng() % 3 == 0) {
      queues_->Remove(id);
    }
  }
  for (int round = 0; round < 40; ++round) {
    for (const std::string& cq : cqs) {
      std::vector<WorkloadId> before = queues_->PendingActive(Id(cq));
      if (before.empty()) {
        continue;
      }
      WorkloadId head = PopOne(cq);
      const uint64_t hash = store_->Get(head).scheduling_hash;
      std::vector<WorkloadId> expected_active;
      for (WorkloadId id : before) {
        if (store_->Get(id).scheduling_hash != hash) {
          expected_active.push_back(id);
        }
      }
      std::vector<WorkloadId> inadmissible_before = queues_->PendingInadmissible(Id(cq));
      queues_->Requeue(head, R::kNoFit, kNow, cycle_);
      ASSERT_EQ(queues_->PendingActive(Id(cq)), expected_active) << cq << " round " << round;
      ASSERT_EQ(queues_->PendingInadmissible(Id(cq)).size(),
                inadmissible_before.size() + (before.size() - expected_active.size()));
    }
    // Some churn between rounds, including re-pushes into recorded hashes.
    for (int k = 0; k < 200; ++k) {
      WorkloadId id = ids[rng() % ids.size()];
      if (queues_->Location(id) == L::kNone) {
        queues_->Push(id, kNow);
      } else if (queues_->Location(id) == L::kActive) {
        queues_->Remove(id);
      }
    }
    if (round % 10 == 9) {
      queues_->QueueAllInadmissible(kNow, cycle_);
    }
  }
}

// Random pushes, removals, pops and key updates in one CQ against a sorted reference.
TEST_F(QueueManagerTest, RandomOperationsMatchSortedReference) {
  Cq("cq");
  Build();
  std::mt19937 rng(7);
  std::vector<WorkloadId> ids;
  ids.reserve(300);
  for (int i = 0; i < 300; ++i) {
    ids.push_back(Add(Cat({"w", std::to_string(i)}), "cq",
                      O().Prio(static_cast<int32_t>(rng() % 4))
                          .At(static_cast<TimeMicros>(rng() % 8))
                          .Uid(Cat({"u", std::to_string(rng() % 50), "-", std::to_string(i)}))));
  }
  std::vector<WorkloadId> reference;
  auto less = [&](WorkloadId a, WorkloadId b) {
    return QueueOrderLess(store_->Get(a), store_->Get(b));
  };
  for (int step = 0; step < 5000; ++step) {
    WorkloadId id = ids[rng() % ids.size()];
    bool queued = std::find(reference.begin(), reference.end(), id) != reference.end();
    switch (rng() % 4) {
      case 0:
      case 1:
        if (!queued) {
          queues_->Push(id, kNow);
          reference.push_back(id);
        }
        break;
      case 2:
        queues_->Remove(id);
        std::erase(reference, id);
        break;
      case 3:
        if (!reference.empty() && rng() % 2 == 0) {
          std::vector<WorkloadId> heads = queues_->PopHeads(step);
          ASSERT_EQ(heads.size(), 1u);
          WorkloadId expected = *std::min_element(reference.begin(), reference.end(), less);
          ASSERT_EQ(heads[0], expected);
          queues_->Remove(heads[0]);
          std::erase(reference, heads[0]);
        } else if (queued) {
          store_->Get(id).priority = static_cast<int32_t>(rng() % 4);
          queues_->Push(id, kNow);
        }
        break;
    }
    std::vector<WorkloadId> sorted = reference;
    std::sort(sorted.begin(), sorted.end(), less);
    ASSERT_EQ(queues_->PendingActive(Id("cq")), sorted) << "step " << step;
  }
}

// Bulk moves and requeues of most of a heap rebuild it in one pass (queue_heap.cc) instead of one
// sift per member: the heads must still pop in exactly the sorted reference order.
TEST_F(QueueManagerTest, HeapRebuildsKeepPopOrder) {
  Cq("cq");
  Build();
  std::mt19937 rng(5);
  const std::vector<const char*> cpus = {"1", "2", "3"};  // three hashes: large bulk moves
  std::vector<WorkloadId> ids;
  for (int i = 0; i < 400; ++i) {
    ids.push_back(Add(Cat({"w", std::to_string(i)}), "cq",
                      O().Prio(static_cast<int32_t>(rng() % 3))
                          .At(static_cast<TimeMicros>(rng() % 5))
                          .Uid(Cat({"u", std::to_string(rng() % 40), "-", std::to_string(i)}))
                          .Cpu(cpus[rng() % cpus.size()])));
  }
  auto less = [&](WorkloadId a, WorkloadId b) {
    return QueueOrderLess(store_->Get(a), store_->Get(b));
  };
  std::vector<WorkloadId> active;
  for (WorkloadId id : ids) {
    queues_->Push(id, kNow);
    active.push_back(id);
  }
  int bulk_moves = 0;
  for (int round = 0; round < 60; ++round) {
    if (active.empty() || rng() % 4 == 0) {
      queues_->QueueAllInadmissible(kNow, cycle_);  // everything inadmissible comes back at once
      active.clear();
      for (WorkloadId id : ids) {
        if (queues_->Location(id) == L::kActive) {
          active.push_back(id);
        }
      }
      ASSERT_EQ(active.size(), ids.size()) << "round " << round;
      continue;
    }
    WorkloadId head = PopOne("cq");
    ASSERT_EQ(head, *std::min_element(active.begin(), active.end(), less)) << "round " << round;
    const uint64_t hash = store_->Get(head).scheduling_hash;
    const size_t before = active.size();
    std::erase_if(active, [&](WorkloadId id) { return store_->Get(id).scheduling_hash == hash; });
    bulk_moves += before - active.size() > 20 ? 1 : 0;
    queues_->Requeue(head, R::kNoFit, kNow, cycle_);
    std::vector<WorkloadId> sorted = active;
    std::sort(sorted.begin(), sorted.end(), less);
    ASSERT_EQ(queues_->PendingActive(Id("cq")), sorted) << "round " << round;
  }
  EXPECT_GT(bulk_moves, 10);  // the rebuild path ran, not only single sifts
}

}  // namespace
}  // namespace engine
