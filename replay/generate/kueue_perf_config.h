// File: replay/generate/kueue_perf_config.h
//
// Kueue's scheduler performance-test generator config (test/performance/scheduler/configs/*/
// generator.yaml, read by Kueue's test/performance/scheduler/runner/generator/generator.go): its
// structure, parsed and checked, and the object names Kueue's runner derives from it.
// replay/generate/kueue_perf_generator.h expands a config into a scenario.
//
// Nothing here throws; the functions are reentrant.
#pragma once

#include <cstddef>
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

// Kueue's object names (generator.go): cohort "<class>-<idx>", ClusterQueue (and its Namespace
// and LocalQueue) "<class>-<queueSetIdx>-<idx>-<cohort>", workload "<class>-<setIdx>-<i>-<j>".
std::string CohortName(const KueuePerfCohortSet& c, int64_t idx);
std::string QueueName(const KueuePerfQueuesSet& q, size_t set_idx, int64_t idx,
                      std::string_view cohort);

}  // namespace replay
