#include "engine/flavor_fallback.h"

#include <algorithm>

#include "engine/cluster.h"
#include "engine/workload.h"

namespace engine {

bool FlavorHistory::IsFailed(FlavorId flavor) const {
  const FlavorHistoryEntry* e = Find(flavor);
  return e != nullptr && e->failed;
}

const FlavorHistoryEntry* FlavorHistory::Find(FlavorId flavor) const {
  for (const FlavorHistoryEntry& e : entries) {
    if (e.flavor == flavor) {
      return &e;
    }
  }
  return nullptr;
}

FlavorHistoryEntry& FlavorHistory::Get(FlavorId flavor) {
  for (FlavorHistoryEntry& e : entries) {
    if (e.flavor == flavor) {
      return e;
    }
  }
  FlavorHistoryEntry& e = entries.emplace_back();
  e.flavor = flavor;
  return e;
}

const FallbackRuleSpec* FindFallbackRule(const FlavorFallbackSpec& spec, std::string_view flavor,
                                         FallbackTrigger trigger) {
  const FallbackRuleSpec* any = nullptr;
  for (const FallbackRuleSpec& rule : spec.rules) {
    if (rule.trigger != trigger) {
      continue;
    }
    if (rule.flavor == flavor) {
      return &rule;
    }
    if (rule.flavor == "*") {
      any = &rule;
    }
  }
  return any;
}

const FlavorFallbackSpec* FallbackOf(const Cluster& cluster, const Workload& w) {
  if (!IsValid(w.cluster_queue) || !cluster.Exists(w.cluster_queue)) {
    return nullptr;
  }
  const std::optional<FlavorFallbackSpec>& f =
      cluster.Spec(w.cluster_queue).flavor_fungibility.fallback;
  return f.has_value() ? &*f : nullptr;
}

std::vector<FlavorId> AssignedFlavors(const Workload& w) {
  std::vector<FlavorId> flavors;
  for (const AdmittedPodSet& ps : w.admitted) {
    for (const auto& [resource, flavor] : ps.flavors) {
      if (std::find(flavors.begin(), flavors.end(), flavor) == flavors.end()) {
        flavors.push_back(flavor);
      }
    }
  }
  return flavors;
}

void StartFallbackAttempt(const Cluster& cluster, Workload& w, TimeMicros now) {
  if (FallbackOf(cluster, w) == nullptr) {
    return;
  }
  for (FlavorId f : AssignedFlavors(w)) {
    w.fallback.Mutable().Get(f).assignment_time = now;
  }
  w.fallback.Mutable().attempt_start = now;
}

namespace {

// The timeout of `flavor` under `spec` (TimeoutForPodsReadyExceeded), or nullopt.
std::optional<TimeMicros> TimeoutOf(const Cluster& cluster, const FlavorFallbackSpec& spec,
                                    FlavorId flavor) {
  const FallbackRuleSpec* rule =
      FindFallbackRule(spec, cluster.Name(flavor), FallbackTrigger::kTimeoutForPodsReadyExceeded);
  return rule == nullptr ? std::nullopt : rule->timeout;
}

}  // namespace

std::optional<TimeMicros> FallbackDeadline(const Cluster& cluster, const Workload& w) {
  const FlavorFallbackSpec* spec = FallbackOf(cluster, w);
  if (spec == nullptr || !w.fallback->attempt_start.has_value()) {
    return std::nullopt;
  }
  std::optional<TimeMicros> deadline;
  for (FlavorId f : AssignedFlavors(w)) {
    std::optional<TimeMicros> timeout = TimeoutOf(cluster, *spec, f);
    if (!timeout.has_value()) {
      continue;
    }
    const FlavorHistoryEntry* e = w.fallback->Find(f);
    TimeMicros left = std::max<TimeMicros>(0, *timeout - (e == nullptr ? 0 : e->used));
    TimeMicros at = *w.fallback->attempt_start + left;
    deadline = deadline.has_value() ? std::min(*deadline, at) : at;
  }
  return deadline;
}

void OnFallbackPodsReady(const Cluster& cluster, Workload& w) {
  if (!w.fallback->attempt_start.has_value()) {
    return;
  }
  FlavorHistory& history = w.fallback.Mutable();
  for (FlavorId f : AssignedFlavors(w)) {
    history.Get(f).used = 0;
  }
  history.attempt_start.reset();
  (void)cluster;
}

std::vector<FlavorId> EndFallbackAttempt(const Cluster& cluster, Workload& w, TimeMicros now) {
  std::vector<FlavorId> failed;
  const FlavorFallbackSpec* spec = FallbackOf(cluster, w);
  if (!w.fallback->attempt_start.has_value()) {
    return failed;
  }
  FlavorHistory& history = w.fallback.Mutable();  // allocated: it holds an attempt
  if (spec == nullptr) {
    history.attempt_start.reset();
    return failed;
  }
  const TimeMicros spent = std::max<TimeMicros>(0, now - *history.attempt_start);
  history.attempt_start.reset();
  for (FlavorId f : AssignedFlavors(w)) {
    FlavorHistoryEntry& e = history.Get(f);
    e.used += spent;
    std::optional<TimeMicros> timeout = TimeoutOf(cluster, *spec, f);
    if (!e.failed && timeout.has_value() && e.used >= *timeout) {
      e.failed = true;
      e.failed_by = FallbackTrigger::kTimeoutForPodsReadyExceeded;
      failed.push_back(f);
    }
  }
  return failed;
}

std::vector<FlavorId> FailOnAdmissionCheckRejected(const Cluster& cluster, Workload& w) {
  std::vector<FlavorId> failed;
  const FlavorFallbackSpec* spec = FallbackOf(cluster, w);
  if (spec == nullptr) {
    return failed;
  }
  for (FlavorId f : AssignedFlavors(w)) {
    if (FindFallbackRule(*spec, cluster.Name(f), FallbackTrigger::kAdmissionCheckRejected)
        != nullptr) {
      FlavorHistoryEntry& e = w.fallback.Mutable().Get(f);
      e.failed = true;
      e.failed_by = FallbackTrigger::kAdmissionCheckRejected;
      failed.push_back(f);
    }
  }
  return failed;
}

bool FallbackExhausted(const Cluster& cluster, const Workload& w) {
  if (w.fallback->empty() || !IsValid(w.cluster_queue) || !cluster.Exists(w.cluster_queue)) {
    return false;
  }
  for (const PodSetRequest& ps : w.pod_sets) {
    for (const ResourceAmount& r : ps.total) {
      const ResourceGroup* group = cluster.GroupFor(w.cluster_queue, r.resource);
      if (group == nullptr || group->flavors.empty()) {
        continue;
      }
      if (std::all_of(group->flavors.begin(), group->flavors.end(),
                      [&](FlavorId f) { return w.fallback->IsFailed(f); })) {
        return true;
      }
    }
  }
  return false;
}

void ResetFallbackHistory(Workload& w) {
  FlavorHistory& history = w.fallback.Mutable();
  history.entries.clear();
  history.attempt_start.reset();
  ++history.resets;
}

}  // namespace engine
