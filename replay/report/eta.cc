// File: replay/report/eta.cc
#include "replay/report/eta.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <tuple>
#include <utility>

#include <simdjson.h>

namespace replay {
namespace {

using engine::CqId;
using engine::TimeMicros;
using engine::WorkloadId;

constexpr double kMicros = 1e6;

// A hold time in seconds from a report: negative or NaN reads as 0, and anything past a century
// as a century (a double that large would overflow the conversion; found by
// test/fuzz/runtimes_report_fuzz's seeds).
TimeMicros Seconds(double s) {
  constexpr double kCentury = 100.0 * 365 * 24 * 3600;
  if (!(s > 0)) {
    return 0;
  }
  return static_cast<TimeMicros>(std::llround(std::min(s, kCentury) * kMicros));
}

// The cohort tree a ClusterQueue is in (its root node).
engine::NodeId TreeOf(const engine::Cluster& cluster, CqId cq) {
  return cluster.tree().Root(cluster.ClusterQueueNode(cq));
}

}  // namespace

TimeMicros RuntimeModel::Quantiles::At(Run run) const {
  switch (run) {
    case Run::kLow:
      return p10;
    case Run::kMid:
      return p50;
    case Run::kHigh:
      return p90;
  }
  return p50;
}

engine::StatusOr<RuntimeModel> RuntimeModel::FromReportJson(const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto error = parser.load(path).get(doc); error != simdjson::SUCCESS) {
    return engine::InvalidArgument(
        fmt::format("{}: cannot read as JSON: {}", path, simdjson::error_message(error)));
  }
  simdjson::dom::element holds;
  if (doc["quotaHoldTime"].get(holds) != simdjson::SUCCESS) {
    return engine::InvalidArgument(fmt::format(
        "{}: quotaHoldTime: missing (a report.json of `tally replay` in which workloads "
        "finished, from tally 2026-11-27 on)",
        path));
  }
  const auto read = [&](simdjson::dom::element e, const std::string& where,
                        Quantiles& q) -> engine::Status {
    int64_t count = 0;
    double p10 = 0;
    double p50 = 0;
    double p90 = 0;
    if (e["count"].get(count) != simdjson::SUCCESS || e["p10"].get(p10) != simdjson::SUCCESS
        || e["p50"].get(p50) != simdjson::SUCCESS || e["p90"].get(p90) != simdjson::SUCCESS) {
      return engine::InvalidArgument(
          fmt::format("{}: {}: wants numbers count, p10, p50 and p90", path, where));
    }
    q = Quantiles{Seconds(p10), Seconds(p50), Seconds(p90), count};
    return engine::Status::Ok();
  };
  RuntimeModel model;
  simdjson::dom::element overall;
  if (holds["overall"].get(overall) == simdjson::SUCCESS) {
    Quantiles q;
    if (engine::Status s = read(overall, "quotaHoldTime.overall", q); !s.ok()) {
      return s;
    }
    if (q.count > 0) {
      model.overall_ = q;
    }
  }
  simdjson::dom::array groups;
  if (holds["byClusterQueue"].get(groups) == simdjson::SUCCESS) {
    size_t i = 0;
    for (simdjson::dom::element g : groups) {
      std::string_view name;
      const std::string where = fmt::format("quotaHoldTime.byClusterQueue[{}]", i++);
      if (g["name"].get(name) != simdjson::SUCCESS) {
        return engine::InvalidArgument(fmt::format("{}: {}: name: missing", path, where));
      }
      Quantiles q;
      if (engine::Status s = read(g, where, q); !s.ok()) {
        return s;
      }
      if (q.count > 0) {
        model.by_cluster_queue_[std::string(name)] = q;
      }
    }
  }
  return model;
}

std::optional<RuntimeModel::Estimate> RuntimeModel::HoldOf(const engine::Workload& w,
                                                           const std::string& cq_name,
                                                           Run run) const {
  std::optional<TimeMicros> cap;
  if (w.spec->maximum_execution_time_seconds) {
    cap = *w.spec->maximum_execution_time_seconds * 1'000'000;
  }
  const auto capped = [&](TimeMicros hold, std::string source) {
    return Estimate{cap ? std::min(hold, *cap) : hold, std::move(source)};
  };
  if (w.spec->expected_runtime) {
    return capped(*w.spec->expected_runtime, "annotation");
  }
  if (auto it = by_cluster_queue_.find(cq_name);
      it != by_cluster_queue_.end() && it->second.count >= kMinOwnSamples) {
    return capped(it->second.At(run), "report:" + cq_name);
  }
  if (overall_) {
    return capped(overall_->At(run), "report:overall");
  }
  if (cap) {
    return Estimate{*cap, "maximumExecutionTimeSeconds"};
  }
  return std::nullopt;
}

EtaRun SimulateUntilAdmitted(ClusterState& state, WorkloadId target, const RuntimeModel& model,
                             RuntimeModel::Run run, const EtaLimits& limits) {
  EtaRun out;
  engine::Cluster& cluster = *state.cluster;
  engine::WorkloadStore& store = *state.store;
  const TimeMicros start = state.now;
  const engine::NodeId target_tree = TreeOf(cluster, store.Get(target).cluster_queue);

  // Releases to come: (time, id, the reservation it ends). A workload evicted by preemption and
  // admitted again has a new reservation time, so its old release is recognised as stale.
  using Release = std::tuple<TimeMicros, uint32_t, TimeMicros>;
  std::priority_queue<Release, std::vector<Release>, std::greater<>> releases;
  std::vector<bool> scheduled(store.size(), false);
  const auto schedule = [&](WorkloadId id, TimeMicros from) {
    if (engine::Index(id) >= scheduled.size()) {
      scheduled.resize(engine::Index(id) + 1, false);
    }
    const engine::Workload& w = store.Get(id);
    scheduled[engine::Index(id)] = true;
    std::optional<RuntimeModel::Estimate> e = model.HoldOf(w, cluster.Name(w.cluster_queue), run);
    if (!e) {
      ++out.unknown_holds;
      return;
    }
    releases.emplace(std::max(state.now, from + e->hold), engine::Index(id), w.quota_reserved_time);
  };
  const auto schedule_new_reservations = [&] {
    for (uint32_t i = 0; i < cluster.num_cluster_queues(); ++i) {
      const CqId cq = engine::MakeId<CqId>(i);
      if (!cluster.Exists(cq)) {
        continue;
      }
      for (WorkloadId id : store.Admitted(cq)) {
        if (engine::Index(id) >= scheduled.size() || !scheduled[engine::Index(id)]) {
          schedule(id, store.Get(id).quota_reserved_time);
        }
      }
    }
  };
  schedule_new_reservations();

  while (true) {
    for (const engine::CycleResult& cycle : RunCycles(state, 0)) {
      for (const engine::CycleEntry& e : cycle.entries) {
        if (e.outcome != engine::EntryOutcome::kAdmitted || e.workload == target) {
          continue;
        }
        if (TreeOf(cluster, e.cq) == target_tree && !store.Get(target).quota_reserved) {
          out.admitted_ahead.push_back(store.Get(e.workload).key);
        }
      }
      for (const engine::Eviction& ev : cycle.evictions) {
        if (engine::Index(ev.victim) < scheduled.size()) {
          scheduled[engine::Index(ev.victim)] = false;  // its release is stale; re-admission
        }                                               // schedules a new one
      }
    }
    if (store.Get(target).quota_reserved) {
      out.admitted_at = state.now;
      return out;
    }
    schedule_new_reservations();
    // The next release that is still current.
    std::optional<Release> next;
    while (!releases.empty()) {
      const Release r = releases.top();
      releases.pop();
      const WorkloadId id = engine::MakeId<WorkloadId>(std::get<1>(r));
      if (store.Contains(id) && store.Get(id).quota_reserved
          && store.Get(id).quota_reserved_time == std::get<2>(r)) {
        next = r;
        break;
      }
    }
    if (!next) {
      out.not_admitted_because = out.unknown_holds > 0
                                     ? "nothing left to release (the rest hold quota with no "
                                       "known runtime)"
                                     : "nothing left to release";
      return out;
    }
    if (std::get<0>(*next) > start + limits.horizon || out.releases >= limits.max_releases) {
      out.not_admitted_because = "past the horizon";
      return out;
    }
    // Release every workload due at that instant, then requeue their trees' inadmissible ones
    // (what a finish does in Kueue: the queue manager's QueueInadmissibleWorkloads).
    state.now = std::get<0>(*next);
    std::vector<CqId> touched;
    for (std::optional<Release> r = next; r;) {
      const WorkloadId id = engine::MakeId<WorkloadId>(std::get<1>(*r));
      const CqId cq = store.Get(id).cluster_queue;
      if (TreeOf(cluster, cq) == target_tree) {
        out.released_before.push_back(store.Get(id).key);
      }
      store.Release(id);
      state.queues->Forget(id);
      store.Erase(id);
      scheduled[engine::Index(id)] = false;
      ++out.releases;
      touched.push_back(cq);
      r.reset();
      while (!releases.empty() && std::get<0>(releases.top()) == state.now) {
        const Release candidate = releases.top();
        releases.pop();
        const WorkloadId cid = engine::MakeId<WorkloadId>(std::get<1>(candidate));
        if (store.Contains(cid) && store.Get(cid).quota_reserved
            && store.Get(cid).quota_reserved_time == std::get<2>(candidate)) {
          r = candidate;
          break;
        }
      }
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (CqId cq : touched) {
      state.queues->QueueInadmissible(cq, state.now, state.scheduler->cycle());
    }
  }
}

std::optional<TimeMicros> EtaPrediction::earliest() const {
  if (!low.admitted_at || !mid.admitted_at || !high.admitted_at) {
    return std::nullopt;
  }
  return std::min({*low.admitted_at, *mid.admitted_at, *high.admitted_at});
}

std::optional<TimeMicros> EtaPrediction::latest() const {
  if (!low.admitted_at || !mid.admitted_at || !high.admitted_at) {
    return std::nullopt;
  }
  return std::max({*low.admitted_at, *mid.admitted_at, *high.admitted_at});
}

EtaPrediction PredictAdmission(const LoadResult& load, const ClusterStateOptions& options,
                               const std::string& workload_key, const RuntimeModel& model,
                               const EtaLimits& limits) {
  EtaPrediction p;
  p.has_report = model.has_report();
  const auto one = [&](RuntimeModel::Run run) {
    ClusterState state = BuildClusterState(load, options);
    p.now = state.now;
    std::optional<WorkloadId> id = state.store->Find(workload_key);
    return SimulateUntilAdmitted(state, *id, model, run, limits);
  };
  p.low = one(RuntimeModel::Run::kLow);
  p.mid = one(RuntimeModel::Run::kMid);
  p.high = one(RuntimeModel::Run::kHigh);
  return p;
}

}  // namespace replay
