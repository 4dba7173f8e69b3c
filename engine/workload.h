// File: engine/workload.h
//
// The engine's view of a workload: effective requests per pod set computed once at ingest
// (kueue-semantics.md §3), resolved priority and queue, the flavor-scan resumption state of
// KEP-582 (seed 003), and, once quota is reserved, the admitted usage per (flavor, resource) slot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/cow_vector.h"
#include "engine/base/ids.h"
#include "engine/base/lazy_box.h"
#include "engine/base/shared_list.h"
#include "engine/flavor_fallback.h"
#include "engine/quantity.h"
#include "engine/resource_tree.h"
#include "engine/workload_spec.h"

namespace engine {

struct ResourceAmount {
  ResourceId resource{};
  Quantity amount;
};

// One pod set's effective request. `per_pod` and `total` are sorted by resource name (the order
// Kueue walks resources in), zero amounts included.
struct PodSetRequest {
  std::string name;
  // Effective count: spec count - reclaimable (unless the ReclaimablePods gate is off). Always
  // from the spec; a reserved workload is charged by its admission (Workload::admitted).
  int32_t count = 0;
  std::optional<int32_t> min_count;
  std::vector<ResourceAmount> per_pod;
  std::vector<ResourceAmount> total;  // per_pod x count, saturating
  const PodSetSpec* spec = nullptr;   // for flavor eligibility (taints, selectors); owned by the
                                      // workload's spec
};

// A Workload's requests, one per pod set. Workloads whose specs share one pooled pod-set list
// (engine/pod_set_pool.h) and have no reclaimable pods have equal requests, and share one list
// (WorkloadStore::AddSwapping): about 170 bytes less per live Workload. Read through a const
// reference: a non-const access copies a shared list first (engine/base/cow_vector.h).
using PodSetRequestList = CowVector<PodSetRequest>;

// KEP-582 "LastState": where the last flavor scan stopped, and what it saw (§6.6).
struct FlavorScanState {
  bool valid = false;
  // Per pod set, per resource: index of the last flavor examined in that resource group, or -1
  // when the scan reached the last flavor (the next scan starts from the first again).
  // Shared by copies until one is written (engine/base/cow_vector.h): a scan state is copied
  // from the nomination memo's entries to the cycle's and from a cycle's entry to its workload,
  // and copying the per-pod-set lists was half of what a memo hit's copy still cost. Read it
  // through a const reference.
  CowVector<std::vector<std::pair<ResourceId, int>>> last_tried;
  uint64_t cluster_queue_generation = 0;
  // Generations of the ancestor cohorts, parent first (seed 003's CohortGeneration).
  std::vector<uint64_t> cohort_generations;
  // Cluster::FlavorListsFingerprint of the ClusterQueue when the scan ran: the
  // saved indices only mean something against the same flavor lists.
  uint64_t flavor_lists = 0;
  int64_t scheduling_cycle = 0;

  // FlavorScanState{}, but the vectors keep their storage: a workload whose scan is cleared when
  // it preempts and set again at its next requeue (the 16-tree trace's preemption rounds) does
  // not allocate them anew each time.
  void Reset() {
    CowVector<std::vector<std::pair<ResourceId, int>>> tried = std::move(last_tried);
    std::vector<uint64_t> generations = std::move(cohort_generations);
    *this = FlavorScanState{};  // every field, whatever fields come
    tried.clear();
    generations.clear();
    last_tried = std::move(tried);
    cohort_generations = std::move(generations);
  }

  // Index to resume from for (pod set, resource): last tried + 1, or 0.
  int NextFlavorIndex(size_t pod_set, ResourceId resource) const;
  // Some recorded index is not -1: flavors remain to be tried (forces immediate requeue, §5.2).
  bool HasPendingFlavors() const;
};

// Where a reserved workload's quota is charged.
struct AdmittedPodSet {
  std::string name;
  int32_t count = 0;  // the admission's pod count (status.admission.podSetAssignments[].count)
  std::vector<std::pair<ResourceId, FlavorId>> flavors;  // resource -> flavor
  // The admission's resourceUsage for `count` pods, per slot. What is charged can be less: see
  // ChargedCount (reclaimable pods).
  std::vector<SlotAmount> usage;
  bool operator==(const AdmittedPodSet&) const = default;
};

// The bit of a (flavor, resource) pair in Workload::admitted_mask.
constexpr uint64_t FlavorResourceBit(FlavorId flavor, ResourceId resource) {
  return uint64_t{1} << ((Index(flavor) * 7 + Index(resource)) % 64);
}

// The small fields (ids, priority, flags) are together at the front: between the larger ones
// each left padding, 16 bytes of a Workload every live Workload has.
struct Workload {
  WorkloadId id{};
  CqId cluster_queue = kInvalidId<CqId>;
  int32_t priority = 0;
  // Reservation: present when QuotaReserved, charged to `cluster_queue` in the tree.
  bool quota_reserved = false;
  // ValidateResources (engine/workload_spec.h) found a request above its limit: such a head is
  // never nominated. A flag, not the message: the message is rare, and ValidateResources(*spec)
  // makes it again when it is needed (the spec's pod sets do not change once stored).
  bool invalid_resources = false;
  // Seed 001: it holds devices in the cluster's DeviceInventory (owner = Index(id)); the pod set
  // of each device demand (DeviceGrant::pod_set indexes `device_pod_sets`).
  bool holds_devices = false;
  std::string key;                     // "namespace/name"
  const WorkloadSpec* spec = nullptr;  // owned by the store
  TimeMicros creation_time = 0;
  TimeMicros queue_order_time = 0;  // §5.1
  PodSetRequestList pod_sets;

  TimeMicros quota_reserved_time = 0;
  // The reservation's pod sets and its usage per slot (summed over pod sets), empty while none:
  // lists shared with every Workload whose reservation has the same content (the store pools
  // them, engine/base/list_pool.h), read-only.
  SharedList<AdmittedPodSet> admitted;
  SharedList<SlotAmount> usage;
  // Bloom-style summary of the admitted (flavor, resource) pairs: bit FlavorResourceBit(f, r) is
  // set for each. Lets preemption reject candidates that use none of the needed slots without
  // walking their pod sets.
  uint64_t admitted_mask = 0;
  // What WorkloadStore::reservation_key() holds for this reservation (0 while none): taken away
  // exactly as added, whatever changed since.
  uint64_t reservation_term = 0;
  LazyBox<std::vector<std::string>> device_pod_sets;  // see holds_devices (rare)

  // Where the last flavor scan stopped (§6.6), allocated at the first scan that does not admit
  // (Scheduler::RunCycle): most live Workloads wait behind their queue's head and are never
  // scanned, and inline it was 80 of the store block's bytes (docs/replay.md, the memory model).
  LazyBox<FlavorScanState> scan;
  // Seed 002 flavorAssignmentHistory (engine/flavor_fallback.h); empty without a fallback strategy.
  LazyBox<FlavorHistory> fallback;

  // §9.6 scheduling equivalence hash (engine/scheduling_hash.h); 0 = not computed yet. The queue
  // manager computes it on first Push; reset it to 0 when priority or requests change.
  uint64_t scheduling_hash = 0;

  // metadata.uid (the store makes it "namespace/name" when absent) and spec.queueName: read from
  // the spec, not copied. A live workload costs what it stores (docs/replay.md, the memory model).
  // "" for a Workload without a spec (only one built outside the store has none).
  const WorkloadUid& uid() const {
    static const WorkloadUid no_uid;
    return spec != nullptr ? spec->uid : no_uid;
  }
  const std::string& local_queue() const {
    return spec != nullptr ? spec->queue_name.str() : NoText();
  }
  static const std::string& NoText() {
    static const std::string empty;
    return empty;
  }
};

// The WorkloadStore's unit: a workload and the spec it was built from (Workload::spec points to
// `spec`), in one allocation. One block instead of two per workload: one allocation and one free
// fewer, and the two are adjacent when a finished workload is forgotten, long after it was added.
struct StoredWorkload {
  WorkloadSpec spec;
  Workload workload;
};

}  // namespace engine
