// File: replay/sim/cluster_state.h
//
// The engine state `tally schedule` and `tally explain` work on: manifests loaded and validated,
// the cluster built, every Workload ingested (those with status.admission charged to their
// ClusterQueue, the others queued), at one instant `now` (the latest timestamp in the input unless
// given).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/cluster.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"
#include "replay/io/manifest_loader.h"

namespace replay {

struct ClusterStateOptions {
  std::vector<std::string> files;
  std::optional<engine::TimeMicros> now;
  engine::SchedulerOptions scheduler;
  // --feature-gates: overrides the Configuration's featureGates (names already checked by
  // engine::ParseFeatureGateList). Gates tally does not model set to a non-default value add a
  // warning to load.warnings.
  std::vector<std::pair<std::string, bool>> feature_gates;
  // When set, the scheduler reads these namespaces' labels (shared with other shards, written
  // only after a copy) instead of the manifests' Namespaces.
  std::shared_ptr<const engine::NamespaceLabels::Table> shared_namespaces;
};

struct ClusterState {
  LoadResult load;
  std::unique_ptr<engine::Cluster> cluster;
  std::unique_ptr<engine::WorkloadStore> store;
  std::unique_ptr<engine::QueueManager> queues;
  std::unique_ptr<engine::Scheduler> scheduler;
  // Workloads rejected at ingest ("file:line: Workload ns/name: message").
  std::vector<std::string> workload_errors;
  int workloads_reserved = 0;
  int workloads_queued = 0;
  int workloads_ignored = 0;  // finished or inactive: neither charged nor queued
  // Pending workloads whose LocalQueue does not lead to an existing ClusterQueue ("ns/name").
  std::vector<std::string> unroutable;
  // Workloads holding an admission to a ClusterQueue that is not defined ("ns/name"): Kueue's
  // cache keeps them out of every ClusterQueue (no quota charged, never queued); the loader warns.
  std::vector<std::string> admitted_to_undefined;
  engine::TimeMicros now = 0;

  bool ok() const { return load.ok() && workload_errors.empty(); }
};

// Loads and builds. On manifest errors the engine parts stay null; check ok().
ClusterState BuildClusterState(const ClusterStateOptions& options);
// Builds from manifests already loaded (options.files is ignored).
ClusterState BuildClusterState(LoadResult load, const ClusterStateOptions& options);

// The command-line front of BuildClusterState shared by `schedule` and `explain`: parses `now`
// (RFC 3339) and builds. Returns the exit status to use on failure (2 for a bad --now, 1 for
// invalid input, after printing the errors), or 0 with `state` built.
int LoadStateForCommand(const std::vector<std::string>& files,
                        const std::optional<std::string>& now, bool kueue_scan_reset,
                        const std::vector<std::pair<std::string, bool>>& feature_gates,
                        ClusterState& state);

// Applies --feature-gates to the loaded Configuration (and what the gates imply for it:
// DisableWaitForPodsReady turns waitForPodsReady off), adding a warning for each gate tally does
// not model set to a non-default value. Idempotent. BuildClusterState calls it.
void ApplyFeatureGates(const std::vector<std::pair<std::string, bool>>& feature_gates,
                       LoadResult& load);

// Runs `cycles` scheduling cycles at state.now, or, with 0, until another cycle cannot change
// anything (nothing admitted or evicted, no scan with flavors left, no unseen heads; at most
// 10,000). Cycles that had no heads are not returned.
std::vector<engine::CycleResult> RunCycles(ClusterState& state, int cycles);

}  // namespace replay
