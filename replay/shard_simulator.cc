#include "replay/shard_simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "engine/flavor_fallback.h"
#include "replay/decision_output.h"
#include "replay/device_output.h"
#include "replay/fallback_output.h"
#include "replay/flavor_supply.h"
#include "replay/json_writer.h"
#include "replay/simulator.h"
#include "replay/time_parse.h"

namespace replay {
namespace {

using engine::CqId;
using engine::TimeMicros;
using engine::WorkloadId;

constexpr int64_t kMaxCyclesPerInstant = 1000;
constexpr TimeMicros kNever = std::numeric_limits<TimeMicros>::max();
// Kueue's inadmissible-requeue batch period [inadmissible_workloads.go: requeueBatchPeriod].
constexpr TimeMicros kInadmissibleBatchDelay = 1'000'000;

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

struct Timer {
  TimeMicros time;
  uint64_t seq;  // scheduling order breaks ties: deterministic
  TimerKind kind;
  uint32_t target;  // WorkloadId or CqId index
  uint32_t epoch;   // the workload's epoch when scheduled; stale timers are dropped
  bool operator>(const Timer& o) const { return time != o.time ? time > o.time : seq > o.seq; }
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
struct Track {
  uint32_t epoch = 0;
  bool live = false;
  bool active = true;
  bool admitted = false;  // Admitted=True (quota reserved and checks Ready)
  bool pods_ready = false;
  bool evicting = false;
  bool ever_admitted = false;
  bool ever_started = false;  // pods were ready once
  bool finished = false;      // runtime over / Finished=True; quota may still be held (kRelease)
  ReleaseCause release_cause = ReleaseCause::kFinished;
  int32_t pods_ready_timeouts = 0;
  TimeMicros created = 0;
  TimeMicros runtime = -1;  // -1: until a MODIFIED/DELETED event
  TimeMicros pods_ready_after = -1;
  TimeMicros reserved_at = 0;
  TimeMicros run_started = 0;
  uint32_t local_queue = 0;  // interned "namespace/name"
  uint32_t workload_class = 0;
};

}  // namespace

struct ShardSimulator::Impl {
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
  ReplayStats stats;
  FlavorSupplyModel supply;

  TimeMicros now = 0;
  TimeMicros last_change = 0;
  TimeMicros stats_start = 0;  // the report ends here (a requeue that finds nothing is not news)
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers;
  uint64_t next_seq = 0;
  std::vector<Track> tracks;
  std::set<uint32_t> requeue_scheduled;  // CqIds with a pending inadmissible requeue
  bool cycles_needed = true;
  // Cycles run at the current instant. A preemption ping-pong (A reclaims from B, B is released
  // and requeued at once, wins the freed quota back before A, A preempts it again...) could
  // cycle forever at one instant when releases take no time; Kueue's cycles take real time. So
  // an instant gets at most kMaxCyclesPerInstant cycles, and the report counts the instants cut.
  int64_t cycles_at_instant = 0;
  TimeMicros cycle_ready_at = 0;
  std::vector<WorkloadId> previous_heads;
  int64_t not_ready = 0;  // admitted workloads whose pods are not ready (blockAdmission)
  std::vector<engine::NamespaceSpec> namespaces;

  // Engine cost.
  std::vector<int64_t> latency_buckets = std::vector<int64_t>(48, 0);
  int64_t decisions = 0;

  // --- Helpers ---

  engine::WorkloadStore& store() const { return *state.store; }
  engine::QueueManager& queues() const { return *state.queues; }
  engine::Cluster& cluster() const { return *state.cluster; }

  Track& TrackOf(WorkloadId id) {
    if (engine::Index(id) >= tracks.size()) {
      tracks.resize(engine::Index(id) + 1);
    }
    return tracks[engine::Index(id)];
  }

  void Schedule(TimeMicros at, TimerKind kind, uint32_t target, uint32_t epoch = 0) {
    timers.push(Timer{at, next_seq++, kind, target, epoch});
  }
  void ScheduleFor(TimeMicros at, TimerKind kind, WorkloadId id) {
    Schedule(at, kind, engine::Index(id), TrackOf(id).epoch);
  }

  void Changed() {
    cycles_needed = true;
    last_change = now;
  }

  void ScheduleInadmissibleRequeue(CqId cq) {
    if (requeue_scheduled.insert(engine::Index(cq)).second) {
      Schedule(now + kInadmissibleBatchDelay, TimerKind::kRequeueInadmissible, engine::Index(cq));
    }
  }

  // --- Decisions log ---

  void LogSimple(std::string_view type, const engine::Workload& w,
                 std::initializer_list<std::pair<std::string_view, std::string>> extra = {}) {
    if (!logging) {
      return;
    }
    // Keys in sorted order: extra keys are passed sorted and merged around the fixed ones.
    std::map<std::string_view, std::string> fields;
    for (const auto& [k, v] : extra) {
      fields.emplace(k, v);
    }
    if (engine::IsValid(w.cluster_queue)) {
      fields.emplace("clusterQueue", cluster().Name(w.cluster_queue));
    }
    fields.emplace("time", FormatRfc3339(now));
    fields.emplace("type", std::string(type));
    fields.emplace("workload", w.key);
    JsonWriter out;
    out.BeginObject();
    for (const auto& [k, v] : fields) {
      out.Key(k);
      out.String(v);
    }
    out.EndObject();
    log.Write(now, out.str());
  }

  void LogAdmission(const engine::CycleEntry& entry, std::string_view type) {
    if (!logging) {
      return;
    }
    const engine::Workload& w = store().Get(entry.workload);
    engine::NodeId node = cluster().ClusterQueueNode(entry.cq);
    const engine::ResourceTree& tree = cluster().tree();
    JsonWriter out;
    out.BeginObject();
    // Borrowed per flavor/resource: the part of this workload's usage above the CQ's nominal.
    out.Key("borrowed");
    out.BeginObject();
    for (const engine::SlotAmount& u : entry.assignment.usage) {
      engine::Quantity above =
          engine::ClampNonNegative(tree.Usage(node, u.slot) - tree.Nominal(node, u.slot));
      engine::Quantity borrowed = engine::Min(above, u.amount);
      if (borrowed > engine::Quantity::Zero()) {
        engine::FlavorResource key = cluster().SlotKey(u.slot);
        out.Key(fmt::format("{}/{}", cluster().Name(key.flavor), cluster().Name(key.resource)));
        out.String(engine::FormatQuantity(borrowed, cluster().IsMilli(u.slot)));
      }
    }
    out.EndObject();
    out.Key("clusterQueue");
    out.String(cluster().Name(entry.cq));
    if (w.holds_devices) {
      out.Key("devices");
      WriteDeviceGrantsJson(cluster().devices(), w, out);
    }
    if (!w.fallback.empty()) {
      out.Key("flavorAssignmentHistory");
      WriteFlavorHistoryJson(cluster(), w.fallback, out);
    }
    if (entry.partial) {
      out.Key("partial");
      out.Bool(true);
    }
    out.Key("podSets");
    out.BeginArray();
    for (const engine::PodSetAssignment& ps : entry.assignment.pod_sets) {
      WritePodSetAssignmentJson(cluster(), ps, out);
    }
    out.EndArray();
    out.Key("time");
    out.String(FormatRfc3339(now));
    out.Key("type");
    out.String(type);
    out.Key("workload");
    out.String(w.key);
    out.EndObject();
    log.Write(now, out.str());
  }

  // --- Workload lifecycle ---

  // Quota reserved by a cycle (entry outcome kAdmitted).
  void OnReserved(const engine::CycleEntry& entry) {
    WorkloadId id = entry.workload;
    Track& t = TrackOf(id);
    t.reserved_at = now;
    stats.OnUsageChanged(entry.cq, now);
    engine::Workload& w = store().Get(id);
    engine::StartFallbackAttempt(cluster(), w, now);
    if (std::optional<TimeMicros> deadline = engine::FallbackDeadline(cluster(), w)) {
      ScheduleFor(*deadline, TimerKind::kFallbackTimeout, id);
    }
    if (entry.checks_pending) {
      LogAdmission(entry, "QuotaReserved");
      ScheduleFor(now + options.admission_check_delay, TimerKind::kChecksReady, id);
      return;
    }
    LogAdmission(entry, "Admitted");
    OnAdmitted(id);
  }

  void OnAdmitted(WorkloadId id) {
    Track& t = TrackOf(id);
    const engine::Workload& w = store().Get(id);
    t.admitted = true;
    stats.OnAdmitted(w, t.local_queue, t.workload_class, now - t.created, !t.ever_admitted, now);
    t.ever_admitted = true;
    TimeMicros ready_after = PodsReadyAfter(w, t);
    const engine::WaitForPodsReadySpec& wfpr = cluster().configuration().wait_for_pods_ready;
    ++not_ready;
    if (wfpr.enable && ready_after > wfpr.timeout) {
      ScheduleFor(now + wfpr.timeout, TimerKind::kPodsReadyTimeout, id);
      return;
    }
    ScheduleFor(now + options.control_plane.admit_to_running + ready_after, TimerKind::kPodsReady,
                id);
  }

  // Admission to pods ready: the workload's own delay, or the flavors' modelled delay (the
  // slowest of its flavors), pushed past the flavors' stockout windows.
  TimeMicros PodsReadyAfter(const engine::Workload& w, const Track& t) const {
    TimeMicros after = t.pods_ready_after >= 0 ? t.pods_ready_after : options.pods_ready_delay;
    if (supply.empty()) {
      return after;
    }
    const std::vector<engine::FlavorId> flavors = engine::AssignedFlavors(w);
    std::optional<TimeMicros> modelled;
    for (engine::FlavorId f : flavors) {
      if (auto d = supply.PodsReadyDelay(cluster().Name(f), w.key, t.reserved_at)) {
        modelled = std::max(modelled.value_or(0), *d);
      }
    }
    const TimeMicros start = now + options.control_plane.admit_to_running;
    TimeMicros ready = start + modelled.value_or(after);
    for (bool moved = true; moved;) {
      moved = false;
      for (engine::FlavorId f : flavors) {
        TimeMicros later = supply.AfterStockouts(cluster().Name(f), ready);
        moved = moved || later != ready;
        ready = later;
      }
    }
    return ready - start;
  }

  // An admission check completed inside a stockout of one of the workload's flavors.
  bool ChecksRejectedByStockout(const engine::Workload& w) const {
    for (engine::FlavorId f : engine::AssignedFlavors(w)) {
      if (supply.StockoutAt(cluster().Name(f), now) != nullptr) {
        return true;
      }
    }
    return false;
  }

  // Seed 002: the attempt on the workload's flavors failed (`failed` are the flavors that failed
  // now). Counts it, then evicts and requeues the workload, or applies the failure policy when no
  // flavor is left.
  void FallBack(WorkloadId id, const std::vector<engine::FlavorId>& failed,
                std::string_view reason) {
    Track& t = TrackOf(id);
    engine::Workload& w = store().Get(id);
    ReplayReport::Fallbacks& f = stats.fallbacks();
    for (engine::FlavorId flavor : failed) {
      ++f.by_flavor[cluster().Name(flavor)];
    }
    AddWastedQuota(cluster(), w, now - t.reserved_at, f);
    stats.OnEvicted(std::string(reason), w.cluster_queue);
    LogSimple(
        "Evicted", w,
        {{"failedFlavors", JoinFlavorNames(cluster(), failed)}, {"reason", std::string(reason)}});
    w.scan = engine::FlavorScanState{};  // the next scan starts at the first flavor again
    if (engine::FallbackExhausted(cluster(), w)) {
      const engine::FlavorFallbackSpec* spec = engine::FallbackOf(cluster(), w);
      if (spec != nullptr
          && spec->failure_policy == engine::FallbackFailurePolicy::kRetryAllFlavors) {
        ++f.retries;
        engine::ResetFallbackHistory(w);
      } else {
        ++f.exhausted;
        Deactivate(id, "FlavorFallbackExhausted");
        return;
      }
    }
    BeginRelease(id, ReleaseCause::kFallback);
  }

  void OnPodsReady(WorkloadId id) {
    Track& t = TrackOf(id);
    engine::OnFallbackPodsReady(cluster(), store().Get(id));
    if (!t.ever_started) {  // kept even while no fallback is configured: one may come mid-trace
      stats.fallbacks().start_samples.push_back(now - t.created);
    }
    t.ever_started = true;
    t.pods_ready = true;
    t.run_started = now;
    if (t.runtime >= 0) {
      ScheduleFor(now + t.runtime, TimerKind::kFinish, id);
    }
  }

  // The workload stops holding quota for `cause`, after the control plane's release latency.
  void BeginRelease(WorkloadId id, ReleaseCause cause) {
    Track& t = TrackOf(id);
    if (t.admitted && !t.pods_ready) {
      --not_ready;
      Changed();
    }
    ++t.epoch;  // cancels pending finish / pods-ready timers
    engine::EndFallbackAttempt(cluster(), store().Get(id), now);  // time on the flavors counts
    t.release_cause = cause;
    t.evicting = cause != ReleaseCause::kFinished;
    if (cause != ReleaseCause::kFinished) {
      store().MarkEvicting(id);
    }
    ScheduleFor(now + options.control_plane.finish_to_release, TimerKind::kRelease, id);
  }

  void OnRelease(WorkloadId id) {
    Track& t = TrackOf(id);
    engine::Workload& w = store().Get(id);
    CqId cq = w.cluster_queue;
    t.admitted = false;
    t.pods_ready = false;
    t.evicting = false;
    ++t.epoch;
    switch (t.release_cause) {
      case ReleaseCause::kFinished:
        store().Release(id);
        stats.OnUsageChanged(cq, now);
        stats.OnFinished();
        LogSimple("Finished", w);
        Forget(id);
        break;
      case ReleaseCause::kPreempted:
        state.scheduler->FinishEviction(id, now);
        stats.OnUsageChanged(cq, now);
        stats.OnRequeued();
        LogSimple("Requeued", w, {{"reason", "Preempted"}});
        break;
      case ReleaseCause::kPodsReadyTimeout: {
        store().Release(id);
        stats.OnUsageChanged(cq, now);
        const engine::WaitForPodsReadySpec& wfpr = cluster().configuration().wait_for_pods_ready;
        // requeueAt = now + min(base * 2^(n-1), max); Kueue's jitter is left out (determinism).
        int shift = std::min(t.pods_ready_timeouts - 1, 40);
        TimeMicros backoff = wfpr.backoff_base;
        for (int i = 0; i < shift && backoff < wfpr.backoff_max; ++i) {
          backoff *= 2;
        }
        backoff = std::min(backoff, wfpr.backoff_max);
        if (wfpr.requeue_by_eviction_time) {
          w.queue_order_time = now;
        }
        queues().SetRequeueState(id, now + backoff, /*requeued_false=*/true);
        queues().Push(id, now);
        ScheduleFor(now + backoff, TimerKind::kBackoffExpired, id);
        stats.OnRequeued();
        LogSimple("Requeued", w,
                  {{"reason", "PodsReadyTimeout"}, {"requeueAt", FormatRfc3339(now + backoff)}});
        break;
      }
      case ReleaseCause::kDeactivated:
        store().Release(id);
        stats.OnUsageChanged(cq, now);
        break;
      case ReleaseCause::kFallback:
      case ReleaseCause::kNodeFailure:
        store().Release(id);
        stats.OnUsageChanged(cq, now);
        queues().Push(id, now);
        stats.OnRequeued();
        LogSimple("Requeued", w,
                  {{"reason", t.release_cause == ReleaseCause::kFallback ? "FlavorFallback"
                                                                         : "NodeFailure"}});
        break;
    }
    if (engine::IsValid(cq)) {
      ScheduleInadmissibleRequeue(cq);
    }
    Changed();
  }

  void Forget(WorkloadId id) {
    Track& t = TrackOf(id);
    queues().Forget(id);
    store().Erase(id);
    t.live = false;
    ++t.epoch;
  }

  // --- Timers ---

  void HandleTimer(const Timer& timer) {
    if (timer.kind == TimerKind::kRequeueInadmissible) {
      CqId cq = engine::MakeId<CqId>(timer.target);
      requeue_scheduled.erase(timer.target);
      if (cluster().Exists(cq)) {
        size_t before = queues().ActiveCount();
        queues().QueueInadmissible(cq, now, state.scheduler->cycle());
        if (queues().ActiveCount() != before) {
          Changed();
        }
      }
      return;
    }
    WorkloadId id = engine::MakeId<WorkloadId>(timer.target);
    Track& t = TrackOf(id);
    if (!t.live || t.epoch != timer.epoch) {
      return;  // stale: the workload was evicted, finished or deleted since
    }
    switch (timer.kind) {
      case TimerKind::kChecksReady: {
        engine::Workload& w = store().Get(id);
        if (ChecksRejectedByStockout(w)) {
          OnChecksRejected(id);
          break;
        }
        LogSimple("Admitted", w);
        OnAdmitted(id);
        break;
      }
      case TimerKind::kFallbackTimeout: {
        if (t.pods_ready || !store().Get(id).quota_reserved) {
          break;  // ready in time, or the attempt already ended
        }
        std::vector<engine::FlavorId> failed =
            engine::EndFallbackAttempt(cluster(), store().Get(id), now);
        ++stats.fallbacks().timeouts;
        FallBack(id, failed, "FlavorFallbackTimeout");
        break;
      }
      case TimerKind::kPodsReady:
        --not_ready;
        OnPodsReady(id);
        Changed();
        break;
      case TimerKind::kPodsReadyTimeout: {
        const engine::WaitForPodsReadySpec& wfpr = cluster().configuration().wait_for_pods_ready;
        ++t.pods_ready_timeouts;
        const engine::Workload& w = store().Get(id);
        stats.OnEvicted("PodsReadyTimeout", w.cluster_queue);
        LogSimple("Evicted", w, {{"reason", "PodsReadyTimeout"}});
        if (wfpr.backoff_limit_count && t.pods_ready_timeouts > *wfpr.backoff_limit_count) {
          Deactivate(id, "RequeuingLimitExceeded");
        } else {
          BeginRelease(id, ReleaseCause::kPodsReadyTimeout);
        }
        break;
      }
      case TimerKind::kFinish:
        t.finished = true;
        BeginRelease(id, ReleaseCause::kFinished);
        break;
      case TimerKind::kRelease:
        OnRelease(id);
        break;
      case TimerKind::kBackoffExpired:
        queues().SetRequeueState(id, std::nullopt, false);
        queues().Push(id, now);
        Changed();
        break;
      case TimerKind::kRequeueInadmissible:
        break;
    }
  }

  // An admission check rejected the workload (its flavor is in a stockout): with an
  // AdmissionCheckRejected rule, fall back; otherwise Kueue deactivates the workload.
  void OnChecksRejected(WorkloadId id) {
    engine::Workload& w = store().Get(id);
    std::vector<engine::FlavorId> failed = engine::FailOnAdmissionCheckRejected(cluster(), w);
    if (failed.empty()) {
      Deactivate(id, "AdmissionCheckRejected");
      return;
    }
    engine::EndFallbackAttempt(cluster(), w, now);
    ++stats.fallbacks().check_rejections;
    FallBack(id, failed, "AdmissionCheckRejected");
  }

  // The inventory has already taken back the workload's devices on every node.
  void EvictForNodeFailure(WorkloadId id, const std::string& node) {
    engine::Workload& w = store().Get(id);
    w.holds_devices = false;
    Track& t = TrackOf(id);
    if (!w.quota_reserved || t.evicting) {
      return;  // already on its way out: it releases its quota as planned
    }
    stats.OnEvicted("NodeFailure", w.cluster_queue);
    LogSimple("Evicted", w, {{"node", node}, {"reason", "NodeFailure"}});
    BeginRelease(id, ReleaseCause::kNodeFailure);
  }

  void Deactivate(WorkloadId id, std::string_view reason) {
    Track& t = TrackOf(id);
    t.active = false;
    const engine::Workload& w = store().Get(id);
    stats.OnDeactivated();
    LogSimple("Deactivated", w, {{"reason", std::string(reason)}});
    queues().Remove(id);
    if (w.quota_reserved) {
      BeginRelease(id, ReleaseCause::kDeactivated);
    } else {
      ++t.epoch;
    }
    Changed();
  }

  // --- Cycles ---

  void RunOneCycle() {
    auto started = std::chrono::steady_clock::now();
    engine::CycleResult r = state.scheduler->RunCycle(now);
    auto elapsed = std::chrono::steady_clock::now() - started;
    stats.OnCycle();
    if (!r.entries.empty()) {
      decisions += static_cast<int64_t>(r.entries.size());
      int64_t per = std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()
                    / static_cast<int64_t>(r.entries.size());
      int bucket = 0;
      while (bucket < 47 && (int64_t{1} << bucket) < per) {
        ++bucket;
      }
      latency_buckets[bucket] += static_cast<int64_t>(r.entries.size());
    }
    int64_t admitted = 0;
    std::vector<WorkloadId> heads;
    bool pending_scans = false;
    for (const engine::CycleEntry& e : r.entries) {
      heads.push_back(e.workload);
      if (e.outcome == engine::EntryOutcome::kAdmitted) {
        ++admitted;
        OnReserved(e);
        continue;
      }
      if (e.assignment.devices_short) {
        stats.OnDevicesShort(store().Get(e.workload).key);
      }
      if (store().Get(e.workload).scan.HasPendingFlavors()) {
        pending_scans = true;
      }
    }
    for (const engine::Eviction& ev : r.evictions) {
      const engine::Workload& victim = store().Get(ev.victim);
      const engine::Workload& preemptor = store().Get(ev.preemptor);
      stats.OnPreempted(victim.cluster_queue);
      LogSimple("Preempted", victim,
                {{"preemptor", preemptor.key}, {"reason", engine::ToString(ev.reason)}});
      BeginRelease(ev.victim, ReleaseCause::kPreempted);
    }
    bool progressed =
        r.changed || pending_scans || (queues().HasActive() && heads != previous_heads);
    previous_heads = std::move(heads);
    cycles_needed = progressed && !r.entries.empty();
    if (++cycles_at_instant == kMaxCyclesPerInstant) {
      stats.OnCycleLimit();  // no more cycles until the clock moves (AdvanceTo)
    }
    TimeMicros next = now + options.control_plane.cycle_duration;
    if (options.control_plane.max_admissions_per_second > 0 && admitted > 0) {
      next = std::max(next, now
                                + static_cast<TimeMicros>(
                                    std::ceil(1e6 * static_cast<double>(admitted)
                                              / options.control_plane.max_admissions_per_second)));
    }
    cycle_ready_at = next;
  }

  bool CyclesAllowed() const {
    return !cluster().configuration().wait_for_pods_ready.block_admission || not_ready == 0;
  }

  // Runs timers due at or before `t` and cycles due before `t`, in time order (timers first at
  // an equal instant).
  void AdvanceTo(TimeMicros t) {
    while (true) {
      TimeMicros next_timer = timers.empty() ? kNever : timers.top().time;
      TimeMicros next_cycle =
          cycles_needed && CyclesAllowed()
                  && (cycles_at_instant < kMaxCyclesPerInstant || cycle_ready_at > now)
              ? std::max(cycle_ready_at, now)
              : kNever;
      if (!timers.empty() && next_timer <= t && next_timer <= next_cycle) {
        Timer timer = timers.top();
        timers.pop();
        SetNow(timer.time);
        HandleTimer(timer);
        continue;
      }
      if (next_cycle != kNever && (next_cycle < t || t == kNever)) {
        SetNow(next_cycle);
        RunOneCycle();
        continue;
      }
      break;
    }
  }

  // --- Trace events ---

  static EventError Reject(EventErrorReason reason, std::string field, std::string message) {
    EventError e;
    e.reason = reason;
    e.field = std::move(field);
    e.message = std::move(message);
    return e;
  }

  bool ApplyWorkloadAdded(TraceEvent& event, EventError& error) {
    engine::WorkloadSpec& spec = event.object.workloads[0];
    if (store().Find(event.name)) {
      error = Reject(EventErrorReason::kUnknownWorkload, "object.metadata.name",
                     fmt::format("Workload {} already exists", event.name));
      return false;
    }
    if (!spec.admission && cluster().FindLocalQueue(spec.name_space, spec.queue_name) == nullptr) {
      error =
          Reject(EventErrorReason::kUnknownQueue, "object.spec.queueName",
                 fmt::format("LocalQueue {}/{} does not exist", spec.name_space, spec.queue_name));
      return false;
    }
    if (spec.creation_time == 0) {
      spec.creation_time = event.time;
    }
    const engine::ConditionSpec* finished_condition = spec.Condition("Finished");
    bool finished = finished_condition != nullptr && finished_condition->status;
    bool reserved = spec.admission.has_value() && spec.active && !finished;
    if (!reserved) {
      spec.admission.reset();
    }
    std::string local_queue = fmt::format("{}/{}", spec.name_space, spec.queue_name);
    std::string workload_class = spec.workload_class;
    bool active = spec.active;
    engine::StatusOr<WorkloadId> added = store().Add(std::move(spec));
    if (!added.ok()) {
      error = Reject(EventErrorReason::kBadObject, "object", added.status().message());
      return false;
    }
    WorkloadId id = *added;
    Track& t = TrackOf(id);
    t = Track{.epoch = t.epoch + 1};
    t.live = true;
    t.active = active;
    t.created = store().Get(id).creation_time;
    t.runtime = event.runtime.value_or(-1);
    t.pods_ready_after = event.pods_ready_after.value_or(-1);
    t.local_queue = stats.InternLocalQueue(local_queue);
    t.workload_class = stats.InternClass(workload_class);
    stats.OnCreated();
    if (reserved) {
      StartAdmitted(id);
    } else if (finished) {
      Forget(id);
    } else if (active) {
      queues().Push(id, now);
    }
    Changed();
    return true;
  }

  // A workload already holding quota when it enters the replay: running from now on.
  void StartAdmitted(WorkloadId id) {
    Track& t = TrackOf(id);
    stats.OnInitiallyAdmitted();
    t.admitted = true;
    t.ever_admitted = true;
    t.pods_ready = true;
    t.run_started = now;
    t.reserved_at = now;
    stats.OnUsageChanged(store().Get(id).cluster_queue, now);
    if (t.runtime >= 0) {
      ScheduleFor(now + t.runtime, TimerKind::kFinish, id);
    }
  }

  bool ApplyWorkloadModified(TraceEvent& event, EventError& error) {
    std::optional<WorkloadId> found = store().Find(event.name);
    if (!found) {
      error = Reject(EventErrorReason::kUnknownWorkload, "object.metadata.name",
                     fmt::format("MODIFIED for unknown Workload {}", event.name));
      return false;
    }
    WorkloadId id = *found;
    Track& t = TrackOf(id);
    engine::Workload& w = store().Get(id);
    engine::WorkloadSpec& spec = event.object.workloads[0];
    if (event.runtime) {
      t.runtime = *event.runtime;
      if (t.pods_ready && !t.finished) {
        ++t.epoch;
        ScheduleFor(std::max(now, t.run_started + t.runtime), TimerKind::kFinish, id);
      }
    }
    if (event.pods_ready_after) {
      t.pods_ready_after = *event.pods_ready_after;
    }
    const engine::ConditionSpec* finished = spec.Condition("Finished");
    if (finished != nullptr && finished->status) {
      if (!t.finished) {
        t.finished = true;
        if (w.quota_reserved) {
          if (!t.evicting) {
            BeginRelease(id, ReleaseCause::kFinished);
          }
        } else {
          stats.OnFinished();
          LogSimple("Finished", w);
          Forget(id);
        }
      }
      Changed();
      return true;
    }
    if (!spec.active && t.active) {
      Deactivate(id, "Deactivated");
      return true;
    }
    if (spec.active && !t.active) {
      t.active = true;
      if (!w.quota_reserved) {
        queues().Push(id, now);
      }
      Changed();
      return true;
    }
    if (w.quota_reserved) {
      // Admitted: pod sets are immutable; a priority change updates preemption and requeues
      // the tree's inadmissible workloads (§9.5).
      int32_t priority = store().ResolvePriority(spec);
      if (priority != w.priority) {
        w.priority = priority;
        w.scheduling_hash = 0;
        ScheduleInadmissibleRequeue(w.cluster_queue);
        Changed();
      }
      return true;
    }
    if (!t.active) {
      return true;
    }
    // Pending: the new object replaces the old one in its queue (same creation time).
    if (cluster().FindLocalQueue(spec.name_space, spec.queue_name) == nullptr) {
      error =
          Reject(EventErrorReason::kUnknownQueue, "object.spec.queueName",
                 fmt::format("LocalQueue {}/{} does not exist", spec.name_space, spec.queue_name));
      return false;
    }
    spec.creation_time = w.creation_time;
    spec.admission.reset();
    Track saved = t;
    queues().Forget(id);
    store().Erase(id);
    engine::StatusOr<WorkloadId> added = store().Add(std::move(spec));
    if (!added.ok()) {
      error = Reject(EventErrorReason::kBadObject, "object", added.status().message());
      TrackOf(id).live = false;
      return false;
    }
    Track& moved = TrackOf(*added);
    moved = saved;
    moved.local_queue = stats.InternLocalQueue(fmt::format(
        "{}/{}", store().Get(*added).spec->name_space, store().Get(*added).local_queue));
    if (*added != id) {
      ++TrackOf(id).epoch;
      TrackOf(id).live = false;
    }
    queues().Push(*added, now);
    Changed();
    return true;
  }

  bool ApplyWorkloadDeleted(TraceEvent& event, EventError& error) {
    std::optional<WorkloadId> found = store().Find(event.name);
    if (!found) {
      error = Reject(EventErrorReason::kUnknownWorkload, "object.metadata.name",
                     fmt::format("DELETED for unknown Workload {}", event.name));
      return false;
    }
    WorkloadId id = *found;
    Track& t = TrackOf(id);
    const engine::Workload& w = store().Get(id);
    LogSimple("Deleted", w);
    if (t.admitted && !t.pods_ready) {
      --not_ready;
    }
    if (w.quota_reserved) {
      CqId cq = w.cluster_queue;
      store().Release(id);
      stats.OnUsageChanged(cq, now);
      ScheduleInadmissibleRequeue(cq);
    }
    stats.OnDeleted();
    Forget(id);
    Changed();
    return true;
  }

  // Seed 001: a ResourceClass is immutable once created (a MODIFIED event that changes its spec
  // is rejected); a Node that goes away, or changes its labels or devices, evicts the workloads
  // holding devices on it (reason NodeFailure), which requeue.
  bool ApplyDeviceChange(TraceEvent& event, EventError& error) {
    const engine::ClusterSpec& o = event.object;
    const bool deleted = event.type == EventType::kDeleted;
    std::vector<uint32_t> evicted;
    if (event.kind == "ResourceClass") {
      const engine::ResourceClassSpec* existing = cluster().devices().FindClass(event.name);
      if (deleted) {
        cluster().DeleteResourceClass(event.name);
      } else if (existing != nullptr) {
        if (!SameSelectors(*existing, o.resource_classes[0])) {
          error = Reject(EventErrorReason::kInvalidConfig, "object.spec",
                         fmt::format("ResourceClass {} is immutable after creation: delete and "
                                     "re-create it to change its selectors",
                                     event.name));
          return false;
        }
      } else {
        cluster().UpsertResourceClass(o.resource_classes[0]);
      }
    } else {
      evicted = deleted ? cluster().DeleteNode(event.name) : cluster().UpsertNode(o.nodes[0]);
    }
    std::sort(evicted.begin(), evicted.end());  // deterministic order of the eviction lines
    for (uint32_t owner : evicted) {
      EvictForNodeFailure(engine::MakeId<WorkloadId>(owner), event.name);
    }
    stats.OnDevicesChanged();
    queues().QueueAllInadmissible(now, state.scheduler->cycle());
    Changed();
    return true;
  }

  static bool SameSelectors(const engine::ResourceClassSpec& a,
                            const engine::ResourceClassSpec& b) {
    if (a.resource_selector.size() != b.resource_selector.size()) {
      return false;
    }
    for (size_t i = 0; i < a.resource_selector.size(); ++i) {
      const auto& x = a.resource_selector[i].match_expressions;
      const auto& y = b.resource_selector[i].match_expressions;
      if (x.size() != y.size()) {
        return false;
      }
      for (size_t j = 0; j < x.size(); ++j) {
        if (x[j].key != y[j].key || x[j].op != y[j].op || x[j].values != y[j].values) {
          return false;
        }
      }
    }
    return true;
  }

  bool ApplyConfig(TraceEvent& event, EventError& error) {
    const engine::ClusterSpec& o = event.object;
    bool deleted = event.type == EventType::kDeleted;
    const std::string& kind = event.kind;
    if (kind == "FlavorSupply") {
      // The replay's own model, not Kueue's configuration: attempts already under way keep the
      // pods-ready time they were given; later ones see the new supply.
      deleted ? supply.Erase(event.name) : supply.Upsert(o.flavor_supplies[0]);
      stats.fallbacks().enabled = true;
      return true;
    }
    if (kind == "ResourceClass" || kind == "Node") {
      return ApplyDeviceChange(event, error);
    }
    if (kind == "ResourceFlavor") {
      deleted ? cluster().DeleteFlavor(event.name) : cluster().UpsertFlavor(o.flavors[0]);
    } else if (kind == "Cohort") {
      deleted ? cluster().DeleteCohort(event.name) : cluster().UpsertCohort(o.cohorts[0]);
    } else if (kind == "ClusterQueue") {
      deleted ? cluster().DeleteClusterQueue(event.name)
              : cluster().UpsertClusterQueue(o.cluster_queues[0]);
      if (!deleted && o.cluster_queues[0].flavor_fungibility.fallback.has_value()) {
        stats.fallbacks().enabled = true;
      }
    } else if (kind == "Namespace") {
      std::erase_if(namespaces, [&](const auto& n) { return n.name == event.name; });
      if (!deleted) {
        namespaces.push_back(o.namespaces[0]);
      }
      state.scheduler->SetNamespaces(namespaces);
    } else if (deleted) {
      error = Reject(EventErrorReason::kInvalidConfig, "type",
                     fmt::format("deleting a {} is not supported by the replay", kind));
      return false;
    } else if (kind == "LocalQueue") {
      cluster().UpsertLocalQueue(o.local_queues[0]);
    } else if (kind == "WorkloadPriorityClass") {
      cluster().UpsertPriorityClass(o.priority_classes[0]);
    } else if (kind == "AdmissionCheck") {
      cluster().UpsertAdmissionCheck(o.admission_checks[0]);
    } else {
      error =
          Reject(EventErrorReason::kInvalidConfig, "object.kind",
                 fmt::format("a {} change needs a Kueue restart: give it with --manifests", kind));
      return false;
    }
    cluster().Refresh();
    queues().AdoptOrphans();
    queues().QueueAllInadmissible(now, state.scheduler->cycle());
    stats.OnConfigChanged(now);
    Changed();
    return true;
  }

  bool Apply(TraceEvent& event, EventError& error) {
    if (event.kind != "Workload") {
      return ApplyConfig(event, error);
    }
    switch (event.type) {
      case EventType::kAdded:
        return ApplyWorkloadAdded(event, error);
      case EventType::kModified:
        return ApplyWorkloadModified(event, error);
      case EventType::kDeleted:
        return ApplyWorkloadDeleted(event, error);
    }
    return false;
  }

  // Workloads of the manifests: tracked like ADDED events at the start.
  void AdoptInitialWorkloads() {
    for (uint32_t i = 0; i < store().size(); ++i) {
      WorkloadId id = engine::MakeId<WorkloadId>(i);
      if (!store().Contains(id)) {
        continue;
      }
      const engine::Workload& w = store().Get(id);
      Track& t = TrackOf(id);
      t.live = true;
      t.active = w.spec->active;
      t.created = w.creation_time;
      t.local_queue =
          stats.InternLocalQueue(fmt::format("{}/{}", w.spec->name_space, w.local_queue));
      t.workload_class = stats.InternClass(w.spec->workload_class);
      stats.OnCreated();
      if (w.quota_reserved) {
        StartAdmitted(id);
      }
    }
  }

  void SetNow(TimeMicros t) {
    if (t != now) {
      cycles_at_instant = 0;
      stats.SampleUntil(t);
      now = t;
    }
  }
};

// --- ShardLog ---

void ShardLog::Write(int64_t time, std::string_view line) {
  text_.append(line);
  times_.push_back(time);
  ends_.push_back(static_cast<uint32_t>(text_.size()));
}

std::string_view ShardLog::Line(size_t i) const {
  size_t begin = i == 0 ? 0 : ends_[i - 1];
  const std::string_view text = text_;
  return text.substr(begin, ends_[i] - begin);
}

ShardLog ShardLog::TakeBefore(int64_t time) {
  size_t n =
      static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), time) - times_.begin());
  ShardLog taken;
  if (n == ends_.size()) {
    std::swap(taken, *this);
    return taken;
  }
  uint32_t cut = n == 0 ? 0 : ends_[n - 1];
  taken.text_.assign(text_, 0, cut);
  taken.times_.assign(times_.begin(), times_.begin() + static_cast<std::ptrdiff_t>(n));
  taken.ends_.assign(ends_.begin(), ends_.begin() + static_cast<std::ptrdiff_t>(n));
  text_.erase(0, cut);
  times_.erase(times_.begin(), times_.begin() + static_cast<std::ptrdiff_t>(n));
  ends_.erase(ends_.begin(), ends_.begin() + static_cast<std::ptrdiff_t>(n));
  for (uint32_t& e : ends_) {
    e -= cut;
  }
  return taken;
}

// --- ShardSimulator ---

ShardSimulator::ShardSimulator(ClusterState state, const SimulatorOptions& options,
                               bool log_decisions)
    : impl_(std::make_unique<Impl>(std::move(state), options, log_decisions)) {}

ShardSimulator::~ShardSimulator() = default;

void ShardSimulator::Start(int64_t t) {
  Impl& s = *impl_;
  s.now = t;
  s.stats_start = t;
  s.last_change = t;
  s.cycle_ready_at = t;
  s.namespaces = s.state.load.spec.namespaces;
  s.stats.Start(t);
  s.AdoptInitialWorkloads();
}

bool ShardSimulator::Apply(TraceEvent& event, EventError& error) {
  impl_->AdvanceTo(event.time);
  impl_->SetNow(event.time);
  return impl_->Apply(event, error);
}

void ShardSimulator::AdvanceTo(int64_t t) {
  impl_->AdvanceTo(t);
}
void ShardSimulator::SetNow(int64_t t) {
  impl_->SetNow(std::max(t, impl_->now));
}
int64_t ShardSimulator::now() const {
  return impl_->now;
}
int64_t ShardSimulator::last_change() const {
  return std::max(impl_->last_change, impl_->stats_start);
}
int64_t ShardSimulator::manifests_time() const {
  return impl_->state.now;
}
ShardLog& ShardSimulator::log() {
  return impl_->log;
}
int64_t ShardSimulator::live_workloads() const {
  return static_cast<int64_t>(impl_->state.store->live());
}
int64_t ShardSimulator::decisions() const {
  return impl_->decisions;
}
const std::vector<int64_t>& ShardSimulator::latency_buckets() const {
  return impl_->latency_buckets;
}
void ShardSimulator::SetNominationLoop(engine::ParallelLoop* loop, size_t min_heads) {
  impl_->state.scheduler->SetParallelLoop(min_heads == 0 ? nullptr : loop, min_heads);
}

const engine::SchedulerOptions& ShardSimulator::scheduler_options() const {
  return impl_->state.scheduler->options();
}

void ShardSimulator::Finish(int64_t end, ReplayReport& part, RawWaits& waits) {
  impl_->stats.Finish(end, part);
  waits = impl_->stats.TakeWaits();
}

}  // namespace replay
