// Merging the shards' measurements into one report (MergeShardReports, replay_stats.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "replay/sim/flavor_series.h"
#include "replay/sim/replay_stats.h"

namespace replay {

namespace {

template <typename Key>
void Absorb(std::map<Key, WaitSamples>& into, const std::map<Key, WaitSamples>& from) {
  for (const auto& [key, samples] : from) {
    into[key].Merge(samples);
  }
}

template <typename T>
void Append(std::vector<T>& into, std::vector<T>& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()),
              std::make_move_iterator(from.end()));
}

// Every shard holds the same nodes and classes, but only the shard of the ClusterQueues that use
// classes allocates (engine/shard/shard_plan.h): allocatable is the same everywhere, requested adds
// up.
void MergeResourceClasses(const ReplayReport::ResourceClasses& part,
                          ReplayReport::ResourceClasses& out) {
  out.enabled = out.enabled || part.enabled;
  out.devices_short.insert(part.devices_short.begin(), part.devices_short.end());
  for (const ReplayReport::ResourceClassFigures& c : part.classes) {
    auto it = std::find_if(out.classes.begin(), out.classes.end(),
                           [&](const auto& o) { return o.name == c.name; });
    if (it == out.classes.end()) {
      out.classes.push_back(c);
      continue;
    }
    it->requested_at_end += c.requested_at_end;
    it->peak_requested = 0;
    for (size_t i = 0; i < it->requested.size() && i < c.requested.size(); ++i) {
      if (!std::isnan(c.requested[i])) {
        it->requested[i] =
            std::isnan(it->requested[i]) ? c.requested[i] : it->requested[i] + c.requested[i];
      }
      if (!std::isnan(it->requested[i])) {
        it->peak_requested = std::max(it->peak_requested, static_cast<int64_t>(it->requested[i]));
      }
    }
  }
  std::sort(out.classes.begin(), out.classes.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
}

}  // namespace

void MergeShardReports(std::vector<ReplayReport>& parts, std::vector<RawWaits>& waits,
                       ReplayReport& out) {
  RawWaits all;
  for (size_t i = 0; i < parts.size(); ++i) {
    ReplayReport& p = parts[i];
    out.workloads_created += p.workloads_created;
    out.workloads_initially_admitted += p.workloads_initially_admitted;
    out.workloads_admitted += p.workloads_admitted;
    out.admissions += p.admissions;
    out.preemptions += p.preemptions;
    out.preemption_searches += p.preemption_searches;
    out.nomination_memo.hits += p.nomination_memo.hits;
    out.nomination_memo.misses += p.nomination_memo.misses;
    out.nomination_memo.not_memoised += p.nomination_memo.not_memoised;
    out.nomination_memo.mismatches += p.nomination_memo.mismatches;
    out.nomination_memo.key_only_stores += p.nomination_memo.key_only_stores;
    out.nomination_memo.key_only_matches += p.nomination_memo.key_only_matches;
    out.nomination_memo.sat_out += p.nomination_memo.sat_out;
    for (const auto& [reason, n] : p.evictions_by_reason) {
      out.evictions_by_reason[reason] += n;
    }
    out.requeues += p.requeues;
    out.deactivated += p.deactivated;
    out.finished += p.finished;
    out.deleted += p.deleted;
    out.cycles += p.cycles;
    out.cycle_limit_hits += p.cycle_limit_hits;
    out.fallbacks.enabled = out.fallbacks.enabled || p.fallbacks.enabled;
    for (const auto& [flavor, n] : p.fallbacks.by_flavor) {
      out.fallbacks.by_flavor[flavor] += n;
    }
    out.fallbacks.timeouts += p.fallbacks.timeouts;
    out.fallbacks.check_rejections += p.fallbacks.check_rejections;
    out.fallbacks.exhausted += p.fallbacks.exhausted;
    out.fallbacks.retries += p.fallbacks.retries;
    for (const auto& [key, q] : p.fallbacks.wasted_quota_seconds) {
      out.fallbacks.wasted_quota_seconds[key] += q;
    }
    MergeResourceClasses(p.resource_classes, out.resource_classes);
    out.pending_at_end += p.pending_at_end;
    out.running_at_end += p.running_at_end;
    out.start_time = p.start_time;  // the same in every shard
    out.end_time = p.end_time;
    out.sample_times = p.sample_times;
    Append(out.wait_by_cluster_queue, p.wait_by_cluster_queue);
    Append(out.hold_by_cluster_queue, p.hold_by_cluster_queue);
    Append(out.cluster_queues, p.cluster_queues);
    Append(out.usage, p.usage);
    Append(out.series, p.series);
    MergeFlavorSeries(p.flavor_series, out.flavor_series);
    RawWaits& w = waits[i];
    all.overall.Merge(w.overall);
    all.holds.Merge(w.holds);
    all.starts.Merge(w.starts);
    Absorb(all.by_local_queue, w.by_local_queue);
    Absorb(all.by_class, w.by_class);
    Absorb(all.by_priority, w.by_priority);
  }
  auto by_name = [](const auto& a, const auto& b) { return a.name < b.name; };
  std::sort(out.wait_by_cluster_queue.begin(), out.wait_by_cluster_queue.end(), by_name);
  std::sort(out.hold_by_cluster_queue.begin(), out.hold_by_cluster_queue.end(), by_name);
  std::sort(out.cluster_queues.begin(), out.cluster_queues.end(), by_name);
  std::sort(out.series.begin(), out.series.end(), by_name);
  std::sort(out.usage.begin(), out.usage.end(), [](const auto& a, const auto& b) {
    return std::tie(a.cluster_queue, a.flavor, a.resource)
           < std::tie(b.cluster_queue, b.flavor, b.resource);
  });
  out.wait_overall = all.overall.Summarize();
  out.hold_overall = all.holds.Summarize();
  out.fallbacks.time_to_start = all.starts.Summarize();
  out.wait_by_local_queue.clear();
  for (const auto& [name, samples] : all.by_local_queue) {
    out.wait_by_local_queue.push_back({name, samples.Summarize()});
  }
  out.wait_by_class.clear();
  for (const auto& [name, samples] : all.by_class) {
    out.wait_by_class.push_back({name, samples.Summarize()});
  }
  out.wait_by_priority.clear();
  for (auto it = all.by_priority.rbegin(); it != all.by_priority.rend(); ++it) {
    out.wait_by_priority.push_back({fmt::format("{}", it->first), it->second.Summarize()});
  }
}

}  // namespace replay
