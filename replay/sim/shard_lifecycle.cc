// A workload's life in one shard: reserved, admitted, pods ready, finished or evicted, quota
// released, and the timers that move it on (replay/sim/shard_simulator_impl.h).
#include "replay/sim/shard_simulator_impl.h"

namespace replay {

void ShardSimulator::Impl::OnReserved(const engine::CycleEntry& entry) {
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

void ShardSimulator::Impl::OnAdmitted(WorkloadId id) {
  Track& t = TrackOf(id);
  const engine::Workload& w = store().Get(id);
  t.admitted = true;
  stats.OnAdmitted(w, t.local_queue, t.workload_class, now - w.creation_time, !t.ever_admitted,
                   now);
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

engine::TimeMicros ShardSimulator::Impl::PodsReadyAfter(const engine::Workload& w,
                                                        const Track& t) const {
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

bool ShardSimulator::Impl::ChecksRejectedByStockout(const engine::Workload& w) const {
  for (engine::FlavorId f : engine::AssignedFlavors(w)) {
    if (supply.StockoutAt(cluster().Name(f), now) != nullptr) {
      return true;
    }
  }
  return false;
}

void ShardSimulator::Impl::FallBack(WorkloadId id, const std::vector<engine::FlavorId>& failed,
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
  w.scan.Reset();  // the next scan starts at the first flavor again
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

void ShardSimulator::Impl::OnPodsReady(WorkloadId id) {
  Track& t = TrackOf(id);
  engine::Workload& w = store().Get(id);
  engine::OnFallbackPodsReady(cluster(), w);
  if (!t.ever_started) {
    stats.OnFirstStart(now - w.creation_time);
  }
  t.ever_started = true;
  t.pods_ready = true;
  t.run_started = now;
  if (t.runtime >= 0) {
    ScheduleFor(now + t.runtime, TimerKind::kFinish, id);
  }
}

void ShardSimulator::Impl::BeginRelease(WorkloadId id, ReleaseCause cause) {
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

void ShardSimulator::Impl::OnRelease(WorkloadId id) {
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
      stats.OnFinished(cq, now - w.quota_reserved_time);
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
                {{"reason",
                  t.release_cause == ReleaseCause::kFallback ? "FlavorFallback" : "NodeFailure"}});
      break;
  }
  if (engine::IsValid(cq)) {
    ScheduleInadmissibleRequeue(cq);
  }
  Changed();
}

void ShardSimulator::Impl::Forget(WorkloadId id) {
  Track& t = TrackOf(id);
  queues().Forget(id);
  store().Erase(id);
  t.live = false;
  ++t.epoch;
}

void ShardSimulator::Impl::HandleTimer(const Timer& timer) {
  if (timer.kind() == TimerKind::kRequeueInadmissible) {
    CqId cq = engine::MakeId<CqId>(timer.target);
    requeue_scheduled[timer.target] = 0;  // set when the timer was scheduled
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
  switch (timer.kind()) {
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

void ShardSimulator::Impl::OnChecksRejected(WorkloadId id) {
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

void ShardSimulator::Impl::EvictForNodeFailure(WorkloadId id, const std::string& node) {
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

void ShardSimulator::Impl::Deactivate(WorkloadId id, std::string_view reason) {
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

}  // namespace replay
