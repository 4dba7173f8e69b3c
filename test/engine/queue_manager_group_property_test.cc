// The QueueManager's two-level heap (engine/queue_heap.cc: members grouped by scheduling hash, a
// NoFit head parking its whole group, an inadmissible-requeue bringing groups back whole) against
// a brute-force model of the rules it implements (engine/queue_manager.h), one workload at a
// time, as Kueue states them. Random pushes, removals, pops, requeues for every reason, priority
// updates, backoffs set and expiring, preemptors, a namespace filter and inadmissible-requeues, on
// a BestEffortFIFO and a StrictFIFO ClusterQueue; after every step the locations, the active and
// inadmissible lists and the counts must agree.
#include <map>
#include <set>

#include "test/engine/queue_manager_test_fixture.h"

namespace engine {
namespace {

// One ClusterQueue's rules, member by member.
struct ModelCq {
  bool best_effort = false;
  std::set<uint64_t> recorded;
  bool requeued_since_pop = false;
  std::optional<WorkloadId> preemptor;
};

bool Immediate(bool best_effort, R reason) {
  if (!best_effort) {
    return reason != R::kNamespaceMismatch;
  }
  return reason == R::kFailedAfterNomination || reason == R::kPendingPreemption
         || reason == R::kPendingMigration || reason == R::kPreemptionFailed;
}

class QueueGroupModelTest : public QueueManagerTest {
 protected:
  struct Member {
    L location = L::kNone;
    TimeMicros backoff_until = std::numeric_limits<TimeMicros>::min();
    uint64_t hash = 0;  // as of its last push
    int32_t priority = 0;
  };

  const ModelCq& CqOf(WorkloadId id) { return model_.at(store_->Get(id).cluster_queue); }
  ModelCq& MutableCqOf(WorkloadId id) { return model_.at(store_->Get(id).cluster_queue); }

  bool Sticky(WorkloadId id) {
    const ModelCq& q = CqOf(id);
    return q.best_effort && q.preemptor == id;
  }
  // Heap order: the sticky preemptor first, then priority, queue-order time, uid.
  bool Before(WorkloadId a, WorkloadId b) {
    if (Sticky(a) != Sticky(b)) {
      return Sticky(a);
    }
    if (members_[a].priority != members_[b].priority) {
      return members_[a].priority > members_[b].priority;
    }
    const Workload& wa = store_->Get(a);
    const Workload& wb = store_->Get(b);
    if (wa.queue_order_time != wb.queue_order_time) {
      return wa.queue_order_time < wb.queue_order_time;
    }
    return wa.uid() < wb.uid();
  }
  std::vector<WorkloadId> Sorted(CqId cq, L location) {
    std::vector<WorkloadId> out;
    for (const auto& [id, m] : members_) {
      if (m.location == location && store_->Get(id).cluster_queue == cq) {
        out.push_back(id);
      }
    }
    std::sort(out.begin(), out.end(), [&](WorkloadId a, WorkloadId b) { return Before(a, b); });
    return out;
  }

  void ModelPush(WorkloadId id, TimeMicros now) {
    Member& m = members_[id];
    if (m.location == L::kInflight) {
      return;
    }
    m.priority = store_->Get(id).priority;
    m.hash = ComputeSchedulingHash(store_->Get(id), cluster_);
    if (m.location == L::kActive) {
      return;  // stays in the heap, keys refreshed
    }
    const ModelCq& q = CqOf(id);
    m.location = now < m.backoff_until || (q.best_effort && q.recorded.count(m.hash) != 0)
                     ? L::kInadmissible
                     : L::kActive;
  }
  void ModelRemove(WorkloadId id) {
    if (members_[id].location == L::kNone) {
      return;  // not queued: nothing to do, the preemptor mark included
    }
    members_[id].location = L::kNone;
    if (MutableCqOf(id).preemptor == id) {
      MutableCqOf(id).preemptor.reset();
    }
  }
  std::optional<WorkloadId> ModelPop(CqId cq) {
    std::vector<WorkloadId> active = Sorted(cq, L::kActive);
    if (active.empty()) {
      return std::nullopt;
    }
    members_[active.front()].location = L::kInflight;
    model_.at(cq).requeued_since_pop = false;
    return active.front();
  }
  void ModelRequeue(WorkloadId id, R reason, TimeMicros now) {
    Member& m = members_[id];
    if (m.location == L::kNone) {
      return;
    }
    ModelCq& q = MutableCqOf(id);
    if (reason == R::kPendingPreemption || reason == R::kPendingMigration) {
      q.preemptor = id;
    } else if (q.preemptor == id) {
      q.preemptor.reset();
    }
    if (m.location == L::kInflight) {
      m.location = L::kNone;
    }
    if (now >= m.backoff_until && (Immediate(q.best_effort, reason) || q.requeued_since_pop)) {
      m.location = L::kActive;
      return;
    }
    if (m.location != L::kNone) {
      return;
    }
    m.location = L::kInadmissible;
    if (q.best_effort && (reason == R::kNoFit || reason == R::kPreemptionNoCandidates)) {
      q.recorded.insert(m.hash);
      for (auto& [other, o] : members_) {
        if (o.location == L::kActive && o.hash == m.hash
            && store_->Get(other).cluster_queue == store_->Get(id).cluster_queue) {
          o.location = L::kInadmissible;
        }
      }
    }
  }
  void ModelRequeueAll(TimeMicros now) {
    for (auto& [cq, q] : model_) {
      q.requeued_since_pop = true;
      q.recorded.clear();
    }
    for (auto& [id, m] : members_) {
      if (m.location == L::kInadmissible && now >= m.backoff_until && mismatched_.count(id) == 0) {
        m.location = L::kActive;
      }
    }
  }

  void ExpectAgree(int step) {
    for (const auto& [cq, q] : model_) {
      ASSERT_EQ(queues_->PendingActive(cq), Sorted(cq, L::kActive)) << "step " << step;
      ASSERT_EQ(queues_->PendingInadmissible(cq), Sorted(cq, L::kInadmissible)) << "step " << step;
      size_t pending = 0;
      for (const auto& [id, m] : members_) {
        pending += m.location != L::kNone && store_->Get(id).cluster_queue == cq ? 1 : 0;
      }
      ASSERT_EQ(queues_->PendingCount(cq), pending) << "step " << step;
    }
    for (const auto& [id, m] : members_) {
      ASSERT_EQ(queues_->Location(id), m.location) << "step " << step;
    }
  }

  std::map<CqId, ModelCq> model_;
  std::map<WorkloadId, Member> members_;
  std::set<WorkloadId> mismatched_;  // namespaces the filter rejects
};

TEST_F(QueueGroupModelTest, RandomOperationsMatchTheMemberByMemberRules) {
  Cq("be", "", kBestEffort);
  Cq("st", "", kStrict);
  Build();
  model_[Id("be")].best_effort = true;
  model_[Id("st")].best_effort = false;
  // While no namespace is rejected the filter is skipped, as for a ClusterQueue selecting every
  // namespace: parked groups can then come back whole.
  queues_->SetNamespaceFilter([&](CqId, const Workload& w) { return mismatched_.count(w.id) == 0; },
                              [&](CqId) { return mismatched_.empty(); });
  std::mt19937 rng(23);
  const std::vector<const char*> cpus = {"1", "2", "3"};  // with 3 priorities: up to 9 groups
  std::vector<WorkloadId> ids;
  for (int i = 0; i < 120; ++i) {
    const WorkloadId id =
        Add(Cat({"w", std::to_string(i)}), i % 4 == 0 ? "st" : "be",
            O().Prio(static_cast<int32_t>(rng() % 3))
                .At(static_cast<TimeMicros>(rng() % 6))
                .Uid(Cat({"u", std::to_string(rng() % 30), "-", std::to_string(i)}))
                .Cpu(cpus[rng() % cpus.size()]));
    ids.push_back(id);
    members_[id];
  }
  const std::vector<R> reasons = {R::kGeneric,
                                  R::kNoFit,
                                  R::kPreemptionNoCandidates,
                                  R::kPreemptionGated,
                                  R::kNamespaceMismatch,
                                  R::kFailedAfterNomination,
                                  R::kPendingPreemption,
                                  R::kPendingMigration,
                                  R::kPreemptionFailed};
  TimeMicros now = kNow;
  std::map<std::string, int> ran;
  for (int step = 0; step < 20000; ++step) {
    const WorkloadId id = ids[rng() % ids.size()];
    const L where = members_[id].location;
    switch (rng() % 10) {
      case 0:
      case 1:
        ++ran["push"];
        queues_->Push(id, now);
        ModelPush(id, now);
        break;
      case 2:
        if (where != L::kInflight) {
          ++ran["priority"];
          store_->Get(id).priority = static_cast<int32_t>(rng() % 3);
          store_->Get(id).scheduling_hash = kSchedulingHashUnknown;
          queues_->Push(id, now);
          ModelPush(id, now);
        }
        break;
      case 3:
        ++ran["remove"];
        queues_->Remove(id);
        ModelRemove(id);
        break;
      case 4:
      case 5: {
        // A cycle: each ClusterQueue's head, requeued for a random reason.
        ++cycle_;
        std::map<CqId, WorkloadId> expected;
        for (auto& [cq, q] : model_) {
          if (std::optional<WorkloadId> head = ModelPop(cq)) {
            expected[cq] = *head;
          }
        }
        std::vector<WorkloadId> heads = queues_->PopHeads(cycle_);
        ASSERT_EQ(heads.size(), expected.size()) << "step " << step;
        for (WorkloadId head : heads) {
          ASSERT_EQ(head, expected.at(store_->Get(head).cluster_queue)) << "step " << step;
          const R reason = reasons[rng() % reasons.size()];
          ++ran[Cat({"requeue ", ToString(reason)})];
          queues_->Requeue(head, reason, now, cycle_);
          ModelRequeue(head, reason, now);
        }
        break;
      }
      case 6:
        if (rng() % 3 == 0) {
          ++ran["requeue all"];
          queues_->QueueAllInadmissible(now, cycle_);
          ModelRequeueAll(now);
        }
        break;
      case 7: {
        ++ran["backoff"];
        const std::optional<TimeMicros> until =
            rng() % 2 == 0
                ? std::optional<TimeMicros>(now + static_cast<TimeMicros>(rng() % 5) * kSecond)
                : std::nullopt;
        queues_->SetRequeueState(id, until, false);
        members_[id].backoff_until = until.value_or(std::numeric_limits<TimeMicros>::min());
        break;
      }
      case 8:
        now += kSecond;
        if (rng() % 16 == 0) {
          ++ran["namespaces all match"];
          mismatched_.clear();
        } else if (rng() % 4 == 0) {
          ++ran["namespace"];
          if (mismatched_.count(id) != 0) {
            mismatched_.erase(id);
          } else {
            mismatched_.insert(id);
          }
        }
        break;
      case 9:
        if (rng() % 2 == 0) {
          ++ran["preemptor"];
          const CqId cq = store_->Get(id).cluster_queue;
          queues_->SetPreemptor(cq, id);
          model_.at(cq).preemptor = id;
        }
        break;
    }
    ExpectAgree(step);
  }
  // Every kind of step ran. (That parked groups come back both whole and member by member here
  // was shown by mutation runs: breaking either way fails this test; docs/queues.md §10.)
  EXPECT_GT(ran["requeue NoFit"], 100);
  EXPECT_GT(ran["requeue all"], 100);
  EXPECT_GT(ran["backoff"], 500);
  EXPECT_GT(ran["namespace"], 100);
  EXPECT_GT(ran["namespaces all match"], 50);
  EXPECT_GT(ran["preemptor"], 100);
  EXPECT_GT(ran["priority"], 500);
}

// A workload alone with its hash sits in the heap without a group; when a second one comes the
// group is made, and its backoff bound must include the first one's backoff: parked together and
// requeued before that backoff ends, the first stays and the second comes back.
TEST_F(QueueManagerTest, AGroupMadeFromASingletonKeepsItsBackoff) {
  Cq("cq");
  Build();
  WorkloadId first = Push("first", "cq", O().At(1));
  queues_->SetRequeueState(first, kNow + 10 * kSecond, false);  // while it is active
  WorkloadId second = Push("second", "cq", O().At(2));
  WorkloadId head = Push("head", "cq", O().At(0));  // same hash, first in line
  ASSERT_EQ(PopOne("cq"), head);
  queues_->Requeue(head, R::kNoFit, kNow, cycle_);  // parks first and second with it
  ASSERT_EQ(queues_->Location(first), L::kInadmissible);
  ASSERT_EQ(queues_->Location(second), L::kInadmissible);
  queues_->QueueAllInadmissible(kNow + kSecond, cycle_);
  EXPECT_EQ(queues_->Location(first), L::kInadmissible);
  EXPECT_EQ(queues_->Location(second), L::kActive);
  EXPECT_EQ(queues_->Location(head), L::kActive);
  queues_->QueueAllInadmissible(kNow + 10 * kSecond, cycle_);
  EXPECT_EQ(queues_->Location(first), L::kActive);
  EXPECT_EQ(Active("cq"), (V{"head", "first", "second"}));
}

}  // namespace
}  // namespace engine
