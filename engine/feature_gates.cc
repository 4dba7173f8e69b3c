#include "engine/feature_gates.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace engine {
namespace {

using enum GateSupport;

// Kueue pkg/features/kube_features.go at ff69552e (defaultVersionedFeatureGates: the default of
// each gate's last versioned spec). Sorted by name (FindFeatureGate binary-searches).
constexpr std::array kGates = {
    FeatureGateInfo{"AdmissionFairSharing", true, kNotModelled,
                    "admission fair sharing (usage-based LocalQueue ordering) is not modelled"},
    FeatureGateInfo{"AdmissionGatedBy", true, kNotModelled,
                    "the admission-gate annotation is not read; every Workload is admissible"},
    FeatureGateInfo{"AssignQueueLabelsForPods", true, kNoEffect, ""},
    FeatureGateInfo{"CleanupProvisioningRequestsOnEviction", true, kNoEffect, ""},
    FeatureGateInfo{"ConcurrentAdmission", false, kNotModelled,
                    "concurrent-admission variants are not modelled"},
    FeatureGateInfo{"CustomMetricLabels", false, kNoEffect, ""},
    FeatureGateInfo{"DeferRayServiceFinalizationForRedisCleanup", true, kNoEffect, ""},
    FeatureGateInfo{"DisableWaitForPodsReady", false, kModelled, ""},
    FeatureGateInfo{"ElasticJobsViaWorkloadSlices", true, kNotModelled,
                    "workload slices are not modelled: every Workload is charged in full"},
    FeatureGateInfo{"ElasticJobsViaWorkloadSlicesWithTAS", false, kNotModelled,
                    "neither workload slices nor topology-aware scheduling are modelled"},
    FeatureGateInfo{"FailureRecoveryPolicy", false, kNoEffect, ""},
    FeatureGateInfo{"FairSharingPreemptWithinNominal", true, kNotModelled,
                    "fair-sharing preemption is not modelled"},
    FeatureGateInfo{"FairSharingPrioritizeNonBorrowing", true, kNotModelled,
                    "the fair-sharing admission tournament is not modelled"},
    FeatureGateInfo{"FastQuotaReleaseInPodIntegration", false, kNotModelled,
                    "quota is released when the whole Workload finishes"},
    FeatureGateInfo{"FinishOrphanedWorkloads", true, kNoEffect, ""},
    FeatureGateInfo{"FlavorFungibility", true, kNotModelled,
                    "flavor fungibility and the resumable flavor scan are always on"},
    FeatureGateInfo{"FlavorFungibilityPreserveScanProgress", true, kModelled, ""},
    FeatureGateInfo{"KueueDRAIntegration", true, kNotModelled,
                    "DRA resource claims are not read or charged"},
    FeatureGateInfo{"KueueDRAIntegrationConsumableCapacity", false, kNotModelled,
                    "DRA resource claims are not read or charged"},
    FeatureGateInfo{"KueueDRAIntegrationExtendedResource", true, kNotModelled,
                    "DRA resource claims are not read or charged"},
    FeatureGateInfo{"KueueDRAIntegrationPartitionableDevices", true, kNotModelled,
                    "DRA resource claims are not read or charged"},
    FeatureGateInfo{"KueueDRARejectWorkloadsWhenDRADisabled", true, kNoEffect, ""},
    FeatureGateInfo{"LWSImmutableGroupSize", true, kNoEffect, ""},
    FeatureGateInfo{"LocalQueueMetrics", true, kNoEffect, ""},
    FeatureGateInfo{"ManagedJobsNamespaceSelectorAlwaysRespected", true, kNoEffect, ""},
    FeatureGateInfo{"MetricForWorkloadCreationLatency", true, kNoEffect, ""},
    FeatureGateInfo{"MetricsForCohorts", true, kNoEffect, ""},
    FeatureGateInfo{"MultiKueue", true, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueAdaptersForCustomJobs", true, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueClusterProfile", false, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueIncrementalDispatcherConfig", true, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueIncrementalDispatcherRespectConfigOrder", true, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueKubeConfigPathValidation", true, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueManagerQuotaAutomation", false, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueOrchestratedPreemption", false, kNoEffect, ""},
    FeatureGateInfo{"MultiKueueRemoteSpecSync", true, kNoEffect, ""},
    FeatureGateInfo{"PartialAdmission", true, kModelled, ""},
    FeatureGateInfo{"PodIntegrationValidateGroupOwner", true, kNoEffect, ""},
    FeatureGateInfo{"PrioritizePreemptorWorkloads", false, kNotModelled,
                    "workloads pending preemption are not ordered first"},
    FeatureGateInfo{"PriorityBoost", false, kNotModelled, "priority boosts are not read"},
    FeatureGateInfo{"PrioritySortingWithinCohort", true, kNotModelled,
                    "entries are always ordered by priority within a cohort"},
    FeatureGateInfo{"QuotaCheckStrategy", true, kModelled, ""},
    FeatureGateInfo{"ReclaimablePods", true, kModelled, ""},
    FeatureGateInfo{"RecomputeAssignmentUponPreemptionTargetsOverlap", true, kNotModelled,
                    "an overlapping preemption is always recomputed"},
    FeatureGateInfo{"RejectUpdatesToCQWithInvalidOnFlavors", false, kNoEffect, ""},
    FeatureGateInfo{"RemoveFinalizersWithStrictPatch", true, kNoEffect, ""},
    FeatureGateInfo{"SchedulerLibraryIntegration", false, kNoEffect, ""},
    FeatureGateInfo{"SchedulingEquivalenceHashing", true, kNotModelled,
                    "scheduling equivalence hashing is always on"},
    FeatureGateInfo{"ShortWorkloadNames", false, kNoEffect, ""},
    FeatureGateInfo{"SkipAncestorCheckForDeletedWorkloads", true, kNoEffect, ""},
    FeatureGateInfo{"SkipReassignmentForPodOwnedWorkloads", true, kNoEffect, ""},
    FeatureGateInfo{"SparkApplicationIntegration", false, kNoEffect, ""},
    FeatureGateInfo{"TASAssignmentsEncodingByHostnamePrefix", true, kNoEffect, ""},
    FeatureGateInfo{"TASBalancedPlacement", false, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASCacheNodeMatchResults", true, kNoEffect, ""},
    FeatureGateInfo{"TASCacheTopologyTree", true, kNoEffect, ""},
    FeatureGateInfo{"TASCachingRemainingResources", true, kNoEffect, ""},
    FeatureGateInfo{"TASFailedNodeReplacement", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASFailedNodeReplacementFailFast", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASHandleOverlappingFlavors", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASMultiLayerTopology", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASProfileMixed", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASRecomputeAssignmentWithinSchedulingCycle", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASReplaceNodeDueToNotReadyOverFixedTime", false, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASReplaceNodeOnNodeTaints", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASReplaceNodeOnPodTermination", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASRespectNodeAffinityPreferred", false, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"TASValidateWorkloadSliceSize", true, kNoEffect, ""},
    FeatureGateInfo{"TLSOptions", true, kNoEffect, ""},
    FeatureGateInfo{"TopologyAwareScheduling", true, kNotModelled,
                    "topology-aware scheduling is not modelled"},
    FeatureGateInfo{"UnadmittedWorkloadsExplicitStatus", false, kNoEffect, ""},
    FeatureGateInfo{"UnadmittedWorkloadsObservability", true, kNoEffect, ""},
    FeatureGateInfo{"ValidateRayAndSparkJobUpdates", true, kNoEffect, ""},
    FeatureGateInfo{"VectorizedResourceRequests", true, kNoEffect, ""},
    FeatureGateInfo{"VisibilityOnDemand", true, kNoEffect, ""},
    FeatureGateInfo{"WorkloadIdentifierAnnotations", true, kNoEffect, ""},
    FeatureGateInfo{"WorkloadPriorityClassDefaulting", true, kNotModelled,
                    "no default WorkloadPriorityClass is applied"},
    FeatureGateInfo{"WorkloadRequestUseMergePatch", false, kNoEffect, ""},
    FeatureGateInfo{"WorkloadValidateResourcesAreNonNegative", true, kNoEffect, ""},
    FeatureGateInfo{"WorkloadValidationForPodSetMetadata", true, kNoEffect, ""},
};

}  // namespace

const char* ToString(GateSupport v) {
  switch (v) {
    case GateSupport::kModelled:
      return "modelled";
    case GateSupport::kNotModelled:
      return "not modelled";
    case GateSupport::kNoEffect:
      return "no effect on admission";
  }
  return "?";
}

std::span<const FeatureGateInfo> KnownFeatureGates() {
  return kGates;
}

const FeatureGateInfo* FindFeatureGate(std::string_view name) {
  auto it =
      std::lower_bound(kGates.begin(), kGates.end(), name,
                       [](const FeatureGateInfo& g, std::string_view n) { return g.name < n; });
  if (it == kGates.end() || it->name != name) {
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> GateWarning(std::string_view name, bool value) {
  const FeatureGateInfo* info = FindFeatureGate(name);
  if (info == nullptr || value == info->kueue_default) {
    return std::nullopt;
  }
  switch (info->support) {
    case GateSupport::kModelled:
      return std::nullopt;
    case GateSupport::kNotModelled:
      return fmt::format(
          "feature gate {}={} is not modelled by tally ({}); Kueue's default is {}: decisions may "
          "differ from Kueue's",
          name, value, info->note, info->kueue_default);
    case GateSupport::kNoEffect:
      return fmt::format(
          "feature gate {}={} is not modelled by tally; it changes no admission decision tally "
          "makes (Kueue's default: {})",
          name, value, info->kueue_default);
  }
  return std::nullopt;
}

Status FeatureGates::Set(std::string_view name, bool value, bool from_flag) {
  if (FindFeatureGate(name) == nullptr) {
    return InvalidArgument(fmt::format(
        "unrecognized feature gate: {} (tally knows the gates of Kueue ff69552e, about v0.20: "
        "docs/feature-gates.md)",
        name));
  }
  auto it = settings_.find(name);
  if (it == settings_.end()) {
    it = settings_.emplace(std::string(name), Setting{}).first;
  }
  it->second = Setting{value, from_flag};
  if (name == "ReclaimablePods") {
    reclaimable_pods_ = value;
  } else if (name == "PartialAdmission") {
    partial_admission_ = value;
  } else if (name == "FlavorFungibilityPreserveScanProgress") {
    preserve_scan_progress_ = value;
  } else if (name == "QuotaCheckStrategy") {
    quota_check_strategy_ = value;
  } else if (name == "DisableWaitForPodsReady") {
    disable_wait_for_pods_ready_ = value;
  }
  return Status::Ok();
}

bool FeatureGates::Enabled(std::string_view name) const {
  if (auto it = settings_.find(name); it != settings_.end()) {
    return it->second.value;
  }
  const FeatureGateInfo* info = FindFeatureGate(name);
  return info != nullptr && info->kueue_default;
}

bool ParseGoBool(std::string_view text, bool& out) {
  if (text == "1" || text == "t" || text == "T" || text == "TRUE" || text == "true"
      || text == "True") {
    out = true;
    return true;
  }
  if (text == "0" || text == "f" || text == "F" || text == "FALSE" || text == "false"
      || text == "False") {
    out = false;
    return true;
  }
  return false;
}

StatusOr<std::vector<std::pair<std::string, bool>>> ParseFeatureGateList(std::string_view text) {
  std::vector<std::pair<std::string, bool>> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') {
      item.remove_prefix(1);
    }
    while (!item.empty() && item.back() == ' ') {
      item.remove_suffix(1);
    }
    if (!item.empty()) {
      size_t eq = item.find('=');
      if (eq == std::string_view::npos) {
        return InvalidArgument(
            fmt::format("missing bool value for {} (expected Name=true|false)", item));
      }
      std::string_view name = item.substr(0, eq);
      bool value = false;
      if (!ParseGoBool(item.substr(eq + 1), value)) {
        return InvalidArgument(
            fmt::format("invalid value of {}: \"{}\", err: strconv.ParseBool: parsing \"{}\": "
                        "invalid syntax",
                        name, item.substr(eq + 1), item.substr(eq + 1)));
      }
      if (FindFeatureGate(name) == nullptr) {
        return InvalidArgument(fmt::format(
            "unrecognized feature gate: {} (tally knows the gates of Kueue ff69552e, about v0.20: "
            "docs/feature-gates.md)",
            name));
      }
      out.emplace_back(std::string(name), value);
    }
    start = end + 1;
  }
  return out;
}

}  // namespace engine
