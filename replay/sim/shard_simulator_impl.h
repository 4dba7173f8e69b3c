// File: replay/sim/shard_simulator_impl.h
//
// Internal to replay/sim: the state of one ShardSimulator (replay/sim/shard_simulator.h), shared by
// the files that implement it, one concern each: shard_simulator.cc (clock, cycles, decision
// lines), shard_lifecycle.cc (a workload from reservation to release, and the timers that drive it)
// and shard_trace_events.cc (trace events applied to the shard). Nothing outside those files
// includes it.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include "engine/base/chunked_vector.h"
#include "engine/flavor_fallback.h"
#include "replay/io/device_output.h"
#include "replay/io/json_writer.h"
#include "replay/io/line_builder.h"
#include "replay/io/time_parse.h"
#include "replay/sim/decision_output.h"
#include "replay/sim/fallback_output.h"
#include "replay/sim/flavor_supply.h"
#include "replay/sim/quad_heap.h"
#include "replay/sim/shard_simulator.h"
#include "replay/sim/simulator.h"
#include "replay/sim/timer_queue.h"

namespace replay {

struct ShardSimulator::Impl {
  using CqId = engine::CqId;
  using TimeMicros = engine::TimeMicros;
  using WorkloadId = engine::WorkloadId;

  static constexpr int64_t kMaxCyclesPerInstant = 1000;
  static constexpr TimeMicros kNever = std::numeric_limits<TimeMicros>::max();
  // Kueue's inadmissible-requeue batch period [inadmissible_workloads.go: requeueBatchPeriod].
  static constexpr TimeMicros kInadmissibleBatchDelay = 1'000'000;

  enum class TimerKind : uint8_t {
    kPodsReady,         // pods of an admitted workload are ready: its runtime starts
    kPodsReadyTimeout,  // WaitForPodsReady timeout: evict
    kChecksReady,       // all admission checks Ready: Admitted
    kFinish,            // runtime elapsed
    kRelease,           // pods stopped after finish or eviction: quota released
    kBackoffExpired,    // requeue backoff over: back to the queue
    kRequeueInadmissible,
    kFallbackTimeout,  // seed 002: the assigned flavors' timeout ran out before PodsReady
  };

  // 24 bytes: a shard holds hundreds of thousands (QuadHeap).
  struct Timer {
    TimeMicros time;
    // The scheduling order (which breaks ties: deterministic) above the kind in the low byte:
    // comparing it compares the order, which is unique.
    uint64_t order_and_kind;
    uint32_t target;  // WorkloadId or CqId index
    uint32_t epoch;   // the workload's epoch when scheduled; stale timers are dropped
    TimerKind kind() const { return static_cast<TimerKind>(order_and_kind & 0xff); }
  };
  struct TimerEarlier {
    bool operator()(const Timer& a, const Timer& b) const {
      return a.time != b.time ? a.time < b.time : a.order_and_kind < b.order_and_kind;
    }
  };

  // Why a reserved workload's quota is being released.
  enum class ReleaseCause : uint8_t {
    kFinished,
    kPreempted,
    kPodsReadyTimeout,
    kDeactivated,
    kFallback,     // a flavor failed (timeout or rejected check): requeued at once
    kNodeFailure,  // a node holding its devices went away (seed 001): requeued at once
  };

  // Per workload replay state, indexed by WorkloadId (ids are recycled: `epoch` tells them apart).
  // One per id the store ever held, so its size counts in every live workload's cost: 56 bytes
  // (the flags as bits, the creation time read from the Workload, which keeps it for its whole
  // life), down from 72 (docs/replay.md, "Memory").
  struct Track {
    TimeMicros runtime = -1;  // -1: until a MODIFIED/DELETED event
    TimeMicros pods_ready_after = -1;
    TimeMicros reserved_at = 0;
    TimeMicros run_started = 0;
    uint32_t epoch = 0;
    int32_t pods_ready_timeouts = 0;
    uint32_t local_queue = 0;  // interned "namespace/name"
    uint32_t workload_class = 0;
    bool live : 1 = false;
    bool active : 1 = true;
    bool admitted : 1 = false;  // Admitted=True (quota reserved and checks Ready)
    bool pods_ready : 1 = false;
    bool evicting : 1 = false;
    bool ever_admitted : 1 = false;
    bool ever_started : 1 = false;  // pods were ready once
    bool finished : 1 = false;  // runtime over / Finished=True; quota may still be held (kRelease)
    ReleaseCause release_cause = ReleaseCause::kFinished;
  };
  static_assert(sizeof(Track) == 56);

  Impl(ClusterState s, const SimulatorOptions& o, bool log_decisions)
      : state(std::move(s)),
        options(o),
        logging(log_decisions),
        stats(state),
        supply(state.load.spec.flavor_supplies) {
    if (!state.load.spec.resource_classes.empty()) {
      stats.OnDevicesChanged();
    }
    stats.fallbacks().enabled = !state.load.spec.flavor_supplies.empty();
    for (const engine::ClusterQueueSpec& cq : state.load.spec.cluster_queues) {
      stats.fallbacks().enabled =
          stats.fallbacks().enabled || cq.flavor_fungibility.fallback.has_value();
    }
  }

  ClusterState state;
  SimulatorOptions options;
  bool logging;
  ShardLog log;
  LineBuilder line_text;   // reused for every decision line, appended directly
  JsonWriter line_writer;  // reused for a line's nested values (devices, flavor history)
  // `now` as decision lines write it, formatted once per instant: a cycle's lines share it.
  // `"time":"<now>","type":`, the same for every line of an instant (a preemption ping-pong
  // writes up to 3,000 at one): formatted and quoted once per instant.
  std::string_view TimeField();
  TimeMicros time_field_time = std::numeric_limits<TimeMicros>::min();
  std::string time_field;
  Rfc3339Text now_formatter;
  // A ClusterQueue's name as a JSON string, quoted once (an id names one ClusterQueue for the
  // cluster's life, like the ids PodSetJsonCache keeps).
  std::string_view QuotedCqName(CqId cq);
  std::vector<std::string> quoted_cq_names;  // by CqId; "" until first written
  PodSetJsonCache pod_set_json;              // the admission lines' pod-set objects
  BorrowedJsonCache borrowed_json;           // and the members of their "borrowed" objects
  ReplayStats stats;
  FlavorSupplyModel supply;

  TimeMicros now = 0;
  TimeMicros last_change = 0;
  TimeMicros stats_start = 0;  // the report ends here (a requeue that finds nothing is not news)
  TimerQueue<Timer, TimerEarlier> timers;
  uint64_t next_seq = 0;  // below 2^56 (Timer::order_and_kind)
  // The times of workload timers cancelled (their epoch moved on) since they were scheduled,
  // taken out of `timers` by CompactTimers. A cancelled timer does nothing when it comes but
  // move the clock, and that matters in one case only: cycles held by kMaxCyclesPerInstant at an
  // instant start again at the next instant the clock reaches, which may be such a timer's
  // (AdvanceTo). A preempted workload's finish timer is one: on the 16-tree trace up to 800,000
  // waited in the heap, 97 % of it, and every pop walked them.
  QuadHeap<TimeMicros, std::less<>> cancelled_times;
  // `timers` is compacted when this large: at least SimulatorOptions::min_timers_to_compact,
  // and twice what the last compaction left.
  size_t compact_timers_at = options.min_timers_to_compact;
  engine::ChunkedVector<Track> tracks;
  // By workload index: the last Misconfigured message written as a `Pending` decision line (Kueue
  // writes the QuotaReserved=False condition again only when it changes). Beside the tracks, not
  // in them: few workloads have one, and a string in every Track is 32 bytes per live workload.
  // An ADDED event that reuses the index erases it.
  std::unordered_map<uint32_t, std::string> misconfigured_shown;
  // By the index of a LocalQueue in the cluster's list (LocalQueues are never removed from it):
  // its id in the statistics plus 1, 0 until interned. An arrival found its LocalQueue already;
  // interning its "namespace/name" again was a third lookup of the same strings.
  std::vector<uint32_t> local_queue_stats_ids;
  // The LocalQueues Workload arrivals named, by the interned texts of their namespace and queue
  // name (FindLocalQueue): a pointer compare where the cluster's lookup builds "ns/name" and
  // hashes it (1 % of the moderate trace's cycles, issue 22). An interned text is never freed
  // and equal texts share one, so equal pointers are equal names; names held by their own copy
  // (past the intern table's bounds) are looked up the cluster's way. Cleared whenever the
  // cluster's configuration moves (an upserted LocalQueue may move them all).
  struct LocalQueueMemo {
    const char* name_space = nullptr;
    const char* queue = nullptr;
    const engine::LocalQueueSpec* local_queue = nullptr;
  };
  std::array<LocalQueueMemo, 64> local_queue_memo{};
  const engine::Cluster* local_queue_memo_cluster = nullptr;
  uint64_t local_queue_memo_version = 0;
  // By CqId: 1 while an inadmissible requeue is pending. Flags, not a std::set: nearly every
  // release schedules one, and the set's node was an allocation and a free per release.
  std::vector<uint8_t> requeue_scheduled;
  bool cycles_needed = true;
  // Cycles run at the current instant. A preemption ping-pong (A reclaims from B, B is released
  // and requeued at once, wins the freed quota back before A, A preempts it again...) could
  // cycle forever at one instant when releases take no time; Kueue's cycles take real time. So
  // an instant gets at most kMaxCyclesPerInstant cycles, and the report counts the instants cut.
  int64_t cycles_at_instant = 0;
  TimeMicros cycle_ready_at = 0;
  std::vector<WorkloadId> previous_heads;
  std::vector<WorkloadId> heads_scratch;  // RunOneCycle's, swapped with previous_heads
  int64_t not_ready = 0;  // admitted workloads whose pods are not ready (blockAdmission)

  // Engine cost.
  LatencyHistogram decision_latency;  // ns per nominated entry, one record per cycle
  int64_t decisions = 0;

  // --- Helpers ---

  engine::WorkloadStore& store() const { return *state.store; }
  engine::QueueManager& queues() const { return *state.queues; }
  engine::Cluster& cluster() const { return *state.cluster; }

  Track& TrackOf(WorkloadId id) {
    tracks.resize(engine::Index(id) + 1);  // grows only
    return tracks[engine::Index(id)];
  }

  // Inlined in its callers, as before the timer queue made it longer (out of line it cost the
  // moderate trace 0.4 % more instructions than it saved there).
  [[gnu::always_inline]] void Schedule(TimeMicros at, TimerKind kind, uint32_t target,
                                       uint32_t epoch = 0) {
    const Timer timer{at, (next_seq++ << 8) | static_cast<uint64_t>(kind), target, epoch};
    if (at == now) {
      timers.push_now(timer);  // due at once: no heap (replay/sim/timer_queue.h)
    } else {
      timers.push(timer);
    }
    if (timers.size() >= compact_timers_at) {
      CompactTimers();
    }
  }
  // Moves the cancelled workload timers' times from `timers` to `cancelled_times` (those after
  // now: one at now moves nothing), then lets `timers` double before the next compaction.
  void CompactTimers();
  // Whether cycles wait for the clock to move (kMaxCyclesPerInstant at this instant).
  bool CyclesHeldAtInstant() const {
    return cycles_needed && CyclesAllowed() && cycles_at_instant >= kMaxCyclesPerInstant
           && cycle_ready_at <= now;
  }
  [[gnu::always_inline]] void ScheduleFor(TimeMicros at, TimerKind kind, WorkloadId id) {
    Schedule(at, kind, engine::Index(id), TrackOf(id).epoch);
  }

  void Changed() {
    cycles_needed = true;
    last_change = now;
  }

  void ScheduleInadmissibleRequeue(CqId cq) {
    const uint32_t k = engine::Index(cq);
    if (requeue_scheduled.size() <= k) {
      requeue_scheduled.resize(k + 1, 0);
    }
    if (requeue_scheduled[k] == 0) {
      requeue_scheduled[k] = 1;
      Schedule(now + kInadmissibleBatchDelay, TimerKind::kRequeueInadmissible, k);
    }
  }

  // --- Decisions log ---

  // A line of the fixed keys and `extra`. REQUIRES: the extra keys in sorted order, each after
  // "clusterQueue" and before "time" (checked in debug builds).
  void LogSimple(std::string_view type, const engine::Workload& w,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> extra = {});

  void LogAdmission(const engine::CycleEntry& entry, std::string_view type);
  // Appends the keys every line of LogSimple and LogAdmission ends with (time, type, workload)
  // to `line_text`, closes it and writes it.
  void EndLine(std::string_view type, const engine::Workload& w);

  // --- Workload lifecycle ---

  // Quota reserved by a cycle (entry outcome kAdmitted).
  void OnReserved(const engine::CycleEntry& entry);

  void OnAdmitted(WorkloadId id);

  // Admission to pods ready: the workload's own delay, or the flavors' modelled delay (the
  // slowest of its flavors), pushed past the flavors' stockout windows.
  TimeMicros PodsReadyAfter(const engine::Workload& w, const Track& t) const;

  // An admission check completed inside a stockout of one of the workload's flavors.
  bool ChecksRejectedByStockout(const engine::Workload& w) const;

  // Seed 002: the attempt on the workload's flavors failed (`failed` are the flavors that failed
  // now). Counts it, then evicts and requeues the workload, or applies the failure policy when no
  // flavor is left.
  void FallBack(WorkloadId id, const std::vector<engine::FlavorId>& failed,
                std::string_view reason);

  void OnPodsReady(WorkloadId id);

  // The workload stops holding quota for `cause`, after the control plane's release latency.
  void BeginRelease(WorkloadId id, ReleaseCause cause);

  void OnRelease(WorkloadId id);

  void Forget(WorkloadId id);

  // --- Timers ---

  void HandleTimer(const Timer& timer);

  // An admission check rejected the workload (its flavor is in a stockout): with an
  // AdmissionCheckRejected rule, fall back; otherwise Kueue deactivates the workload.
  void OnChecksRejected(WorkloadId id);

  // The inventory has already taken back the workload's devices on every node.
  void EvictForNodeFailure(WorkloadId id, const std::string& node);

  void Deactivate(WorkloadId id, std::string_view reason);

  // --- Cycles ---

  void RunOneCycle();

  bool CyclesAllowed() const;

  // Runs timers due at or before `t` and cycles due before `t`, in time order (timers first at
  // an equal instant).
  // False when it paused at `max_lines` lines in the log (ShardSimulator::AdvanceWithin).
  bool AdvanceTo(TimeMicros t, size_t max_lines = std::numeric_limits<size_t>::max());
  TimeMicros NextDue() const;

  // --- Trace events ---

  static EventError Reject(EventErrorReason reason, std::string field, std::string message);

  bool ApplyWorkloadAdded(TraceEvent& event, EventError& error);
  // cluster().FindLocalQueue(spec.name_space, spec.queue_name), through local_queue_memo.
  const engine::LocalQueueSpec* FindLocalQueue(const engine::WorkloadSpec& spec);

  // A workload already holding quota when it enters the replay: running from now on.
  void StartAdmitted(WorkloadId id);

  bool ApplyWorkloadModified(TraceEvent& event, EventError& error);

  bool ApplyWorkloadDeleted(TraceEvent& event, EventError& error);

  // Seed 001: a ResourceClass is immutable once created (a MODIFIED event that changes its spec
  // is rejected); a Node that goes away, or changes its labels or devices, evicts the workloads
  // holding devices on it (reason NodeFailure), which requeue.
  bool ApplyDeviceChange(TraceEvent& event, EventError& error);

  static bool SameSelectors(const engine::ResourceClassSpec& a, const engine::ResourceClassSpec& b);

  bool ApplyConfig(TraceEvent& event, EventError& error);

  bool Apply(TraceEvent& event, EventError& error);

  // Workloads of the manifests: tracked like ADDED events at the start.
  void AdoptInitialWorkloads();

  void SetNow(TimeMicros t);
};

}  // namespace replay
