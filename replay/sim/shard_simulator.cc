#include <algorithm>

#include "engine/base/check.h"
#include "engine/base/phase_profile.h"
#include "replay/sim/shard_simulator_impl.h"
#include "replay/sim/tick_clock.h"

namespace replay {

std::string_view ShardSimulator::Impl::TimeField() {
  if (now != time_field_time) {
    // An RFC 3339 text is digits, '-', ':', '.', 'T' and 'Z' (and '+' before a year above
    // 9999): nothing to escape, so quoted as it is.
    time_field.assign("\"time\":\"");
    time_field.append(now_formatter.Format(now));
    time_field.append("\",\"type\":");
    time_field_time = now;
  }
  return time_field;
}

std::string_view ShardSimulator::Impl::QuotedCqName(CqId cq) {
  const size_t i = engine::Index(cq);
  if (i >= quoted_cq_names.size()) {
    quoted_cq_names.resize(i + 1);
  }
  std::string& quoted = quoted_cq_names[i];
  if (quoted.empty()) {
    AppendJsonString(cluster().Name(cq), quoted);
  }
  return quoted;
}

void ShardSimulator::Impl::LogSimple(
    std::string_view type, const engine::Workload& w,
    std::initializer_list<std::pair<std::string_view, std::string_view>> extra) {
  if (!logging) {
    return;
  }
  engine::PhaseScope profile(engine::Phase::kOutput);
  // Keys in sorted order, appended as they come: clusterQueue, the extra keys (the callers give
  // them in order, all between "clusterQueue" and "time": message, node, preemptor, reason), then
  // time, type and workload. The same bytes as a JsonWriter's (the sort and the writer's
  // bookkeeping were half the cost of a finish's or a preemption's line).
  using Field = std::pair<std::string_view, std::string_view>;
  LineBuilder& line = line_text;
  line.Clear();
  line.Append('{');
  if (engine::IsValid(w.cluster_queue)) {
    line.Append("\"clusterQueue\":");
    line.Append(QuotedCqName(w.cluster_queue));
    line.Append(',');
  }
  std::string_view previous = "clusterQueue";
  for (const Field& f : extra) {
    TALLY_DCHECK(previous < f.first && f.first < "time");
    previous = f.first;
    TALLY_DCHECK(IsPlainText(f.first));  // the callers' literal keys
    line.AppendQuoted(f.first);
    line.Append(':');
    AppendJsonString(f.second, line);
    line.Append(',');
  }
  EndLine(type, w);
}

void ShardSimulator::Impl::LogAdmission(const engine::CycleEntry& entry, std::string_view type) {
  if (!logging) {
    return;
  }
  engine::PhaseScope profile(engine::Phase::kOutput);
  const engine::Workload& w = store().Get(entry.workload);
  engine::NodeId node = cluster().ClusterQueueNode(entry.cq);
  const engine::ResourceTree& tree = cluster().tree();
  // Appended directly, keys in sorted order, as the JsonWriter would write them (one line per
  // admission: the writer's bookkeeping was a third of its cost). The rare nested values (devices,
  // flavor history) are written by their JsonWriter functions and appended.
  LineBuilder& line = line_text;
  line.Clear();
  // Borrowed per flavor/resource: the part of this workload's usage above the CQ's nominal.
  line.Append("{\"borrowed\":{");
  bool first = true;
  for (const engine::SlotAmount& u : entry.assignment.usage) {
    engine::Quantity above =
        engine::ClampNonNegative(tree.Usage(node, u.slot) - tree.Nominal(node, u.slot));
    engine::Quantity borrowed = engine::Min(above, u.amount);
    if (borrowed > engine::Quantity::Zero()) {
      if (!first) {
        line.Append(',');
      }
      first = false;
      borrowed_json.Append(cluster(), u.slot, borrowed, line);
    }
  }
  line.Append("},\"clusterQueue\":");
  line.Append(QuotedCqName(entry.cq));
  if (w.holds_devices) {
    line.Append(",\"devices\":");
    line_writer.Clear();
    WriteDeviceGrantsJson(cluster().devices(), w, line_writer);
    line.Append(line_writer.str());
  }
  if (!w.fallback->empty()) {
    line.Append(",\"flavorAssignmentHistory\":");
    line_writer.Clear();
    WriteFlavorHistoryJson(cluster(), w.fallback, line_writer);
    line.Append(line_writer.str());
  }
  if (entry.partial) {
    line.Append(",\"partial\":true");
  }
  line.Append(",\"podSets\":[");
  first = true;
  for (const engine::PodSetAssignment& ps : entry.assignment.pod_sets) {
    if (!first) {
      line.Append(',');
    }
    first = false;
    pod_set_json.Append(cluster(), ps, line);
  }
  line.Append("],");
  EndLine(type, w);
}

void ShardSimulator::Impl::EndLine(std::string_view type, const engine::Workload& w) {
  LineBuilder& line = line_text;
  line.Append(TimeField());
  TALLY_DCHECK(IsPlainText(type));  // the callers' literal types
  line.AppendQuoted(type);
  line.Append(",\"workload\":");
  AppendJsonString(w.key, line);
  line.Append('}');
  log.Write(now, line.view());
}

void ShardSimulator::Impl::RunOneCycle() {
  // The clock is read only when the report shows what it measures: under --no-timings the two
  // reads a cycle were 0.8-1.1 % of perf's samples on the issue-22 traces, for a latency nobody
  // saw.
  const uint64_t started = options.timings ? TickClock::Now() : 0;
  engine::CycleResult r = state.scheduler->RunCycle(now);
  const int64_t elapsed_ns = options.timings ? TickClock::NanosSince(started) : 0;
  stats.OnCycle();
  if (!r.entries.empty()) {
    decisions += static_cast<int64_t>(r.entries.size());
    if (options.timings) {
      // Each entry of the cycle is charged the cycle's mean cost per entry.
      const int64_t per = elapsed_ns / static_cast<int64_t>(r.entries.size());
      decision_latency.Record(per, static_cast<int64_t>(r.entries.size()));
    }
  }
  int64_t admitted = 0;
  std::vector<WorkloadId>& heads = heads_scratch;
  heads.clear();
  bool pending_scans = false;
  for (const engine::CycleEntry& e : r.entries) {
    heads.push_back(e.workload);
    if (e.outcome == engine::EntryOutcome::kAdmitted) {
      ++admitted;
      OnReserved(e);
      continue;
    }
    if (e.misconfigured) {
      std::string& shown = misconfigured_shown[engine::Index(e.workload)];
      if (shown != e.message) {
        shown = e.message;
        LogSimple("Pending", store().Get(e.workload),
                  {{"message", e.message}, {"reason", "Misconfigured"}});
      }
    }
    if (e.assignment.devices_short) {
      stats.OnDevicesShort(store().Get(e.workload).key);
    }
    if (store().Get(e.workload).scan->HasPendingFlavors()) {
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
  bool progressed = r.changed || pending_scans || (queues().HasActive() && heads != previous_heads);
  std::swap(previous_heads, heads);  // both keep their storage
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
  state.scheduler->Recycle(std::move(r));
}

bool ShardSimulator::Impl::CyclesAllowed() const {
  return !cluster().configuration().wait_for_pods_ready.block_admission || not_ready == 0;
}

void ShardSimulator::Impl::CompactTimers() {
  timers.RemoveIf([&](const Timer& timer) {
    if (timer.kind() == TimerKind::kRequeueInadmissible) {
      return false;  // a ClusterQueue's, never cancelled
    }
    // Epochs only grow (a recycled index starts at the next one): a cancelled timer stays so.
    if (tracks[timer.target].epoch == timer.epoch) {
      return false;
    }
    if (timer.time > now) {
      cancelled_times.push(timer.time);
    }
    return true;
  });
  compact_timers_at = std::max(options.min_timers_to_compact, 2 * timers.size());
}

engine::TimeMicros ShardSimulator::Impl::NextDue() const {
  const TimeMicros next_timer = timers.empty() ? kNever : timers.top().time;
  const TimeMicros next_cycle =
      cycles_needed && CyclesAllowed()
              && (cycles_at_instant < kMaxCyclesPerInstant || cycle_ready_at > now)
          ? std::max(cycle_ready_at, now)
          : kNever;
  // Held cycles start again at the next cancelled timer's instant (AdvanceTo), if before.
  const TimeMicros next_tick = !cancelled_times.empty() && CyclesHeldAtInstant()
                                   ? std::max(cancelled_times.top(), now)
                                   : kNever;
  return std::min({next_timer, next_cycle, next_tick});
}

bool ShardSimulator::Impl::AdvanceTo(TimeMicros t, size_t max_lines) {
  while (true) {
    if (log.size() >= max_lines) {
      return false;
    }
    TimeMicros next_timer = timers.empty() ? kNever : timers.top().time;
    if (!cancelled_times.empty() && CyclesHeldAtInstant()) {
      // The held cycles start again at the next instant the clock reaches, as when the
      // cancelled timers were still in `timers` and moved the clock when they came.
      while (!cancelled_times.empty() && cancelled_times.top() <= now) {
        cancelled_times.pop();
      }
      if (!cancelled_times.empty() && cancelled_times.top() < next_timer
          && cancelled_times.top() <= t) {
        const TimeMicros tick = cancelled_times.top();
        cancelled_times.pop();
        SetNow(tick);
        continue;
      }
    }
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
    // The cancelled timers up to t would have moved the clock when they came: to the last of
    // them (the samples of ReplayStats::SampleUntil up to it are the same taken at once).
    TimeMicros last = now;
    while (!cancelled_times.empty() && cancelled_times.top() <= t) {
      last = std::max(last, cancelled_times.top());
      cancelled_times.pop();
    }
    if (last > now) {
      SetNow(last);
    }
    return true;
  }
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
  // The scheduler holds the namespaces' labels (Namespace events edit them there); nothing reads
  // the manifests' list after this.
  std::vector<engine::NamespaceSpec>().swap(s.state.load.spec.namespaces);
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
bool ShardSimulator::AdvanceWithin(int64_t t, size_t max_lines) {
  return impl_->AdvanceTo(t, max_lines);
}
void ShardSimulator::SetNow(int64_t t) {
  impl_->SetNow(std::max(t, impl_->now));
}
int64_t ShardSimulator::now() const {
  return impl_->now;
}
int64_t ShardSimulator::next_due() const {
  return impl_->NextDue();
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
void ShardSimulator::PrefetchWorkload(std::string_view key) const {
  impl_->state.store->PrefetchKey(key);
}
int64_t ShardSimulator::live_workloads() const {
  return static_cast<int64_t>(impl_->state.store->live());
}
int64_t ShardSimulator::decisions() const {
  return impl_->decisions;
}
const LatencyHistogram& ShardSimulator::decision_latency() const {
  return impl_->decision_latency;
}
void ShardSimulator::SetNominationLoop(engine::ParallelLoop* loop, size_t min_heads) {
  impl_->state.scheduler->SetParallelLoop(min_heads == 0 ? nullptr : loop, min_heads);
}

const engine::SchedulerOptions& ShardSimulator::scheduler_options() const {
  return impl_->state.scheduler->options();
}

int64_t ShardSimulator::next_sample_time() const {
  return impl_->stats.next_sample();
}

void ShardSimulator::Finish(int64_t end, int64_t sample_until, ReplayReport& part,
                            RawWaits& waits) {
  impl_->stats.Finish(end, sample_until, part);
  part.preemption_searches = impl_->state.scheduler->preemption_stats();
  part.nomination_memo = impl_->state.scheduler->memo_stats();
  waits = impl_->stats.TakeWaits();
}

}  // namespace replay
