// File: replay/kueue_perf_generator.h
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

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace replay {

// One entry of `workloadsSets[].workloads` (Kueue's WorkloadTemplate).
struct KueuePerfWorkloadTemplate {
  std::string class_name;
  int64_t runtime_ms = 0;
  int32_t priority = 0;
  std::string request;  // cpu per pod, a Kubernetes quantity as written ("1", "500m")
  // Pods in the pod set. Kueue uses `podCount` only for TAS templates (tasLevel set); otherwise
  // the workload has one pod whatever podCount says. This is the effective count.
  int32_t pod_count = 1;
};

// One entry of `queuesSets[].workloadsSets` (Kueue's WorkloadsSet).
struct KueuePerfWorkloadsSet {
  int64_t count = 0;
  int64_t creation_interval_ms = 0;
  std::vector<KueuePerfWorkloadTemplate> workloads;
};

// One entry of `cohorts[].queuesSets` (Kueue's QueuesSet).
struct KueuePerfQueuesSet {
  std::string class_name;
  int64_t count = 0;
  std::string nominal_quota;          // cpu, a quantity as written
  std::string borrowing_limit;        // empty: none
  std::string reclaim_within_cohort;  // empty: Kueue's default (Never)
  std::string within_cluster_queue;   // empty: Kueue's default (Never)
  std::vector<KueuePerfWorkloadsSet> workloads_sets;
};

// One entry of `cohorts` (Kueue's CohortSet).
struct KueuePerfCohortSet {
  std::string class_name;
  int64_t count = 0;
  std::vector<KueuePerfQueuesSet> queues_sets;
};

struct KueuePerfConfig {
  std::string file;                                       // for messages
  std::string flavor_name = "rf";                         // Kueue's defaultResourceFlavorName
  std::map<std::string, std::string> flavor_node_labels;  // resourceFlavor.nodeLabel -> "tas"
  std::vector<KueuePerfCohortSet> cohorts;
  // Parts of the config tally cannot mirror (TAS, DRA), one message each: "file: field: why".
  std::vector<std::string> warnings;
};

// Parses a generator config. Errors name the file, the line and the field path
// ("gen.yaml:9: cohorts[0].queuesSets[0].nominalQuota: Required value: ..."), several errors are
// joined by newlines. Unknown keys are errors (Kueue silently ignores them, which would turn a
// typo into a different benchmark); TAS and DRA keys are accepted with a warning.
engine::StatusOr<KueuePerfConfig> ParseKueuePerfConfig(std::string_view yaml,
                                                       std::string_view file_name);
// Reads `path` and parses it.
engine::StatusOr<KueuePerfConfig> LoadKueuePerfConfig(const std::string& path);

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
