// File: replay/generate/kueue_perf_generator.h
//
// Turns Kueue's scheduler performance-test generator config
// (test/performance/scheduler/configs/*/generator.yaml, read by Kueue's
// test/performance/scheduler/runner/generator/generator.go) into a replayable tally scenario:
// the manifests (ResourceFlavor, Cohorts, Namespaces, ClusterQueues, LocalQueues) and a
// tally.events/v1 trace with one ADDED event per Workload. The objects, names, units and
// creation times are those Kueue's runner creates; docs/generate.md lists what is mirrored and
// what is not.
//
//   engine::StatusOr<KueuePerfConfig> config = LoadKueuePerfConfig("baseline/generator.yaml");
//   if (!config.ok()) { ... config.status().message() names file, line and field ... }
//   KueuePerfScenario s = GenerateKueuePerfScenario(*config, start_micros);
//   // s.manifests: multi-document YAML; s.events: JSON lines, header first, time-ordered.
//
// Nothing here throws; the functions are reentrant.
#pragma once
#pragma once

#include <cstdint>
#include <string>

#include "replay/generate/kueue_perf_config.h"

namespace replay {

struct KueuePerfScenario {
  std::string manifests;  // multi-document YAML
  std::string events;     // tally.events/v1 JSON lines
  int64_t cohorts = 0;
  int64_t cluster_queues = 0;
  int64_t local_queues = 0;
  int64_t namespaces = 0;
  int64_t workloads = 0;
  int64_t first_event_micros = 0;  // 0 when there are no workloads
  int64_t last_event_micros = 0;
};

// Expands the config. The configuration objects exist at `start_micros` (microseconds since the
// Unix epoch); the i-th workload (0-based) of a workloads set of a ClusterQueue is created at
// start + (i + 1) * creationIntervalMs, as Kueue's runner sleeps before each creation; all sets of
// all ClusterQueues run concurrently from the start. Events are sorted by time; equal times keep
// the nesting order (cohort set, cohort, queue set, queue, workloads set, index).
// REQUIRES: config came from ParseKueuePerfConfig.
KueuePerfScenario GenerateKueuePerfScenario(const KueuePerfConfig& config, int64_t start_micros);

}  // namespace replay
