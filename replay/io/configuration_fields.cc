// Kueue's Configuration (config.kueue.x-k8s.io): the parts that change admission decisions,
// waitForPodsReady, fairSharing and the rest (replay/io/manifest_fields.h, ParseConfiguration).
#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "replay/io/field_values.h"
#include "replay/io/manifest_fields.h"
#include "replay/io/time_parse.h"

namespace replay::internal {

namespace {

constexpr std::string_view kConfigV1beta1 = "config.kueue.x-k8s.io/v1beta1";

}  // namespace

namespace {

void ParseWaitForPodsReady(const YAML::Node& obj, ObjectContext& ctx,
                           engine::ConfigurationSpec& config) {
  engine::WaitForPodsReadySpec& out = config.wait_for_pods_ready;
  out.enable = ctx.api_version() != kConfigV1beta1;
  const std::string path = "waitForPodsReady";
  std::optional<YAML::Node> w = OptionalMap(ctx, obj, "waitForPodsReady", path);
  if (!w.has_value()) {
    return;
  }
  ctx.CheckKeys(*w, path,
                {"enable", "timeout", "blockAdmission", "requeuingStrategy", "recoveryTimeout"});
  if (Present(Get(*w, "recoveryTimeout"))) {
    ctx.Warning(Get(*w, "recoveryTimeout"), Child(path, "recoveryTimeout"),
                "not modelled by tally: pods never turn not-ready once running in a replay");
  }
  out.enable = ctx.Bool(Get(*w, "enable"), Child(path, "enable")).value_or(true);
  out.timeout =
      DurationField(ctx, Get(*w, "timeout"), Child(path, "timeout")).value_or(out.timeout);
  out.block_admission =
      ctx.Bool(Get(*w, "blockAdmission"), Child(path, "blockAdmission")).value_or(false);
  const std::string rs_path = Child(path, "requeuingStrategy");
  std::optional<YAML::Node> rs = OptionalMap(ctx, *w, "requeuingStrategy", rs_path);
  if (!rs.has_value()) {
    return;
  }
  ctx.CheckKeys(*rs, rs_path,
                {"timestamp", "backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"});
  out.requeue_by_eviction_time = ctx.Enum<bool>(Get(*rs, "timestamp"), Child(rs_path, "timestamp"),
                                                {{"Eviction", true}, {"Creation", false}})
                                     .value_or(true);
  if (Present(Get(*rs, "backoffLimitCount"))) {
    out.backoff_limit_count =
        ctx.Int32(Get(*rs, "backoffLimitCount"), Child(rs_path, "backoffLimitCount"));
  }
  if (auto base = ctx.Int32(Get(*rs, "backoffBaseSeconds"), Child(rs_path, "backoffBaseSeconds"))) {
    out.backoff_base = int64_t{*base} * 1'000'000;
  }
  if (auto max = ctx.Int32(Get(*rs, "backoffMaxSeconds"), Child(rs_path, "backoffMaxSeconds"))) {
    out.backoff_max = int64_t{*max} * 1'000'000;
  }
}

// `featureGates` (a map name -> bool, Kueue pkg/features/kube_features.go names): an unknown
// name is an error, as Kueue's manager refuses to start; a gate tally does not model set to a
// value other than Kueue's default is a warning (docs/feature-gates.md).
void ParseFeatureGates(const YAML::Node& obj, ObjectContext& ctx,
                       engine::ConfigurationSpec& config) {
  const std::string path = "featureGates";
  std::optional<YAML::Node> gates = OptionalMap(ctx, obj, "featureGates", path);
  if (!gates.has_value()) {
    return;
  }
  for (auto it = gates->begin(); it != gates->end(); ++it) {
    if (!it->first.IsScalar()) {
      ctx.Error(it->first, path, "expected a feature gate name as key");
      continue;
    }
    const std::string& name = it->first.Scalar();
    const std::string gate_path = Child(path, name);
    std::optional<bool> value = ctx.Bool(it->second, gate_path);
    if (!value.has_value()) {
      continue;
    }
    if (engine::Status s = config.feature_gates.Set(name, *value, /*from_flag=*/false); !s.ok()) {
      ctx.Error(it->first, gate_path, s.message());
      continue;
    }
    if (std::optional<std::string> w = engine::GateWarning(name, *value)) {
      ctx.Warning(it->first, gate_path, *w);
    }
  }
}

// Settings Kueue reads that change admission and that tally does not model: a warning each, so
// that no figure silently ignores them.
void WarnNotModelled(const YAML::Node& obj, ObjectContext& ctx,
                     const engine::ConfigurationSpec& config) {
  if (config.fair_sharing) {
    ctx.Warning(Get(obj, "fairSharing"), "fairSharing",
                "not modelled by tally: only the flavor assigner's rule is (with fair sharing, a "
                "ClusterQueue whose reclaimWithinCohort is not Never may preempt while "
                "borrowing); the fair-sharing admission order (DRS tournament), fair-sharing "
                "preemption and preemptionStrategies are not, and preemption stays classical: "
                "decisions may differ from Kueue's");
  }
  if (Present(Get(obj, "admissionFairSharing"))) {
    ctx.Warning(Get(obj, "admissionFairSharing"), "admissionFairSharing",
                "not modelled by tally: LocalQueue usage does not order the queues; decisions may "
                "differ from Kueue's");
  }
  const YAML::Node res = Get(obj, "resources");
  if (Present(res) && res.IsMap() && Present(Get(res, "deviceClassMappings"))) {
    ctx.Warning(Get(res, "deviceClassMappings"), "resources.deviceClassMappings",
                "not modelled by tally: DRA device classes are not charged as quota");
  }
}

}  // namespace

bool ParseConfiguration(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  engine::ConfigurationSpec& config = spec.configuration;
  config = engine::ConfigurationSpec{};
  config.present = true;
  config.source = ctx.source();
  if (std::optional<YAML::Node> fs = OptionalMap(ctx, obj, "fairSharing", "fairSharing")) {
    if (ctx.api_version() == kConfigV1beta1) {
      config.fair_sharing = ctx.Bool(Get(*fs, "enable"), "fairSharing.enable").value_or(false);
    } else {
      config.fair_sharing = true;
      ctx.CheckKeys(*fs, "fairSharing", {"preemptionStrategies"});
    }
  }
  // Kueue apis/config/v1beta2/configuration_types.go (Configuration and the inline
  // ControllerManager; v1beta1 also queueVisibility). Only resources, fairSharing,
  // waitForPodsReady and featureGates change what tally models; the others configure the
  // manager, its integrations or MultiKueue, and no admission decision.
  ctx.CheckKeys(obj, "",
                {"apiVersion",
                 "kind",
                 "metadata",
                 "namespace",
                 "webhook",
                 "leaderElection",
                 "metrics",
                 "health",
                 "pprofBindAddress",
                 "controller",
                 "tls",
                 "manageJobsWithoutQueueName",
                 "managedJobsNamespaceSelector",
                 "internalCertManagement",
                 "waitForPodsReady",
                 "clientConnection",
                 "integrations",
                 "multiKueue",
                 "fairSharing",
                 "admissionFairSharing",
                 "resources",
                 "featureGates",
                 "objectRetentionPolicies",
                 "visibilityServer",
                 "queueVisibility"});
  ParseFeatureGates(obj, ctx, config);
  WarnNotModelled(obj, ctx, config);
  ParseWaitForPodsReady(obj, ctx, config);
  std::optional<YAML::Node> res = OptionalMap(ctx, obj, "resources", "resources");
  if (!res.has_value()) {
    return true;
  }
  engine::ResourcesConfigSpec& out = config.resources;
  ctx.CheckKeys(
      *res, "resources",
      {"excludeResourcePrefixes", "transformations", "quotaCheckStrategy", "deviceClassMappings"});
  out.exclude_resource_prefixes =
      ctx.StringList(Get(*res, "excludeResourcePrefixes"), "resources.excludeResourcePrefixes")
          .value_or(std::vector<std::string>{});
  out.quota_check_strategy =
      ctx.Enum<engine::QuotaCheckStrategy>(
             Get(*res, "quotaCheckStrategy"), "resources.quotaCheckStrategy",
             {{"BlockUndeclared", engine::QuotaCheckStrategy::kBlockUndeclared},
              {"IgnoreUndeclared", engine::QuotaCheckStrategy::kIgnoreUndeclared}})
          .value_or(engine::QuotaCheckStrategy::kBlockUndeclared);
  const std::string list_path = "resources.transformations";
  std::optional<YAML::Node> list = OptionalSequence(ctx, *res, "transformations", list_path);
  if (!list.has_value()) {
    return true;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string path = Index(list_path, i);
    if (!ctx.ExpectMap(item, path)) {
      out.transformations.emplace_back();  // keeps later indices aligned with the YAML
      continue;
    }
    ctx.CheckKeys(item, path, {"input", "strategy", "multiplyBy", "outputs"});
    engine::ResourceTransformationSpec t;
    t.input = ctx.String(Get(item, "input"), Child(path, "input")).value_or("");
    t.strategy = ctx.Enum<engine::TransformationStrategy>(
                        Get(item, "strategy"), Child(path, "strategy"),
                        {{"Retain", engine::TransformationStrategy::kRetain},
                         {"Replace", engine::TransformationStrategy::kReplace}})
                     .value_or(engine::TransformationStrategy::kRetain);
    t.multiply_by = ctx.String(Get(item, "multiplyBy"), Child(path, "multiplyBy")).value_or("");
    const std::string outputs_path = Child(path, "outputs");
    if (std::optional<YAML::Node> outputs = OptionalMap(ctx, item, "outputs", outputs_path)) {
      for (auto it = outputs->begin(); it != outputs->end(); ++it) {
        if (!it->first.IsScalar()) {
          ctx.Error(it->first, outputs_path, "expected a resource name as key");
          continue;
        }
        const std::string& name = it->first.Scalar();
        if (!Present(it->second)) {
          ctx.Error(it->first, Child(outputs_path, name), "Required value: a quantity is required");
        } else if (auto factor = ctx.Decimal(it->second, Child(outputs_path, name))) {
          t.outputs.emplace_back(name, *factor);
        }
      }
    }
    out.transformations.push_back(std::move(t));
  }
  return true;
}

}  // namespace replay::internal
