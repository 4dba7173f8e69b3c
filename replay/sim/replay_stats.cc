#include "replay/sim/replay_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace replay {
namespace {

using engine::CqId;
using engine::TimeMicros;

constexpr double kMicros = 1e6;

// Nearest-rank percentile of sorted values, in seconds.
double Percentile(const std::vector<TimeMicros>& sorted, double p) {
  if (sorted.empty()) {
    return 0;
  }
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return static_cast<double>(sorted[rank - 1]) / kMicros;
}

}  // namespace

WaitStats SummarizeWaits(std::vector<TimeMicros> waits) {
  WaitStats s;
  std::sort(waits.begin(), waits.end());
  s.count = static_cast<int64_t>(waits.size());
  __int128 sum = 0;
  for (TimeMicros w : waits) {
    sum += w;
  }
  s.sum = static_cast<double>(sum) / kMicros;
  s.mean = waits.empty() ? 0 : s.sum / static_cast<double>(waits.size());
  s.p10 = Percentile(waits, 0.10);
  s.p50 = Percentile(waits, 0.50);
  s.p90 = Percentile(waits, 0.90);
  s.p99 = Percentile(waits, 0.99);
  s.max = waits.empty() ? 0 : static_cast<double>(waits.back()) / kMicros;
  for (double bound : WaitBuckets()) {
    auto it =
        std::upper_bound(waits.begin(), waits.end(), static_cast<TimeMicros>(bound * kMicros));
    s.cumulative_buckets.push_back(it - waits.begin());
  }
  return s;
}

uint32_t ReplayStats::Intern(engine::StringMap<uint32_t>& table, std::string_view key) {
  if (auto it = table.find(key); it != table.end()) {
    return it->second;  // every workload but the first of its queue or class: no string built
  }
  return table.emplace(std::string(key), static_cast<uint32_t>(table.size())).first->second;
}

void ReplayStats::Start(TimeMicros t) {
  start_ = t;
  next_sample_ = t;
  for (uint32_t i = 0; i < state_.cluster->num_cluster_queues(); ++i) {
    CqId cq = engine::MakeId<CqId>(i);
    if (state_.cluster->Exists(cq)) {
      SyncSlots(cq, Cq(cq), t);
    }
  }
}

ReplayStats::CqAccum& ReplayStats::Cq(CqId cq) {
  if (engine::Index(cq) >= cqs_.size()) {
    cqs_.resize(engine::Index(cq) + 1);
  }
  return cqs_[engine::Index(cq)];
}

void ReplayStats::Integrate(Accum& a, TimeMicros now) {
  if (now > a.last) {
    const __int128 dt = now - a.last;
    a.integral += a.usage * dt;
    a.borrow_integral += std::max<int64_t>(0, a.usage - a.nominal) * dt;
    a.last = now;
  }
}

void ReplayStats::Count(CqAccum& acc, int sign) {
  for (const Accum& a : acc.slots) {
    flavors_.Count(a.slot, a.usage, a.nominal, sign);
  }
  acc.counted = sign > 0;
}

void ReplayStats::SyncSlots(CqId cq, CqAccum& acc, TimeMicros now) {
  const engine::ResourceTree& tree = state_.cluster->tree();
  engine::NodeId node = state_.cluster->ClusterQueueNode(cq);
  std::span<const engine::FrSlot> declared = state_.cluster->DeclaredSlots(node);
  // The declared slots change only with the configuration (every change bumps its version): the
  // comparison runs once per version, not on every admission and release.
  const uint64_t version = state_.cluster->config_version();
  bool changed = false;  // a slot's usage or nominal, or the slots themselves
  if (acc.slots_version != version
      && (acc.slots.size() != declared.size()
          || !std::equal(declared.begin(), declared.end(), acc.slots.begin(),
                         [](engine::FrSlot s, const Accum& a) { return s == a.slot; }))) {
    if (acc.counted) {
      Count(acc, -1);  // the old slots leave the per-flavor sums; the new ones enter below
    }
    std::vector<Accum> rebuilt;
    for (engine::FrSlot slot : declared) {
      auto old = std::find_if(acc.slots.begin(), acc.slots.end(),
                              [&](const Accum& a) { return a.slot == slot; });
      Accum a = old != acc.slots.end() ? *old : Accum{slot, std::max(now, start_)};
      rebuilt.push_back(a);
    }
    acc.slots = std::move(rebuilt);
    changed = true;
  }
  acc.slots_version = version;
  for (Accum& a : acc.slots) {
    const int64_t usage = tree.Usage(node, a.slot).value();
    const int64_t nominal = tree.Nominal(node, a.slot).value();
    if (usage == a.usage && nominal == a.nominal) {
      continue;  // an admission changes a few of a ClusterQueue's slots: the others wait
    }
    Integrate(a, now);
    if (acc.counted) {
      flavors_.Move(a.slot, a.usage, a.nominal, usage, nominal);
    }
    a.usage = usage;
    a.nominal = nominal;
    a.peak = std::max(a.peak, a.usage);
    changed = true;
  }
  acc.utilisation_stale = acc.utilisation_stale || changed;
  if (!acc.counted) {
    Count(acc, 1);
  }
}

void ReplayStats::OnUsageChanged(CqId cq, TimeMicros now) {
  if (!engine::IsValid(cq)) {
    return;
  }
  if (!state_.cluster->Exists(cq)) {
    if (engine::Index(cq) < cqs_.size() && cqs_[engine::Index(cq)].counted) {
      Count(cqs_[engine::Index(cq)], -1);  // deleted: out of the per-flavor sums
    }
    return;
  }
  SyncSlots(cq, Cq(cq), now);
}

void ReplayStats::OnConfigChanged(TimeMicros now) {
  for (uint32_t i = 0; i < state_.cluster->num_cluster_queues(); ++i) {
    OnUsageChanged(engine::MakeId<CqId>(i), now);
  }
}

void ReplayStats::OnFinished(CqId cq, TimeMicros hold) {
  ++report_.finished;
  if (!engine::IsValid(cq)) {
    return;
  }
  hold = std::max<TimeMicros>(hold, 0);
  Cq(cq).holds.Record(hold);  // and, through it, holds_ (Finish)
}

void ReplayStats::OnAdmitted(const engine::Workload& w, uint32_t local_queue,
                             uint32_t workload_class, TimeMicros wait, bool first,
                             TimeMicros /*now*/) {
  ++report_.admissions;
  CqAccum& acc = Cq(w.cluster_queue);
  ++acc.admitted;
  if (!first) {
    return;
  }
  ++report_.workloads_admitted;
  wait = std::max<TimeMicros>(wait, 0);
  acc.window_wait_sum += static_cast<double>(wait) / kMicros;
  ++acc.window_waits;
  if (local_queue >= waits_by_local_queue_.size()) {
    waits_by_local_queue_.resize(local_queue + 1);
  }
  if (workload_class >= waits_by_class_.size()) {
    waits_by_class_.resize(workload_class + 1);
  }
  // The four groups first, their lines fetched together, then the records (each group's lines
  // are a cache miss apart from the others': one after the other they stalled in turn). The
  // overall group is the union of the ClusterQueues', merged in Finish.
  const std::array<WaitSamples*, 4> groups = {&acc.waits, &waits_by_local_queue_[local_queue],
                                              &waits_by_class_[workload_class],
                                              &waits_by_priority_[w.priority]};
  const WaitSamples::Placement placement = WaitSamples::Place(wait);
  for (const WaitSamples* group : groups) {
    group->Prefetch(placement);
  }
  for (WaitSamples* group : groups) {
    group->Record(placement);
  }
}

void ReplayStats::OnPreempted(CqId cq) {
  ++report_.preemptions;
  ++report_.evictions_by_reason["Preempted"];
  if (engine::IsValid(cq)) {
    ++Cq(cq).preempted;
  }
}

void ReplayStats::OnEvicted(const std::string& reason, CqId /*cq*/) {
  ++report_.evictions_by_reason[reason];
}

void ReplayStats::PadSeries(std::vector<SamplePoint>& s, size_t samples) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  s.resize(samples, SamplePoint{nan, nan, nan, nan});
}

void ReplayStats::RecordSample() {
  const engine::Cluster& cluster = *state_.cluster;
  size_t index = sample_times_.size();
  sample_times_.push_back(static_cast<double>(next_sample_ - start_) / kMicros);
  if (series_.size() < cluster.num_cluster_queues()) {
    series_.resize(cluster.num_cluster_queues());
  }
  if (sampled_config_version_ != cluster.config_version()) [[unlikely]] {
    // Every ClusterQueue created or deleted bumps the version. Only the ones that exist in this
    // shard are sampled: every shard's cluster numbers all ClusterQueues, and even skipping the
    // others one by one cost 20 shards x 200 ClusterQueues per sample on the moderate
    // trace (5 % of its instructions). A series is padded with NaN over the samples its
    // ClusterQueue missed when it exists again, or in Finish.
    sampled_config_version_ = cluster.config_version();
    sampled_.clear();
    for (uint32_t i = 0; i < cluster.num_cluster_queues(); ++i) {
      if (cluster.Exists(engine::MakeId<CqId>(i))) {
        sampled_.push_back(i);
      }
    }
  }
  if (cqs_.size() < cluster.num_cluster_queues()) {
    cqs_.resize(cluster.num_cluster_queues());  // what Cq() would do, once per sample
  }
  for (uint32_t i : sampled_) {
    CqId cq = engine::MakeId<CqId>(i);
    std::vector<SamplePoint>& s = series_[i];
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (s.size() != index) [[unlikely]] {  // a ClusterQueue (re)created since the last sample
      PadSeries(s, index);
    }
    CqAccum& acc = cqs_[i];
    if (acc.utilisation_stale) {
      double util = 0;
      for (const Accum& a : acc.slots) {
        // A slot without usage adds 0 / nominal = +0.0, which never raises the maximum: no
        // division for it (most of a ClusterQueue's slots, one flavor of several being in use).
        if (a.nominal > 0 && a.usage != 0) {
          util = std::max(util, static_cast<double>(a.usage) / static_cast<double>(a.nominal));
        }
      }
      acc.utilisation = util;
      acc.utilisation_stale = false;
    }
    s.push_back(SamplePoint{
        static_cast<float>(state_.queues->PendingCount(cq)),
        static_cast<float>(state_.store->Admitted(cq).size()), static_cast<float>(acc.utilisation),
        acc.window_waits == 0
            ? nan
            : static_cast<float>(acc.window_wait_sum / static_cast<double>(acc.window_waits))});
    acc.window_wait_sum = 0;
    acc.window_waits = 0;
  }
  flavors_.Sample();
  RecordDeviceSample(index);
  if (sample_times_.size() > kMaxSamples) {
    // Keep every other sample and double the interval: bounded memory, whole-replay span.
    auto halve = [](auto& v) {
      size_t j = 0;
      for (size_t i = 0; i < v.size(); i += 2) {
        v[j++] = v[i];
      }
      v.resize(j);
    };
    halve(sample_times_);
    for (std::vector<SamplePoint>& s : series_) {
      halve(s);
    }
    for (auto& [name, c] : class_series_) {
      halve(c.allocatable);
      halve(c.requested);
    }
    flavors_.Halve();
    sample_interval_ *= 2;
    next_sample_ = start_ + static_cast<TimeMicros>(sample_times_.back() * kMicros);
  }
  next_sample_ += sample_interval_;
}

// Seed 001: each class's allocatable / requested devices at sample `index`.
void ReplayStats::RecordDeviceSample(size_t index) {
  if (!report_.resource_classes.enabled) {
    return;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const engine::ResourceClassStatus& status : state_.cluster->devices().Status()) {
    ReplayReport::ResourceClassFigures& c = class_series_[status.name];
    c.name = status.name;
    // resize, not push_back: the CQ series' push_back stays inlined in RecordSample (a second
    // caller made GCC outline it: +2 % instructions on scripts/perf-gate's synthetic replay).
    c.allocatable.resize(index, nan);
    c.requested.resize(index, nan);
    c.allocatable.resize(index + 1, static_cast<float>(status.allocatable));
    c.requested.resize(index + 1, static_cast<float>(status.requested));
    c.peak_requested = std::max(c.peak_requested, status.requested);
  }
}

void ReplayStats::SampleUntil(TimeMicros t) {
  while (next_sample_ <= t) {
    RecordSample();
  }
}

void ReplayStats::Finish(TimeMicros end, TimeMicros sample_until, ReplayReport& report) {
  const engine::Cluster& cluster = *state_.cluster;
  SampleUntil(end);
  while (next_sample_ < sample_until) {
    RecordSample();
  }
  // Counters accumulated here; the caller owns input counters and engine cost.
  report.workloads_created = report_.workloads_created;
  report.workloads_initially_admitted = report_.workloads_initially_admitted;
  report.workloads_admitted = report_.workloads_admitted;
  report.admissions = report_.admissions;
  report.preemptions = report_.preemptions;
  report.evictions_by_reason = report_.evictions_by_reason;
  report.requeues = report_.requeues;
  report.deactivated = report_.deactivated;
  report.finished = report_.finished;
  report.deleted = report_.deleted;
  report.cycles = report_.cycles;
  report.cycle_limit_hits = report_.cycle_limit_hits;
  report.fallbacks = report_.fallbacks;
  report.fallbacks.time_to_start = starts_.Summarize();
  report.resource_classes.enabled = report_.resource_classes.enabled;
  report.resource_classes.devices_short = report_.resource_classes.devices_short;
  if (report.resource_classes.enabled) {
    for (const engine::ResourceClassStatus& status : cluster.devices().Status()) {
      ReplayReport::ResourceClassFigures& c = class_series_[status.name];
      c.name = status.name;
      c.allocatable_at_end = status.allocatable;
      c.requested_at_end = status.requested;
    }
    for (auto& [name, c] : class_series_) {
      c.allocatable.resize(sample_times_.size(), std::numeric_limits<float>::quiet_NaN());
      c.requested.resize(sample_times_.size(), std::numeric_limits<float>::quiet_NaN());
      report.resource_classes.classes.push_back(std::move(c));
    }
  }
  report.start_time = start_;
  report.end_time = end;

  // Every first admission and every finish with a ClusterQueue is recorded in its ClusterQueue's
  // group only: the overall groups are their union, merged once here (WaitSamples::Merge
  // summarises exactly as one group that recorded everything) instead of a record more per
  // admission and per finish (issue 22: recording was 4.7 % of perf's samples on the moderate
  // 1,000,000-workload trace). Deleted ClusterQueues' groups count too.
  waits_ = WaitSamples();
  holds_ = WaitSamples();
  for (const CqAccum& acc : cqs_) {
    waits_.Merge(acc.waits);
    holds_.Merge(acc.holds);
  }
  report.wait_overall = waits_.Summarize();
  report.hold_overall = holds_.Summarize();
  double elapsed = static_cast<double>(std::max<TimeMicros>(end - start_, 0));
  report.pending_at_end = 0;
  report.running_at_end = 0;
  for (uint32_t i = 0; i < cluster.num_cluster_queues(); ++i) {
    CqId cq = engine::MakeId<CqId>(i);
    if (!cluster.Exists(cq)) {
      continue;
    }
    CqAccum& acc = Cq(cq);
    SyncSlots(cq, acc, end);
    const std::string& name = cluster.Name(cq);
    report.wait_by_cluster_queue.push_back({name, acc.waits.Summarize()});
    report.hold_by_cluster_queue.push_back({name, acc.holds.Summarize()});
    CqCounts counts;
    counts.name = name;
    counts.admitted = acc.admitted;
    counts.preempted = acc.preempted;
    counts.pending_at_end = static_cast<int64_t>(state_.queues->PendingCount(cq));
    counts.running_at_end = static_cast<int64_t>(state_.store->Admitted(cq).size());
    report.pending_at_end += counts.pending_at_end;
    report.running_at_end += counts.running_at_end;
    report.cluster_queues.push_back(std::move(counts));
    for (Accum& a : acc.slots) {
      Integrate(a, end);  // the slots whose usage did not change since
      engine::FlavorResource key = cluster.SlotKey(a.slot);
      ResourceUsage u;
      u.cluster_queue = name;
      u.flavor = cluster.Name(key.flavor);
      u.resource = cluster.Name(key.resource);
      u.nominal = a.nominal;
      u.mean_usage =
          elapsed > 0 ? static_cast<double>(a.integral) / elapsed : static_cast<double>(a.usage);
      u.mean_borrowed = elapsed > 0 ? static_cast<double>(a.borrow_integral) / elapsed : 0;
      u.utilisation = a.nominal > 0 ? u.mean_usage / static_cast<double>(a.nominal) : 0;
      u.peak_usage = a.peak;
      u.usage_at_end = a.usage;
      report.usage.push_back(std::move(u));
    }
    if (i < series_.size()) {
      std::vector<SamplePoint> points = series_[i];
      PadSeries(points, sample_times_.size());  // created after the last sample
      CqSeries& s = report.series.emplace_back();
      s.name = name;
      for (std::vector<float>* v : {&s.pending, &s.running, &s.utilisation, &s.mean_wait}) {
        v->reserve(points.size());
      }
      for (const SamplePoint& p : points) {
        s.pending.push_back(p.pending);
        s.running.push_back(p.running);
        s.utilisation.push_back(p.utilisation);
        s.mean_wait.push_back(p.mean_wait);
      }
    }
  }
  auto by_name = [](const auto& a, const auto& b) { return a.name < b.name; };
  std::sort(report.wait_by_cluster_queue.begin(), report.wait_by_cluster_queue.end(), by_name);
  std::sort(report.cluster_queues.begin(), report.cluster_queues.end(), by_name);
  std::sort(report.series.begin(), report.series.end(), by_name);
  std::sort(report.usage.begin(), report.usage.end(), [](const auto& a, const auto& b) {
    return std::tie(a.cluster_queue, a.flavor, a.resource)
           < std::tie(b.cluster_queue, b.flavor, b.resource);
  });
  for (const auto& [name, index] : local_queues_) {
    if (index < waits_by_local_queue_.size() && !waits_by_local_queue_[index].empty()) {
      report.wait_by_local_queue.push_back({name, waits_by_local_queue_[index].Summarize()});
    }
  }
  std::sort(report.wait_by_local_queue.begin(), report.wait_by_local_queue.end(), by_name);
  for (const auto& [name, index] : classes_) {
    if (index < waits_by_class_.size() && !waits_by_class_[index].empty()) {
      report.wait_by_class.push_back({name, waits_by_class_[index].Summarize()});
    }
  }
  std::sort(report.wait_by_class.begin(), report.wait_by_class.end(), by_name);
  for (auto it = waits_by_priority_.rbegin(); it != waits_by_priority_.rend(); ++it) {
    report.wait_by_priority.push_back({fmt::format("{}", it->first), it->second.Summarize()});
  }
  report.sample_times = sample_times_;
  report.flavor_series = flavors_.Finish(cluster, sample_times_.size());
}

RawWaits ReplayStats::TakeWaits() {
  RawWaits raw;
  raw.overall = std::move(waits_);
  raw.holds = std::move(holds_);
  raw.starts = std::move(starts_);
  for (const auto& [name, index] : local_queues_) {
    if (index < waits_by_local_queue_.size() && !waits_by_local_queue_[index].empty()) {
      raw.by_local_queue[name] = std::move(waits_by_local_queue_[index]);
    }
  }
  for (const auto& [name, index] : classes_) {
    if (index < waits_by_class_.size() && !waits_by_class_[index].empty()) {
      raw.by_class[name] = std::move(waits_by_class_[index]);
    }
  }
  raw.by_priority = std::move(waits_by_priority_);
  return raw;
}

}  // namespace replay
