// File: engine/preemption.h
//
// Classical preemption (kueue-semantics.md §7.1-§7.5; Kueue's pkg/scheduler/preemption/
// preemption.go and preemption_oracle.go): the minimal set of reserved workloads to evict so that
// a pending workload fits, and the per-resource oracle the flavor assigner consults.
//
//   Preemptor preemptor(cluster, snapshot_tree, store, now);
//   preemptor.SetEvicting(already_evicting);
//   Assignment a = AssignFlavors(request, &preemptor);          // oracle: reclaim / preempt
//   if (a.Mode() == AssignmentMode::kPreempt) {
//     std::vector<PreemptionTarget> targets = preemptor.GetTargets(wl, cq, a);
//     // empty: PreemptionNoCandidates (§5.5 step 3)
//   }
//
// The minimal target set (§7.3): candidates come from engine/preemption_candidates.h in Kueue's
// iteration order. For each attempt of the attempt list (borrowing allowed / not), candidates are
// removed from the tree one by one, skipping those that became invalid, until the preemptor fits
// (workloadFits); then, from the second-last target down, each target is added back and dropped
// from the set if the preemptor still fits ("fill back"). The last-removed target is always kept.
//
// Every simulation edits the tree in place and reverts through an RAII undo log before
// returning: the tree's usage is exactly what it was, and node generations are not bumped
// (ResourceTree::GenerationFreeze is held while simulating).
//
// Not implemented: fair-sharing preemption (§7.6), TAS placement in workloadFits, preemption
// protection windows and the timestamp buffer (feature gates off by default).
//
// Thread safety: none. A Preemptor belongs to one scheduling cycle of one shard and must not
// outlive the tree, cluster and store it borrows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/base/ids.h"
#include "engine/flavor_assigner.h"
#include "engine/preemption_candidates.h"
#include "engine/resource_tree.h"
#include "engine/workload_spec.h"

namespace engine {

class Cluster;
class WorkloadStore;
struct Workload;

namespace internal {
// One entry of the simulation undo log (see UsageUndo in preemption.cc).
struct UsageChange {
  NodeId cq{};
  std::span<const SlotAmount> usage;  // a reserved workload's usage, owned by the WorkloadStore
  bool removed = false;               // true: usage was removed; false: added
};
}  // namespace internal

// What the searches of a Preemptor did (for `tally replay --profile` and the property tests).
struct PreemptionSearchStats {
  uint64_t searches = 0;           // target searches (oracle what-ifs and target computations)
  uint64_t rejected_by_bound = 0;  // proved hopeless in O(depth) before collecting candidates
  uint64_t candidates = 0;         // candidates collected by the searches that ran
  uint64_t found = 0;              // searches that ended with a target set
  uint64_t bound_unsound = 0;      // kVerify: rejected by the bound, yet the search found targets
  uint64_t lists_reused = 0;       // searches that reused a candidate list of the same question
  // Searches answered by the one before, which asked the same question of the same state
  // (Preemptor::FindTargets): counted in the other fields as that search was.
  uint64_t answers_reused = 0;

  PreemptionSearchStats& operator+=(const PreemptionSearchStats& o) {
    searches += o.searches;
    rejected_by_bound += o.rejected_by_bound;
    candidates += o.candidates;
    found += o.found;
    bound_unsound += o.bound_unsound;
    lists_reused += o.lists_reused;
    answers_reused += o.answers_reused;
    return *this;
  }
};

// The O(depth) rejection of hopeless searches (ResourceTree::AvailableAfterReclaim).
enum class PreemptionBoundCheck : uint8_t {
  kOn,      // a search the bound proves hopeless collects no candidates (the default)
  kOff,     // every search collects its candidates
  kVerify,  // every search runs in full; a bound rejection it contradicts counts bound_unsound
};

struct PreemptionTarget {
  WorkloadId workload{};
  PreemptionReason reason = PreemptionReason::kInClusterQueue;
};

class Preemptor : public PreemptionOracle {
 public:
  // `tree` is the scheduler's snapshot: simulations remove and re-add usage in place and restore
  // it before returning. `now` stands in for missing quota-reservation times (§7.2 ordering).
  Preemptor(const Cluster& cluster, ResourceTree& tree, const WorkloadStore& store, TimeMicros now);
  Preemptor(const Preemptor&) = delete;
  Preemptor& operator=(const Preemptor&) = delete;
  Preemptor(Preemptor&&) = delete;  // borrows the tree: pinned to its owner
  Preemptor& operator=(Preemptor&&) = delete;
  ~Preemptor() override = default;

  // Starts a new scheduling cycle at `now`: as a Preemptor constructed anew for it (no evicting
  // or excluded workloads, no candidate lists kept, zero stats), keeping the storage of its
  // scratch. The scheduler keeps one across cycles: on the 16-tree trace (2.7 million cycles)
  // constructing one a cycle grew its dozen vectors again each time (1.3 % of the instructions,
  // and allocator calls that perf put at about 3 % of the samples).
  void StartCycle(TimeMicros now);

  // Workloads already being evicted (Evicted=True): ordered first among candidates (§7.2).
  // Replaces the previous set.
  void SetEvicting(std::span<const WorkloadId> evicting);
  void SetExcluded(std::span<const WorkloadId> excluded) { collector_.SetExcluded(excluded); }

  // §7.1-§7.4: targets for admitting `workload` into `cq` with `assignment`. The slots needing
  // preemption are those of the FlavorChoices in mode kPreempt; the request is assignment.usage.
  // Empty = no candidates. Targets are in Kueue's order after fill-back (not sorted).
  // REQUIRES: cq exists and is active; workload is not reserved elsewhere.
  std::vector<PreemptionTarget> GetTargets(const Workload& workload, CqId cq,
                                           const Assignment& assignment);

  // §7.5: the same search for `amount` of one slot. No targets -> {kNoCandidates, the current
  // borrowing level}; targets all in other CQs -> kReclaim, any in `cq` -> kPreempt, with the
  // borrowing level found after removing the targets.
  OracleResult SimulatePreemption(const Workload& workload, CqId cq, FrSlot slot,
                                  Quantity amount) override;

  // The candidate list the last GetTargets / SimulatePreemption call worked on (for tests). Stale
  // after a search the bound rejected, unless SetBoundCheck(false).
  const internal::CandidateList& last_candidates() const;

  void SetBoundCheck(PreemptionBoundCheck mode) {
    bound_check_ = mode;
    last_search_.valid = false;
  }
  const PreemptionSearchStats& stats() const { return stats_; }

 private:
  // Runs §7.3 for `request`; fills `targets_`. Returns false if no attempt fits. The same
  // question asked again of the same state takes the last search's answer (LastSearch).
  bool FindTargets(const internal::PreemptionRequest& request);
  // FindTargets without the reuse.
  bool RunSearch(const internal::PreemptionRequest& request);
  // The search itself (candidates, attempts, fill-back).
  bool SearchTargets(const internal::PreemptionRequest& request);
  // True when even removing every workload the search could possibly take leaves the request
  // unfit: ResourceTree::AvailableAfterReclaim with the ClusterQueue's own preemptible usage.
  // Only for one needed slot (over(c) bounds a search on exactly that slot); false = unknown.
  bool HopelessByBound(const internal::PreemptionRequest& request) const;
  // Usage on `slot` of the ClusterQueue's workloads that withinClusterQueue lets the preemptor
  // take (an upper bound of what same-queue candidates free).
  Quantity OwnPreemptible(const internal::PreemptionRequest& request, FrSlot slot) const;
  bool WorkloadFits(const internal::PreemptionRequest& request, bool borrowing) const;
  // All needed slots have U < N strictly at the preemptor's CQ.
  bool UnderNominal(const internal::PreemptionRequest& request) const;

  const Cluster& cluster_;
  ResourceTree& tree_;
  const WorkloadStore& store_;
  internal::CandidateCollector collector_;
  // Scratch, reused across calls.
  const internal::CandidateList* candidates_ = nullptr;  // owned by collector_
  std::vector<const internal::Candidate*> targets_;
  std::vector<FrSlot> needed_;
  std::vector<SlotAmount> single_request_;
  std::vector<internal::UsageChange> undo_log_;
  PreemptionBoundCheck bound_check_ = PreemptionBoundCheck::kOn;
  PreemptionSearchStats stats_;

  // The question and answer of the last search, when it asked about one slot, ran in full and
  // outside a what-if. A nomination asks the oracle about each slot that needs preemption
  // (SimulatePreemption) and then, for the flavors chosen, computes the targets (GetTargets): for
  // a workload with one such slot the second search is the first again. In Kueue's large-scale
  // scenario (one resource) 350 target computations repeated the oracle's full search, a
  // remove-and-fill-back loop over about 250 candidates each. The answer is a function of the
  // request, the tree's usage and structure, the reservations, the evicting and excluded sets and
  // the cycle: all in the key, versions that move with any change (the bound's mode clears it).
  // `targets_` and `candidates_` still hold it: only a search changes them.
  struct LastSearch {
    bool valid = false;
    FrSlot slot{};  // the one slot needed and requested
    Quantity amount;
    const Workload* workload = nullptr;
    WorkloadId id{};
    int32_t priority = 0;
    TimeMicros queue_order_time = 0;
    CqId cq{};
    uint64_t state_version = 0;
    uint64_t structure_version = 0;
    uint64_t reservation_key = 0;
    uint64_t sets_version = 0;
    bool found = false;
    uint64_t candidates = 0;     // what the search added to stats_
    uint64_t bound_unsound = 0;  // (kVerify)
  };
  bool Matches(const LastSearch& last, const internal::PreemptionRequest& request) const;
  LastSearch last_search_;
};

}  // namespace engine
