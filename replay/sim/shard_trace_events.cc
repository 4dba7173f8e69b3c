// Trace events applied to one shard: Workload ADDED/MODIFIED/DELETED, device and configuration
// changes (replay/sim/shard_simulator_impl.h).
#include "engine/base/string_map.h"
#include "replay/io/literal_equals.h"
#include "replay/sim/shard_simulator_impl.h"

namespace replay {

EventError ShardSimulator::Impl::Reject(EventErrorReason reason, std::string field,
                                        std::string message) {
  EventError e;
  e.reason = reason;
  e.field = std::move(field);
  e.message = std::move(message);
  return e;
}

namespace {

// The spec's source taken out, with the file name's storage (a long path is an allocation): the
// spec is stored without one, and the event gets it back for its next line. Not reset here: the
// parser's engine::ResetForReuse does that before it writes the next line's, and the SourceRef,
// written 2,048 lines ago, would be a cache miss per Workload (1.2 % of perf's samples on the
// moderate 1,000,000-workload trace when it was cleared here).
[[nodiscard]] engine::LazyBox<engine::SourceRef> TakeSource(engine::WorkloadSpec& spec) {
  return std::move(spec.source);
}

}  // namespace

bool ShardSimulator::Impl::ApplyWorkloadAdded(TraceEvent& event, EventError& error) {
  engine::WorkloadSpec& spec = event.object.workloads[0];
  if (store().Find(event.name)) {
    error = Reject(EventErrorReason::kUnknownWorkload, "object.metadata.name",
                   fmt::format("Workload {} already exists", event.name));
    return false;
  }
  // Looked up once: the store resolves the ClusterQueue from it, the statistics their id.
  const engine::LocalQueueSpec* local_queue = nullptr;
  if (!spec.admission) {
    local_queue = FindLocalQueue(spec);
    if (local_queue == nullptr) {
      error =
          Reject(EventErrorReason::kUnknownQueue, "object.spec.queueName",
                 fmt::format("LocalQueue {}/{} does not exist", spec.name_space, spec.queue_name));
      return false;
    }
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
  bool active = spec.active;
  // A trace workload is named by its event's file and line (EventError); the source the parser
  // gave it is the events file for every workload: not kept. The stored spec holds no source at
  // all (its LazyBox stays unallocated, 8 bytes); the parser's, with the file name's storage,
  // goes back to the event with the spec storage AddSwapping hands back, for the reader's next
  // line.
  engine::LazyBox<engine::SourceRef> source = TakeSource(spec);
  // The event gets the storage of an erased workload's spec back, for the reader to write the next
  // line's object into: neither side allocates in a steady state (engine::ResetForReuse).
  engine::StatusOr<WorkloadId> added = store().AddSwapping(spec, local_queue);
  spec.source = std::move(source);
  if (!added.ok()) {
    error = Reject(EventErrorReason::kBadObject, "object", added.status().message());
    return false;
  }
  WorkloadId id = *added;
  const engine::Workload& w = store().Get(id);  // its spec is the one moved in
  Track& t = TrackOf(id);
  t = Track{.epoch = t.epoch + 1};
  if (!misconfigured_shown.empty()) {
    misconfigured_shown.erase(engine::Index(id));
  }
  t.live = true;
  t.active = active;
  t.runtime = event.runtime.value_or(-1);
  t.pods_ready_after = event.pods_ready_after.value_or(-1);
  if (local_queue != nullptr) {
    const auto index = static_cast<size_t>(local_queue - cluster().local_queues().data());
    if (index >= local_queue_stats_ids.size()) {
      local_queue_stats_ids.resize(cluster().local_queues().size(), 0);
    }
    uint32_t& cached = local_queue_stats_ids[index];
    if (cached == 0) {
      cached =
          1 + stats.InternLocalQueue(engine::SlashKey(w.spec->name_space, w.local_queue()).view());
    }
    t.local_queue = cached - 1;
  } else {
    t.local_queue =
        stats.InternLocalQueue(engine::SlashKey(w.spec->name_space, w.local_queue()).view());
  }
  t.workload_class = stats.InternClass(w.spec->workload_class);
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

const engine::LocalQueueSpec* ShardSimulator::Impl::FindLocalQueue(
    const engine::WorkloadSpec& spec) {
  const engine::Cluster& c = cluster();
  if (!spec.name_space.shared() || !spec.queue_name.shared()) {
    return c.FindLocalQueue(spec.name_space, spec.queue_name);
  }
  if (local_queue_memo_cluster != &c || local_queue_memo_version != c.config_version()) {
    local_queue_memo.fill(LocalQueueMemo{});
    local_queue_memo_cluster = &c;
    local_queue_memo_version = c.config_version();
  }
  const char* name_space = spec.name_space.data();
  const char* queue = spec.queue_name.data();
  const auto key =
      reinterpret_cast<uintptr_t>(name_space) ^ (reinterpret_cast<uintptr_t>(queue) >> 3);
  LocalQueueMemo& memo = local_queue_memo[(key ^ (key >> 9)) % local_queue_memo.size()];
  if (memo.local_queue != nullptr && memo.name_space == name_space && memo.queue == queue) {
    return memo.local_queue;
  }
  const engine::LocalQueueSpec* found = c.FindLocalQueue(spec.name_space, spec.queue_name);
  if (found != nullptr) {  // an unknown queue is rejected: not worth keeping
    memo = LocalQueueMemo{name_space, queue, found};
  }
  return found;
}

void ShardSimulator::Impl::StartAdmitted(WorkloadId id) {
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

bool ShardSimulator::Impl::ApplyWorkloadModified(TraceEvent& event, EventError& error) {
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
    // Admitted: pod sets are immutable; a priority change updates preemption, and a change of
    // status.reclaimablePods updates the usage charged (the rule of ingest:
    // WorkloadStore::ChargedCount); either requeues the tree's inadmissible workloads (§9.5).
    bool changed = false;
    int32_t priority = store().ResolvePriority(spec);
    if (priority != w.priority) {
      store().SetReservedPriority(id, priority);
      w.scheduling_hash = 0;
      changed = true;
    }
    if (store().SetReclaimablePods(id, spec.reclaimable_pods)) {
      stats.OnUsageChanged(w.cluster_queue, now);
      changed = true;
    }
    if (changed) {
      ScheduleInadmissibleRequeue(w.cluster_queue);
      Changed();
    }
    return true;
  }
  if (!t.active) {
    return true;
  }
  // Pending: the new object replaces the old one in its queue (same creation time).
  const engine::LocalQueueSpec* local_queue =
      cluster().FindLocalQueue(spec.name_space, spec.queue_name);
  if (local_queue == nullptr) {
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
  engine::LazyBox<engine::SourceRef> source = TakeSource(spec);  // as in ApplyWorkloadAdded
  engine::StatusOr<WorkloadId> added = store().AddSwapping(spec, local_queue);
  spec.source = std::move(source);
  if (!added.ok()) {
    error = Reject(EventErrorReason::kBadObject, "object", added.status().message());
    TrackOf(id).live = false;
    return false;
  }
  Track& moved = TrackOf(*added);
  moved = saved;
  moved.local_queue = stats.InternLocalQueue(fmt::format(
      "{}/{}", store().Get(*added).spec->name_space, store().Get(*added).local_queue()));
  if (*added != id) {
    ++TrackOf(id).epoch;
    TrackOf(id).live = false;
  }
  queues().Push(*added, now);
  Changed();
  return true;
}

bool ShardSimulator::Impl::ApplyWorkloadDeleted(TraceEvent& event, EventError& error) {
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

bool ShardSimulator::Impl::ApplyDeviceChange(TraceEvent& event, EventError& error) {
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

bool ShardSimulator::Impl::SameSelectors(const engine::ResourceClassSpec& a,
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

bool ShardSimulator::Impl::ApplyConfig(TraceEvent& event, EventError& error) {
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
    deleted ? state.scheduler->DeleteNamespace(event.name)
            : state.scheduler->SetNamespace(o.namespaces[0]);
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

bool ShardSimulator::Impl::Apply(TraceEvent& event, EventError& error) {
  if (!Is(event.kind, "Workload")) {
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

void ShardSimulator::Impl::AdoptInitialWorkloads() {
  for (uint32_t i = 0; i < store().size(); ++i) {
    WorkloadId id = engine::MakeId<WorkloadId>(i);
    if (!store().Contains(id)) {
      continue;
    }
    const engine::Workload& w = store().Get(id);
    Track& t = TrackOf(id);
    t.live = true;
    t.active = w.spec->active;
    t.local_queue =
        stats.InternLocalQueue(fmt::format("{}/{}", w.spec->name_space, w.local_queue()));
    t.workload_class = stats.InternClass(w.spec->workload_class);
    stats.OnCreated();
    if (w.quota_reserved) {
      StartAdmitted(id);
    }
  }
}

void ShardSimulator::Impl::SetNow(TimeMicros t) {
  if (t != now) {
    cycles_at_instant = 0;
    stats.SampleUntil(t);
    now = t;
  }
}

}  // namespace replay
