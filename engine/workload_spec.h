// File: engine/workload_spec.h
//
// Workloads, Namespaces and AdmissionChecks as loaded from manifests (kueue-semantics.md §2.6,
// §3, §9.2): the inputs of `tally schedule` and `tally explain`. Plain specs with names; the
// engine derives dense, pre-computed workload state from them (engine/workload.h).
//
// Times are virtual-clock microseconds since the Unix epoch (RFC 3339 timestamps converted by the
// loader); 0 means "not set".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/boxed.h"
#include "engine/base/cow_vector.h"
#include "engine/base/interned_name.h"
#include "engine/base/lazy_box.h"
#include "engine/base/workload_uid.h"
#include "engine/config.h"
#include "engine/pod_requests.h"

namespace engine {

using TimeMicros = int64_t;

// A required node-affinity term: its expressions are ANDed; terms are ORed (§6.4).
struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist | Gt | Lt
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement&) const = default;
};
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  bool operator==(const NodeSelectorTerm&) const = default;
};

struct PodSetSpec {
  std::string name = "main";
  int32_t count = 1;
  std::optional<int32_t> min_count;  // partial admission (§6.8)
  PodResources resources;            // containers, init containers, overhead, pod-level resources
  std::map<std::string, std::string> node_selector;
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
  // empty = no required affinity.
  std::vector<NodeSelectorTerm> required_affinity;
  std::vector<Toleration> tolerations;
  std::string priority_class_name;  // template spec.priorityClassName (pod PriorityClass)

  // Field by field, quantities by representation (DecimalQuantity::operator==): what the
  // WorkloadStore's pool of pod-set lists (engine/pod_set_pool.h) shares by.
  bool operator==(const PodSetSpec&) const = default;
};

// A Workload's pod sets. Copies share one list until written to (engine/base/cow_vector.h): a
// WorkloadStore keeps one list per distinct content (engine/pod_set_pool.h).
using PodSetList = CowVector<PodSetSpec>;

// status.admission.podSetAssignments[i].
struct PodSetAssignmentSpec {
  std::string name;
  std::map<std::string, std::string> flavors;  // resource -> flavor
  // resourceUsage, canonical units (cpu milli, others whole units), total for the pod set.
  std::map<std::string, Quantity> resource_usage;
  std::optional<int32_t> count;
};

struct AdmissionSpec {
  std::string cluster_queue;
  std::vector<PodSetAssignmentSpec> pod_set_assignments;
};

enum class CheckState : uint8_t { kPending, kReady, kRetry, kRejected };
const char* ToString(CheckState state);

struct AdmissionCheckStateSpec {
  std::string name;
  CheckState state = CheckState::kPending;
};

// A status condition that matters for ordering and admissibility (§2.6, §5.1).
struct ConditionSpec {
  std::string type;     // QuotaReserved | Admitted | Evicted | Preempted | Finished | Requeued ...
  bool status = false;  // "True"
  std::string reason;
  TimeMicros last_transition = 0;
};

// The kind of the class a Workload's priority comes from (spec.priorityClassRef.kind, or v1beta1's
// spec.priorityClassSource). An enum, not the kind's text: "WorkloadPriorityClass" does not fit a
// short string, and would be one more allocation per Workload.
enum class PriorityClassKind : uint8_t { kNone, kWorkloadPriorityClass, kPriorityClass };
// "WorkloadPriorityClass", "PriorityClass", or "" for kNone. Inline: the loaders' tests use it
// without linking the rest of workload_spec.cc.
constexpr const char* ToString(PriorityClassKind kind) {
  switch (kind) {
    case PriorityClassKind::kWorkloadPriorityClass:
      return "WorkloadPriorityClass";
    case PriorityClassKind::kPriorityClass:
      return "PriorityClass";
    case PriorityClassKind::kNone:
      break;
  }
  return "";
}

// The fields rarely set (status.admission, requeueAt, the annotation and limit times) are Boxed
// (engine/base/boxed.h): a live Workload keeps its spec, and they were 104 of its bytes.
struct WorkloadSpec {
  InternedName name_space;  // metadata.namespace ("default" when absent)
  std::string name;
  // metadata.uid; the loader makes "<namespace>/<name>" when absent. A UUID in 16 bytes.
  WorkloadUid uid;
  TimeMicros creation_time = 0;
  // metadata.labels["tally.dev/class"]: the workload class replay reports group by ("" = none).
  InternedName workload_class;
  // metadata.annotations["tally.dev/expected-runtime"] (a Go duration, µs): how long the workload
  // holds its quota once admitted, as its owner expects; `tally explain --eta` uses it first.
  Boxed<TimeMicros> expected_runtime;
  InternedName queue_name;  // spec.queueName (a LocalQueue in the same namespace)
  // v1beta2 spec.priorityClassRef.name / v1beta1 spec.priorityClassName, and its kind
  // (kPriorityClass: the pod one).
  InternedName priority_class_name;
  std::optional<int32_t> priority;  // spec.priority, as resolved by Kueue at creation
  PriorityClassKind priority_class_kind = PriorityClassKind::kNone;
  bool active = true;         // spec.active
  int32_t requeue_count = 0;  // status.requeueState.count (here: beside the flags, no padding)
  Boxed<int64_t> maximum_execution_time_seconds;
  PodSetList pod_sets;

  // status
  Boxed<AdmissionSpec> admission;  // present with QuotaReserved=True: already charged
  LazyBox<std::vector<ConditionSpec>> conditions;                  // rare in a replay's trace
  LazyBox<std::map<std::string, int32_t>> reclaimable_pods;        // pod set name -> count (rare)
  LazyBox<std::vector<AdmissionCheckStateSpec>> admission_checks;  // rare
  Boxed<TimeMicros> requeue_at;                                    // status.requeueState.requeueAt
  // status.flavorAssignmentHistory (seed 002): resourceFlavor, assignmentTime, and tally's
  // extensions usedTime / failed / failedBy (docs/fallback.md).
  struct FlavorHistorySpec {
    std::string flavor;
    std::optional<TimeMicros> assignment_time;
    TimeMicros used = 0;
    bool failed = false;
    bool failed_by_check = false;  // failedBy: AdmissionCheckRejected
  };
  LazyBox<std::vector<FlavorHistorySpec>> flavor_history;  // rare

  // Where the Workload was read (manifests: file, document, line). On the heap, allocated at the
  // first write: a replay's stored specs have none (the events file names a trace line's
  // Workload, replay/sim/shard_trace_events.cc), and inline it was 40 bytes of each live one.
  LazyBox<SourceRef> source;

  const ConditionSpec* Condition(const std::string& type) const {
    for (const ConditionSpec& c : *conditions) {
      if (c.type == type) {
        return &c;
      }
    }
    return nullptr;
  }
};

// Reuse of a spec's storage (issue 22). A replay adds and erases a workload per trace line; each
// spec brought five allocations from the parser's thread that a shard's thread freed later (a
// third of the second thread's extra CPU on the moderate trace). These reset a spec to the values
// of WorkloadSpec{} / PodSetSpec{} but keep what its strings and vectors hold allocated, for the
// next spec to be written into: the event parser's fast path (replay/io/workload_json.cc) and
// WorkloadStore::AddSwapping pass the storage back and forth instead of allocating and freeing.
//
// The pod sets, and their containers, stay in place, each reset: so a spec reset for reuse is
// not an empty spec. Its writer fills them by index and truncates to what it wrote.
void ResetForReuse(WorkloadSpec& spec);
void ResetForReuse(PodSetSpec& pod_set);

// Exchanges two specs field by field: what std::swap does (a move construction, two move
// assignments and a destruction: about 850 instructions per WorkloadStore::AddSwapping) in about
// a fifth of the instructions. Found by ADL: call it unqualified.
void swap(WorkloadSpec& a, WorkloadSpec& b) noexcept;

// Kueue's admissibility check of a head's resources (pkg/workload/resources.go:
// ValidateResources, run by ValidateAdmissibility before flavor assignment): in every pod set,
// each init container, container and the pod-level resources, a request above its limit, compared
// in canonical units (cpu milli, others whole units, both rounded up) after limits stood in for
// missing requests. The webhook accepts such a Workload; the scheduler leaves it pending with
// QuotaReserved=False, reason Misconfigured. Returns "" when valid, else Kueue's message:
//   resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value:
//   ["cpu"]: requests must not exceed its limits
// (several offending containers: the field errors joined by ", " inside "[...]", as an
// apimachinery aggregate prints them). LimitRanges and RuntimeClass overheads are not modelled
// (docs/manifests.md).
std::string ValidateResources(const WorkloadSpec& spec);
// The same check of a list of pod sets alone (what it reads of a spec).
std::string ValidateResources(const std::vector<PodSetSpec>& pod_sets);

// A v1 Namespace: only its labels matter (ClusterQueue namespaceSelector, §2.2).
struct NamespaceSpec {
  std::string name;
  std::map<std::string, std::string> labels;
  SourceRef source;
};

// kueue.x-k8s.io AdmissionCheck (§9.2). `active` mirrors its Active condition (default true).
struct AdmissionCheckSpec {
  std::string name;
  std::string controller_name;
  bool active = true;
  SourceRef source;
};

}  // namespace engine
