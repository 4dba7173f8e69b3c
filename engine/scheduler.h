// File: engine/scheduler.h
//
// One Kueue scheduling cycle (kueue-semantics.md §5.3–§5.6), classical ordering (no fair
// sharing): pop one head per active ClusterQueue, nominate every head against the same quota
// state (flavor assignment, preemption targets, partial admission), order the entries (borrowing
// level, priority, queue-order timestamp, then ClusterQueue name and uid — Kueue leaves that last
// tie unspecified), then process them in order: the "still fits after earlier admissions and
// victims" check, reservations for preemptors without candidates, overlapping targets, admission
// or preemption, and the requeue of every head not admitted.
//
// The quota tree is used in place: nomination never changes it (what-if checks remove and re-add
// usage under a GenerationFreeze and restore it exactly); admissions are charged for real (Kueue
// adds them to the cache at once). Victims keep their quota until the end of the cycle that
// evicted them; then it is released and they are requeued (Requeued=True, no backoff).
//
// Parallel nomination: the heads of a cycle are nominated against the same state and each
// nomination depends only on that state, so with a ParallelLoop (SetParallelLoop) and at least
// `min_heads` heads they are nominated concurrently. A worker that needs a preemption what-if
// does it on its own copy of the quota tree (copied on its first need in the cycle), never on the
// shared one. Results are identical to sequential nomination; ordering and processing stay
// sequential.
//
// engine/scheduler.cc holds the cycle, engine/scheduler_nomination.cc the nomination of its heads.
//
// Thread safety: none for callers (one shard, one thread); RunCycle itself may use the loop.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/ids.h"
#include "engine/base/parallel_loop.h"
#include "engine/cluster.h"
#include "engine/cycle_entry.h"
#include "engine/flavor_assigner.h"
#include "engine/namespace_labels.h"
#include "engine/nomination_memo.h"
#include "engine/preemption.h"
#include "engine/queue_manager.h"
#include "engine/workload_store.h"

namespace engine {

struct SchedulerOptions {
  // Seed 003: a flavor scan restarts from the first flavor when the ClusterQueue's OR ANY
  // ANCESTOR COHORT's generation grew. Kueue (snapshot ff69552e) looks only at the ClusterQueue.
  bool cohort_generation_resets_scan = true;
  // Gate FlavorFungibilityPreserveScanProgress (on in Kueue): scan state survives a skip and a
  // generation bump only resets it once the state is at least 2 cycles old.
  bool preserve_scan_progress = true;
  QuotaCheckStrategy quota_check = QuotaCheckStrategy::kBlockUndeclared;
  // false (tally schedule): victims release their quota and are requeued at the end of the cycle
  // that evicted them, and their trees' inadmissible workloads are requeued at once.
  // true (the replay simulator): victims are only marked evicting and keep their quota; the
  // caller releases them when their pods have stopped (FinishEviction) and applies Kueue's
  // inadmissible-requeue batch delay. CycleResult::evictions then lists only new evictions.
  bool defer_victim_release = false;
  // The O(depth) rejection of hopeless preemption searches (engine/preemption.h). kVerify is for
  // tests: every search runs in full and a wrong rejection is counted.
  PreemptionBoundCheck preemption_bound = PreemptionBoundCheck::kOn;
  // false (the replay, which prints none of them): the flavor assigner's reasons are not
  // formatted and CycleEntry::message stays empty for entries it decided; the messages of
  // entries refused before any flavor (Misconfigured, failed checks, cohort cycle) are kept.
  bool explain = true;
  // engine/nomination_memo.h. kVerify is for tests: every head is nominated from scratch and a
  // stored entry that differs is counted.
  NominationMemoMode nomination_memo = NominationMemoMode::kOn;
};

struct Eviction {
  WorkloadId victim{};
  WorkloadId preemptor{};
  PreemptionReason reason{};
};

struct CycleResult {
  int64_t cycle = 0;
  std::vector<CycleEntry> entries;  // in processing order
  std::vector<Eviction> evictions;
  // Something changed (admission, eviction): another cycle at the same instant may do more.
  bool changed = false;
};

namespace internal {
class PreemptorSource;
class NominationWorker;
}  // namespace internal

class Scheduler {
 public:
  // A cycle nominates in parallel from this many heads. Since issue 21 a nomination the
  // preemption bound or the memo settles costs 1-5 us, less than handing it to another thread:
  // on the congested single-tree trace (1.4 heads per cycle on average) a threshold of 2 made
  // 2 threads 1.4x slower than 1, from 32 on it costs nothing, and the Kueue perf configs and
  // gpu-day are within noise at 32 (docs/replay.md). A lone cycle after idle time
  // (BM_Scheduler_CycleHeads) wins only from several hundred heads.
  static constexpr size_t kDefaultMinParallelHeads = 32;

  Scheduler(Cluster& cluster, WorkloadStore& store, QueueManager& queues,
            SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;
  Scheduler(Scheduler&&) = delete;
  Scheduler& operator=(Scheduler&&) = delete;

  // Nominates the heads of a cycle through `loop` when there are at least `min_heads` of them
  // (nullptr: always sequential). The loop must outlive the scheduler or be reset first.
  void SetParallelLoop(ParallelLoop* loop, size_t min_heads = kDefaultMinParallelHeads);

  // Namespace labels for namespaceSelector; a namespace without an object has only the label
  // kubernetes.io/metadata.name=<name>, as Kubernetes sets it.
  void SetNamespaces(const std::vector<NamespaceSpec>& namespaces);
  // The same, from a table other schedulers read too (the shards of a replay): copied only when
  // a Namespace event writes to it here (engine/namespace_labels.h).
  void ShareNamespaces(std::shared_ptr<const NamespaceLabels::Table> namespaces);
  // One namespace added or replaced (a Namespace event), or removed. The scheduler's labels are
  // the only copy a replay shard keeps (each shard of a thousand-namespace cluster held three).
  void SetNamespace(const NamespaceSpec& ns);
  void DeleteNamespace(const std::string& name);

  CycleResult RunCycle(TimeMicros now);
  // Gives a cycle's result back once read: the next cycles reuse the storage of its entries and
  // evictions (a memo hit is then a copy into vectors that already have room, not a dozen
  // allocations).
  void Recycle(CycleResult&& result);

  // Nomination of one workload at this instant, without side effects (for `tally explain`).
  CycleEntry Evaluate(WorkloadId id, TimeMicros now);

  // Deferred mode: the victim's pods have stopped. Releases its quota and puts it back in its
  // queue (Requeued=True: no backoff). Returns its ClusterQueue (for the inadmissible requeue).
  CqId FinishEviction(WorkloadId victim, TimeMicros now);

  int64_t cycle() const { return cycle_; }
  // What the preemption searches of all cycles (and Evaluate calls) so far did.
  const PreemptionSearchStats& preemption_stats() const { return preemption_stats_; }
  const NominationMemoStats& memo_stats() const { return memo_.stats(); }
  const SchedulerOptions& options() const { return options_; }

 private:
  // The Kueue feature gates in effect (the Configuration's, then --feature-gates).
  const FeatureGates& Gates() const { return cluster_.configuration().feature_gates; }
  // Gate FlavorFungibilityPreserveScanProgress, unless the options turned it off.
  bool PreserveScanProgress() const {
    return options_.preserve_scan_progress && Gates().preserve_scan_progress();
  }
  // IgnoreUndeclared when the options ask for it, or when the Configuration's
  // resources.quotaCheckStrategy does and gate QuotaCheckStrategy is on (Kueue
  // pkg/scheduler/flavorassigner/flavorassigner.go).
  QuotaCheckStrategy QuotaCheck() const {
    if (options_.quota_check == QuotaCheckStrategy::kIgnoreUndeclared) {
      return QuotaCheckStrategy::kIgnoreUndeclared;
    }
    return EffectiveQuotaCheck(cluster_.configuration());
  }

  // Read-only on the scheduler's state (what-ifs go through `preemptors`): safe to call from
  // several threads at once with different sources.
  CycleEntry Nominate(WorkloadId id, internal::PreemptorSource& preemptors) const;
  // The same into `entry`, whatever it held, reusing its storage.
  void NominateInto(WorkloadId id, internal::PreemptorSource& preemptors, CycleEntry& entry) const;
  // What NominateMemoised leaves for the sequential write-back into the memo.
  struct MemoUpdate {
    enum class Kind : uint8_t { kNotMemoised, kHit, kMiss, kSatOut };
    Kind kind = Kind::kNotMemoised;
    bool store = false;     // a fresh entry that may be kept
    bool mismatch = false;  // kVerify: the stored entry differed
    bool scan_outdated = false;
    bool reads_now = false;  // the fresh nomination collected preemption candidates
    bool kept_key = false;   // a miss whose key the memo kept without its entry
    NominationVersions versions;
  };
  // Nominate through the memo into `out` (read-only on the memo; safe on several threads like
  // Nominate). `out` may hold an entry of an earlier cycle: a hit copies over it in place.
  void NominateMemoised(WorkloadId id, TimeMicros now, const NominationVersions& versions,
                        internal::PreemptorSource& preemptors, MemoUpdate& update,
                        CycleEntry& out) const;
  // A memoised entry made current: what records the moment of the nomination (the scheduling
  // cycle, the generations of the ClusterQueue and its cohorts) set as a fresh one would.
  void RestampReused(CycleEntry& entry) const;
  // Nominates `heads` into `entries` (same index), in parallel when that pays.
  void NominateAll(const std::vector<WorkloadId>& heads, TimeMicros now, Preemptor& preemptor,
                   std::vector<CycleEntry>& entries);
  bool ScanStateOutdated(const Workload& w) const;
  void TryPartialAdmission(const Workload& w, CycleEntry& entry,
                           internal::PreemptorSource& preemptors,
                           const FlavorScanState* resume) const;
  bool NamespaceMatches(const Workload& w, CqId cq) const;
  bool FitsAfterVictims(const CycleEntry& entry, const std::vector<WorkloadId>& victims);
  // §5.6: recomputes an entry whose targets overlap earlier victims; false if it stays stuck.
  bool RecomputeWithoutVictims(CycleEntry& entry, const std::vector<WorkloadId>& claimed,
                               Preemptor& preemptor);
  bool AllocateDevices(CycleEntry& entry);
  // Calls `f(tree)` with the usage of the victims still stopping (deferred mode) removed, then
  // puts it back: those victims hold quota the cycle already counted as freed. For RunCycle's
  // debug-build check of invariant 2 (engine/admission_invariants.h), which compares the headroom
  // before the cycle with the tree after it, both without that usage (as
  // test/engine/scheduler_property_test.cc does).
  void WithoutEvicting(const std::function<void(const ResourceTree&)>& f);
  void Admit(CycleEntry& entry, TimeMicros now);
  // Step 3 of RunCycle: the cycle's global order.
  void SortEntries(std::vector<CycleEntry>& entries);

  Cluster& cluster_;
  WorkloadStore& store_;
  QueueManager& queues_;
  SchedulerOptions options_;
  // Every nomination whose ClusterQueue has a namespaceSelector looks its workload's namespace up.
  NamespaceLabels namespace_labels_;
  int64_t cycle_ = 0;
  ParallelLoop* parallel_ = nullptr;
  size_t min_parallel_heads_ = kDefaultMinParallelHeads;
  std::vector<std::unique_ptr<internal::NominationWorker>> workers_;  // by loop slot
  PreemptionSearchStats preemption_stats_;
  NominationMemo memo_;
  std::vector<MemoUpdate> memo_updates_;  // by head, reused across cycles
  std::vector<uint32_t> entry_order_;     // SortEntries' scratch
  // RunCycle's storage, kept across cycles (a congested replay runs one cycle per few
  // microseconds of work, and these were 7 allocations each).
  std::vector<CycleEntry> spare_entries_;  // from Recycle
  std::vector<Eviction> spare_evictions_;  // from Recycle
  std::vector<CqId> freed_;
  std::vector<CycleEntry> spare_pool_;      // NominateAll: entries a smaller cycle did not use
  std::vector<CycleEntry> sorted_scratch_;  // SortEntries
  std::vector<WorkloadId> heads_;
  std::vector<WorkloadId> claimed_;
  // The cycles' Preemptor, over cluster_'s tree, started anew by each cycle
  // (Preemptor::StartCycle) with the storage of its scratch kept.
  std::optional<Preemptor> cycle_preemptor_;
  std::vector<WorkloadId> victims_;
  std::vector<SlotAmount> reserve_;
  // Usage charged for the rest of the cycle only: (node, end in temporary_usage_). Put in the
  // tree at the cycle's next read of it and undone at cycle end, or dropped unapplied if no read
  // comes (RunCycle step 4).
  std::vector<std::pair<NodeId, size_t>> temporary_;
  std::vector<SlotAmount> temporary_usage_;
  uint64_t namespaces_version_ = 0;
  // NamespaceMatches' last verdict per ClusterQueue (by CqId). Every nomination of a head whose
  // ClusterQueue has a namespaceSelector asks, and the selector walk over the namespace's labels
  // was 2-3 % of the samples of issue 22's moderate trace (perf, two runs); a ClusterQueue's heads
  // mostly share a namespace.
  struct NamespaceVerdict {
    uint64_t config_version = 0;  // Cluster::config_version (the selector) when given
    uint64_t namespaces_version = 0;
    std::string name_space;
    bool matches = false;
    bool valid = false;
  };
  mutable std::vector<NamespaceVerdict> namespace_verdicts_;
  bool nominating_in_parallel_ = false;  // NominateAll's parallel loop runs: verdicts not kept
};

}  // namespace engine
