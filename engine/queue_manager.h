// File: engine/queue_manager.h
//
// Kueue's queue manager (kueue-semantics.md §5.1, §5.2, §9.1, §9.6): per ClusterQueue an active
// heap, an inadmissible set and the popped ("in-flight") heads, plus the rules that move
// workloads between them.
//
//   QueueManager queues(cluster, store);
//   queues.Push(id, now);                        // a pending workload arrives
//   for (WorkloadId head : queues.PopHeads(cycle)) {
//     ... nominate / admit ...
//     if (admitted) queues.Remove(head);
//     else queues.Requeue(head, RequeueReason::kNoFit, now, cycle);
//   }
//   queues.QueueInadmissible(cq, now, cycle);    // after a workload of cq's cohort tree finished
//
// Rules mirrored (Kueue pkg/cache/queue: cluster_queue.go, manager.go, inadmissible_workloads.go):
//  - heap order: the CQ's sticky preemptor first (BestEffortFIFO), higher priority, earlier
//    queue-order time, smaller uid; the WorkloadId breaks exact ties so the order is total;
//  - Push: a workload whose backoff has not expired, or (BestEffortFIFO) whose scheduling hash is
//    recorded as inadmissible, goes straight to the inadmissible set; a popped workload is not
//    touched (the end-of-cycle Requeue places it);
//  - Requeue: immediate iff the backoff expired and (strategy/reason rule, or an
//    inadmissible-requeue ran on the CQ since its last pop, or the flavor scan has pending
//    flavors); PendingPreemption / PendingMigration make the workload the CQ's preemptor, any
//    other reason clears it if it was; NoFit / PreemptionNoCandidates into the inadmissible set
//    of a BestEffortFIFO CQ record the hash and park every heap workload with that hash;
//  - QueueInadmissible: the whole root-cohort tree (nothing for a tree with a cycle), only
//    workloads whose backoff expired (and whose namespace still matches, see
//    SetNamespaceFilter), clearing the hash records.
//
// "Since its last pop" is decided by the order of calls, as Kueue's per-CQ popCycle counter does;
// the `cycle` arguments are only recorded (LastPopCycle / LastInadmissibleRequeueCycle).
//
// Backoff (§9.1): read from the spec at every Push — `status.requeueState.requeueAt`;
// Requeued=False without a requeueAt means "never" until SetRequeueState. With Requeued=False and a
// requeueAt, the backoff ends at requeueAt (Kueue's workload controller flips Requeued then).
// Expired iff now >= requeueAt. At backoff end the caller Pushes the workload again (Kueue's
// controller does), which moves it from the inadmissible set to the heap.
//
// A popped head stays where it is in its heap until something else touches that ClusterQueue
// (Settle erases it then; PopHeads counts it out of the heap at once): most heads of a congested
// tree go straight back by Requeue, and erasing then pushing each again was 6 % of the 16-tree
// trace's instructions (1.02 million pops, 775,000 of them pushed back). A Requeue that puts the
// head back unchanged (immediately; the preemptor stays this head, or neither was nor becomes it;
// nothing else touched its ClusterQueue since the pop) only marks it active again: 4.2 % of those
// instructions saved. Because the heap order is total, the heads that pop later depend only on
// the set of members, never on the heaps' layout, so this changes no decision.
//
// Complexity (queue_heap.cc: the active workloads of a CQ in groups of one scheduling hash, a
// heap of groups over heaps of members): Push, Remove, Requeue, SetPreemptor: O(log n + log g) for
// n in the group and g groups (plus one hash map operation); a hash bulk move parks the whole
// group, O(log g); PopHeads O(#CQ + h (log n + log g)) for h heads; QueueInadmissible O(#CQs in
// the tree + parked groups + workloads parked one by one), a group coming back whole in O(log g);
// a ClusterQueue with nothing to requeue costs one bit test (requeue_work_).
// Hot paths compare integers only, except the uid tie-break.
//
// Thread safety: none; owned by one shard, like the Cluster and WorkloadStore it borrows.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/base/chunked_vector.h"
#include "engine/base/dense_bitset.h"
#include "engine/base/ids.h"
#include "engine/hash_group_index.h"
#include "engine/scheduling_hash.h"
#include "engine/workload_spec.h"

namespace engine {

class Cluster;
class WorkloadStore;
struct Workload;

// Why a popped head was not admitted (§5.2). Kueue's RequeueReasonGeneric is the empty string.
enum class RequeueReason : uint8_t {
  kGeneric,
  kNoFit,
  kPreemptionNoCandidates,
  kPreemptionGated,
  kNamespaceMismatch,
  kFailedAfterNomination,
  kPendingPreemption,
  kPendingMigration,
  kPreemptionFailed,
};
const char* ToString(RequeueReason reason);

// Where the queue manager holds a workload.
enum class QueueLocation : uint8_t {
  kNone,          // not queued (never pushed, removed, admitted)
  kActive,        // in its CQ's heap
  kInadmissible,  // parked until an inadmissible-requeue
  kInflight,      // popped by PopHeads, waiting for Requeue or Remove
  kOrphan,        // its LocalQueue or ClusterQueue does not exist
};
const char* ToString(QueueLocation location);

// Heap order keys 1-3 of §5.1: higher priority, earlier queue_order_time, smaller uid (string
// compare). Key 0 (the sticky preemptor) is per-CQ state and applied by the QueueManager.
bool QueueOrderLess(const Workload& a, const Workload& b);

class QueueManager {
 public:
  // Returns whether `workload`'s namespace still matches `cq`'s namespaceSelector.
  using NamespaceFilter = std::function<bool(CqId cq, const Workload& workload)>;
  // Push() without a time: the requeueAt of the backoff counts as expired.
  static constexpr TimeMicros kNoBackoffCheck = std::numeric_limits<TimeMicros>::max();

  QueueManager(const Cluster& cluster, WorkloadStore& store);
  QueueManager(const QueueManager&) = delete;
  QueueManager& operator=(const QueueManager&) = delete;
  QueueManager(QueueManager&&) = delete;  // borrows the Cluster and WorkloadStore
  QueueManager& operator=(QueueManager&&) = delete;
  ~QueueManager();

  // A pending workload enters its ClusterQueue: the heap, or the inadmissible set (backoff not
  // expired at `now`; BestEffortFIFO with a recorded hash). An invalid or deleted cluster_queue,
  // or a LocalQueue with a stopPolicy (§2.4), makes it an orphan of its LocalQueue
  // "namespace/queueName" (after a LocalQueue stops, Push its workloads again). Computes
  // Workload::scheduling_hash if unset. Pushing a queued workload again re-reads its priority,
  // order time and backoff and re-places it (Kueue's PushOrUpdate after an update); pushing an
  // in-flight one does nothing.
  void Push(WorkloadId id, TimeMicros now = kNoBackoffCheck);
  // Drops the workload from wherever it is queued (deleted, admitted, deactivated) and clears it
  // as preemptor. No-op if not queued.
  void Remove(WorkloadId id);
  // Remove, and drop everything known about the workload (preemptor mark, backoff override):
  // before WorkloadStore::Erase, whose id may then be reused.
  void Forget(WorkloadId id);

  // Pops one head per ClusterQueue that exists, is active (Cluster::Inactive == kNone) and has a
  // non-empty heap, in ascending CQ name order. The heads become in-flight.
  std::vector<WorkloadId> PopHeads(int64_t cycle);
  // The same into `heads` (cleared first), whose storage a caller keeps across cycles.
  void PopHeads(int64_t cycle, std::vector<WorkloadId>& heads);

  // End-of-cycle requeue of a head that was not admitted (§5.2); see the file comment. No-op for a
  // workload that is no longer queued (removed since the pop). `cycle` is only checked.
  void Requeue(WorkloadId id, RequeueReason reason, TimeMicros now, int64_t cycle);

  // Moves the inadmissible workloads of every CQ in the cohort tree containing `cq` (or of the
  // lone CQ) back to their heaps when their backoff expired at `now` and their namespace matches;
  // clears those CQs' hash records and marks them requeued since their last pop. Callers apply
  // Kueue's 1 s batch delay. Does nothing for a tree with a cycle.
  void QueueInadmissible(CqId cq, TimeMicros now, int64_t cycle);
  void QueueAllInadmissible(TimeMicros now, int64_t cycle);

  // The CQ's preemptor (§5.5 step 7). In a BestEffortFIFO CQ it sorts first in the heap until it
  // leaves the queue or another becomes preemptor. Requeue with PendingPreemption or
  // PendingMigration calls this itself.
  void SetPreemptor(CqId cq, WorkloadId id);
  std::optional<WorkloadId> Preemptor(CqId cq) const;

  // Overrides the backoff read from the spec (§9.1), e.g. after an eviction. `requeue_at` is
  // nullopt when not set; `requeued_false` is the Requeued=False condition. Takes effect at the
  // next placement decision (Push, Requeue, QueueInadmissible).
  void SetRequeueState(WorkloadId id, std::optional<TimeMicros> requeue_at, bool requeued_false);
  // Namespace check of QueueInadmissible; none set = every namespace matches.
  // `selects_all(cq)` true means every namespace matches cq's selector: the filter is then not
  // called (it reads each workload, one cache miss per inadmissible workload per requeue).
  using SelectsAllNamespaces = std::function<bool(CqId cq)>;
  void SetNamespaceFilter(NamespaceFilter filter, SelectsAllNamespaces selects_all = nullptr) {
    namespace_filter_ = std::move(filter);
    selects_all_namespaces_ = std::move(selects_all);
  }

  // Re-resolves every orphan's LocalQueue (WorkloadStore::ResolveQueue; a stopped one does not
  // resolve), sets its cluster_queue and puts the resolved ones straight into their heaps (Kueue's
  // AddFromLocalQueue, which checks neither backoff nor hashes). Returns them in id order.
  std::vector<WorkloadId> AdoptOrphans();

  // --- Introspection (output, tests) ---
  std::vector<WorkloadId> PendingActive(CqId cq) const;        // heap order
  std::vector<WorkloadId> PendingInadmissible(CqId cq) const;  // queue order
  // Active + inadmissible + in-flight.
  size_t PendingCount(CqId cq) const;
  bool HasActive() const { return active_count_ != 0; }  // any heap non-empty
  size_t ActiveCount() const { return active_count_; }   // workloads in all heaps
  QueueLocation Location(WorkloadId id) const;
  size_t OrphanCount() const { return orphan_keys_.size(); }
  std::vector<WorkloadId> Orphans(std::string_view local_queue_key) const;  // "ns/name"
  bool HashRecorded(CqId cq, uint64_t hash) const;
  int64_t LastPopCycle(CqId cq) const;
  int64_t LastInadmissibleRequeueCycle(CqId cq) const;

 private:
  // A heap element carries its order keys inline: sifting never leaves the heap's array except
  // for the rare uid tie-break.
  struct HeapNode {
    int64_t order_time;
    int32_t priority;
    WorkloadId id;
  };
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  // Entry::group of the only active member of its hash in its CQ: it sits in the CQ's heap by
  // itself (Entry::pos is its slot there) until a second one comes and a group is made.
  static constexpr uint32_t kSingleton = UINT32_MAX - 1;
  // In group_index_: the value is a WorkloadId (a singleton), not a group.
  static constexpr uint32_t kSingletonTag = uint32_t{1} << 31;
  // Per workload, 48 bytes (members ordered by size: no padding holes).
  struct Entry {
    int64_t order_time = 0;                                             // heap key 2
    TimeMicros backoff_until = std::numeric_limits<TimeMicros>::min();  // max = never
    uint64_t hash = 0;                                                  // scheduling hash
    CqId cq = kInvalidId<CqId>;
    // kActive: index in its group's heap; kInadmissible outside a group: index in the CQ's
    // inadmissible vector.
    uint32_t pos = 0;
    // kActive: its group (a parked group's members read kInadmissible), or kSingleton.
    uint32_t group = kNoGroup;
    int32_t priority = 0;  // heap key 1
    QueueLocation location = QueueLocation::kNone;
    bool backoff_overridden = false;  // set by SetRequeueState
  };
  static_assert(sizeof(Entry) == 48);
  // The queued workloads of one ClusterQueue with one scheduling hash (§9.6), in a heap of their
  // own. A NoFit head parks its whole group, and an inadmissible-requeue brings it back, by
  // moving the group, not its members: Kueue's perf configs submit thousands of equivalent
  // workloads per ClusterQueue, and these two moves of every member were 18 % of `baseline`.
  struct Group {
    uint64_t hash = 0;
    CqId cq{};
    std::vector<HeapNode> heap;  // by Before, the CQ's sticky preemptor first
    uint32_t slot = kNoGroup;    // index in its CqQueue's group heap; kNoGroup when not there
    bool parked = false;         // moved to the inadmissible set whole (BulkMoveHash)
    bool touched = false;        // HeapPushMany's scratch mark
    // No member's backoff ends later (an upper bound, exact when the group was made): an
    // inadmissible-requeue at or after it brings the group back without reading its members.
    TimeMicros max_backoff_until = std::numeric_limits<TimeMicros>::min();
  };
  // A group in its ClusterQueue's heap is its head's node (a copy: sifting reads no group); the
  // head's Entry::group says which group, or kSingleton.
  using GroupNode = HeapNode;
  struct CqQueue {
    std::vector<GroupNode> heap;                   // groups with members, by their heads (Before)
    std::vector<uint32_t> parked;                  // parked groups
    uint32_t active = 0;                           // members of the groups in `heap`
    uint32_t parked_members = 0;                   // members of the parked groups
    std::vector<WorkloadId> inadmissible;          // parked one by one
    std::unordered_set<uint64_t> recorded_hashes;  // §9.6 hashToBulkMoveReason
    uint32_t inflight = 0;
    WorkloadId preemptor = kInvalidId<WorkloadId>;
    bool preemptor_sticky = false;
    bool requeued_since_pop = false;  // Kueue: queueInadmissibleCycle >= popCycle
    int64_t last_pop_cycle = -1;
    int64_t last_requeue_cycle = -1;
    // The head PopHeads took this cycle while it is still in the heap (see Settle).
    WorkloadId held = kInvalidId<WorkloadId>;
  };

  Entry& EnsureEntry(WorkloadId id);
  // Inlined: every finish requeues each ClusterQueue of its tree through it.
  CqQueue& EnsureCq(CqId cq) {
    if (Index(cq) >= cqs_.size()) [[unlikely]] {
      GrowCqs(cq);
    }
    return cqs_[Index(cq)];
  }
  void GrowCqs(CqId cq);
  const CqQueue* FindCq(CqId cq) const;
  bool IsBestEffort(CqId cq) const;
  bool BackoffExpired(const Entry& e, TimeMicros now) const { return now >= e.backoff_until; }
  void LoadKeys(WorkloadId id, Entry& e);
  // §2.4: a LocalQueue with a stopPolicy is out of the queue manager.
  bool LocalQueueStopped(const Workload& w) const;
  std::string OrphanKey(const Workload& w) const;

  // Heap primitives (REQUIRES: entries of the heap's members are up to date). Two levels: the
  // members of a group by Before, and a ClusterQueue's groups by their heads.
  bool Before(const HeapNode& a, const HeapNode& b, WorkloadId sticky) const;
  WorkloadId Sticky(const CqQueue& q) const {
    return q.preemptor_sticky ? q.preemptor : kInvalidId<WorkloadId>;
  }
  template <typename SetPos>
  void SiftUpIn(std::vector<HeapNode>& heap, uint32_t i, WorkloadId sticky, SetPos set_pos);
  template <typename SetPos>
  void SiftDownIn(std::vector<HeapNode>& heap, uint32_t i, WorkloadId sticky, SetPos set_pos);
  void SiftUp(Group& g, uint32_t i, WorkloadId sticky);
  void SiftDown(Group& g, uint32_t i, WorkloadId sticky);
  void SetSlot(const GroupNode& node, uint32_t i);
  void GroupSiftUp(CqQueue& q, uint32_t i);
  void GroupSiftDown(CqQueue& q, uint32_t i);
  void CqHeapFixAt(CqQueue& q, uint32_t i);
  void CqHeapInsert(CqQueue& q, CqId cq, const GroupNode& node);
  void CqHeapEraseAt(CqQueue& q, CqId cq, uint32_t i);
  void GroupFix(CqQueue& q, uint32_t group);  // its head changed (or it just entered)
  void GroupHeapErase(CqQueue& q, uint32_t group);
  uint32_t NewGroup(CqId cq, uint64_t hash);  // not indexed
  // Makes the group of a singleton (a second member with its hash comes, or it is parked).
  uint32_t Materialize(WorkloadId single);
  // Re-places `id` after a change of the preemptor (its place in the order changed).
  void Fix(WorkloadId id);
  uint32_t GroupFor(CqId cq, uint64_t hash);  // the unparked group, made if absent
  void FreeGroup(uint32_t group);
  void HeapPush(CqId cq, WorkloadId id);
  void HeapErase(WorkloadId id);
  // Several at once: appended, then each group rebuilt (Floyd, O(n)) when that pays, else sifted.
  static bool RebuildPays(size_t changed, size_t size);
  void Heapify(Group& g, WorkloadId sticky);
  void HeapPushMany(CqId cq, const std::vector<WorkloadId>& ids);

  void InadmissibleInsert(CqId cq, WorkloadId id);
  void InadmissibleErase(CqQueue& q, WorkloadId id);
  // Parks the group of `hash` (every heap member of `cq` with it) in the inadmissible set.
  void BulkMoveHash(CqId cq, uint64_t hash);
  // Brings the parked group back: whole when every member may come back, else member by member.
  void UnparkGroup(CqId cq, uint32_t group, TimeMicros now, bool filter);
  void RequeueOne(CqId cq, TimeMicros now, int64_t cycle);
  // Erases the head PopHeads left in `q`'s heap (in flight, out of the counts), if any: called
  // before anything reads or changes that heap, so the heap then holds what it would had the pop
  // erased the head at once.
  void Settle(CqQueue& q);
  void SettleCq(CqId cq) {
    if (held_count_ != 0 && IsValid(cq) && Index(cq) < cqs_.size()) {
      Settle(cqs_[Index(cq)]);
    }
  }
  // Every ClusterQueue's (operations that may touch many).
  void SettleAll();
  void ClearPreemptor(CqQueue& q);
  const std::vector<CqId>& CqsByName();

  const Cluster& cluster_;
  WorkloadStore& store_;
  SchedulingHasher scheduling_hasher_;  // Workload::scheduling_hash, set at a first push
  ChunkedVector<Entry> entries_;        // by WorkloadId
  std::vector<CqQueue> cqs_;            // by CqId
  // Bit Index(cq) set while cqs_[cq].heap is non-empty: PopHeads skips idle ClusterQueues
  // without touching their (large) CqQueue.
  DenseBitset nonempty_heaps_;
  // Bit Index(cq) set when RequeueOne has something to change in cqs_[cq] (never requeued since
  // its last pop, recorded hashes, parked groups or workloads in its inadmissible set); clear
  // only when there is nothing. QueueInadmissible skips the others: every finish requeues its
  // whole tree, and on a congested 200-ClusterQueue tree 95 % of those calls found nothing to do
  // yet cost 7 % of the replay's instructions, each touching a CqQueue.
  DenseBitset requeue_work_;
  void MarkRequeueWork(CqId cq) { requeue_work_.Set(Index(cq), true); }
  std::vector<Group> groups_;
  std::vector<uint32_t> free_groups_;
  HashGroupIndex group_index_;                          // the unparked groups
  std::vector<std::pair<uint32_t, uint32_t>> touched_;  // HeapPushMany: (group, old size)
  std::vector<uint32_t> parked_scratch_;                // RequeueOne
  std::map<std::string, std::set<WorkloadId>, std::less<>> orphans_;  // by "ns/localQueue"
  std::unordered_map<WorkloadId, std::string> orphan_keys_;           // orphan -> its key
  size_t active_count_ = 0;
  size_t held_count_ = 0;       // heads popped and left in their heaps (Settle)
  std::vector<CqId> held_cqs_;  // their ClusterQueues (some settled since)
  NamespaceFilter namespace_filter_;
  SelectsAllNamespaces selects_all_namespaces_;
  std::vector<CqId> cqs_by_name_;    // cache; rebuilt when the number of CQs changes
  std::vector<uint32_t> name_rank_;  // by CqId: position in cqs_by_name_
  std::vector<uint32_t> pop_ranks_;  // PopHeads scratch
  std::vector<WorkloadId> scratch_;
  // The existing ClusterQueues under each root (by root NodeId index), in depth-first order, for
  // QueueInadmissible: every finish requeues its whole tree, and walking the tree each time cost
  // as much as the requeues. Valid while the tree's shape and the cluster's specs are unchanged.
  struct TreeMembers {
    uint64_t structure_version = UINT64_MAX;
    uint64_t config_version = UINT64_MAX;
    std::vector<CqId> cluster_queues;
    int64_t last_requeue_cycle = -1;  // of QueueInadmissible on this tree (a member skipped
                                      // by requeue_work_ keeps an older CqQueue stamp)
  };
  std::vector<TreeMembers> tree_members_;
  const std::vector<CqId>& ClusterQueuesUnder(NodeId root);
};

}  // namespace engine
