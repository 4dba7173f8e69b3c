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
// The quota tree is used in place: nomination never mutates it; what-if checks remove and re-add
// usage under a GenerationFreeze; admissions are charged for real (Kueue adds them to the cache
// at once). Victims keep their quota until the end of the cycle that evicted them; then it is
// released and they are requeued (Requeued=True, no backoff).
//
// Thread safety: none; one shard, one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/ids.h"
#include "engine/cluster.h"
#include "engine/flavor_assigner.h"
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
};

// What happened to one head in a cycle.
enum class EntryOutcome : uint8_t {
  kAdmitted,      // quota reserved (and Admitted unless admission checks apply)
  kPreempting,    // targets evicted; waits for them (PendingPreemption)
  kSkipped,       // nominated but no longer fits / overlapping targets: requeued at once
  kInadmissible,  // NoFit, no candidates, namespace mismatch...: see reason
  kNotNominated,  // e.g. admission check in Retry/Rejected
};
const char* ToString(EntryOutcome outcome);

struct CycleEntry {
  WorkloadId workload{};
  CqId cq{};
  Assignment assignment;
  std::vector<PreemptionTarget> targets;
  EntryOutcome outcome = EntryOutcome::kInadmissible;
  RequeueReason reason = RequeueReason::kGeneric;
  std::string message;          // Kueue's condition message
  bool partial = false;         // admitted with reduced counts (§6.8)
  bool checks_pending = false;  // QuotaReserved but admission checks not all Ready
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

class Scheduler {
 public:
  Scheduler(Cluster& cluster, WorkloadStore& store, QueueManager& queues,
            SchedulerOptions options = {});

  // Namespace labels for namespaceSelector; a namespace without an object has only the label
  // kubernetes.io/metadata.name=<name>, as Kubernetes sets it.
  void SetNamespaces(const std::vector<NamespaceSpec>& namespaces);

  CycleResult RunCycle(TimeMicros now);

  // Nomination of one workload at this instant, without side effects (for `tally explain`).
  CycleEntry Evaluate(WorkloadId id, TimeMicros now);

  // Deferred mode: the victim's pods have stopped. Releases its quota and puts it back in its
  // queue (Requeued=True: no backoff). Returns its ClusterQueue (for the inadmissible requeue).
  CqId FinishEviction(WorkloadId victim, TimeMicros now);

  int64_t cycle() const { return cycle_; }
  const SchedulerOptions& options() const { return options_; }

 private:
  CycleEntry Nominate(WorkloadId id, TimeMicros now, Preemptor& preemptor);
  bool ScanStateOutdated(const Workload& w) const;
  void TryPartialAdmission(const Workload& w, CycleEntry& entry, Preemptor& preemptor,
                           const FlavorScanState* resume);
  bool NamespaceMatches(const Workload& w, CqId cq) const;
  bool FitsAfterVictims(const CycleEntry& entry, const std::vector<WorkloadId>& victims);
  // §5.6: recomputes an entry whose targets overlap earlier victims; false if it stays stuck.
  bool RecomputeWithoutVictims(CycleEntry& entry, const std::vector<WorkloadId>& claimed,
                               Preemptor& preemptor);
  void Admit(CycleEntry& entry, TimeMicros now);

  Cluster& cluster_;
  WorkloadStore& store_;
  QueueManager& queues_;
  SchedulerOptions options_;
  std::map<std::string, std::map<std::string, std::string>> namespace_labels_;
  int64_t cycle_ = 0;
};

}  // namespace engine
