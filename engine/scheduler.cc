#include "engine/scheduler.h"

// The cycle: heads popped, nominated (scheduler_nomination.cc), ordered and processed.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <utility>

#include "engine/admission_invariants.h"
#include "engine/base/check.h"
#include "engine/base/phase_profile.h"

namespace engine {

const char* ToString(EntryOutcome outcome) {
  switch (outcome) {
    case EntryOutcome::kAdmitted:
      return "Admitted";
    case EntryOutcome::kPreempting:
      return "Preempting";
    case EntryOutcome::kSkipped:
      return "Skipped";
    case EntryOutcome::kInadmissible:
      return "Inadmissible";
    case EntryOutcome::kNotNominated:
      return "NotNominated";
  }
  return "?";
}

namespace {

bool Contains(const std::vector<WorkloadId>& ids, WorkloadId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Flavors an assignment uses, by name, for admission-check `onFlavors` matching.
bool UsesAnyFlavor(const Cluster& cluster, const Assignment& a,
                   const std::vector<std::string>& flavors) {
  if (flavors.empty()) {
    return true;
  }
  for (const PodSetAssignment& ps : a.pod_sets) {
    for (const FlavorChoice& c : ps.flavors) {
      if (std::find(flavors.begin(), flavors.end(), cluster.Name(c.flavor)) != flavors.end()) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool Scheduler::FitsAfterVictims(const CycleEntry& entry, const std::vector<WorkloadId>& victims) {
  ResourceTree& tree = cluster_.mutable_tree();
  ResourceTree::WhatIf what_if(tree);
  for (WorkloadId v : victims) {
    const Workload& victim = store_.Get(v);
    tree.RemoveUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  NodeId node = cluster_.ClusterQueueNode(entry.cq);
  bool fits = true;
  for (const SlotAmount& u : entry.assignment.usage) {
    if (u.amount > tree.Available(node, u.slot)) {
      fits = false;
      break;
    }
  }
  for (WorkloadId v : victims) {
    const Workload& victim = store_.Get(v);
    tree.RestoreUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  return fits;
}

namespace {

// Where `ps` is charged once admitted: its count, and the flavor and usage of each resource.
// `out` comes cleared (maybe with storage to reuse).
void ToAdmittedPodSet(const PodSetAssignment& ps, AdmittedPodSet& out) {
  out.name = ps.name;
  out.count = ps.count;
  out.flavors.reserve(ps.flavors.size());  // one allocation each, not one per doubling
  out.usage.reserve(ps.flavors.size());
  for (const FlavorChoice& c : ps.flavors) {
    out.flavors.emplace_back(c.resource, c.flavor);
    out.usage.push_back({c.slot, c.amount});
  }
}

std::vector<AdmittedPodSet> AdmittedPodSets(const Assignment& assignment) {
  std::vector<AdmittedPodSet> admitted(assignment.pod_sets.size());
  for (size_t i = 0; i < admitted.size(); ++i) {
    ToAdmittedPodSet(assignment.pod_sets[i], admitted[i]);
  }
  return admitted;
}

}  // namespace

// Seed 001: nomination checked each workload's devices alone; earlier admissions of this cycle
// may have taken them since. All or nothing, like the quota re-check before it.
bool Scheduler::AllocateDevices(CycleEntry& entry) {
  if (!cluster_.devices().HasClasses()) {
    return true;
  }
  std::optional<std::string> shortage =
      store_.AllocateDevices(entry.workload, AdmittedPodSets(entry.assignment));
  if (!shortage.has_value()) {
    return true;
  }
  entry.outcome = EntryOutcome::kSkipped;
  entry.reason = RequeueReason::kFailedAfterNomination;
  entry.message =
      fmt::format("Workload no longer fits after processing another workload: {}", *shortage);
  entry.assignment.devices_short = true;
  return false;
}

void Scheduler::Admit(CycleEntry& entry, TimeMicros now) {
  PhaseScope profile(Phase::kAdmit);
  // Invariant 1 (engine/admission_invariants.h): a flavor for every requested resource, and the
  // usage charged is exactly the assignment's.
  TALLY_DCHECK(CheckAdmission(cluster_, entry.cq, entry.assignment, QuotaCheck()).empty());
  const std::vector<PodSetAssignment>& pod_sets = entry.assignment.pod_sets;
  store_.Reserve(
      entry.workload, entry.cq, pod_sets.size(),
      [&](size_t i, AdmittedPodSet& out) { ToAdmittedPodSet(pod_sets[i], out); },
      entry.assignment.usage, now);
  entry.outcome = EntryOutcome::kAdmitted;
  for (const AdmissionCheckRule& rule : cluster_.Spec(entry.cq).admission_checks) {
    if (UsesAnyFlavor(cluster_, entry.assignment, rule.on_flavors)) {
      entry.checks_pending = true;
    }
  }
  store_.Get(entry.workload).scan.Reset();
  queues_.Remove(entry.workload);
}

bool Scheduler::RecomputeWithoutVictims(CycleEntry& entry, const std::vector<WorkloadId>& claimed,
                                        Preemptor& preemptor) {
  // §5.6 (Kueue's updateAssignmentIfNeeded): with every victim claimed earlier in the cycle
  // removed from the snapshot, recompute on the flavors chosen at nomination, from a reset scan.
  const Workload& w = store_.Get(entry.workload);
  ResourceTree& tree = cluster_.mutable_tree();
  Assignment recomputed;
  std::vector<PreemptionTarget> targets;
  {
    ResourceTree::WhatIf what_if(tree);
    for (WorkloadId v : claimed) {
      const Workload& victim = store_.Get(v);
      tree.RemoveUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
    }
    preemptor.SetExcluded(claimed);
    AssignRequest req;
    req.workload = &w;
    req.cq = entry.cq;
    req.cluster = &cluster_;
    req.tree = &tree;
    req.quota_check = QuotaCheck();
    req.fair_sharing = cluster_.configuration().fair_sharing;
    req.scheduling_cycle = cycle_;
    req.explain = options_.explain;
    req.pinned = &entry.assignment;
    recomputed = AssignFlavors(req, &preemptor);
    if (recomputed.Mode() == AssignmentMode::kPreempt) {
      targets = preemptor.GetTargets(w, entry.cq, recomputed);
    }
    preemptor.SetExcluded({});
    for (WorkloadId v : claimed) {
      const Workload& victim = store_.Get(v);
      tree.RestoreUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
    }
  }
  bool usable = recomputed.Mode() == AssignmentMode::kFit
                || (recomputed.Mode() == AssignmentMode::kPreempt && !targets.empty());
  if (!usable) {
    return false;
  }
  entry.assignment = std::move(recomputed);
  entry.targets = std::move(targets);
  return true;
}

CycleResult Scheduler::RunCycle(TimeMicros now) {
  PhaseScope profile(Phase::kCycle);
  ++cycle_;
  CycleResult result;
  result.cycle = cycle_;
  result.evictions = std::move(spare_evictions_);
  result.evictions.clear();
  ResourceTree& tree = cluster_.mutable_tree();
  // 1. Heads (none without a workload in any heap: not even the pass over the heaps).
  std::vector<WorkloadId>& heads = heads_;
  heads.clear();
  if (queues_.HasActive()) {
    queues_.PopHeads(cycle_, heads);
  }
  // Already in the cache: dropped silently.
  std::erase_if(heads, [&](WorkloadId id) { return store_.Get(id).quota_reserved; });
  if (heads.empty()) {
    // Nothing to nominate, so nothing below can change: no entry, charge, eviction or requeue.
    // The preemptor's and the tree key's per-cycle resets are left to the next cycle with
    // heads, which makes them anyway. A replay whose ClusterQueues keep up with their arrivals
    // runs two such cycles per workload (the one after its admission, the one after its
    // release): on the moderate trace of issue 22 they were 3 % of the instructions.
    return result;  // the spare entries stay spare, with their storage
  }
#if TALLY_DCHECK_IS_ON
  std::vector<Quantity> headroom_before;
  WithoutEvicting([&](const ResourceTree& t) { headroom_before = BorrowingHeadroom(t); });
#endif
  if (!cycle_preemptor_) {
    cycle_preemptor_.emplace(cluster_, tree, store_, now);
  }
  Preemptor& preemptor = *cycle_preemptor_;
  preemptor.StartCycle(now);
  preemptor.SetEvicting(store_.Evicting());
  preemptor.SetBoundCheck(options_.preemption_bound);

  // 2. Heads nominated against the same state.
  std::vector<CycleEntry> entries = std::move(spare_entries_);
  spare_entries_.clear();
  NominateAll(heads, now, preemptor, entries);
  const uint64_t nominated_version = tree.state_version();  // nomination's what-ifs leave it

  // 3. Global order: borrowing level, priority, queue-order timestamp; then (unspecified in
  // Kueue) ClusterQueue name and uid. Indices are sorted, not entries: an entry is a few hundred
  // bytes of vectors, and moving them cost 2 % of a congested replay's instructions.
  SortEntries(entries);

  // 4. Process.
  std::vector<WorkloadId>& claimed = claimed_;  // targets claimed earlier in this cycle
  claimed.clear();
  temporary_.clear();
  temporary_usage_.clear();
  size_t applied = 0;  // the first `applied` of temporary_ are in the tree
  // A cycle-only charge is put in the tree when the cycle next reads the tree (the calls to
  // apply_cycle_charges below), not at once. A charge with no later read in its cycle, which a
  // preemption ping-pong's one preemptor a cycle always is, is never applied and so never undone:
  // the pair of walks had been 5.8 % of the 16-tree trace's instructions (callgrind, first
  // 20,000 workloads). Applied in a batch, the charges leave the tree as they would one by one:
  // a cohort's usage is a function of its ClusterQueues' usage, whatever the order of the walks.
  // What is not replayed is only what the charge would have left behind after its undo, none of
  // which a decision reads: the version counter (caches keyed on it miss less; equal usage gives
  // equal answers) and M, the largest single charge of the preemption bound (ResourceTree's
  // comment): M is sound from admitted workloads alone, the only ones a search may remove.
  auto charge_for_cycle = [&](NodeId node, std::span<const SlotAmount> usage) {
    temporary_usage_.insert(temporary_usage_.end(), usage.begin(), usage.end());
    temporary_.emplace_back(node, temporary_usage_.size());
  };
  // The usage of cycle-only charge `i`.
  auto charged_usage = [&](size_t i) {
    const size_t begin = i == 0 ? 0 : temporary_[i - 1].second;
    return std::span<const SlotAmount>(temporary_usage_)
        .subspan(begin, temporary_[i].second - begin);
  };
  auto apply_cycle_charges = [&] {
    for (; applied < temporary_.size(); ++applied) {
      tree.AddUsage(temporary_[applied].first, charged_usage(applied));
    }
  };
  for (CycleEntry& entry : entries) {
    if (entry.outcome == EntryOutcome::kNotNominated) {
      continue;
    }
    const Workload& w = store_.Get(entry.workload);
    const ClusterQueueSpec& cq_spec = cluster_.Spec(entry.cq);
    NodeId node = cluster_.ClusterQueueNode(entry.cq);
    AssignmentMode mode = entry.assignment.Mode();
    if (mode == AssignmentMode::kNoFit) {
      entry.outcome = EntryOutcome::kInadmissible;
      entry.reason = RequeueReason::kNoFit;
      continue;
    }
    if (mode == AssignmentMode::kPreempt && entry.targets.empty()) {
      entry.outcome = EntryOutcome::kInadmissible;
      entry.reason = RequeueReason::kPreemptionNoCandidates;
      if (cq_spec.preemption.reclaim_within_cohort != PreemptionPolicy::kAny) {
        // Hold back the capacity this preemptor waits for (§5.5 step 3).
        apply_cycle_charges();  // the usage read below counts the earlier cycle-only charges
        std::vector<SlotAmount>& reserve = reserve_;
        reserve.clear();
        for (const SlotAmount& u : entry.assignment.usage) {
          Quantity nominal = tree.Nominal(node, u.slot);
          Quantity used = tree.Usage(node, u.slot);
          Quantity amount;
          if (entry.assignment.borrowing > 0) {
            Quantity limit = tree.BorrowingLimit(node, u.slot);
            amount = limit.IsUnlimited() ? u.amount : Min(u.amount, nominal + limit - used);
          } else {
            amount = ClampNonNegative(Min(u.amount, nominal - used));
          }
          if (amount > Quantity::Zero()) {
            reserve.push_back({u.slot, amount});
          }
        }
        charge_for_cycle(node, reserve);
      }
      continue;
    }
    bool overlapping =
        std::any_of(entry.targets.begin(), entry.targets.end(),
                    [&](const PreemptionTarget& t) { return Contains(claimed, t.workload); });
    if (overlapping) {
      apply_cycle_charges();
    }
    if (overlapping && !RecomputeWithoutVictims(entry, claimed, preemptor)) {
      entry.outcome = EntryOutcome::kSkipped;
      entry.reason = RequeueReason::kFailedAfterNomination;
      entry.message = "Workload has overlapping preemption targets with another workload";
      continue;
    }
    if (overlapping && entry.assignment.Mode() == AssignmentMode::kFit) {
      // §5.5 step 4, DeferredFit: it fits once the earlier victims are gone. Its usage counts
      // for the rest of the cycle; it waits for those preemptions (not admitted now).
      charge_for_cycle(node, entry.assignment.usage);
      entry.outcome = EntryOutcome::kPreempting;
      entry.reason = RequeueReason::kPendingPreemption;
      entry.message = "Workload fits once the preemptions of this cycle complete";
      queues_.SetPreemptor(entry.cq, entry.workload);
      continue;
    }
    mode = entry.assignment.Mode();
    std::vector<WorkloadId>& victims = victims_;
    victims.assign(claimed.begin(), claimed.end());
    for (const PreemptionTarget& t : entry.targets) {
      victims.push_back(t.workload);
    }
    apply_cycle_charges();  // FitsAfterVictims reads the tree, and Admit charges it
    // With no earlier victim and the tree as nomination saw it (no charge, admission or release
    // since), the entry fits: a Fit nomination checked every slot of its usage against
    // Available, and a target search keeps its targets only once WorkloadFits holds for the whole
    // usage with them removed, which is FitsAfterVictims' test, or a stricter one (no borrowing).
    // The first entry of a cycle always is such a case; the check's what-if walks over the
    // targets had been 5.4 % of the 16-tree trace's instructions.
    const bool as_nominated = claimed.empty() && tree.state_version() == nominated_version;
    TALLY_DCHECK(!as_nominated || FitsAfterVictims(entry, victims));
    if (!as_nominated && !FitsAfterVictims(entry, victims)) {
      entry.outcome = EntryOutcome::kSkipped;
      entry.reason = RequeueReason::kFailedAfterNomination;
      entry.message = "Workload no longer fits after processing another workload";
      continue;
    }
    if (mode == AssignmentMode::kPreempt) {
      for (const PreemptionTarget& t : entry.targets) {
        claimed.push_back(t.workload);
        if (options_.defer_victim_release && Contains(store_.Evicting(), t.workload)) {
          continue;  // evicted in an earlier cycle, still stopping
        }
        result.evictions.push_back({t.workload, entry.workload, t.reason});
      }
      // The preemptor's usage counts for the rest of the cycle (not in the cache).
      charge_for_cycle(node, entry.assignment.usage);
      entry.outcome = EntryOutcome::kPreempting;
      entry.reason = RequeueReason::kPendingPreemption;
      // Kueue's message, appended into the entry's reused string (fmt::format allocated one per
      // preempting entry: 0.7 % of a preemption ping-pong's instructions).
      std::array<char, 24> digits{};
      char* end =
          std::to_chars(digits.data(), digits.data() + digits.size(), entry.targets.size()).ptr;
      entry.message.assign("Pending the preemption of ");
      entry.message.append(digits.data(), static_cast<size_t>(end - digits.data()));
      entry.message.append(" workload(s)");
      queues_.SetPreemptor(entry.cq, entry.workload);
      result.changed =
          result.changed || !options_.defer_victim_release || !result.evictions.empty();
      continue;
    }
    if (!AllocateDevices(entry)) {
      continue;
    }
    Admit(entry, now);
    (void)w;
    result.changed = true;
  }

  // 5. Undo the cycle-only charges applied, release the victims (their pods have stopped) and
  // requeue.
  {
    ResourceTree::GenerationFreeze freeze(tree);
    for (size_t i = 0; i < applied; ++i) {
      tree.RemoveUsage(temporary_[i].first, charged_usage(i));
    }
  }
  std::vector<CqId>& freed = freed_;
  freed.clear();
  for (const Eviction& e : result.evictions) {
    if (options_.defer_victim_release) {
      store_.MarkEvicting(e.victim);
      continue;
    }
    freed.push_back(FinishEviction(e.victim, now));
  }
#if TALLY_DCHECK_IS_ON
  // Invariant 2 (engine/admission_invariants.h): no node ends the cycle below T >= -BL unless it
  // already was, and no debt got deeper. Before, the check compared the tree with a headroom also
  // taken after the cycle (the victims' usage on one side only): it failed on sound cycles.
  std::string headroom_error;
  WithoutEvicting(
      [&](const ResourceTree& t) { headroom_error = CheckHeadroomKept(t, headroom_before); });
  TALLY_DCHECK(headroom_error.empty());
#endif
  for (CycleEntry& entry : entries) {
    if (entry.outcome == EntryOutcome::kAdmitted) {
      continue;
    }
    Workload& w = store_.Get(entry.workload);
    bool clear_scan = entry.outcome == EntryOutcome::kPreempting
                      || (entry.outcome == EntryOutcome::kSkipped && !PreserveScanProgress());
    // Assigned, not built from a conditional expression (a temporary copy): w.scan keeps the
    // storage of its vectors, 3 allocations per requeue less.
    if (clear_scan) {
      w.scan.Reset();
    } else {
      w.scan = entry.assignment.last_state;
    }
    queues_.Requeue(entry.workload, entry.reason, now, cycle_);
  }
  // Freed capacity moves the inadmissible workloads of those trees back (at a fixed instant the
  // 1 s batch delay of Kueue collapses to "after this cycle").
  for (CqId cq : freed) {
    queues_.QueueInadmissible(cq, now, cycle_);
  }
  result.entries = std::move(entries);
  preemption_stats_ += preemptor.stats();
  return result;
}

void Scheduler::Recycle(CycleResult&& result) {
  if (result.entries.capacity() > spare_entries_.capacity()) {
    spare_entries_ = std::move(result.entries);
  }
  if (result.evictions.capacity() > spare_evictions_.capacity()) {
    spare_evictions_ = std::move(result.evictions);
  }
}

void Scheduler::SortEntries(std::vector<CycleEntry>& entries) {
  if (entries.size() < 2) {
    return;
  }
  entry_order_.resize(entries.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    entry_order_[i] = i;
  }
  std::sort(entry_order_.begin(), entry_order_.end(), [&](uint32_t ia, uint32_t ib) {
    const CycleEntry& a = entries[ia];
    const CycleEntry& b = entries[ib];
    const Workload& wa = store_.Get(a.workload);
    const Workload& wb = store_.Get(b.workload);
    if (a.assignment.borrowing != b.assignment.borrowing) {
      return a.assignment.borrowing < b.assignment.borrowing;
    }
    if (wa.priority != wb.priority) {
      return wa.priority > wb.priority;
    }
    if (wa.queue_order_time != wb.queue_order_time) {
      return wa.queue_order_time < wb.queue_order_time;
    }
    if (a.cq != b.cq) {
      return cluster_.Name(a.cq) < cluster_.Name(b.cq);
    }
    return wa.uid() < wb.uid();
  });
  bool in_order = true;
  for (uint32_t i = 0; i < entries.size(); ++i) {
    in_order = in_order && entry_order_[i] == i;
  }
  if (in_order) {
    return;
  }
  std::vector<CycleEntry>& sorted = sorted_scratch_;  // moved-from shells of the last sort
  sorted.clear();
  for (uint32_t i : entry_order_) {
    sorted.push_back(std::move(entries[i]));
  }
  entries.swap(sorted);
}

void Scheduler::WithoutEvicting(const std::function<void(const ResourceTree&)>& f) {
  ResourceTree& tree = cluster_.mutable_tree();
  ResourceTree::WhatIf what_if(tree);
  for (WorkloadId v : store_.Evicting()) {
    const Workload& victim = store_.Get(v);
    tree.RemoveUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  f(tree);
  for (WorkloadId v : store_.Evicting()) {
    const Workload& victim = store_.Get(v);
    tree.RestoreUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
}

CqId Scheduler::FinishEviction(WorkloadId victim, TimeMicros /*now*/) {
  CqId cq = store_.Get(victim).cluster_queue;
  store_.Release(victim);
  queues_.Push(victim);  // Requeued=True after a preemption: no backoff
  return cq;
}

}  // namespace engine
