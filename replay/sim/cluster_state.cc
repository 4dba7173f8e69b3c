#include "replay/sim/cluster_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "engine/base/slash_join.h"
#include "replay/io/time_parse.h"
#include "replay/sim/decision_output.h"

namespace replay {
namespace {

engine::TimeMicros LatestTimestamp(const engine::ClusterSpec& spec) {
  engine::TimeMicros latest = 0;
  for (const engine::WorkloadSpec& w : spec.workloads) {
    latest = std::max(latest, w.creation_time);
    for (const engine::ConditionSpec& c : *w.conditions) {
      latest = std::max(latest, c.last_transition);
    }
  }
  return latest;
}

bool ClusterQueueExists(const engine::Cluster& cluster, const std::string& name) {
  std::optional<engine::CqId> cq = cluster.FindClusterQueue(name);
  return cq.has_value() && cluster.Exists(*cq);
}

bool IsFinished(const engine::WorkloadSpec& w) {
  const engine::ConditionSpec* finished = w.Condition("Finished");
  return finished != nullptr && finished->status;
}

}  // namespace

void ApplyFeatureGates(const std::vector<std::pair<std::string, bool>>& feature_gates,
                       LoadResult& load) {
  engine::ConfigurationSpec& config = load.spec.configuration;
  for (const auto& [name, value] : feature_gates) {
    if (engine::Status s = config.feature_gates.Set(name, value, /*from_flag=*/true); !s.ok()) {
      LoadError e;
      e.file = "--feature-gates";
      e.message = s.message();
      load.errors.push_back(std::move(e));
      continue;
    }
    // Without a Configuration object the gates still have to reach the cluster.
    config.present = true;
    if (std::optional<std::string> w = engine::GateWarning(name, value)) {
      LoadError e;
      e.file = "--feature-gates";
      e.field_path = name;
      e.message = *w;
      load.warnings.push_back(std::move(e));
    }
  }
  // Kueue pkg/util/waitforpodsready: the gate turns waitForPodsReady off whatever the
  // Configuration says.
  if (config.feature_gates.disable_wait_for_pods_ready()) {
    config.wait_for_pods_ready.enable = false;
    config.wait_for_pods_ready.block_admission = false;
  }
}

ClusterState BuildClusterState(const ClusterStateOptions& options) {
  return BuildClusterState(LoadManifestFiles(options.files), options);
}

ClusterState BuildClusterState(LoadResult load, const ClusterStateOptions& options) {
  ClusterState state;
  state.load = std::move(load);
  ApplyFeatureGates(options.feature_gates, state.load);
  if (!state.load.ok()) {
    return state;
  }
  const engine::ClusterSpec& spec = state.load.spec;
  state.now = options.now.value_or(LatestTimestamp(spec));
  state.cluster = std::make_unique<engine::Cluster>();
  state.cluster->Apply(spec);
  state.store = std::make_unique<engine::WorkloadStore>(*state.cluster);
  state.queues = std::make_unique<engine::QueueManager>(*state.cluster, *state.store);
  state.scheduler = std::make_unique<engine::Scheduler>(*state.cluster, *state.store, *state.queues,
                                                        options.scheduler);
  if (options.shared_namespaces != nullptr) {
    state.scheduler->ShareNamespaces(options.shared_namespaces);
  } else {
    state.scheduler->SetNamespaces(spec.namespaces);
  }
  // Deterministic ingest order, whatever the order of objects in the files: by namespace/name.
  std::vector<const engine::WorkloadSpec*> order;
  for (const engine::WorkloadSpec& w : spec.workloads) {
    order.push_back(&w);
  }
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return std::tie(a->name_space, a->name) < std::tie(b->name_space, b->name);
  });
  std::vector<engine::WorkloadId> pending;
  for (const engine::WorkloadSpec* w : order) {
    bool finished = IsFinished(*w);
    bool reserved = w->admission.has_value() && w->active && !finished;
    if (reserved && !ClusterQueueExists(*state.cluster, w->admission->cluster_queue)) {
      // Kueue's cache keeps such a workload out of every ClusterQueue (pkg/cache/cache.go,
      // addOrUpdateWorkload: no ClusterQueue of that name, nothing added): it holds no quota, and
      // with its quota reserved it is never queued either. The loader has warned
      // (status.admission.clusterQueue: ... not charged anywhere), as `validate` does: one verdict,
      // a warning, for every command.
      state.admitted_to_undefined.push_back(engine::SlashJoin(w->name_space, w->name));
      continue;
    }
    engine::WorkloadSpec copy = *w;
    if (!reserved) {
      copy.admission.reset();  // not charged (§2.6): inactive or finished
    }
    engine::StatusOr<engine::WorkloadId> id = state.store->Add(std::move(copy));
    if (!id.ok()) {
      state.workload_errors.push_back(
          fmt::format("{}: {}", engine::ToString(w->source), id.status().message()));
      continue;
    }
    if (reserved) {
      ++state.workloads_reserved;
    } else if (!w->active || finished) {
      ++state.workloads_ignored;
    } else {
      pending.push_back(*id);
    }
  }
  state.cluster->Refresh();
  for (engine::WorkloadId id : pending) {
    const engine::Workload& w = state.store->Get(id);
    if (!engine::IsValid(w.cluster_queue)) {
      state.unroutable.push_back(w.key);
    }
    state.queues->Push(id);
    ++state.workloads_queued;
  }
  return state;
}

int LoadStateForCommand(const std::vector<std::string>& files,
                        const std::optional<std::string>& now, bool kueue_scan_reset,
                        const std::vector<std::pair<std::string, bool>>& feature_gates,
                        ClusterState& state) {
  ClusterStateOptions options;
  options.files = files;
  options.feature_gates = feature_gates;
  options.scheduler.cohort_generation_resets_scan = !kueue_scan_reset;
  if (now) {
    engine::StatusOr<engine::TimeMicros> t = ParseRfc3339(*now);
    if (!t.ok()) {
      std::fprintf(stderr, "error: --now: %s\n", t.status().message().c_str());
      return 2;
    }
    options.now = *t;
  }
  state = BuildClusterState(options);
  if (!state.ok()) {
    PrintLoadErrors(state);
    return 1;
  }
  // Settings tally does not model (and the manifests' other warnings): never silently.
  for (const LoadError& w : state.load.warnings) {
    std::fprintf(stderr, "warning: %s\n", w.ToString().c_str());
  }
  return 0;
}

std::vector<engine::CycleResult> RunCycles(ClusterState& state, int cycles_wanted) {
  constexpr int kMaxCycles = 10000;
  std::vector<engine::CycleResult> cycles;
  int limit = cycles_wanted > 0 ? cycles_wanted : kMaxCycles;
  std::vector<engine::WorkloadId> previous_heads;
  for (int i = 0; i < limit; ++i) {
    engine::CycleResult r = state.scheduler->RunCycle(state.now);
    std::vector<engine::WorkloadId> heads;
    for (const engine::CycleEntry& e : r.entries) {
      heads.push_back(e.workload);
    }
    // Another cycle can still do something while a decision was made, a scan has flavors left,
    // or the heaps hold workloads not yet seen; a StrictFIFO head blocking its queue shows up as
    // the same heads twice with nothing changed.
    bool progressed = r.changed || CycleHasPendingScans(state, r)
                      || (state.queues->HasActive() && heads != previous_heads);
    bool empty = r.entries.empty();
    if (!empty || cycles_wanted > 0) {
      cycles.push_back(std::move(r));
    }
    if (cycles_wanted == 0 && (!progressed || empty)) {
      break;
    }
    previous_heads = std::move(heads);
  }
  return cycles;
}

}  // namespace replay
