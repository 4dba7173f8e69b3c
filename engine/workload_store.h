// File: engine/workload_store.h
//
// Owns every workload the engine knows: builds the engine view (engine/workload.h) from specs —
// effective requests through the §3 pipeline, priority (§2.7), the ClusterQueue through the
// LocalQueue — and keeps the reserved ones charged in the quota tree and listed per ClusterQueue
// (the preemption candidates, §7).
//
// Thread safety: none; owned by one shard.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/ids.h"
#include "engine/base/list_pool.h"
#include "engine/base/state_hash.h"
#include "engine/base/status.h"
#include "engine/base/string_map.h"
#include "engine/cluster.h"
#include "engine/pod_set_pool.h"
#include "engine/workload.h"
#include "engine/workload_key_index.h"

namespace engine {

class WorkloadStore {
 public:
  explicit WorkloadStore(Cluster& cluster) : cluster_(cluster), by_key_(workloads_) {}
  WorkloadStore(const WorkloadStore&) = delete;
  WorkloadStore& operator=(const WorkloadStore&) = delete;
  WorkloadStore(WorkloadStore&&) = delete;
  WorkloadStore& operator=(WorkloadStore&&) = delete;
  ~WorkloadStore() = default;

  // Adds a workload. With `status.admission`, it is charged to that ClusterQueue right away.
  // Errors: duplicate key, or an admission naming an unknown ClusterQueue / flavor.
  StatusOr<WorkloadId> Add(WorkloadSpec spec) { return AddSwapping(spec); }
  // Add, taking `spec`'s content and leaving in `spec` the storage of an erased workload's spec,
  // with that workload's values: for its caller to reset (engine::ResetForReuse) and write the
  // next spec into (the replay's event reader, replay/sim/shard_trace_events.cc). An empty spec
  // when no erased block is kept. On an error `spec` is left as it was only for a duplicate key.
  // `local_queue`: what Cluster::FindLocalQueue(spec.name_space, spec.queue_name) returns, for a
  // caller that looked it up already (the replay checks it exists first); null: looked up here.
  StatusOr<WorkloadId> AddSwapping(WorkloadSpec& spec, const LocalQueueSpec* local_queue = nullptr);

  // Charges `usage` on `admitted` flavors to `cq` (QuotaReserved).
  void Reserve(WorkloadId id, CqId cq, std::vector<AdmittedPodSet> admitted,
               std::vector<SlotAmount> usage, TimeMicros now);
  // The same, with `pod_sets` admitted pod sets written in place by `fill(i, pod_set)` (handed
  // over cleared) and `usage` copied: into the store's scratch, whose storage stays from one
  // reservation to the next, then pooled. A preemption round re-admits the same workloads (0.96
  // million admissions on the 16-tree trace): a reservation whose lists are pooled already
  // allocates nothing.
  void Reserve(WorkloadId id, CqId cq, size_t pod_sets,
               const std::function<void(size_t, AdmittedPodSet&)>& fill,
               std::span<const SlotAmount> usage, TimeMicros now);
  // Seed 001: takes the devices of the resource classes `admitted` asks for, first-fit on the
  // nodes of each pod set's flavor (engine/device_inventory.h); all or nothing. nullopt when done
  // (or nothing to take), else why not. Call before Reserve; Release gives them back.
  std::optional<std::string> AllocateDevices(WorkloadId id,
                                             std::span<const AdmittedPodSet> admitted);
  // A Workload's status.reclaimablePods changed (a MODIFIED event): rebuilds its requests and,
  // when it is reserved, re-charges its admission under the rule of ChargedCount. Returns whether
  // anything changed.
  bool SetReclaimablePods(WorkloadId id, std::map<std::string, int32_t> reclaimable);
  // What a reserved pod set is charged for: its admission count, or fewer when the spec count
  // minus the reclaimable pods is lower (Kueue's totalRequestsFromAdmission).
  int32_t ChargedCount(const Workload& w, const AdmittedPodSet& ps) const;
  // The usage per slot that `admitted` charges for `w` (each pod set scaled to ChargedCount).
  std::vector<SlotAmount> ChargedUsage(const Workload& w,
                                       std::span<const AdmittedPodSet> admitted) const;
  // Spec count of `pod_set` minus its reclaimable pods (clamped to [0, count]); the spec count
  // when the ReclaimablePods gate is off; 0 for a pod set the spec does not have.
  int32_t CountAfterReclaim(const WorkloadSpec& spec, std::string_view pod_set) const;

  // A reserved workload's priority changed (a MODIFIED event): preemption sees the new one.
  void SetReservedPriority(WorkloadId id, int32_t priority);

  // Releases the reservation (finished, evicted, deactivated) and frees its quota and devices.
  void Release(WorkloadId id);
  // Marks a reserved workload as being evicted (Evicted=True, pods stopping): it keeps its quota
  // until Release, and preemption counts it as a victim already on its way out (§7.2).
  void MarkEvicting(WorkloadId id);
  // Forgets a workload (deleted, or finished and no longer needed): releases its reservation,
  // frees its spec and requests, and recycles its id for a later Add. REQUIRES: the queue
  // manager no longer holds it (QueueManager::Forget). Keeps memory bounded in long replays.
  void Erase(WorkloadId id);
  bool Contains(WorkloadId id) const {
    return Index(id) < workloads_.size() && workloads_[Index(id)] != nullptr;
  }

  Workload& Get(WorkloadId id) { return workloads_[Index(id)]->workload; }
  const Workload& Get(WorkloadId id) const { return workloads_[Index(id)]->workload; }
  std::optional<WorkloadId> Find(std::string_view key) const;
  // Fetches what Find(key) reads first into the cache (WorkloadKeyIndex::Prefetch).
  void PrefetchKey(std::string_view key) const { by_key_.Prefetch(key); }
  // One past the largest id handed out (erased ids included): the size of id-indexed arrays.
  uint32_t size() const { return static_cast<uint32_t>(workloads_.size()); }
  uint32_t live() const { return live_; }
  // Distinct pod-set lists the stored specs share (engine/pod_set_pool.h), and some no longer
  // used that the next sweep drops.
  size_t pooled_pod_set_lists() const { return pod_set_pool_.size(); }
  // Lists the pool no longer shares, kept for AddSwapping's callers to write over.
  size_t spare_pod_set_lists() const { return pod_set_pool_.spares(); }

  // Reserved workloads already being evicted (Evicted=True in their status): preemption orders
  // them first (§7.2) and counts them as done.
  const std::vector<WorkloadId>& Evicting() const { return evicting_; }
  bool IsEvicting(WorkloadId id) const;

  // What a nomination reads of the other workloads (engine/nomination_memo.h): equal at two
  // moments when the same workloads hold quota with the same usage, flavors, priority, times and
  // eviction state, and nothing else happened in between that moves it for good (devices taken or
  // given back, reclaimable pods changed, a workload erased). It comes back to an earlier value
  // when a workload is reserved and released again (engine/base/state_hash.h).
  uint64_t reservation_key() const {
    return reservation_sum_ + StateTerm(kOtherTermKey, other_changes_);
  }

  // Usage on `slot` of the workloads reserved in `cq` with priority below `priority` (or at most
  // `priority` when `inclusive`). Kept on Reserve / Release / SetReclaimablePods /
  // SetReservedPriority: O(distinct priorities in the ClusterQueue). An upper bound of what
  // withinClusterQueue preemption can free there (engine/preemption.cc).
  Quantity ReservedUsageBelow(CqId cq, FrSlot slot, int32_t priority, bool inclusive) const;
  // Usage on `slot` of every workload reserved in `cq`.
  Quantity ReservedUsage(CqId cq, FrSlot slot) const;

  // Reserved workloads of `cq`, in reservation order.
  const std::vector<WorkloadId>& Admitted(CqId cq) const;

  // The ClusterQueue a LocalQueue `namespace/name` points to, if both exist.
  std::optional<CqId> ResolveQueue(const std::string& name_space, const std::string& queue) const;
  // The ClusterQueue `local_queue` (one of the cluster's) points to, if it exists.
  std::optional<CqId> ResolveQueue(const LocalQueueSpec& local_queue) const;
  // §2.7: spec.priority, else the WorkloadPriorityClass value, else 0.
  int32_t ResolvePriority(const WorkloadSpec& spec) const;

 private:
  // `canonical`: the pod sets' PerPodCanonical requests when the caller has them already (Add
  // computes them to intern the resource names); empty = computed here.
  void BuildRequests(Workload& w,
                     std::span<const std::vector<CanonicalAmount>> canonical = {}) const {
    BuildRequests(*w.spec, canonical, w.pod_sets);
  }
  // The requests of `spec` written into `list` (its storage reused unless shared).
  void BuildRequests(const WorkloadSpec& spec,
                     std::span<const std::vector<CanonicalAmount>> canonical,
                     PodSetRequestList& list) const;

  Cluster& cluster_;
  // By WorkloadId; null once erased. On the heap: Workload::spec and the queues' pointers stay
  // valid while the vector grows.
  std::vector<std::unique_ptr<StoredWorkload>> workloads_;
  std::vector<WorkloadId> free_ids_;  // erased ids, reused last-in first-out
  uint32_t live_ = 0;
  WorkloadKeyIndex by_key_;                        // over workloads_: declared after it
  std::vector<std::vector<WorkloadId>> admitted_;  // by CqId
  std::vector<WorkloadId> evicting_;
  // Reservations' lists, each distinct one once (engine/base/list_pool.h): Workload::admitted
  // and Workload::usage are shared from here.
  struct AdmittedHash {
    uint64_t operator()(std::span<const AdmittedPodSet> pod_sets) const;
  };
  struct UsageHash {
    uint64_t operator()(std::span<const SlotAmount> usage) const;
  };
  ListPool<AdmittedPodSet, AdmittedHash> admitted_pool_;
  ListPool<SlotAmount, UsageHash> usage_pool_;
  // Reserve(..., fill, ...) writes the pod sets here before they are pooled: their vectors'
  // storage is kept from one reservation to the next.
  std::vector<AdmittedPodSet> admitted_scratch_;
  // The per-pod list Add computes a pooled list's canonical requests from (PodSetPool::Entry):
  // kept from one Add to the next.
  ResourceList requests_scratch_;
  std::string key_scratch_;  // Add's "namespace/name", before it knows the name is new
  // The stored specs' pod-set lists, each distinct one once, with their canonical requests
  // (engine/pod_set_pool.h).
  PodSetPool pod_set_pool_;
  // Erased workloads' blocks, their Workload reset with its storage kept (the pod set requests,
  // admission, usage, scan state and key) and their spec as it was (AddSwapping hands it out for
  // reuse): a workload that comes and goes through AddSwapping then allocates nothing.
  // At most kSpareWorkloadsKept (a mass deletion does not hold memory).
  std::vector<std::unique_ptr<StoredWorkload>> spare_workloads_;
  static constexpr size_t kSpareWorkloadsKept = 32;
  // What both Reserve overloads do once the workload's admitted pod sets and usage are set.
  void ChargeReservation(WorkloadId id, CqId cq, TimeMicros now);
  // reservation_key(): the sum of the reserved workloads' Workload::reservation_term, and a count
  // of the other changes.
  static constexpr uint64_t kOtherTermKey = uint64_t{1} << 63;
  uint64_t reservation_sum_ = 0;
  uint64_t other_changes_ = 0;
  // Adds `w`'s term (it holds quota) to reservation_sum_, or takes the one it added away.
  void AddReservationTerm(Workload& w, bool evicting);
  void RemoveReservationTerm(Workload& w);
  // Per ClusterQueue, per priority (ascending): usage by slot index of its reserved workloads.
  struct PriorityUsage {
    int32_t priority = 0;
    int32_t workloads = 0;
    std::vector<Quantity> by_slot;
  };
  std::vector<std::vector<PriorityUsage>> priority_usage_;  // by CqId
  // A level whose last workload left is kept, zeroed, while its ClusterQueue has at most this
  // many levels (an empty level adds nothing to ReservedUsageBelow's sums; more would lengthen
  // its walk on a trace with many distinct priorities).
  static constexpr size_t kEmptyPriorityLevelsKept = 8;
  // Adds (sign +1) or removes (-1) `w`'s usage under w.priority in w.cluster_queue. The priority
  // of a reserved workload changes only through SetReservedPriority, which moves it.
  void CountPriorityUsage(const Workload& w, int sign);
};

}  // namespace engine
