// File: engine/config.h
//
// The admission-relevant fields of Kueue's configuration objects, as plain specs with names
// (kueue-semantics.md §2). Loaders (replay/) fill them from YAML or JSON; `ValidateClusterSpec`
// (engine/config_validation.h) checks them as Kueue's webhooks do; `Cluster` (engine/cluster.h)
// interns the names and builds the quota tree from them.
//
// Quantities are already canonical (cpu in milli-units, everything else whole units, rounded up).
// An absent borrowing or lending limit is std::nullopt (unlimited).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/feature_gates.h"
#include "engine/quantity.h"

namespace engine {

// Where an object came from, for error messages: "file.yaml: document 3 (line 41)".
struct SourceRef {
  std::string file;
  int document = -1;  // 0-based index of the YAML document (or JSON line) in `file`
  int line = 0;       // 1-based line of the object's first key, 0 if unknown
};

std::string ToString(const SourceRef& source);

// --- ResourceFlavor (§2.1) -------------------------------------------------------------------

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key;
  std::string op = "Equal";  // Equal | Exists (Lt | Gt accepted as Kubernetes does)
  std::string value;
  std::string effect;  // empty = all effects
  bool operator==(const Toleration&) const = default;
};

struct ResourceFlavorSpec {
  std::string name;
  std::map<std::string, std::string> node_labels;
  std::vector<Taint> node_taints;
  std::vector<Toleration> tolerations;
  std::string topology_name;
  SourceRef source;
};

// --- Quotas shared by ClusterQueue and Cohort (§2.2, §2.3) --------------------------------------

struct ResourceQuotaSpec {
  std::string resource;
  Quantity nominal;
  std::optional<Quantity> borrowing_limit;  // nullopt = unlimited
  std::optional<Quantity> lending_limit;    // nullopt = unlimited
};

struct FlavorQuotasSpec {
  std::string flavor;
  std::vector<ResourceQuotaSpec> resources;
};

struct ResourceGroupSpec {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotasSpec> flavors;  // order = preference order
};

// --- ClusterQueue (§2.2) -----------------------------------------------------------------------

enum class QueueingStrategy : uint8_t { kBestEffortFifo, kStrictFifo };
enum class FungibilityPolicy : uint8_t { kMayStopSearch, kTryNextFlavor };
enum class FungibilityPreference : uint8_t {
  kUnset,  // behaves as BorrowingOverPreemption
  kBorrowingOverPreemption,
  kPreemptionOverBorrowing,
};
enum class PreemptionPolicy : uint8_t { kNever, kLowerPriority, kLowerOrNewerEqualPriority, kAny };
enum class StopPolicy : uint8_t { kNone, kHold, kHoldAndDrain };

const char* ToString(QueueingStrategy v);
const char* ToString(FungibilityPolicy v);
const char* ToString(FungibilityPreference v);
const char* ToString(PreemptionPolicy v);
const char* ToString(StopPolicy v);

// --- Flavor fallbacks (seed 002, KEP-2560; docs/fallback.md)
// --------------------------------------

// What happens once every flavor a workload could use has failed.
enum class FallbackFailurePolicy : uint8_t { kDeactivateWorkload, kRetryAllFlavors };
// What makes a flavor fail for a workload.
enum class FallbackTrigger : uint8_t { kTimeoutForPodsReadyExceeded, kAdmissionCheckRejected };
const char* ToString(FallbackFailurePolicy v);
const char* ToString(FallbackTrigger v);

struct FallbackRuleSpec {
  std::string flavor;  // a flavor of the ClusterQueue's resource groups, or "*" (every flavor)
  FallbackTrigger trigger = FallbackTrigger::kTimeoutForPodsReadyExceeded;
  // TimeoutForPodsReadyExceeded: time on the flavor (assigned, not yet ready) before it fails, in
  // microseconds; nullopt = never (the seed's last flavor "with no timeout").
  std::optional<int64_t> timeout;
};

struct FlavorFallbackSpec {
  FallbackFailurePolicy failure_policy = FallbackFailurePolicy::kDeactivateWorkload;
  // One rule per (flavor, trigger); the order does not matter (the flavor order stays that of the
  // resource groups). A flavor's rule takes precedence over the "*" rule of the same trigger.
  std::vector<FallbackRuleSpec> rules;
};

struct FlavorFungibilitySpec {
  FungibilityPolicy when_can_borrow = FungibilityPolicy::kMayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::kTryNextFlavor;
  FungibilityPreference preference = FungibilityPreference::kUnset;
  // spec.flavorFungibility.fallbackStrategy (also spelt flavorFallbackStrategy); absent = none.
  std::optional<FlavorFallbackSpec> fallback;
};

struct PreemptionSpec {
  PreemptionPolicy reclaim_within_cohort = PreemptionPolicy::kNever;  // Never|LowerPriority|Any
  PreemptionPolicy within_cluster_queue =
      PreemptionPolicy::kNever;  // Never|LowerPriority|LowerOrNewerEqualPriority
  PreemptionPolicy borrow_within_cohort = PreemptionPolicy::kNever;  // Never|LowerPriority
  std::optional<int32_t> max_priority_threshold;
};

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist
  std::vector<std::string> values;
};

// A Kubernetes label selector. Kueue: a null namespaceSelector selects no namespace, `{}` all.
struct LabelSelector {
  bool is_null = true;
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

struct AdmissionCheckRule {
  std::string name;
  std::vector<std::string> on_flavors;  // empty = all flavors
};

struct ClusterQueueSpec {
  std::string name;
  std::string cohort;  // v1beta2 spec.cohortName, v1beta1 spec.cohort; empty = none
  std::vector<ResourceGroupSpec> resource_groups;
  QueueingStrategy queueing_strategy = QueueingStrategy::kBestEffortFifo;
  LabelSelector namespace_selector;
  FlavorFungibilitySpec flavor_fungibility;
  PreemptionSpec preemption;
  std::vector<AdmissionCheckRule> admission_checks;
  StopPolicy stop_policy = StopPolicy::kNone;
  std::optional<double> fair_sharing_weight;  // fair sharing only; never used in quota math
  SourceRef source;
};

// --- Cohort (§2.3) -------------------------------------------------------------------------------

struct CohortSpec {
  std::string name;
  std::string parent;  // spec.parentName; empty = root
  std::vector<ResourceGroupSpec> resource_groups;
  std::optional<double> fair_sharing_weight;
  SourceRef source;
};

// --- LocalQueue (§2.4), WorkloadPriorityClass (§2.5) ---------------------------------------------

struct LocalQueueSpec {
  std::string name_space;  // metadata.namespace
  std::string name;
  std::string cluster_queue;
  StopPolicy stop_policy = StopPolicy::kNone;
  SourceRef source;
};

struct PriorityClassSpec {
  std::string name;
  int32_t value = 0;
  std::string description;
  SourceRef source;
};

// --- Kueue Configuration, field `resources` (§3.3, §3.4) --------------------------------------

enum class TransformationStrategy : uint8_t { kRetain, kReplace };
const char* ToString(TransformationStrategy v);

struct ResourceTransformationSpec {
  std::string input;
  TransformationStrategy strategy = TransformationStrategy::kRetain;
  std::string multiply_by;  // empty = none
  // Output resource -> factor per unit of input, exact decimal (may be negative: an allowance).
  std::vector<std::pair<std::string, DecimalQuantity>> outputs;
};

enum class QuotaCheckStrategy : uint8_t { kBlockUndeclared, kIgnoreUndeclared };

struct ResourcesConfigSpec {
  std::vector<std::string> exclude_resource_prefixes;
  std::vector<ResourceTransformationSpec> transformations;
  QuotaCheckStrategy quota_check_strategy = QuotaCheckStrategy::kBlockUndeclared;
};

// Configuration waitForPodsReady (kueue-semantics.md §9.1). Kueue's v1beta2 defaulting turns it
// on (timeout 30 min); v1beta1 needs `enable: true`. Times in microseconds.
struct WaitForPodsReadySpec {
  bool enable = true;
  int64_t timeout = 30LL * 60 * 1'000'000;
  bool block_admission = false;
  bool requeue_by_eviction_time = true;        // requeuingStrategy.timestamp: Eviction (default)
  std::optional<int32_t> backoff_limit_count;  // nil: requeue forever
  int64_t backoff_base = 60LL * 1'000'000;
  int64_t backoff_max = 3600LL * 1'000'000;
};

struct ConfigurationSpec {
  bool present = false;
  ResourcesConfigSpec resources;
  WaitForPodsReadySpec wait_for_pods_ready;
  bool fair_sharing = false;  // `fairSharing` present (v1beta1: enable: true)
  // `featureGates`, then --feature-gates (engine/feature_gates.h). Kueue's defaults without either.
  FeatureGates feature_gates;
  SourceRef source;
};

// The quota check strategy in effect: the Configuration's resources.quotaCheckStrategy while gate
// QuotaCheckStrategy is on, else BlockUndeclared (Kueue
// pkg/scheduler/flavorassigner/flavorassigner.go).
QuotaCheckStrategy EffectiveQuotaCheck(const ConfigurationSpec& configuration);

}  // namespace engine
