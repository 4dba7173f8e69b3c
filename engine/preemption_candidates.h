// File: engine/preemption_candidates.h
//
// Classical preemption, part 1: who may be preempted, and in which order
// (kueue-semantics.md §7.1-§7.2; Kueue's classical/hierarchical_preemption.go,
// classical/candidate_generator.go, common/ordering.go, common/preemption_policy.go).
//
// For a preemptor in ClusterQueue `cq` that needs preemption on the slots `needed`:
//  - same-CQ candidates: reserved workloads of `cq` passing withinClusterQueue ->
//  kWithinClusterQueue;
//  - other-CQ candidates: walking the ancestors A of `cq` from the parent to the root, the
//    workloads of A's subtree (minus the subtree already visited), descending only into nodes
//    above their quota (S < U) on some needed slot, passing reclaimWithinCohort. Each is
//    classified kHierarchicalReclaim when the request already fits in quota below A ("hierarchical
//    advantage"), else kReclaimWithoutBorrowing / kReclaimWhileBorrowing per borrowWithinCohort;
//  - every candidate must use at least one needed slot through its admitted flavors.
// The list is ordered as Kueue's candidate iterator yields it: evicting {hierarchical, priority,
// same CQ} then non-evicting {hierarchical, priority, same CQ}, each by CandidatesOrdering.
//
// This is internal to engine/preemption.cc; it is a header so that tests and `tally explain`
// can inspect the candidate list.
//
// Thread safety: none; one collector per scheduling shard.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/base/ids.h"
#include "engine/config.h"
#include "engine/resource_tree.h"
#include "engine/workload_spec.h"

namespace engine {

class Cluster;
class WorkloadStore;
struct Workload;

// Why a workload is preempted (Kueue's Preempted condition reasons, §7.4). InCohortFairSharing
// belongs to fair-sharing preemption (§7.6), not implemented yet.
enum class PreemptionReason : uint8_t {
  kInClusterQueue,
  kInCohortReclamation,
  kInCohortReclaimWhileBorrowing,
};
const char* ToString(PreemptionReason reason);

namespace internal {

// Kueue's preemptionVariant; kNever is never stored in a candidate list.
enum class CandidateVariant : uint8_t {
  kNever,
  kWithinClusterQueue,
  kHierarchicalReclaim,
  kReclaimWithoutBorrowing,  // only while the preemptor's CQ would not borrow afterwards
  kReclaimWhileBorrowing,
};
const char* ToString(CandidateVariant variant);
// §7.4. REQUIRES: variant != kNever.
PreemptionReason ReasonFor(CandidateVariant variant);

// §7.1 policy test (common/preemption_policy.go). Timestamps are queue-order timestamps.
bool SatisfiesPreemptionPolicy(PreemptionPolicy policy, int32_t preemptor_priority,
                               TimeMicros preemptor_time, int32_t candidate_priority,
                               TimeMicros candidate_time);

struct Candidate {
  WorkloadId workload{};
  NodeId cq_node{};                 // the candidate's ClusterQueue
  NodeId lca = kInvalidId<NodeId>;  // ancestor it was found under; invalid for the own CQ
  CandidateVariant variant = CandidateVariant::kNever;
  bool evicting = false;  // Evicted=True already
  bool own_cq = false;    // in the preemptor's ClusterQueue
  int32_t priority = 0;
  TimeMicros reserved_at = 0;        // QuotaReserved transition; `now` when missing
  const WorkloadUid* uid = nullptr;  // owned by the WorkloadStore
  // evicting, own_cq, priority and reserved_at packed so that one integer comparison decides
  // CandidateBefore unless two candidates tie on all four (then uid decides). Set by SetOrderKey.
  unsigned __int128 order_key = 0;

  void SetOrderKey();
};

// Kueue's CandidatesOrdering: evicting first; other CQs before the own CQ; lower priority first;
// more recent quota reservation first; uid; then the workload id (never reached with unique
// uids, it keeps the order total).
bool CandidateBefore(const Candidate& a, const Candidate& b);

// What the preemptor asks for.
struct PreemptionRequest {
  const Workload* workload = nullptr;
  CqId cq{};
  NodeId cq_node{};
  std::span<const FrSlot> needed;        // frsNeedPreemption: sorted, unique
  std::span<const SlotAmount> requests;  // the whole request per slot (all slots)
};

struct CandidateList {
  std::vector<Candidate> ordered;  // the iteration order of §7.2
  bool none_from_other_cqs = true;
  bool none_hierarchical = true;
};

class CandidateCollector {
 public:
  CandidateCollector(const Cluster& cluster, const ResourceTree& tree, const WorkloadStore& store,
                     TimeMicros now);
  CandidateCollector(const CandidateCollector&) = delete;
  CandidateCollector& operator=(const CandidateCollector&) = delete;
  CandidateCollector(CandidateCollector&&) = delete;
  CandidateCollector& operator=(CandidateCollector&&) = delete;
  ~CandidateCollector() = default;

  // Starts over at `now`, as a collector constructed anew would, but keeps the storage of its
  // lists and scratch: the scheduler keeps one Preemptor across cycles (Preemptor::StartCycle).
  // No list cached before is reused: they were collected at another instant.
  void StartCycle(TimeMicros now);

  // Replaces the set of workloads already being evicted.
  void SetEvicting(std::span<const WorkloadId> evicting);
  // Workloads that are no candidates at all (§5.6: victims of earlier entries of the cycle,
  // removed from the snapshot for a recomputation). Empty by default.
  void SetExcluded(std::span<const WorkloadId> excluded);

  // The candidate list of `request`. REQUIRES: request.cq exists and is active.
  // Cost: O(candidates log candidates + nodes visited x |needed|), or O(depth x |requests|) when
  // the list was collected before for the same question (see ListKey): the list is not copied.
  // The reference is valid until the next Collect.
  const CandidateList& Collect(const PreemptionRequest& request);
  // How many Collect calls reused a list collected earlier.
  uint64_t lists_reused() const { return lists_reused_; }
  // Moves with every StartCycle, SetEvicting and SetExcluded: what a list depends on besides
  // the request and the tree.
  uint64_t sets_version() const { return sets_version_; }

  // candidateIsValid: a same-CQ candidate always is; an other-CQ candidate is not when
  // `borrowing` and it is kReclaimWithoutBorrowing, or when its CQ or any ancestor strictly
  // below its LCA is no longer above quota on a needed slot (evaluated on the tree as it is now,
  // with earlier simulated removals applied).
  bool IsCandidateValid(const PreemptionRequest& request, const Candidate& candidate,
                        bool borrowing) const;

  // Every needed slot has U <= S at `node` (Kueue's IsWithinNominalInResources).
  bool WithinQuota(NodeId node, std::span<const FrSlot> needed) const;

 private:
  CandidateVariant Classify(const PreemptionRequest& request, const Workload& candidate,
                            bool hierarchical_advantage) const;
  bool UsesNeededSlot(const Workload& candidate, std::span<const FrSlot> needed) const;
  bool IsEvicting(WorkloadId id) const;
  // Appends the candidates of one ClusterQueue.
  void AddFromClusterQueue(const PreemptionRequest& request, CqId cq, NodeId lca,
                           bool hierarchical_advantage, std::vector<Candidate>& out) const;
  // collectCandidatesInSubtree: children of `node` above quota, skipping `skip` and the
  // preemptor's own CQ.
  void AddFromSubtree(const PreemptionRequest& request, NodeId node, NodeId lca, NodeId skip,
                      bool hierarchical_advantage, std::vector<Candidate>& out) const;
  // QuantitiesFitInQuota: does `remaining` fit at `node` (S >= U + v on every slot)? Updates
  // `remaining` to what exceeds the node's local quota: max(0, v - LocalAvailable).
  bool FitsInQuota(NodeId node, std::vector<SlotAmount>& remaining) const;
  bool Usable(CqId cq) const;
  // The ancestor step from which the request fits in quota below the ancestor ("hierarchical
  // advantage", sticky once true), kNoAdvantage if never: all that `request.requests` changes in a
  // collection. Fills remaining_.
  uint32_t FirstAdvantageStep(const PreemptionRequest& request);
  // Sorts the three lists and concatenates them into `out` in Kueue's iteration order.
  void Order(CandidateList& out);

  // A nomination asks the same question several times: the flavor assigner's what-ifs for each
  // flavor and, under partial admission, each pod count tried, then the target computation. The
  // list depends only on the preemptor, its ClusterQueue, the needed slots, the advantage step,
  // the tree's state and the evicting / excluded sets; within one of the tree's state versions
  // (never inside a what-if, whose removals do not bump it) the same key gives the same list.
  struct ListKey {
    uint64_t state_version = 0;
    uint64_t structure_version = 0;
    uint64_t sets_version = 0;
    WorkloadId workload{};
    int32_t priority = 0;
    TimeMicros queue_order_time = 0;
    CqId cq{};
    uint32_t advantage_step = 0;
    std::vector<FrSlot> needed;

    bool Matches(const ListKey& o) const;
  };
  struct CachedList {
    bool valid = false;
    ListKey key;
    CandidateList list;
  };
  // Collects into `out` (cleared first).
  void CollectInto(const PreemptionRequest& request, uint32_t advantage_step, bool from_cohort,
                   CandidateList& out);
  static constexpr uint32_t kNoAdvantage = ~uint32_t{0};
  static constexpr size_t kCachedLists = 4;

  const Cluster& cluster_;
  const ResourceTree& tree_;
  const WorkloadStore& store_;
  TimeMicros now_;
  std::vector<WorkloadId> evicting_;  // sorted
  // Scratch, reused across calls.
  std::vector<Candidate> hierarchical_;
  std::vector<Candidate> priority_;
  std::vector<Candidate> same_queue_;
  std::vector<SlotAmount> remaining_;
  uint64_t needed_mask_ = 0;          // FlavorResourceBit of every needed slot of the request
  std::vector<WorkloadId> excluded_;  // sorted
  uint64_t sets_version_ = 0;         // bumped by SetEvicting / SetExcluded
  std::array<CachedList, kCachedLists> cache_;
  size_t cache_next_ = 0;   // round robin
  ListKey probe_;           // scratch
  CandidateList uncached_;  // collected inside a what-if
  uint64_t lists_reused_ = 0;
};

}  // namespace internal
}  // namespace engine
