#include "engine/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "engine/admission_invariants.h"
#include "engine/base/check.h"
#include "engine/base/phase_profile.h"
#include "engine/label_selector.h"

namespace engine {

namespace internal {

// Where a nomination gets its Preemptor, and the flavor assigner its preemption oracle.
class PreemptorSource : public PreemptionOracle {
 public:
  virtual Preemptor& Get() = 0;
  // Searches that collected candidates so far (engine/nomination_memo.h keeps only nominations
  // that ran none).
  virtual uint64_t FullSearches() const = 0;
  OracleResult SimulatePreemption(const Workload& workload, CqId cq, FrSlot slot,
                                  Quantity amount) override {
    return Get().SimulatePreemption(workload, cq, slot, amount);
  }
};

// One thread's nominations in a parallel cycle: its preemption what-ifs run on a private copy of
// the quota tree, made on the first need in the cycle (most heads fit, or fail without a what-if,
// and never pay for the copy).
class NominationWorker final : public PreemptorSource {
 public:
  NominationWorker(const Cluster& cluster, const WorkloadStore& store, PreemptionBoundCheck bound)
      : cluster_(cluster), store_(store), bound_(bound) {}
  void StartCycle(TimeMicros now) {
    preemptor_.reset();
    now_ = now;
  }
  Preemptor& Get() override {
    if (!preemptor_) {
      tree_.CopyFrom(cluster_.tree());
      preemptor_.emplace(cluster_, tree_, store_, now_);
      preemptor_->SetEvicting(store_.Evicting());
      preemptor_->SetBoundCheck(bound_);
    }
    return *preemptor_;
  }
  uint64_t FullSearches() const override {
    return preemptor_ ? preemptor_->stats().searches - preemptor_->stats().rejected_by_bound : 0;
  }
  // The searches of this cycle (none if no what-if was needed).
  PreemptionSearchStats Stats() const {
    return preemptor_ ? preemptor_->stats() : PreemptionSearchStats{};
  }

 private:
  const Cluster& cluster_;
  const WorkloadStore& store_;
  PreemptionBoundCheck bound_;
  TimeMicros now_ = 0;
  ResourceTree tree_;
  std::optional<Preemptor> preemptor_;
};

}  // namespace internal

namespace {

// The cycle's own Preemptor, over the shared tree (sequential nomination).
class SharedPreemptor final : public internal::PreemptorSource {
 public:
  explicit SharedPreemptor(Preemptor& preemptor) : preemptor_(preemptor) {}
  Preemptor& Get() override { return preemptor_; }
  uint64_t FullSearches() const override {
    return preemptor_.stats().searches - preemptor_.stats().rejected_by_bound;
  }

 private:
  Preemptor& preemptor_;
};

}  // namespace

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

Scheduler::Scheduler(Cluster& cluster, WorkloadStore& store, QueueManager& queues,
                     SchedulerOptions options)
    : cluster_(cluster), store_(store), queues_(queues), options_(options) {
  // Kueue moves an inadmissible workload back only while its namespace still matches.
  queues_.SetNamespaceFilter(
      [this](CqId cq, const Workload& w) { return NamespaceMatches(w, cq); });
}

void Scheduler::SetNamespaces(const std::vector<NamespaceSpec>& namespaces) {
  ++namespaces_version_;
  namespace_labels_.clear();
  for (const NamespaceSpec& ns : namespaces) {
    namespace_labels_[ns.name] = ns.labels;
    namespace_labels_[ns.name]["kubernetes.io/metadata.name"] = ns.name;
  }
}

bool Scheduler::NamespaceMatches(const Workload& w, CqId cq) const {
  const std::string& ns = w.spec->name_space;
  const LabelSelector& selector = cluster_.Spec(cq).namespace_selector;
  if (auto it = namespace_labels_.find(ns); it != namespace_labels_.end()) {
    return Matches(selector, it->second);
  }
  // A namespace without an object has only its name label, as Kubernetes sets it. One map per
  // thread whose value is overwritten: no allocation per nomination (nominations may run on
  // several threads at once).
  thread_local std::map<std::string, std::string> implicit = {{"kubernetes.io/metadata.name", ""}};
  implicit.begin()->second = ns;
  return Matches(selector, implicit);
}

bool Scheduler::ScanStateOutdated(const Workload& w) const {
  const FlavorScanState& s = w.scan;
  if (!s.valid) {
    return true;
  }
  // Always, in both modes: the saved indices are positions in the flavor lists they were
  // recorded against; a changed list (shrunk, grown, reordered) makes them meaningless.
  if (s.flavor_lists != cluster_.FlavorListsFingerprint(w.cluster_queue)) {
    return true;
  }
  const ResourceTree& tree = cluster_.tree();
  NodeId node = cluster_.ClusterQueueNode(w.cluster_queue);
  if (!options_.cohort_generation_resets_scan) {
    // --kueue-scan-reset, Kueue's rule (scheduler.go: lastAssignmentOutdated): only the
    // ClusterQueue's generation, and with PreserveScanProgress only once the state is at least
    // 2 cycles old.
    bool old_enough = !PreserveScanProgress() || cycle_ - s.scheduling_cycle >= 2;
    return old_enough && tree.Generation(node) > s.cluster_queue_generation;
  }
  // Seed 003 (KEP-582): "Any changes to these properties [LastTriedFlavorIdx,
  // ClusterQueueGeneration, CohortGeneration] will lead to a scheduling from the first flavor":
  // any generation bump of the ClusterQueue or of a cohort on its path, whatever the age.
  if (tree.Generation(node) != s.cluster_queue_generation) {
    return true;
  }
  size_t i = 0;
  for (NodeId n = tree.Parent(node); IsValid(n); n = tree.Parent(n), ++i) {
    if (i >= s.cohort_generations.size() || tree.Generation(n) != s.cohort_generations[i]) {
      return true;  // a bump, or the CQ moved to a deeper path (this also bounds the walk)
    }
  }
  return i != s.cohort_generations.size();  // the CQ moved to a shallower path
}

void Scheduler::TryPartialAdmission(const Workload& w, CycleEntry& entry,
                                    internal::PreemptorSource& preemptors,
                                    const FlavorScanState* resume) const {
  std::vector<int64_t> delta;
  int64_t total = 0;
  for (const PodSetRequest& ps : w.pod_sets) {
    int64_t d = ps.min_count ? std::max<int64_t>(0, ps.count - *ps.min_count) : 0;
    delta.push_back(d);
    total += d;
  }
  if (total == 0) {
    return;
  }
  AssignRequest req;
  req.workload = &w;
  req.cq = entry.cq;
  req.cluster = &cluster_;
  req.tree = &cluster_.tree();
  req.resume = resume;
  req.quota_check = QuotaCheck();
  req.fair_sharing = cluster_.configuration().fair_sharing;
  req.scheduling_cycle = cycle_;
  req.explain = options_.explain;
  // Go's sort.Search over k in [0, total]: the smallest reduction that admits (§6.8).
  int64_t lo = 0;
  int64_t hi = total + 1;
  int64_t last_ok = -1;
  Assignment best;
  std::vector<PreemptionTarget> best_targets;
  while (lo < hi) {
    int64_t h = lo + (hi - lo) / 2;
    std::vector<int32_t> counts;
    for (size_t i = 0; i < w.pod_sets.size(); ++i) {
      counts.push_back(static_cast<int32_t>(w.pod_sets[i].count - delta[i] * h / total));
    }
    req.counts = counts;
    Assignment a = AssignFlavors(req, &preemptors);
    bool ok = a.Mode() == AssignmentMode::kFit;
    std::vector<PreemptionTarget> targets;
    if (!ok && a.Mode() == AssignmentMode::kPreempt) {
      targets = preemptors.Get().GetTargets(w, entry.cq, a);
      ok = !targets.empty();
    }
    if (ok) {
      hi = h;
      last_ok = h;
      best = std::move(a);
      best_targets = std::move(targets);
    } else {
      lo = h + 1;
    }
  }
  if (last_ok >= 0 && lo == last_ok) {
    entry.assignment = std::move(best);
    entry.targets = std::move(best_targets);
    entry.partial = true;
  }
}

CycleEntry Scheduler::Nominate(WorkloadId id, internal::PreemptorSource& preemptors) const {
  PhaseScope profile(Phase::kNominate);
  const Workload& w = std::as_const(store_).Get(id);
  CycleEntry entry;
  entry.workload = id;
  entry.cq = w.cluster_queue;
  for (const AdmissionCheckStateSpec& check : w.spec->admission_checks) {
    if (check.state == CheckState::kRetry || check.state == CheckState::kRejected) {
      entry.outcome = EntryOutcome::kNotNominated;
      entry.reason = RequeueReason::kGeneric;
      entry.message = fmt::format("The workload has failed admission checks");
      return entry;
    }
  }
  if (cluster_.tree().InCycle(cluster_.ClusterQueueNode(w.cluster_queue))) [[unlikely]] {
    // Kueue keeps every ClusterQueue of a tree with a cohort cycle inactive (§4.3); heads are
    // never popped from it, so only Evaluate (`tally explain`) gets here. Answer before any walk
    // up the (endless) parent chain.
    entry.outcome = EntryOutcome::kNotNominated;
    entry.reason = RequeueReason::kGeneric;
    entry.message = fmt::format(
        "ClusterQueue {} cannot admit: cohorts {} form a cycle (Kueue keeps every ClusterQueue "
        "of that tree inactive)",
        cluster_.Name(w.cluster_queue), cluster_.CohortCycle(w.cluster_queue));
    return entry;
  }
  if (!NamespaceMatches(w, w.cluster_queue)) {
    entry.outcome = EntryOutcome::kNotNominated;
    entry.reason = RequeueReason::kNamespaceMismatch;
    // Kueue's workload.ErrNamespaceMismatch (pkg/workload/resources.go), lower case as Go errors
    // are.
    entry.message = "workload namespace doesn't match ClusterQueue selector";
    entry.misconfigured = true;
    return entry;
  }
  // Then ValidateResources, still inside Kueue's ValidateAdmissibility (pkg/workload/resources.go)
  // and before any flavor is tried: the requeue reason stays Generic (scheduler.go: nominate).
  if (!w.invalid_resources.empty()) {
    entry.outcome = EntryOutcome::kNotNominated;
    entry.reason = RequeueReason::kGeneric;
    entry.message = w.invalid_resources;
    entry.misconfigured = true;
    return entry;
  }
  const FlavorScanState* resume = ScanStateOutdated(w) ? nullptr : &w.scan;
  AssignRequest req;
  req.workload = &w;
  req.cq = w.cluster_queue;
  req.cluster = &cluster_;
  req.tree = &cluster_.tree();
  req.resume = resume;
  req.quota_check = QuotaCheck();
  req.fair_sharing = cluster_.configuration().fair_sharing;
  req.scheduling_cycle = cycle_;
  req.explain = options_.explain;
  entry.assignment = AssignFlavors(req, &preemptors);
  if (entry.assignment.Mode() == AssignmentMode::kPreempt) {
    entry.targets = preemptors.Get().GetTargets(w, w.cluster_queue, entry.assignment);
  }
  bool admissible =
      entry.assignment.Mode() == AssignmentMode::kFit
      || (entry.assignment.Mode() == AssignmentMode::kPreempt && !entry.targets.empty());
  // Gate PartialAdmission (Kueue pkg/scheduler/scheduler.go: getInitialAssignments).
  if (!admissible && Gates().partial_admission()) {
    TryPartialAdmission(w, entry, preemptors, resume);
  }
  if (options_.explain) {
    entry.message = entry.assignment.Message();
  }
  return entry;
}

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
    tree.AddUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  return fits;
}

namespace {

std::vector<AdmittedPodSet> AdmittedPodSets(const Assignment& assignment) {
  std::vector<AdmittedPodSet> admitted;
  for (const PodSetAssignment& ps : assignment.pod_sets) {
    AdmittedPodSet& ap = admitted.emplace_back();
    ap.name = ps.name;
    ap.count = ps.count;
    for (const FlavorChoice& c : ps.flavors) {
      ap.flavors.emplace_back(c.resource, c.flavor);
      ap.usage.push_back({c.slot, c.amount});
    }
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
  std::vector<AdmittedPodSet> admitted = AdmittedPodSets(entry.assignment);
  store_.Reserve(entry.workload, entry.cq, std::move(admitted), entry.assignment.usage, now);
  entry.outcome = EntryOutcome::kAdmitted;
  for (const AdmissionCheckRule& rule : cluster_.Spec(entry.cq).admission_checks) {
    if (UsesAnyFlavor(cluster_, entry.assignment, rule.on_flavors)) {
      entry.checks_pending = true;
    }
  }
  store_.Get(entry.workload).scan = FlavorScanState{};
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
    req.explain = options_.explain;
    req.pinned = &entry.assignment;
    recomputed = AssignFlavors(req, &preemptor);
    if (recomputed.Mode() == AssignmentMode::kPreempt) {
      targets = preemptor.GetTargets(w, entry.cq, recomputed);
    }
    preemptor.SetExcluded({});
    for (WorkloadId v : claimed) {
      const Workload& victim = store_.Get(v);
      tree.AddUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
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

CycleEntry Scheduler::Evaluate(WorkloadId id, TimeMicros now) {
  Preemptor preemptor(cluster_, cluster_.mutable_tree(), store_, now);
  preemptor.SetEvicting(store_.Evicting());
  preemptor.SetBoundCheck(options_.preemption_bound);
  SharedPreemptor source(preemptor);
  CycleEntry entry = Nominate(id, source);
  preemption_stats_ += preemptor.stats();
  return entry;
}

Scheduler::~Scheduler() = default;

void Scheduler::SetParallelLoop(ParallelLoop* loop, size_t min_heads) {
  parallel_ = loop;
  min_parallel_heads_ = min_heads;
  workers_.clear();
}

CycleEntry Scheduler::NominateMemoised(WorkloadId id, internal::PreemptorSource& preemptors,
                                       MemoUpdate& update) const {
  update = MemoUpdate{};
  const Workload& w = std::as_const(store_).Get(id);
  if (options_.nomination_memo == NominationMemoMode::kOff || !w.fallback.empty()
      || cluster_.devices().HasClasses()) {
    return Nominate(id, preemptors);
  }
  update.versions = {cluster_.tree().state_version(), store_.reservation_version(),
                     cluster_.config_version(), namespaces_version_};
  update.scan_outdated = ScanStateOutdated(w);
  const CycleEntry* stored = memo_.Find(w, update.versions, update.scan_outdated);
  if (stored != nullptr && options_.nomination_memo == NominationMemoMode::kOn) {
    update.kind = MemoUpdate::Kind::kHit;
    CycleEntry entry = *stored;
    entry.assignment.last_state.scheduling_cycle = cycle_;  // the only field that moves
    return entry;
  }
  const uint64_t searches_before = preemptors.FullSearches();
  CycleEntry entry = Nominate(id, preemptors);
  if (stored != nullptr) {  // kVerify
    update.kind = MemoUpdate::Kind::kHit;
    CycleEntry reused = *stored;
    reused.assignment.last_state.scheduling_cycle = cycle_;
    update.mismatch = EntryFingerprint(reused) != EntryFingerprint(entry);
  } else {
    update.kind = MemoUpdate::Kind::kMiss;
  }
  update.store = preemptors.FullSearches() == searches_before;
  return entry;
}

void Scheduler::NominateAll(const std::vector<WorkloadId>& heads, TimeMicros now,
                            Preemptor& preemptor, std::vector<CycleEntry>& entries) {
  entries.resize(heads.size());
  memo_updates_.resize(heads.size());
  // The memo's counters and stores, sequentially, once every head is nominated.
  auto write_back = [&] {
    NominationMemoStats& stats = memo_.stats();
    for (size_t i = 0; i < heads.size(); ++i) {
      const MemoUpdate& u = memo_updates_[i];
      if (u.kind == MemoUpdate::Kind::kHit) {
        ++stats.hits;
      } else if (u.kind == MemoUpdate::Kind::kMiss && u.store) {
        ++stats.misses;
      } else {
        ++stats.not_memoised;
      }
      stats.mismatches += u.mismatch ? 1 : 0;
      if (u.store) {
        memo_.Store(store_.Get(heads[i]), u.versions, u.scan_outdated, entries[i]);
      }
    }
  };
  const size_t slots = parallel_ == nullptr ? 1 : parallel_->slots();
  if (slots < 2 || heads.size() < std::max<size_t>(min_parallel_heads_, 2)) {
    SharedPreemptor source(preemptor);
    for (size_t i = 0; i < heads.size(); ++i) {
      entries[i] = NominateMemoised(heads[i], source, memo_updates_[i]);
    }
    write_back();
    return;
  }
  cluster_.PrepareConcurrentReads();
  while (workers_.size() < slots) {
    workers_.push_back(
        std::make_unique<internal::NominationWorker>(cluster_, store_, options_.preemption_bound));
  }
  for (auto& worker : workers_) {
    worker->StartCycle(now);
  }
  parallel_->Run(heads.size(), [&](size_t slot, size_t i) {
    entries[i] = NominateMemoised(heads[i], *workers_[slot], memo_updates_[i]);
  });
  for (auto& worker : workers_) {
    preemption_stats_ += worker->Stats();
  }
  write_back();
}

CycleResult Scheduler::RunCycle(TimeMicros now) {
  PhaseScope profile(Phase::kCycle);
  ++cycle_;
  CycleResult result;
  result.cycle = cycle_;
  ResourceTree& tree = cluster_.mutable_tree();
#ifndef NDEBUG
  const std::vector<Quantity> headroom_before = HeadroomWithoutEvicting();
#endif
  Preemptor preemptor(cluster_, tree, store_, now);
  preemptor.SetEvicting(store_.Evicting());
  preemptor.SetBoundCheck(options_.preemption_bound);

  // 1-2. Heads, nominated against the same state.
  std::vector<WorkloadId> heads;
  for (WorkloadId id : queues_.PopHeads(cycle_)) {
    if (!store_.Get(id).quota_reserved) {  // already in the cache: dropped silently
      heads.push_back(id);
    }
  }
  std::vector<CycleEntry> entries;
  NominateAll(heads, now, preemptor, entries);

  // 3. Global order: borrowing level, priority, queue-order timestamp; then (unspecified in
  // Kueue) ClusterQueue name and uid.
  std::sort(entries.begin(), entries.end(), [&](const CycleEntry& a, const CycleEntry& b) {
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
    return wa.uid < wb.uid;
  });

  // 4. Process.
  std::vector<WorkloadId> claimed;  // targets claimed earlier in this cycle
  std::vector<std::pair<NodeId, std::vector<SlotAmount>>> temporary;  // undone at cycle end
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
        std::vector<SlotAmount> reserve;
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
        tree.AddUsage(node, reserve);
        temporary.emplace_back(node, std::move(reserve));
      }
      continue;
    }
    bool overlapping =
        std::any_of(entry.targets.begin(), entry.targets.end(),
                    [&](const PreemptionTarget& t) { return Contains(claimed, t.workload); });
    if (overlapping && !RecomputeWithoutVictims(entry, claimed, preemptor)) {
      entry.outcome = EntryOutcome::kSkipped;
      entry.reason = RequeueReason::kFailedAfterNomination;
      entry.message = "Workload has overlapping preemption targets with another workload";
      continue;
    }
    if (overlapping && entry.assignment.Mode() == AssignmentMode::kFit) {
      // §5.5 step 4, DeferredFit: it fits once the earlier victims are gone. Its usage counts
      // for the rest of the cycle; it waits for those preemptions (not admitted now).
      tree.AddUsage(node, entry.assignment.usage);
      temporary.emplace_back(node, entry.assignment.usage);
      entry.outcome = EntryOutcome::kPreempting;
      entry.reason = RequeueReason::kPendingPreemption;
      entry.message = "Workload fits once the preemptions of this cycle complete";
      queues_.SetPreemptor(entry.cq, entry.workload);
      continue;
    }
    mode = entry.assignment.Mode();
    std::vector<WorkloadId> victims = claimed;
    for (const PreemptionTarget& t : entry.targets) {
      victims.push_back(t.workload);
    }
    if (!FitsAfterVictims(entry, victims)) {
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
      tree.AddUsage(node, entry.assignment.usage);
      temporary.emplace_back(node, entry.assignment.usage);
      entry.outcome = EntryOutcome::kPreempting;
      entry.reason = RequeueReason::kPendingPreemption;
      entry.message = fmt::format("Pending the preemption of {} workload(s)", entry.targets.size());
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

  // 5. Undo the cycle-only charges, release the victims (their pods have stopped) and requeue.
  {
    ResourceTree::GenerationFreeze freeze(tree);
    for (auto& [node, usage] : temporary) {
      tree.RemoveUsage(node, usage);
    }
  }
  std::vector<CqId> freed;
  for (const Eviction& e : result.evictions) {
    if (options_.defer_victim_release) {
      store_.MarkEvicting(e.victim);
      continue;
    }
    freed.push_back(FinishEviction(e.victim, now));
  }
#ifndef NDEBUG
  // Invariant 2 (engine/admission_invariants.h): no node ends the cycle below T >= -BL unless it
  // already was, and no debt got deeper.
  TALLY_DCHECK(CheckHeadroomKept(tree, HeadroomWithoutEvicting()).empty());
#endif
  for (CycleEntry& entry : entries) {
    if (entry.outcome == EntryOutcome::kAdmitted) {
      continue;
    }
    Workload& w = store_.Get(entry.workload);
    bool clear_scan = entry.outcome == EntryOutcome::kPreempting
                      || (entry.outcome == EntryOutcome::kSkipped && !PreserveScanProgress());
    w.scan = clear_scan ? FlavorScanState{} : entry.assignment.last_state;
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

std::vector<Quantity> Scheduler::HeadroomWithoutEvicting() {
  // Victims still stopping (deferred mode) hold quota the cycle already counted as freed.
  ResourceTree& tree = cluster_.mutable_tree();
  ResourceTree::WhatIf what_if(tree);
  for (WorkloadId v : store_.Evicting()) {
    const Workload& victim = store_.Get(v);
    tree.RemoveUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  std::vector<Quantity> headroom = BorrowingHeadroom(tree);
  for (WorkloadId v : store_.Evicting()) {
    const Workload& victim = store_.Get(v);
    tree.AddUsage(cluster_.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  return headroom;
}

CqId Scheduler::FinishEviction(WorkloadId victim, TimeMicros /*now*/) {
  CqId cq = store_.Get(victim).cluster_queue;
  store_.Release(victim);
  queues_.Push(victim);  // Requeued=True after a preemption: no backoff
  return cq;
}

}  // namespace engine
