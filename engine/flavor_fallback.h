// File: engine/flavor_fallback.h
//
// Flavor fallbacks with timeouts (seed 002, KEP-2560; docs/fallback.md). Kueue has not built this
// seed; tally does, so that a replay shows what fallback timeouts would have done.
//
// Per workload and per flavor, a history (the seed's flavorAssignmentHistory):
//  - assignment_time: when the flavor was last assigned (quota reserved on it);
//  - used: time spent on the flavor in attempts that did not reach PodsReady (assigned, waiting
//    for admission checks, the control plane and the pods). Time in the queue does not count;
//  - failed: the flavor's timeout was used up (or an admission check rejected it, with the
//    AdmissionCheckRejected trigger). A failed flavor is not assigned again (the flavor assigner
//    skips it with the message "excluded by the fallback strategy") until RetryAllFlavors resets
//    the history.
// An attempt on flavor F with timeout T may last T - used(F): the countdown covers admission
// checks, Kueue's operation time and pods becoming ready. Several attempts on one flavor share
// its timeout (the seed's "left with only 1 minute of timeout after previous failures"). Pods
// becoming ready clears the flavor's used time: the flavor delivered.
// A workload with several resource groups has several flavors; each keeps its own history, and
// the attempt ends at the earliest deadline among them.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/base/ids.h"
#include "engine/config.h"
#include "engine/workload_spec.h"

namespace engine {

class Cluster;
struct Workload;

struct FlavorHistoryEntry {
  FlavorId flavor{};
  std::optional<TimeMicros> assignment_time;  // last assignment; nullopt = never (or reset)
  TimeMicros used = 0;
  bool failed = false;
  FallbackTrigger failed_by = FallbackTrigger::kTimeoutForPodsReadyExceeded;
};

struct FlavorHistory {
  std::vector<FlavorHistoryEntry> entries;  // in order of first assignment
  std::optional<TimeMicros> attempt_start;  // set while the workload is assigned and not ready
  int32_t resets = 0;                       // RetryAllFlavors resets so far

  bool empty() const { return entries.empty(); }
  bool IsFailed(FlavorId flavor) const;
  const FlavorHistoryEntry* Find(FlavorId flavor) const;
  FlavorHistoryEntry& Get(FlavorId flavor);  // adds an entry when missing
};

// The rule of `spec` for `flavor` and `trigger`: the flavor's own, else "*", else nullptr.
const FallbackRuleSpec* FindFallbackRule(const FlavorFallbackSpec& spec, std::string_view flavor,
                                         FallbackTrigger trigger);

// The fallback strategy of the workload's ClusterQueue, or nullptr.
const FlavorFallbackSpec* FallbackOf(const Cluster& cluster, const Workload& w);

// The distinct flavors of a reserved workload's admission, in pod-set order.
std::vector<FlavorId> AssignedFlavors(const Workload& w);

// Quota reserved at `now`: opens an attempt on every assigned flavor.
void StartFallbackAttempt(const Cluster& cluster, Workload& w, TimeMicros now);

// When the open attempt runs out of time: the earliest of attempt_start + (timeout - used) over
// the assigned flavors with a TimeoutForPodsReadyExceeded rule; nullopt when none has one.
std::optional<TimeMicros> FallbackDeadline(const Cluster& cluster, const Workload& w);

// Pods ready: closes the attempt and clears the assigned flavors' used time.
void OnFallbackPodsReady(const Cluster& cluster, Workload& w);

// The attempt ends without PodsReady at `now` (timeout, preemption, deactivation...): adds its
// duration to the assigned flavors' used time and marks failed those whose timeout is used up.
// Returns the flavors that failed now.
std::vector<FlavorId> EndFallbackAttempt(const Cluster& cluster, Workload& w, TimeMicros now);

// An admission check rejected the workload: marks failed the assigned flavors that have an
// AdmissionCheckRejected rule and returns them (empty: no rule applies; Kueue's own behaviour,
// deactivation, follows).
std::vector<FlavorId> FailOnAdmissionCheckRejected(const Cluster& cluster, Workload& w);

// Every flavor of some resource group the workload needs has failed: nothing is left to try.
bool FallbackExhausted(const Cluster& cluster, const Workload& w);

// RetryAllFlavors: forgets the history (assignment times, used time, failures) and counts it.
void ResetFallbackHistory(Workload& w);

}  // namespace engine
