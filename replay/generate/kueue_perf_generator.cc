// Kueue's scheduler performance-test generator config -> tally scenario. The semantics mirror
// Kueue's test/performance/scheduler/runner/generator/generator.go and the object wrappers it
// uses (pkg/util/testing/v1beta2/wrappers.go); docs/generate.md has the details.
#include "replay/generate/kueue_perf_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "engine/k8s_names.h"
#include "engine/quantity.h"
#include "replay/io/time_parse.h"

#include <yaml-cpp/yaml.h>

namespace replay {
namespace {

// Labels Kueue's generator puts on its objects.
constexpr std::string_view kRunningTimeLabel = "kueue.x-k8s.io/performance-scheduler-running-ms";
constexpr std::string_view kClassLabel = "kueue.x-k8s.io/performance-scheduler-class";
constexpr std::string_view kCleanupLabel = "kueue.x-k8s.io/performance-scheduler-cleanup";
// The label tally's replay report groups time-to-admission by.
constexpr std::string_view kTallyClassLabel = "tally.dev/class";

struct QueueInfo {
  std::string name;  // also the Namespace and the LocalQueue
  std::string cohort;
  std::string class_name;
  const KueuePerfQueuesSet* set = nullptr;
};

// One workload before sorting; the fields index back into the config.
struct PendingWorkload {
  int64_t time_micros;
  uint32_t queue;  // index into the QueueInfo list
  uint32_t set;    // workloads set index within the queue set
  uint32_t tmpl;   // template index within the set
  int64_t index;   // Kueue's `si`
};

void AppendFlavor(fmt::memory_buffer& out, const KueuePerfConfig& config) {
  fmt::format_to(std::back_inserter(out),
                 "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n"
                 "  name: {}\n  labels:\n    {}: \"true\"\n",
                 config.flavor_name, kCleanupLabel);
  if (config.flavor_node_labels.empty()) {
    fmt::format_to(std::back_inserter(out), "spec: {{}}\n");
  } else {
    fmt::format_to(std::back_inserter(out), "spec:\n  nodeLabels:\n");
    for (const auto& [k, v] : config.flavor_node_labels) {
      fmt::format_to(std::back_inserter(out), "    \"{}\": \"{}\"\n", k, v);
    }
  }
}

void AppendQueueObjects(fmt::memory_buffer& out, const KueuePerfConfig& config,
                        const QueueInfo& q) {
  const KueuePerfQueuesSet& s = *q.set;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {}\n  labels:\n"
                 "    {}: \"true\"\n",
                 q.name, kCleanupLabel);
  fmt::format_to(it,
                 "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n"
                 "  name: {}\n  labels:\n    {}: {}\n    {}: \"true\"\nspec:\n  cohortName: {}\n"
                 "  namespaceSelector: {{}}\n  queueingStrategy: BestEffortFIFO\n"
                 "  flavorFungibility:\n    whenCanBorrow: MayStopSearch\n"
                 "    whenCanPreempt: TryNextFlavor\n",
                 q.name, kClassLabel, s.class_name, kCleanupLabel, q.cohort);
  if (s.reclaim_within_cohort.empty() && s.within_cluster_queue.empty()) {
    fmt::format_to(it, "  preemption: {{}}\n");
  } else {
    fmt::format_to(it, "  preemption:\n");
    if (!s.reclaim_within_cohort.empty()) {
      fmt::format_to(it, "    reclaimWithinCohort: {}\n", s.reclaim_within_cohort);
    }
    if (!s.within_cluster_queue.empty()) {
      fmt::format_to(it, "    withinClusterQueue: {}\n", s.within_cluster_queue);
    }
  }
  fmt::format_to(it,
                 "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: {}\n"
                 "      resources:\n      - name: cpu\n        nominalQuota: \"{}\"\n",
                 config.flavor_name, s.nominal_quota);
  if (!s.borrowing_limit.empty()) {
    fmt::format_to(it, "        borrowingLimit: \"{}\"\n", s.borrowing_limit);
  }
  fmt::format_to(it,
                 "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n"
                 "  name: {}\n  namespace: {}\nspec:\n  clusterQueue: {}\n",
                 q.name, q.name, q.name);
}

}  // namespace

KueuePerfScenario GenerateKueuePerfScenario(const KueuePerfConfig& config, int64_t start_micros) {
  KueuePerfScenario result;

  // The queues, in Kueue's nesting order (the runner creates them concurrently).
  std::vector<QueueInfo> queues;
  std::vector<std::string> cohorts;
  std::set<std::string> seen_cohorts;
  for (const KueuePerfCohortSet& cs : config.cohorts) {
    for (int64_t c = 0; c < cs.count; ++c) {
      std::string cohort = CohortName(cs, c);
      if (seen_cohorts.insert(cohort).second) {
        cohorts.push_back(cohort);
      }
      for (size_t qi = 0; qi < cs.queues_sets.size(); ++qi) {
        const KueuePerfQueuesSet& qs = cs.queues_sets[qi];
        for (int64_t q = 0; q < qs.count; ++q) {
          queues.push_back({QueueName(qs, qi, q, cohort), cohort, qs.class_name, &qs});
        }
      }
    }
  }

  fmt::memory_buffer manifests;
  fmt::format_to(std::back_inserter(manifests),
                 "# Generated by `tally generate --kueue-perf {}`: the objects Kueue's scheduler\n"
                 "# performance runner creates for this config (see docs/generate.md).\n",
                 config.file);
  AppendFlavor(manifests, config);
  for (const std::string& cohort : cohorts) {
    // Kueue's runner never creates Cohort objects (the ClusterQueues name them, which makes
    // implicit cohorts); an explicit Cohort without quota or parent is the same thing.
    fmt::format_to(std::back_inserter(manifests),
                   "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n"
                   "  name: {}\n",
                   cohort);
  }
  for (const QueueInfo& q : queues) {
    AppendQueueObjects(manifests, config, q);
  }
  result.manifests = fmt::to_string(manifests);
  result.cohorts = static_cast<int64_t>(cohorts.size());
  result.cluster_queues = static_cast<int64_t>(queues.size());
  result.local_queues = result.cluster_queues;
  result.namespaces = result.cluster_queues;

  // generateWlSet: for si in [0, count), for each template i: sleep creationIntervalMs, create.
  std::vector<PendingWorkload> pending;
  for (size_t qx = 0; qx < queues.size(); ++qx) {
    const KueuePerfQueuesSet& qs = *queues[qx].set;
    for (size_t wi = 0; wi < qs.workloads_sets.size(); ++wi) {
      const KueuePerfWorkloadsSet& ws = qs.workloads_sets[wi];
      int64_t k = 0;
      for (int64_t si = 0; si < ws.count; ++si) {
        for (size_t ti = 0; ti < ws.workloads.size(); ++ti) {
          ++k;
          pending.push_back({start_micros + k * ws.creation_interval_ms * 1000,
                             static_cast<uint32_t>(qx), static_cast<uint32_t>(wi),
                             static_cast<uint32_t>(ti), si});
        }
      }
    }
  }
  std::stable_sort(pending.begin(), pending.end(),
                   [](const PendingWorkload& a, const PendingWorkload& b) {
                     return a.time_micros < b.time_micros;
                   });

  fmt::memory_buffer events;
  auto it = std::back_inserter(events);
  fmt::format_to(it, "{{\"format\":\"tally.events\",\"version\":1}}\n");
  for (size_t n = 0; n < pending.size(); ++n) {
    const PendingWorkload& p = pending[n];
    const QueueInfo& q = queues[p.queue];
    const KueuePerfWorkloadTemplate& t = q.set->workloads_sets[p.set].workloads[p.tmpl];
    // The uid sorts like the event order (it breaks queue-order ties in tally, where Kueue's
    // random uids would break them arbitrarily).
    fmt::format_to(it,
                   "{{\"type\":\"ADDED\",\"time\":\"{}\",\"runtime\":\"{}ms\",\"object\":{{"
                   "\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\","
                   "\"metadata\":{{\"name\":\"{}-{}-{}-{}\",\"namespace\":\"{}\","
                   "\"uid\":\"6b756575-0000-4000-8000-{:012x}\",\"labels\":{{\"{}\":\"{}\","
                   "\"{}\":\"{}\",\"{}\":\"{}\"}}}},",
                   FormatRfc3339(p.time_micros), t.runtime_ms, t.class_name, p.set, p.index, p.tmpl,
                   q.name, n, kClassLabel, t.class_name, kRunningTimeLabel, t.runtime_ms,
                   kTallyClassLabel, t.class_name);
    fmt::format_to(it,
                   "\"spec\":{{\"queueName\":\"{}\",\"priority\":{},\"podSets\":[{{\"name\":"
                   "\"main\",\"count\":{},\"template\":{{\"spec\":{{\"restartPolicy\":\"Never\","
                   "\"containers\":[{{\"name\":\"c\",\"resources\":{{\"requests\":{{\"cpu\":"
                   "\"{}\"}}}}}}]}}}}}}]}}}}}}\n",
                   q.name, t.priority, t.pod_count, t.request);
  }
  result.events = fmt::to_string(events);
  result.workloads = static_cast<int64_t>(pending.size());
  if (!pending.empty()) {
    result.first_event_micros = pending.front().time_micros;
    result.last_event_micros = pending.back().time_micros;
  }
  return result;
}

}  // namespace replay
