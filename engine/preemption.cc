#include "engine/preemption.h"

#include <algorithm>
#include <array>

#include "engine/base/phase_profile.h"
#include "engine/cluster.h"
#include "engine/workload.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

using internal::Candidate;
using internal::PreemptionRequest;
using internal::UsageChange;

// Try, then undo (STYLE rule 14): every usage change made through it is reverted, newest first,
// when it goes out of scope, whatever the exit path. The log is borrowed scratch, so that a
// simulation allocates nothing once the log has grown; undos nest as a stack. It is a
// ResourceTree::WhatIf: generations are frozen meanwhile (a what-if removal does not free
// capacity for real) and the preemption bounds keep their values.
class UsageUndo {
 public:
  UsageUndo(ResourceTree& tree, std::vector<UsageChange>& log)
      : tree_(tree), what_if_(tree), log_(log), mark_(log.size()) {}
  UsageUndo(const UsageUndo&) = delete;
  UsageUndo& operator=(const UsageUndo&) = delete;
  UsageUndo(UsageUndo&&) = delete;
  UsageUndo& operator=(UsageUndo&&) = delete;
  ~UsageUndo() { Revert(); }

  void Remove(NodeId cq, std::span<const SlotAmount> usage) {
    tree_.RemoveUsage(cq, usage);
    log_.push_back({cq, usage, true});
  }
  // Puts back usage removed through this undo (ResourceTree::RestoreUsage's contract).
  void PutBack(NodeId cq, std::span<const SlotAmount> usage) {
    tree_.RestoreUsage(cq, usage);
    log_.push_back({cq, usage, false});
  }
  void Revert() {
    while (log_.size() > mark_) {
      UsageChange change = log_.back();
      log_.pop_back();
      if (change.removed) {
        tree_.RestoreUsage(change.cq, change.usage);
      } else {
        tree_.RemoveUsage(change.cq, change.usage);
      }
    }
  }

 private:
  ResourceTree& tree_;
  ResourceTree::WhatIf what_if_;  // released after Revert() ran in the destructor
  std::vector<UsageChange>& log_;
  size_t mark_;
};

}  // namespace

const internal::CandidateList& Preemptor::last_candidates() const {
  static const internal::CandidateList none;
  return candidates_ != nullptr ? *candidates_ : none;
}

Preemptor::Preemptor(const Cluster& cluster, ResourceTree& tree, const WorkloadStore& store,
                     TimeMicros now)
    : cluster_(cluster), tree_(tree), store_(store), collector_(cluster, tree, store, now) {}

void Preemptor::StartCycle(TimeMicros now) {
  collector_.StartCycle(now);
  candidates_ = nullptr;
  stats_ = PreemptionSearchStats{};
  last_search_.valid = false;
}

void Preemptor::SetEvicting(std::span<const WorkloadId> evicting) {
  collector_.SetEvicting(evicting);
}

bool Preemptor::WorkloadFits(const PreemptionRequest& request, bool borrowing) const {
  for (const SlotAmount& r : request.requests) {
    if (!borrowing && tree_.WouldBorrow(request.cq_node, r.slot, r.amount)) {
      return false;
    }
    if (r.amount > tree_.Available(request.cq_node, r.slot)) {
      return false;
    }
  }
  return true;
}

bool Preemptor::UnderNominal(const PreemptionRequest& request) const {
  for (FrSlot slot : request.needed) {
    if (tree_.Usage(request.cq_node, slot) >= tree_.Nominal(request.cq_node, slot)) {
      return false;
    }
  }
  return true;
}

Quantity Preemptor::OwnPreemptible(const PreemptionRequest& request, FrSlot slot) const {
  const PreemptionPolicy policy = cluster_.Spec(request.cq).preemption.within_cluster_queue;
  if (policy == PreemptionPolicy::kNever) {
    return Quantity::Zero();
  }
  // LowerPriority and Any from the store's per-priority sums, O(priorities). Under
  // LowerOrNewerEqualPriority an equal priority counts only when newer than the preemptor, which
  // the sums cannot tell: the lower levels come from them, the equal level from its workloads.
  const Workload& preemptor = *request.workload;
  const int32_t p = preemptor.priority;
  switch (policy) {
    case PreemptionPolicy::kLowerPriority:
      return store_.ReservedUsageBelow(request.cq, slot, p, /*inclusive=*/false);
    case PreemptionPolicy::kLowerOrNewerEqualPriority: {
      Quantity total = store_.ReservedUsageBelow(request.cq, slot, p, /*inclusive=*/false);
      if (store_.ReservedUsageBelow(request.cq, slot, p, /*inclusive=*/true) == total) {
        return total;  // nothing at the preemptor's priority on this slot
      }
      for (WorkloadId id : store_.Admitted(request.cq)) {
        const Workload& w = store_.Get(id);
        if (w.priority != p || id == preemptor.id
            || !internal::SatisfiesPreemptionPolicy(policy, p, preemptor.queue_order_time,
                                                    w.priority, w.queue_order_time)) {
          continue;
        }
        for (const SlotAmount& u : w.usage) {
          if (u.slot == slot) {
            total += u.amount;
          }
        }
      }
      return total;
    }
    case PreemptionPolicy::kAny:
    case PreemptionPolicy::kNever:
      break;
  }
  return store_.ReservedUsage(request.cq, slot);
}

bool Preemptor::HopelessByBound(const PreemptionRequest& request) const {
  if (request.needed.empty() || tree_.InCycle(request.cq_node)) {
    return false;
  }
  // Several needed slots: bounded only when they share a group (one flavor's resources).
  const uint32_t group = tree_.SlotGroup(request.needed.front());
  if (request.needed.size() > 1) {
    for (FrSlot slot : request.needed) {
      if (group == ResourceTree::kNoGroup || tree_.SlotGroup(slot) != group) {
        return false;
      }
    }
  }
  for (const SlotAmount& r : request.requests) {
    if (!std::binary_search(request.needed.begin(), request.needed.end(), r.slot)
        && r.amount > tree_.Available(request.cq_node, r.slot)) {
      return false;  // a slot needing no preemption does not fit now: victims might help there
    }
  }
  using Scope = ResourceTree::ReclaimScope;
  Scope scope = Scope::kOwnClusterQueue;
  if (tree_.HasParent(request.cq_node)
      && cluster_.Spec(request.cq).preemption.reclaim_within_cohort != PreemptionPolicy::kNever) {
    scope = request.needed.size() == 1 ? Scope::kCohortOneSlot : Scope::kCohortAnySlotOfGroup;
  }
  // WorkloadFits with borrowing allowed is the weaker of the attempts: if some needed slot cannot
  // fit there whatever is removed, no attempt succeeds.
  for (const SlotAmount& r : request.requests) {
    if (std::binary_search(request.needed.begin(), request.needed.end(), r.slot)
        && r.amount > tree_.AvailableAfterReclaim(request.cq_node, r.slot,
                                                  OwnPreemptible(request, r.slot), scope)) {
      return true;
    }
  }
  return false;
}

bool Preemptor::Matches(const LastSearch& last, const PreemptionRequest& request) const {
  return last.valid && request.requests.size() == 1 && request.needed.size() == 1
         && last.slot == request.needed[0] && last.slot == request.requests[0].slot
         && last.amount == request.requests[0].amount && last.workload == request.workload
         && last.id == request.workload->id && last.priority == request.workload->priority
         && last.queue_order_time == request.workload->queue_order_time && last.cq == request.cq
         && last.state_version == tree_.state_version()
         && last.structure_version == tree_.structure_version()
         && last.reservation_key == store_.reservation_key()
         && last.sets_version == collector_.sets_version();
}

bool Preemptor::FindTargets(const PreemptionRequest& request) {
  // Inside a what-if the usage differs from what the versions stand for: no reuse, and the
  // search overwrites the targets the last answer refers to.
  if (tree_.InWhatIf()) {
    last_search_.valid = false;
    return RunSearch(request);
  }
  if (Matches(last_search_, request)) {
    // Counted as the search it repeats, which collected its candidates: it reuses their list.
    ++stats_.searches;
    stats_.candidates += last_search_.candidates;
    stats_.found += last_search_.found ? 1 : 0;
    stats_.bound_unsound += last_search_.bound_unsound;
    ++stats_.lists_reused;
    ++stats_.answers_reused;
    return last_search_.found;
  }
  const uint64_t rejected_before = stats_.rejected_by_bound;
  const uint64_t candidates_before = stats_.candidates;
  const uint64_t unsound_before = stats_.bound_unsound;
  const bool found = RunSearch(request);
  LastSearch& last = last_search_;
  // Kept only for a question about one slot (the oracle's) that ran in full: the bound's
  // rejection costs less than the key, and a target computation about several slots follows
  // no oracle question (the 16-tree trace asks millions of them).
  last.valid = request.requests.size() == 1 && request.needed.size() == 1
               && request.needed[0] == request.requests[0].slot
               && stats_.rejected_by_bound == rejected_before;
  if (!last.valid) {
    return found;
  }
  last.slot = request.needed[0];
  last.amount = request.requests[0].amount;
  last.workload = request.workload;
  last.id = request.workload->id;
  last.priority = request.workload->priority;
  last.queue_order_time = request.workload->queue_order_time;
  last.cq = request.cq;
  last.state_version = tree_.state_version();
  last.structure_version = tree_.structure_version();
  last.reservation_key = store_.reservation_key();
  last.sets_version = collector_.sets_version();
  last.found = found;
  last.candidates = stats_.candidates - candidates_before;
  last.bound_unsound = stats_.bound_unsound - unsound_before;
  return found;
}

bool Preemptor::RunSearch(const PreemptionRequest& request) {
  PhaseScope profile(Phase::kPreemptionSearch);
  ++stats_.searches;
  const bool hopeless = bound_check_ != PreemptionBoundCheck::kOff && HopelessByBound(request);
  if (hopeless) {
    ++stats_.rejected_by_bound;
    if (bound_check_ == PreemptionBoundCheck::kOn) {
      targets_.clear();
      return false;
    }
  }
  const bool found = SearchTargets(request);
  if (found) {
    ++stats_.found;
  }
  if (hopeless && found) {
    ++stats_.bound_unsound;
  }
  return found;
}

bool Preemptor::SearchTargets(const PreemptionRequest& request) {
  targets_.clear();
  const uint64_t reused_before = collector_.lists_reused();
  candidates_ = &collector_.Collect(request);
  const internal::CandidateList& candidates = *candidates_;
  stats_.lists_reused += collector_.lists_reused() - reused_before;
  stats_.candidates += candidates.ordered.size();
  if (candidates.ordered.empty()) {
    return false;
  }

  // The attempt list (§7.3). Priority candidates above maxPriorityThreshold may only go while
  // the preemptor's CQ ends up not borrowing, so sometimes both settings are tried; which one
  // comes first follows Kueue (kept for compatibility there).
  const bool borrow_forbidden =
      cluster_.Spec(request.cq).preemption.borrow_within_cohort == PreemptionPolicy::kNever;
  std::array<bool, 2> attempts{true, false};
  size_t num_attempts = 2;
  if (candidates.none_from_other_cqs || (borrow_forbidden && !UnderNominal(request))) {
    num_attempts = 1;
  } else if (borrow_forbidden && candidates.none_hierarchical) {
    attempts = {false, true};
  }

  for (size_t i = 0; i < num_attempts; ++i) {
    const bool borrowing = attempts[i];
    UsageUndo undo(tree_, undo_log_);
    targets_.clear();
    for (const Candidate& c : candidates.ordered) {
      if (!collector_.IsCandidateValid(request, c, borrowing)) {
        continue;
      }
      undo.Remove(c.cq_node, store_.Get(c.workload).usage);
      targets_.push_back(&c);
      if (!WorkloadFits(request, borrowing)) {
        continue;
      }
      // Fill back: from the second-last target down, re-add each; if the preemptor still fits
      // it is spared (swap-removed with the last element), else it is removed again.
      for (size_t j = targets_.size() - 1; j-- > 0;) {
        const Candidate& t = *targets_[j];
        std::span<const SlotAmount> usage = store_.Get(t.workload).usage;
        undo.PutBack(t.cq_node, usage);
        if (WorkloadFits(request, borrowing)) {
          targets_[j] = targets_.back();
          targets_.pop_back();
        } else {
          undo.Remove(t.cq_node, usage);
        }
      }
      return true;  // `undo` restores the tree
    }
  }
  targets_.clear();
  return false;
}

std::vector<PreemptionTarget> Preemptor::GetTargets(const Workload& workload, CqId cq,
                                                    const Assignment& assignment) {
  needed_.clear();
  for (const PodSetAssignment& ps : assignment.pod_sets) {
    for (const FlavorChoice& choice : ps.flavors) {
      if (choice.mode == AssignmentMode::kPreempt) {
        needed_.push_back(choice.slot);
      }
    }
  }
  std::sort(needed_.begin(), needed_.end());
  needed_.erase(std::unique(needed_.begin(), needed_.end()), needed_.end());

  PreemptionRequest request{&workload, cq, cluster_.ClusterQueueNode(cq), needed_,
                            assignment.usage};
  std::vector<PreemptionTarget> out;
  if (!FindTargets(request)) {
    return out;
  }
  out.reserve(targets_.size());
  for (const Candidate* t : targets_) {
    out.push_back({t->workload, internal::ReasonFor(t->variant)});
  }
  return out;
}

OracleResult Preemptor::SimulatePreemption(const Workload& workload, CqId cq, FrSlot slot,
                                           Quantity amount) {
  needed_.assign(1, slot);
  single_request_.assign(1, SlotAmount{slot, amount});
  const NodeId cq_node = cluster_.ClusterQueueNode(cq);
  PreemptionRequest request{&workload, cq, cq_node, needed_, single_request_};
  if (!FindTargets(request)) {
    return {PreemptionMode::kNoCandidates, tree_.FindBorrowingLevel(cq_node, slot, amount).level};
  }
  OracleResult result{PreemptionMode::kReclaim, 0};
  {
    UsageUndo undo(tree_, undo_log_);
    for (const Candidate* t : targets_) {
      undo.Remove(t->cq_node, store_.Get(t->workload).usage);
    }
    result.borrow = tree_.FindBorrowingLevel(cq_node, slot, amount).level;
  }
  for (const Candidate* t : targets_) {
    if (t->own_cq) {
      result.mode = PreemptionMode::kPreempt;
    }
  }
  return result;
}

}  // namespace engine
