// Nominating a cycle's heads (engine/scheduler.h): namespace and scan checks, flavor assignment
// with preemption targets and partial admission, the nomination memo, and parallel nomination
// through per-thread preemptors. Read-only on the scheduler's state; the cycle that orders and
// processes the entries is in scheduler.cc.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/phase_profile.h"
#include "engine/label_selector.h"
#include "engine/scheduler.h"

namespace engine {

namespace internal {

// Where a nomination gets its Preemptor, and the flavor assigner its preemption oracle.
class PreemptorSource : public PreemptionOracle {
 public:
  virtual Preemptor& Get() = 0;
  // Searches that collected candidates so far: a nomination that ran one read the time
  // (engine/nomination_memo.h keys its entry on it).
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
    in_cycle_ = false;
    now_ = now;
  }
  Preemptor& Get() override {
    if (!in_cycle_) {
      tree_.CopyFrom(cluster_.tree());
      if (!preemptor_) {
        preemptor_.emplace(cluster_, tree_, store_, now_);
      }
      preemptor_->StartCycle(now_);  // kept across cycles: its scratch keeps its storage
      preemptor_->SetEvicting(store_.Evicting());
      preemptor_->SetBoundCheck(bound_);
      in_cycle_ = true;
    }
    return *preemptor_;
  }
  uint64_t FullSearches() const override {
    return in_cycle_ ? preemptor_->stats().searches - preemptor_->stats().rejected_by_bound : 0;
  }
  // The searches of this cycle (none if no what-if was needed).
  PreemptionSearchStats Stats() const {
    return in_cycle_ ? preemptor_->stats() : PreemptionSearchStats{};
  }

 private:
  const Cluster& cluster_;
  const WorkloadStore& store_;
  PreemptionBoundCheck bound_;
  TimeMicros now_ = 0;
  ResourceTree tree_;
  std::optional<Preemptor> preemptor_;  // over tree_
  bool in_cycle_ = false;               // tree_ copied and preemptor_ started in this cycle
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

void Scheduler::SetNamespaces(const std::vector<NamespaceSpec>& namespaces) {
  ++namespaces_version_;
  namespace_labels_ = NamespaceLabels(namespaces);
}

void Scheduler::ShareNamespaces(std::shared_ptr<const NamespaceLabels::Table> namespaces) {
  ++namespaces_version_;
  namespace_labels_ = NamespaceLabels::Sharing(std::move(namespaces));
}

void Scheduler::SetNamespace(const NamespaceSpec& ns) {
  ++namespaces_version_;
  namespace_labels_.Set(ns);
}

void Scheduler::DeleteNamespace(const std::string& name) {
  ++namespaces_version_;
  namespace_labels_.Erase(name);
}

bool Scheduler::NamespaceMatches(const Workload& w, CqId cq) const {
  const std::string& ns = w.spec->name_space;
  const LabelSelector& selector = cluster_.Spec(cq).namespace_selector;
  if (MatchesEverything(selector)) {
    return true;
  }
  // The ClusterQueue's last verdict, when it was for the same namespace under the same
  // configuration (the selector) and namespace labels. Not while nominating on several threads:
  // the verdicts are shared.
  NamespaceVerdict* verdict = nullptr;
  if (!nominating_in_parallel_) {
    if (Index(cq) >= namespace_verdicts_.size()) {
      namespace_verdicts_.resize(Index(cq) + 1);
    }
    verdict = &namespace_verdicts_[Index(cq)];
    if (verdict->valid && verdict->config_version == cluster_.config_version()
        && verdict->namespaces_version == namespaces_version_ && verdict->name_space == ns) {
      return verdict->matches;
    }
  }
  bool matches = false;
  if (const NamespaceLabels::Labels* labels = namespace_labels_.Find(ns); labels != nullptr) {
    matches = Matches(selector, *labels);
  } else {
    // A namespace without an object has only its name label, as Kubernetes sets it. One map per
    // thread whose value is overwritten: no allocation per nomination (nominations may run on
    // several threads at once).
    thread_local std::map<std::string, std::string> implicit = {
        {"kubernetes.io/metadata.name", ""}};
    implicit.begin()->second = ns;
    matches = Matches(selector, implicit);
  }
  if (verdict != nullptr) {
    *verdict = {cluster_.config_version(), namespaces_version_, ns, matches, true};
  }
  return matches;
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
  // Per thread and reused (Nominate runs on several threads): each try assigns into `trial`, the
  // best so far is swapped into `best`, so no try allocates once warm.
  thread_local Assignment trial;
  thread_local Assignment best;
  std::vector<PreemptionTarget> best_targets;
  while (lo < hi) {
    int64_t h = lo + (hi - lo) / 2;
    std::vector<int32_t> counts;
    for (size_t i = 0; i < w.pod_sets.size(); ++i) {
      counts.push_back(static_cast<int32_t>(w.pod_sets[i].count - delta[i] * h / total));
    }
    req.counts = counts;
    AssignFlavorsInto(req, &preemptors, trial);
    bool ok = trial.Mode() == AssignmentMode::kFit;
    std::vector<PreemptionTarget> targets;
    if (!ok && trial.Mode() == AssignmentMode::kPreempt) {
      targets = preemptors.Get().GetTargets(w, entry.cq, trial);
      ok = !targets.empty();
    }
    if (ok) {
      hi = h;
      last_ok = h;
      std::swap(best, trial);
      best_targets = std::move(targets);
    } else {
      lo = h + 1;
    }
  }
  if (last_ok >= 0 && lo == last_ok) {
    std::swap(entry.assignment, best);
    entry.targets = std::move(best_targets);
    entry.partial = true;
  }
}

CycleEntry Scheduler::Nominate(WorkloadId id, internal::PreemptorSource& preemptors) const {
  CycleEntry entry;
  NominateInto(id, preemptors, entry);
  return entry;
}

void Scheduler::NominateInto(WorkloadId id, internal::PreemptorSource& preemptors,
                             CycleEntry& entry) const {
  PhaseScope profile(Phase::kNominate);
  const Workload& w = std::as_const(store_).Get(id);
  // Every field as in CycleEntry{}; the vectors keep their storage.
  entry.workload = id;
  entry.cq = w.cluster_queue;
  entry.targets.clear();
  entry.outcome = EntryOutcome::kInadmissible;
  entry.reason = RequeueReason::kGeneric;
  entry.message.clear();
  entry.misconfigured = false;
  entry.partial = false;
  entry.checks_pending = false;
  auto not_nominated = [&entry](RequeueReason reason) {
    ClearKeepingStorage(entry.assignment);
    entry.outcome = EntryOutcome::kNotNominated;
    entry.reason = reason;
  };
  for (const AdmissionCheckStateSpec& check : *w.spec->admission_checks) {
    if (check.state == CheckState::kRetry || check.state == CheckState::kRejected) {
      not_nominated(RequeueReason::kGeneric);
      entry.message = fmt::format("The workload has failed admission checks");
      return;
    }
  }
  if (cluster_.tree().InCycle(cluster_.ClusterQueueNode(w.cluster_queue))) [[unlikely]] {
    // Kueue keeps every ClusterQueue of a tree with a cohort cycle inactive (§4.3); heads are
    // never popped from it, so only Evaluate (`tally explain`) gets here. Answer before any walk
    // up the (endless) parent chain.
    not_nominated(RequeueReason::kGeneric);
    entry.message = fmt::format(
        "ClusterQueue {} cannot admit: cohorts {} form a cycle (Kueue keeps every ClusterQueue "
        "of that tree inactive)",
        cluster_.Name(w.cluster_queue), cluster_.CohortCycle(w.cluster_queue));
    return;
  }
  if (!NamespaceMatches(w, w.cluster_queue)) {
    not_nominated(RequeueReason::kNamespaceMismatch);
    // Kueue's workload.ErrNamespaceMismatch (pkg/workload/resources.go), lower case as Go errors
    // are.
    entry.message = "workload namespace doesn't match ClusterQueue selector";
    entry.misconfigured = true;
    return;
  }
  // Then ValidateResources, still inside Kueue's ValidateAdmissibility (pkg/workload/resources.go)
  // and before any flavor is tried: the requeue reason stays Generic (scheduler.go: nominate).
  if (w.invalid_resources) {
    not_nominated(RequeueReason::kGeneric);
    entry.message = ValidateResources(*w.spec);
    entry.misconfigured = true;
    return;
  }
  const FlavorScanState* resume = ScanStateOutdated(w) ? nullptr : &w.scan.get();
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
  AssignFlavorsInto(req, &preemptors, entry.assignment);
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

// Here, where NominationWorker is complete.
Scheduler::Scheduler(Cluster& cluster, WorkloadStore& store, QueueManager& queues,
                     SchedulerOptions options)
    : cluster_(cluster), store_(store), queues_(queues), options_(options) {
  memo_.set_always_keep_entries(options_.nomination_memo == NominationMemoMode::kVerify);
  // Kueue moves an inadmissible workload back only while its namespace still matches.
  queues_.SetNamespaceFilter(
      [this](CqId cq, const Workload& w) { return NamespaceMatches(w, cq); },
      [this](CqId cq) { return MatchesEverything(cluster_.Spec(cq).namespace_selector); });
}

Scheduler::~Scheduler() = default;

void Scheduler::SetParallelLoop(ParallelLoop* loop, size_t min_heads) {
  parallel_ = loop;
  min_parallel_heads_ = min_heads;
  workers_.clear();
}

void Scheduler::RestampReused(CycleEntry& entry) const {
  FlavorScanState& state = entry.assignment.last_state;
  state.scheduling_cycle = cycle_;
  if (!state.valid) {
    return;
  }
  // As the flavor assigner records them (engine/flavor_assigner.cc: Assigner::Run). A release
  // anywhere below moves them, and the memo's key does not hold them: the same usage may come
  // back under newer generations.
  const ResourceTree& tree = cluster_.tree();
  const NodeId node = cluster_.ClusterQueueNode(entry.cq);
  state.cluster_queue_generation = tree.Generation(node);
  size_t i = 0;
  for (NodeId n = tree.Parent(node); IsValid(n) && i < state.cohort_generations.size();
       n = tree.Parent(n), ++i) {
    state.cohort_generations[i] = tree.Generation(n);
  }
}

void Scheduler::NominateMemoised(WorkloadId id, TimeMicros now, const NominationVersions& versions,
                                 internal::PreemptorSource& preemptors, MemoUpdate& update,
                                 CycleEntry& out) const {
  update = MemoUpdate{};
  const Workload& w = std::as_const(store_).Get(id);
  if (options_.nomination_memo == NominationMemoMode::kOff || !w.fallback->empty()
      || cluster_.devices().HasClasses()) {
    NominateInto(id, preemptors, out);
    return;
  }
  if (memo_.sitting_out()) {
    update.kind = MemoUpdate::Kind::kSatOut;
    NominateInto(id, preemptors, out);
    return;
  }
  update.versions = versions;
  update.scan_outdated = ScanStateOutdated(w);
  const CycleEntry* stored =
      memo_.Find(w, update.versions, update.scan_outdated, now, &update.kept_key);
  if (stored != nullptr && options_.nomination_memo == NominationMemoMode::kOn) {
    update.kind = MemoUpdate::Kind::kHit;
    out = *stored;
    RestampReused(out);
    return;
  }
  const uint64_t searches_before = preemptors.FullSearches();
  NominateInto(id, preemptors, out);
  if (stored != nullptr) {  // kVerify
    update.kind = MemoUpdate::Kind::kHit;
    CycleEntry reused = *stored;
    RestampReused(reused);
    update.mismatch = EntryFingerprint(reused) != EntryFingerprint(out);
  } else {
    update.kind = MemoUpdate::Kind::kMiss;
  }
  update.reads_now = preemptors.FullSearches() != searches_before;
  update.store = true;
}

void Scheduler::NominateAll(const std::vector<WorkloadId>& heads, TimeMicros now,
                            Preemptor& preemptor, std::vector<CycleEntry>& entries) {
  // One entry per head, from entries of earlier cycles whose vectors have room (the number of
  // heads varies from cycle to cycle: a resize would free what a smaller cycle does not use).
  while (entries.size() > heads.size()) {
    spare_pool_.push_back(std::move(entries.back()));
    entries.pop_back();
  }
  while (entries.size() < heads.size()) {
    if (spare_pool_.empty()) {
      entries.emplace_back();
    } else {
      entries.push_back(std::move(spare_pool_.back()));
      spare_pool_.pop_back();
    }
  }
  memo_updates_.resize(heads.size());
  // What every head's nomination reads besides itself, once for the cycle (the tree's key adds
  // up the cells changed since the last cycle: not on the nomination threads).
  const NominationVersions versions = {cluster_.mutable_tree().state_key(),
                                       store_.reservation_key(), cluster_.config_version(),
                                       namespaces_version_};
  // The memo's counters and stores, sequentially, once every head is nominated.
  auto write_back = [&] {
    NominationMemoStats& stats = memo_.stats();
    for (size_t i = 0; i < heads.size(); ++i) {
      const MemoUpdate& u = memo_updates_[i];
      if (u.kind == MemoUpdate::Kind::kHit) {
        ++stats.hits;
        memo_.Observe(true);
      } else if (u.kind == MemoUpdate::Kind::kSatOut) {
        memo_.SatOut();
      } else if (u.kind == MemoUpdate::Kind::kMiss) {
        ++stats.misses;
        stats.key_only_matches += u.kept_key ? 1 : 0;
        memo_.Observe(u.kept_key);
      } else {
        ++stats.not_memoised;
      }
      stats.mismatches += u.mismatch ? 1 : 0;
      if (u.store) {
        memo_.Store(store_.Get(heads[i]), u.versions, u.scan_outdated, now, u.reads_now,
                    entries[i]);
      }
    }
  };
  const size_t slots = parallel_ == nullptr ? 1 : parallel_->slots();
  if (slots < 2 || heads.size() < std::max<size_t>(min_parallel_heads_, 2)) {
    SharedPreemptor source(preemptor);
    for (size_t i = 0; i < heads.size(); ++i) {
      NominateMemoised(heads[i], now, versions, source, memo_updates_[i], entries[i]);
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
  nominating_in_parallel_ = true;
  parallel_->Run(heads.size(), [&](size_t slot, size_t i) {
    NominateMemoised(heads[i], now, versions, *workers_[slot], memo_updates_[i], entries[i]);
  });
  nominating_in_parallel_ = false;
  for (auto& worker : workers_) {
    preemption_stats_ += worker->Stats();
  }
  write_back();
}

}  // namespace engine
