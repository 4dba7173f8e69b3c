#include "engine/queue_manager.h"

#include <algorithm>
#include <utility>

#include "engine/base/check.h"
#include "engine/base/phase_profile.h"
#include "engine/cluster.h"
#include "engine/scheduling_hash.h"
#include "engine/workload.h"
#include "engine/workload_store.h"

namespace engine {

const char* ToString(RequeueReason reason) {
  switch (reason) {
    case RequeueReason::kGeneric:
      return "Generic";
    case RequeueReason::kNoFit:
      return "NoFit";
    case RequeueReason::kPreemptionNoCandidates:
      return "PreemptionNoCandidates";
    case RequeueReason::kPreemptionGated:
      return "PreemptionGated";
    case RequeueReason::kNamespaceMismatch:
      return "NamespaceMismatch";
    case RequeueReason::kFailedAfterNomination:
      return "FailedAfterNomination";
    case RequeueReason::kPendingPreemption:
      return "PendingPreemption";
    case RequeueReason::kPendingMigration:
      return "PendingMigration";
    case RequeueReason::kPreemptionFailed:
      return "PreemptionFailed";
  }
  return "?";
}

const char* ToString(QueueLocation location) {
  switch (location) {
    case QueueLocation::kNone:
      return "None";
    case QueueLocation::kActive:
      return "Active";
    case QueueLocation::kInadmissible:
      return "Inadmissible";
    case QueueLocation::kInflight:
      return "Inflight";
    case QueueLocation::kOrphan:
      return "Orphan";
  }
  return "?";
}

bool QueueOrderLess(const Workload& a, const Workload& b) {
  if (a.priority != b.priority) {
    return a.priority > b.priority;
  }
  if (a.queue_order_time != b.queue_order_time) {
    return a.queue_order_time < b.queue_order_time;
  }
  return a.uid() < b.uid();
}

namespace {

constexpr TimeMicros kNever = std::numeric_limits<TimeMicros>::max();
constexpr TimeMicros kExpired = std::numeric_limits<TimeMicros>::min();

// §9.1 backoffWaitingTimeExpired, as a time from which the backoff counts as expired.
TimeMicros BackoffUntil(std::optional<TimeMicros> requeue_at, bool requeued_false) {
  if (requeue_at) {
    return *requeue_at;
  }
  return requeued_false ? kNever : kExpired;
}

// §5.2 RequeueIfNotPresent: the reasons that requeue immediately, by queueing strategy.
bool ImmediateByReason(bool best_effort, RequeueReason reason) {
  if (!best_effort) {
    return reason != RequeueReason::kNamespaceMismatch;
  }
  switch (reason) {
    case RequeueReason::kFailedAfterNomination:
    case RequeueReason::kPendingPreemption:
    case RequeueReason::kPendingMigration:
    case RequeueReason::kPreemptionFailed:
      return true;
    case RequeueReason::kGeneric:
    case RequeueReason::kNoFit:
    case RequeueReason::kPreemptionNoCandidates:
    case RequeueReason::kPreemptionGated:
    case RequeueReason::kNamespaceMismatch:
      return false;
  }
  return false;
}

}  // namespace

QueueManager::QueueManager(const Cluster& cluster, WorkloadStore& store)
    : cluster_(cluster), store_(store) {}

QueueManager::~QueueManager() = default;

// --- State helpers -------------------------------------------------------------------------

QueueManager::Entry& QueueManager::EnsureEntry(WorkloadId id) {
  if (Index(id) >= entries_.size()) [[unlikely]] {
    entries_.resize(std::max<size_t>(Index(id) + 1, store_.size()));
  }
  return entries_[Index(id)];
}

void QueueManager::GrowCqs(CqId cq) {
  const size_t old_size = cqs_.size();
  cqs_.resize(std::max<size_t>(Index(cq) + 1, cluster_.num_cluster_queues()));
  for (size_t i = old_size; i < cqs_.size(); ++i) {
    requeue_work_.Set(i, true);  // not requeued since its (absent) last pop
  }
}

const QueueManager::CqQueue* QueueManager::FindCq(CqId cq) const {
  return Index(cq) < cqs_.size() ? &cqs_[Index(cq)] : nullptr;
}

bool QueueManager::IsBestEffort(CqId cq) const {
  return cluster_.Exists(cq)
         && cluster_.Spec(cq).queueing_strategy == QueueingStrategy::kBestEffortFifo;
}

void QueueManager::LoadKeys(WorkloadId id, Entry& e) {
  Workload& w = store_.Get(id);
  if (w.scheduling_hash == kSchedulingHashUnknown) {
    w.scheduling_hash = scheduling_hasher_.Compute(w, cluster_);
  }
  e.priority = w.priority;
  e.order_time = w.queue_order_time;
  e.hash = w.scheduling_hash;
  if (!e.backoff_overridden && w.spec != nullptr) {
    const ConditionSpec* requeued = w.spec->Condition("Requeued");
    e.backoff_until = BackoffUntil(w.spec->requeue_at, requeued != nullptr && !requeued->status);
  }
}

bool QueueManager::LocalQueueStopped(const Workload& w) const {
  if (w.spec == nullptr || !cluster_.AnyLocalQueueStopped()) {
    return false;
  }
  const LocalQueueSpec* lq = cluster_.FindLocalQueue(w.spec->name_space, w.local_queue());
  return lq != nullptr && lq->stop_policy != StopPolicy::kNone;
}

std::string QueueManager::OrphanKey(const Workload& w) const {
  std::string key = w.spec != nullptr ? w.spec->name_space.str() : std::string();
  key += '/';
  key += w.local_queue();
  return key;
}

// --- Preemptor -----------------------------------------------------------------------------

void QueueManager::ClearPreemptor(CqQueue& q) {
  WorkloadId old = q.preemptor;
  q.preemptor = kInvalidId<WorkloadId>;
  q.preemptor_sticky = false;
  if (IsValid(old) && Index(old) < entries_.size()) {
    const Entry& e = entries_[Index(old)];
    if (e.location == QueueLocation::kActive && &cqs_[Index(e.cq)] == &q) {
      Fix(old);
    }
  }
}

void QueueManager::SetPreemptor(CqId cq, WorkloadId id) {
  CqQueue& q = EnsureCq(cq);
  // The sticky preemptor sorts first: the heap's order changes, and the head left in it is erased
  // first. Unless that head itself becomes (or stays) the preemptor with no other to clear: it
  // sorts first, and it is first already.
  if (q.held != id || (IsValid(q.preemptor) && q.preemptor != id)) {
    Settle(q);
  }
  ClearPreemptor(q);
  q.preemptor = id;
  q.preemptor_sticky = IsBestEffort(cq);
  const Entry& e = EnsureEntry(id);
  if (e.location == QueueLocation::kActive && e.cq == cq) {
    Fix(id);
  }
}

std::optional<WorkloadId> QueueManager::Preemptor(CqId cq) const {
  const CqQueue* q = FindCq(cq);
  if (q == nullptr || !IsValid(q->preemptor)) {
    return std::nullopt;
  }
  return q->preemptor;
}

// --- Public operations ---------------------------------------------------------------------

void QueueManager::Push(WorkloadId id, TimeMicros now) {
  PhaseScope profile(Phase::kQueue);
  Entry& e = EnsureEntry(id);
  if (e.location == QueueLocation::kInflight) {
    return;  // the end-of-cycle Requeue places it (Kueue: HasInflight)
  }
  const Workload& w = store_.Get(id);
  const CqId cq = w.cluster_queue;
  SettleCq(cq);    // the heap it goes to
  SettleCq(e.cq);  // the one it may leave
  const bool valid_cq = IsValid(cq) && Index(cq) < cluster_.num_cluster_queues()
                        && cluster_.Exists(cq) && !LocalQueueStopped(w);
  if (e.location == QueueLocation::kOrphan
      || (e.location != QueueLocation::kNone && (!valid_cq || e.cq != cq))) {
    Remove(id);  // reassigned to another queue, or its queue vanished: placed afresh below
  }
  if (!valid_cq) {
    LoadKeys(id, e);
    std::string key = OrphanKey(w);
    orphans_[key].insert(id);
    orphan_keys_.emplace(id, std::move(key));
    e.location = QueueLocation::kOrphan;
    e.cq = kInvalidId<CqId>;
    return;
  }
  CqQueue& q = EnsureCq(cq);
  if (e.location == QueueLocation::kActive) {
    const bool parked = e.group != kSingleton && groups_[e.group].parked;
    HeapErase(id);
    if (!parked) {
      // An update of a heap member: it stays in the heap, with its keys (and hash) refreshed.
      LoadKeys(id, e);
      HeapPush(cq, id);
      return;
    }
    // A member of a parked group is inadmissible: placed afresh below.
  }
  if (e.location == QueueLocation::kInadmissible) {
    InadmissibleErase(q, id);
  }
  LoadKeys(id, e);
  if (!BackoffExpired(e, now) || (IsBestEffort(cq) && q.recorded_hashes.count(e.hash) != 0)) {
    InadmissibleInsert(cq, id);
    return;
  }
  HeapPush(cq, id);
}

void QueueManager::Remove(WorkloadId id) {
  PhaseScope profile(Phase::kQueue);
  if (Index(id) >= entries_.size()) {
    return;
  }
  Entry& e = entries_[Index(id)];
  SettleCq(e.cq);
  switch (e.location) {
    case QueueLocation::kNone:
      return;
    case QueueLocation::kActive:
      HeapErase(id);
      break;
    case QueueLocation::kInadmissible:
      InadmissibleErase(cqs_[Index(e.cq)], id);
      break;
    case QueueLocation::kInflight:
      --cqs_[Index(e.cq)].inflight;
      e.location = QueueLocation::kNone;
      break;
    case QueueLocation::kOrphan: {
      auto key = orphan_keys_.find(id);
      TALLY_CHECK(key != orphan_keys_.end());
      auto it = orphans_.find(key->second);
      TALLY_CHECK(it != orphans_.end());
      it->second.erase(id);
      if (it->second.empty()) {
        orphans_.erase(it);
      }
      orphan_keys_.erase(key);
      e.location = QueueLocation::kNone;
      return;
    }
  }
  CqQueue& q = cqs_[Index(e.cq)];
  if (q.preemptor == id) {
    ClearPreemptor(q);
  }
}

void QueueManager::Forget(WorkloadId id) {
  Remove(id);
  if (Index(id) >= entries_.size()) {
    return;
  }
  Entry& e = entries_[Index(id)];
  if (IsValid(e.cq) && Index(e.cq) < cqs_.size() && cqs_[Index(e.cq)].preemptor == id) {
    ClearPreemptor(cqs_[Index(e.cq)]);
  }
  e = Entry{};
}

const std::vector<CqId>& QueueManager::CqsByName() {
  if (cqs_by_name_.size() != cluster_.num_cluster_queues()) [[unlikely]] {
    cqs_by_name_.clear();
    for (uint32_t i = 0; i < cluster_.num_cluster_queues(); ++i) {
      cqs_by_name_.push_back(MakeId<CqId>(i));
    }
    std::sort(cqs_by_name_.begin(), cqs_by_name_.end(),
              [&](CqId a, CqId b) { return cluster_.Name(a) < cluster_.Name(b); });
    name_rank_.assign(cqs_by_name_.size(), 0);
    for (uint32_t r = 0; r < cqs_by_name_.size(); ++r) {
      name_rank_[Index(cqs_by_name_[r])] = r;
    }
  }
  return cqs_by_name_;
}

std::vector<WorkloadId> QueueManager::PopHeads(int64_t cycle) {
  std::vector<WorkloadId> heads;
  PopHeads(cycle, heads);
  return heads;
}

void QueueManager::PopHeads(int64_t cycle, std::vector<WorkloadId>& heads) {
  PhaseScope profile(Phase::kQueue);
  heads.clear();
  SettleAll();  // heads of the last cycle still in a heap (dropped by the caller, not requeued)
  // The ClusterQueues with a non-empty heap, from the bitset, in name order (usually a few of
  // many): no pass over every ClusterQueue.
  const std::vector<CqId>& by_name = CqsByName();
  pop_ranks_.clear();
  nonempty_heaps_.ForEach([&](size_t i) {
    if (i < name_rank_.size()) {
      pop_ranks_.push_back(name_rank_[i]);
    }
  });
  std::sort(pop_ranks_.begin(), pop_ranks_.end());
  for (uint32_t rank : pop_ranks_) {
    const CqId cq = by_name[rank];
    CqQueue& q = cqs_[Index(cq)];
    // An empty heap is skipped without Kueue's popCycle increment: no workload of this CQ is in
    // flight, so no later Requeue can observe the difference.
    if (q.heap.empty() || !cluster_.Exists(cq) || cluster_.Inactive(cq) != InactiveReason::kNone) {
      continue;
    }
    WorkloadId head = q.heap.front().id;
    Entry& e = entries_[Index(head)];
    // Out of the counts, but left in the heap: Requeue may put it back as it was (Settle).
    --q.active;
    --active_count_;
    q.held = head;
    ++held_count_;
    held_cqs_.push_back(cq);
    e.location = QueueLocation::kInflight;
    e.cq = cq;
    ++q.inflight;
    q.requeued_since_pop = false;
    MarkRequeueWork(cq);
    q.last_pop_cycle = cycle;
    heads.push_back(head);
  }
}

void QueueManager::Requeue(WorkloadId id, RequeueReason reason, TimeMicros now, int64_t cycle) {
  PhaseScope profile(Phase::kQueue);
  if (Index(id) >= entries_.size()) {
    return;
  }
  Entry& e = entries_[Index(id)];
  if (e.location == QueueLocation::kNone || e.location == QueueLocation::kOrphan) {
    return;  // deleted, admitted or deactivated since the pop (Kueue: RequeueWorkload)
  }
  const CqId cq = e.cq;
  CqQueue& q = cqs_[Index(cq)];
  TALLY_DCHECK(e.location != QueueLocation::kInflight || cycle >= q.last_pop_cycle);
  (void)cycle;
  if (q.held == id) {
    // Back where it was when nothing else touched the heap since the pop, the preemptor does not
    // change (it stays this head, or it neither was nor becomes it) and the requeue is immediate
    // (the same test as below). A head preempting cycle after cycle is the first case.
    const bool sets_preemptor =
        reason == RequeueReason::kPendingPreemption || reason == RequeueReason::kPendingMigration;
    const bool preemptor_kept = sets_preemptor
                                    ? q.preemptor == id && q.preemptor_sticky == IsBestEffort(cq)
                                    : q.preemptor != id;
    if (preemptor_kept && BackoffExpired(e, now)
        && (ImmediateByReason(IsBestEffort(cq), reason) || q.requeued_since_pop
            || store_.Get(id).scan->HasPendingFlavors())) {
      q.held = kInvalidId<WorkloadId>;
      --held_count_;
      --q.inflight;
      ++q.active;
      ++active_count_;
      e.location = QueueLocation::kActive;
      if (e.group != kSingleton) {
        Group& g = groups_[e.group];  // what HeapPush does to the bound of its group
        g.max_backoff_until = std::max(g.max_backoff_until, e.backoff_until);
      }
      return;
    }
  }
  Settle(q);
  // §5.5 step 7: the preemptor is (re)set on PendingPreemption / PendingMigration and cleared by
  // any other outcome.
  if (reason == RequeueReason::kPendingPreemption || reason == RequeueReason::kPendingMigration) {
    SetPreemptor(cq, id);
  } else if (q.preemptor == id) {
    ClearPreemptor(q);
  }
  if (e.location == QueueLocation::kInflight) {
    --q.inflight;
    e.location = QueueLocation::kNone;
  }
  const bool best_effort = IsBestEffort(cq);
  const Workload& w = store_.Get(id);
  if (BackoffExpired(e, now)
      && (ImmediateByReason(best_effort, reason) || q.requeued_since_pop
          || w.scan->HasPendingFlavors())) {
    if (e.location == QueueLocation::kInadmissible) {
      InadmissibleErase(q, id);
    }
    if (e.location == QueueLocation::kNone) {
      HeapPush(cq, id);
    }
    return;
  }
  if (e.location != QueueLocation::kNone) {
    return;  // already queued (pushed again during the cycle)
  }
  InadmissibleInsert(cq, id);
  if (best_effort
      && (reason == RequeueReason::kNoFit || reason == RequeueReason::kPreemptionNoCandidates)) {
    q.recorded_hashes.insert(e.hash);
    MarkRequeueWork(cq);
    BulkMoveHash(cq, e.hash);
  }
}

void QueueManager::RequeueOne(CqId cq, TimeMicros now, int64_t cycle) {
  CqQueue& q = EnsureCq(cq);
  q.requeued_since_pop = true;
  q.last_requeue_cycle = cycle;
  if (!q.recorded_hashes.empty()) {
    q.recorded_hashes.clear();  // clear() resets every bucket even when empty
  }
  if (q.parked.empty() && q.inadmissible.empty()) {
    requeue_work_.Set(Index(cq), false);
    return;
  }
  const bool filter =
      namespace_filter_ && !(selects_all_namespaces_ && selects_all_namespaces_(cq));
  if (!q.parked.empty()) {
    parked_scratch_.swap(q.parked);
    for (uint32_t group : parked_scratch_) {
      UnparkGroup(cq, group, now, filter);
    }
    parked_scratch_.clear();
  }
  if (q.inadmissible.empty()) {
    return;
  }
  scratch_.clear();
  for (WorkloadId id : q.inadmissible) {
    const Entry& e = entries_[Index(id)];
    if (BackoffExpired(e, now) && (!filter || namespace_filter_(cq, store_.Get(id)))) {
      scratch_.push_back(id);
    }
  }
  for (WorkloadId id : scratch_) {
    InadmissibleErase(q, id);
  }
  HeapPushMany(cq, scratch_);
  // Workloads still in backoff (or another namespace) stay: the next requeue looks again.
  requeue_work_.Set(Index(cq), !q.parked.empty() || !q.inadmissible.empty());
}

const std::vector<CqId>& QueueManager::ClusterQueuesUnder(NodeId root) {
  const ResourceTree& tree = cluster_.tree();
  if (tree_members_.size() <= Index(root)) {
    tree_members_.resize(Index(root) + 1);
  }
  TreeMembers& m = tree_members_[Index(root)];
  if (m.structure_version == tree.structure_version()
      && m.config_version == cluster_.config_version()) {
    return m.cluster_queues;
  }
  m.structure_version = tree.structure_version();
  m.config_version = cluster_.config_version();
  m.cluster_queues.clear();
  // Depth-first over the root's subtree; children of a cohort are CQs and cohorts.
  std::vector<NodeId> stack{root};
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (cluster_.IsClusterQueueNode(n)) {
      CqId member = cluster_.NodeClusterQueue(n);
      if (cluster_.Exists(member)) {
        m.cluster_queues.push_back(member);
      }
      continue;
    }
    for (NodeId child : tree.Children(n)) {
      stack.push_back(child);
    }
  }
  return m.cluster_queues;
}

void QueueManager::QueueInadmissible(CqId cq, TimeMicros now, int64_t cycle) {
  PhaseScope profile(Phase::kQueue);
  SettleAll();
  const ResourceTree& tree = cluster_.tree();
  NodeId node = cluster_.ClusterQueueNode(cq);
  if (!IsValid(node) || tree.InCycle(node)) {
    return;  // Kueue ignores cohort trees with a cycle until the cycle is removed
  }
  if (cqs_.size() < cluster_.num_cluster_queues()) {
    GrowCqs(MakeId<CqId>(cluster_.num_cluster_queues() - 1));  // new ones have work: see GrowCqs
  }
  const NodeId root = tree.Root(node);
  for (CqId member : ClusterQueuesUnder(root)) {
    if (requeue_work_.Test(Index(member))) {
      RequeueOne(member, now, cycle);
    }
  }
  tree_members_[Index(root)].last_requeue_cycle = cycle;
}

void QueueManager::QueueAllInadmissible(TimeMicros now, int64_t cycle) {
  PhaseScope profile(Phase::kQueue);
  SettleAll();
  for (uint32_t i = 0; i < cluster_.num_cluster_queues(); ++i) {
    CqId cq = MakeId<CqId>(i);
    if (cluster_.Exists(cq) && !cluster_.tree().InCycle(cluster_.ClusterQueueNode(cq))) {
      EnsureCq(cq).last_requeue_cycle = cycle;  // RequeueOne may be skipped below
      if (requeue_work_.Test(i)) {
        RequeueOne(cq, now, cycle);
      }
    }
  }
}

void QueueManager::SetRequeueState(WorkloadId id, std::optional<TimeMicros> requeue_at,
                                   bool requeued_false) {
  SettleAll();
  Entry& e = EnsureEntry(id);
  e.backoff_overridden = true;
  e.backoff_until = BackoffUntil(requeue_at, requeued_false);
  if (e.location == QueueLocation::kActive && e.group != kSingleton) {
    Group& g = groups_[e.group];  // its bound must cover the new backoff (UnparkGroup)
    g.max_backoff_until = std::max(g.max_backoff_until, e.backoff_until);
  }
}

std::vector<WorkloadId> QueueManager::AdoptOrphans() {
  SettleAll();
  std::vector<WorkloadId> adopted;
  for (auto it = orphans_.begin(); it != orphans_.end();) {
    const Workload& first = store_.Get(*it->second.begin());
    std::optional<CqId> cq = store_.ResolveQueue(first.spec->name_space, first.local_queue());
    if (!cq || LocalQueueStopped(first)) {
      ++it;
      continue;
    }
    for (WorkloadId id : it->second) {
      store_.Get(id).cluster_queue = *cq;
      entries_[Index(id)].location = QueueLocation::kNone;
      orphan_keys_.erase(id);
      HeapPush(*cq, id);
      adopted.push_back(id);
    }
    it = orphans_.erase(it);
  }
  std::sort(adopted.begin(), adopted.end());
  return adopted;
}

}  // namespace engine
