#include "engine/preemption_candidates.h"

#include <algorithm>

#include "engine/base/check.h"
#include "engine/cluster.h"
#include "engine/workload.h"
#include "engine/workload_store.h"

namespace engine {

const char* ToString(PreemptionReason reason) {
  switch (reason) {
    case PreemptionReason::kInClusterQueue:
      return "InClusterQueue";
    case PreemptionReason::kInCohortReclamation:
      return "InCohortReclamation";
    case PreemptionReason::kInCohortReclaimWhileBorrowing:
      return "InCohortReclaimWhileBorrowing";
  }
  return "?";
}

namespace internal {

const char* ToString(CandidateVariant variant) {
  switch (variant) {
    case CandidateVariant::kNever:
      return "Never";
    case CandidateVariant::kWithinClusterQueue:
      return "WithinCQ";
    case CandidateVariant::kHierarchicalReclaim:
      return "HierarchicalReclaim";
    case CandidateVariant::kReclaimWithoutBorrowing:
      return "ReclaimWithoutBorrowing";
    case CandidateVariant::kReclaimWhileBorrowing:
      return "ReclaimWhileBorrowing";
  }
  return "?";
}

PreemptionReason ReasonFor(CandidateVariant variant) {
  switch (variant) {
    case CandidateVariant::kWithinClusterQueue:
      return PreemptionReason::kInClusterQueue;
    case CandidateVariant::kHierarchicalReclaim:
    case CandidateVariant::kReclaimWithoutBorrowing:
      return PreemptionReason::kInCohortReclamation;
    case CandidateVariant::kReclaimWhileBorrowing:
      return PreemptionReason::kInCohortReclaimWhileBorrowing;
    case CandidateVariant::kNever:
      break;
  }
  TALLY_CHECK(false && "ReasonFor(kNever)");
  return PreemptionReason::kInClusterQueue;
}

bool SatisfiesPreemptionPolicy(PreemptionPolicy policy, int32_t preemptor_priority,
                               TimeMicros preemptor_time, int32_t candidate_priority,
                               TimeMicros candidate_time) {
  const bool lower = candidate_priority < preemptor_priority;
  switch (policy) {
    case PreemptionPolicy::kNever:
      return false;
    case PreemptionPolicy::kLowerPriority:
      return lower;
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      // The preemptor must have queued strictly before the candidate.
      return lower || (candidate_priority == preemptor_priority && preemptor_time < candidate_time);
    case PreemptionPolicy::kAny:
      return true;
  }
  return false;
}

void Candidate::SetOrderKey() {
  using u128 = unsigned __int128;
  // Each field mapped to an unsigned value that sorts the way CandidateBefore wants.
  const uint64_t not_evicting = evicting ? 0 : 1;
  const uint64_t own = own_cq ? 1 : 0;
  const uint64_t prio = static_cast<uint32_t>(priority) ^ 0x8000'0000U;                 // ascending
  const uint64_t recent = ~(static_cast<uint64_t>(reserved_at) ^ (uint64_t{1} << 63));  // desc
  order_key = (u128{not_evicting} << 97) | (u128{own} << 96) | (u128{prio} << 64) | u128{recent};
}

bool CandidateBefore(const Candidate& a, const Candidate& b) {
  if (a.order_key != b.order_key) {
    return a.order_key < b.order_key;
  }
  if (int c = a.uid->compare(*b.uid); c != 0) {
    return c < 0;
  }
  return Index(a.workload) < Index(b.workload);
}

CandidateCollector::CandidateCollector(const Cluster& cluster, const ResourceTree& tree,
                                       const WorkloadStore& store, TimeMicros now)
    : cluster_(cluster), tree_(tree), store_(store), now_(now) {}

void CandidateCollector::StartCycle(TimeMicros now) {
  now_ = now;
  evicting_.clear();
  excluded_.clear();
  // Every cached list was collected under an older version: none is reused (they were collected
  // at another instant, and a candidate without a reservation time is ordered by `now`).
  ++sets_version_;
  cache_next_ = 0;
  lists_reused_ = 0;
}

void CandidateCollector::SetEvicting(std::span<const WorkloadId> evicting) {
  ++sets_version_;
  evicting_.assign(evicting.begin(), evicting.end());
  std::sort(evicting_.begin(), evicting_.end());
  evicting_.erase(std::unique(evicting_.begin(), evicting_.end()), evicting_.end());
}

void CandidateCollector::SetExcluded(std::span<const WorkloadId> excluded) {
  ++sets_version_;
  excluded_.assign(excluded.begin(), excluded.end());
  std::sort(excluded_.begin(), excluded_.end());
}

bool CandidateCollector::IsEvicting(WorkloadId id) const {
  return std::binary_search(evicting_.begin(), evicting_.end(), id);
}

bool CandidateCollector::Usable(CqId cq) const {
  // Inactive ClusterQueues are absent from Kueue's snapshot: their workloads are no candidates
  // (their usage still counts in the cohorts).
  return cluster_.Exists(cq) && cluster_.Inactive(cq) == InactiveReason::kNone;
}

bool CandidateCollector::WithinQuota(NodeId node, std::span<const FrSlot> needed) const {
  for (FrSlot slot : needed) {
    if (tree_.SubtreeQuota(node, slot) < tree_.Usage(node, slot)) {
      return false;
    }
  }
  return true;
}

bool CandidateCollector::UsesNeededSlot(const Workload& candidate,
                                        std::span<const FrSlot> needed) const {
  // Kueue's WorkloadUsesResources looks at the admitted flavor of every resource of every pod
  // set, whether or not that resource has recorded usage.
  if (!candidate.admitted.empty() && (candidate.admitted_mask & needed_mask_) == 0) {
    return false;  // no admitted pair hashes to a needed one: certainly unused
  }
  for (const AdmittedPodSet& ps : candidate.admitted) {
    for (const auto& [resource, flavor] : ps.flavors) {
      for (FrSlot slot : needed) {
        FlavorResource key = cluster_.SlotKey(slot);
        if (key.flavor == flavor && key.resource == resource) {
          return true;
        }
      }
    }
  }
  if (candidate.admitted.empty()) {
    // A reservation recorded without pod-set flavors: fall back to the charged slots.
    for (const SlotAmount& u : candidate.usage) {
      if (std::binary_search(needed.begin(), needed.end(), u.slot)) {
        return true;
      }
    }
  }
  return false;
}

CandidateVariant CandidateCollector::Classify(const PreemptionRequest& request,
                                              const Workload& candidate,
                                              bool hierarchical_advantage) const {
  if (!UsesNeededSlot(candidate, request.needed)) {
    return CandidateVariant::kNever;
  }
  const PreemptionSpec& preemption = cluster_.Spec(request.cq).preemption;
  const bool same_cq = candidate.cluster_queue == request.cq;
  const Workload& preemptor = *request.workload;
  PreemptionPolicy policy =
      same_cq ? preemption.within_cluster_queue : preemption.reclaim_within_cohort;
  if (!SatisfiesPreemptionPolicy(policy, preemptor.priority, preemptor.queue_order_time,
                                 candidate.priority, candidate.queue_order_time)) {
    return CandidateVariant::kNever;
  }
  if (same_cq) {
    return CandidateVariant::kWithinClusterQueue;
  }
  if (hierarchical_advantage) {
    return CandidateVariant::kHierarchicalReclaim;
  }
  if (preemption.borrow_within_cohort == PreemptionPolicy::kNever) {
    return CandidateVariant::kReclaimWithoutBorrowing;
  }
  // isAboveBorrowingThreshold: such candidates may only go while the preemptor won't borrow.
  if (candidate.priority >= preemptor.priority
      || (preemption.max_priority_threshold
          && candidate.priority > *preemption.max_priority_threshold)) {
    return CandidateVariant::kReclaimWithoutBorrowing;
  }
  return CandidateVariant::kReclaimWhileBorrowing;
}

void CandidateCollector::AddFromClusterQueue(const PreemptionRequest& request, CqId cq, NodeId lca,
                                             bool hierarchical_advantage,
                                             std::vector<Candidate>& out) const {
  const NodeId cq_node = cluster_.ClusterQueueNode(cq);
  for (WorkloadId id : store_.Admitted(cq)) {
    if (id == request.workload->id) {
      continue;  // a preemptor still holding a reservation never preempts itself
    }
    if (!excluded_.empty() && std::binary_search(excluded_.begin(), excluded_.end(), id)) {
      continue;
    }
    const Workload& w = store_.Get(id);
    CandidateVariant variant = Classify(request, w, hierarchical_advantage);
    if (variant == CandidateVariant::kNever) {
      continue;
    }
    Candidate& c = out.emplace_back();
    c.workload = id;
    c.cq_node = cq_node;
    c.lca = lca;
    c.variant = variant;
    c.evicting = IsEvicting(id);
    c.own_cq = cq == request.cq;
    c.priority = w.priority;
    // Kueue keys on the QuotaReserved condition; 0 ("not set") stands for a missing condition.
    c.reserved_at = w.quota_reserved_time == 0 ? now_ : w.quota_reserved_time;
    c.uid = &w.uid();
    c.SetOrderKey();
  }
}

void CandidateCollector::AddFromSubtree(const PreemptionRequest& request, NodeId node, NodeId lca,
                                        NodeId skip, bool hierarchical_advantage,
                                        std::vector<Candidate>& out) const {
  // Child cohorts first, then child ClusterQueues, as Kueue walks them.
  for (NodeId child : tree_.Children(node)) {
    if (tree_.Kind(child) != NodeKind::kCohort || child == skip) {
      continue;
    }
    if (WithinQuota(child, request.needed)) {
      continue;  // nothing to reclaim below a node that is not above its quota
    }
    AddFromSubtree(request, child, lca, skip, hierarchical_advantage, out);
  }
  for (NodeId child : tree_.Children(node)) {
    if (tree_.Kind(child) != NodeKind::kClusterQueue || child == request.cq_node) {
      continue;
    }
    CqId cq = cluster_.NodeClusterQueue(child);
    if (!Usable(cq) || WithinQuota(child, request.needed)) {
      continue;
    }
    AddFromClusterQueue(request, cq, lca, hierarchical_advantage, out);
  }
}

bool CandidateCollector::FitsInQuota(NodeId node, std::vector<SlotAmount>& remaining) const {
  bool fits = true;
  for (SlotAmount& r : remaining) {
    if (tree_.SubtreeQuota(node, r.slot) < tree_.Usage(node, r.slot) + r.amount) {
      fits = false;
    }
    r.amount = ClampNonNegative(r.amount - tree_.LocalAvailable(node, r.slot));
  }
  return fits;
}

bool CandidateCollector::ListKey::Matches(const ListKey& o) const {
  return state_version == o.state_version && structure_version == o.structure_version
         && sets_version == o.sets_version && workload == o.workload && priority == o.priority
         && queue_order_time == o.queue_order_time && cq == o.cq
         && advantage_step == o.advantage_step && needed == o.needed;
}

uint32_t CandidateCollector::FirstAdvantageStep(const PreemptionRequest& request) {
  remaining_.assign(request.requests.begin(), request.requests.end());
  if (FitsInQuota(request.cq_node, remaining_)) {
    return 0;
  }
  uint32_t step = 0;  // bounded by the node count (the CQ is never in a cohort cycle here)
  for (NodeId a = tree_.Parent(request.cq_node); IsValid(a) && step < tree_.num_nodes();
       a = tree_.Parent(a)) {
    ++step;
    if (FitsInQuota(a, remaining_)) {
      return step;  // the advantage holds from the next ancestor on
    }
  }
  return kNoAdvantage;
}

const CandidateList& CandidateCollector::Collect(const PreemptionRequest& request) {
  const PreemptionSpec& preemption = cluster_.Spec(request.cq).preemption;
  const bool from_cohort = tree_.HasParent(request.cq_node)
                           && preemption.reclaim_within_cohort != PreemptionPolicy::kNever;
  const uint32_t advantage_step = from_cohort ? FirstAdvantageStep(request) : kNoAdvantage;

  if (tree_.InWhatIf()) {
    CollectInto(request, advantage_step, from_cohort, uncached_);
    return uncached_;
  }
  probe_.state_version = tree_.state_version();
  probe_.structure_version = tree_.structure_version();
  probe_.sets_version = sets_version_;
  probe_.workload = request.workload->id;
  probe_.priority = request.workload->priority;
  probe_.queue_order_time = request.workload->queue_order_time;
  probe_.cq = request.cq;
  probe_.advantage_step = advantage_step;
  probe_.needed.assign(request.needed.begin(), request.needed.end());
  for (const CachedList& c : cache_) {
    if (c.valid && c.key.Matches(probe_)) {
      ++lists_reused_;
      return c.list;
    }
  }
  CachedList& slot = cache_[cache_next_];
  cache_next_ = (cache_next_ + 1) % cache_.size();
  CollectInto(request, advantage_step, from_cohort, slot.list);
  slot.valid = true;
  std::swap(slot.key, probe_);
  return slot.list;
}

void CandidateCollector::CollectInto(const PreemptionRequest& request, uint32_t advantage_step,
                                     bool from_cohort, CandidateList& out) {
  const PreemptionSpec& preemption = cluster_.Spec(request.cq).preemption;
  out.ordered.clear();
  hierarchical_.clear();
  priority_.clear();
  same_queue_.clear();
  needed_mask_ = 0;
  for (FrSlot slot : request.needed) {
    FlavorResource key = cluster_.SlotKey(slot);
    needed_mask_ |= FlavorResourceBit(key.flavor, key.resource);
  }

  if (preemption.within_cluster_queue != PreemptionPolicy::kNever) {
    AddFromClusterQueue(request, request.cq, kInvalidId<NodeId>, false, same_queue_);
  }

  if (from_cohort) {
    NodeId previous = kInvalidId<NodeId>;
    uint32_t step = 0;
    for (NodeId a = tree_.Parent(request.cq_node); IsValid(a) && step < tree_.num_nodes();
         a = tree_.Parent(a)) {
      // Once the request fits below an ancestor, every workload using the quota of the ones
      // above is reclaimable by hierarchy: the advantage sticks for the rest of the walk.
      const bool advantage = advantage_step != kNoAdvantage && step >= advantage_step;
      AddFromSubtree(request, a, a, previous, advantage, advantage ? hierarchical_ : priority_);
      previous = a;
      ++step;
    }
  }
  Order(out);
}

void CandidateCollector::Order(CandidateList& out) {
  out.none_from_other_cqs = hierarchical_.empty() && priority_.empty();
  out.none_hierarchical = hierarchical_.empty();
  std::sort(hierarchical_.begin(), hierarchical_.end(), CandidateBefore);
  std::sort(priority_.begin(), priority_.end(), CandidateBefore);
  std::sort(same_queue_.begin(), same_queue_.end(), CandidateBefore);

  // Evicting candidates of every list first, then the rest, keeping the list order. Each list is
  // sorted evicting-first, so without any evicting candidate this is a plain concatenation.
  out.ordered.reserve(hierarchical_.size() + priority_.size() + same_queue_.size());
  auto evicting_first = [](const std::vector<Candidate>& list) {
    return !list.empty() && list.front().evicting;
  };
  if (!evicting_first(hierarchical_) && !evicting_first(priority_)
      && !evicting_first(same_queue_)) {
    for (const std::vector<Candidate>* list : {&hierarchical_, &priority_, &same_queue_}) {
      out.ordered.insert(out.ordered.end(), list->begin(), list->end());
    }
    return;
  }
  for (bool evicting : {true, false}) {
    for (const std::vector<Candidate>* list : {&hierarchical_, &priority_, &same_queue_}) {
      for (const Candidate& c : *list) {
        if (c.evicting == evicting) {
          out.ordered.push_back(c);
        }
      }
    }
  }
}

bool CandidateCollector::IsCandidateValid(const PreemptionRequest& request,
                                          const Candidate& candidate, bool borrowing) const {
  if (candidate.own_cq) {
    return true;
  }
  if (borrowing && candidate.variant == CandidateVariant::kReclaimWithoutBorrowing) {
    return false;
  }
  if (WithinQuota(candidate.cq_node, request.needed)) {
    return false;
  }
  // Only up to the LCA: above it the preemptor shares the path.
  size_t steps = 0;
  for (NodeId n = tree_.Parent(candidate.cq_node);
       IsValid(n) && n != candidate.lca && steps < tree_.num_nodes();
       n = tree_.Parent(n), ++steps) {
    if (WithinQuota(n, request.needed)) {
      return false;
    }
  }
  return true;
}

}  // namespace internal
}  // namespace engine
