#include "replay/io/manifest_fields.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "replay/io/field_values.h"
#include "replay/io/time_parse.h"

namespace replay::internal {
namespace {

using engine::FallbackFailurePolicy;
using engine::FallbackTrigger;
using engine::FungibilityPolicy;
using engine::FungibilityPreference;
using engine::PreemptionPolicy;
using engine::StopPolicy;

constexpr std::string_view kKueueV1beta1 = "kueue.x-k8s.io/v1beta1";
constexpr std::string_view kKueueV1alpha1 = "kueue.x-k8s.io/v1alpha1";

std::optional<double> ParseFairSharing(ObjectContext& ctx, const YAML::Node& spec) {
  std::optional<YAML::Node> fs = OptionalMap(ctx, spec, "fairSharing", "spec.fairSharing");
  if (!fs.has_value()) {
    return std::nullopt;
  }
  ctx.CheckKeys(*fs, "spec.fairSharing", {"weight"});
  return ctx.Weight(Get(*fs, "weight"), "spec.fairSharing.weight");
}

std::optional<StopPolicy> ParseStopPolicy(ObjectContext& ctx, const YAML::Node& spec) {
  return ctx.Enum<StopPolicy>(Get(spec, "stopPolicy"), "spec.stopPolicy",
                              {{"None", StopPolicy::kNone},
                               {"Hold", StopPolicy::kHold},
                               {"HoldAndDrain", StopPolicy::kHoldAndDrain}});
}

// --- resourceGroups (ClusterQueue and Cohort) ------------------------------------------------

void ParseResourceQuota(ObjectContext& ctx, const YAML::Node& node, const std::string& path,
                        const std::string& covered, engine::ResourceQuotaSpec& out) {
  ctx.CheckKeys(node, path, {"name", "nominalQuota", "borrowingLimit", "lendingLimit"});
  YAML::Node name = Get(node, "name");
  if (std::optional<std::string> s = ctx.String(name, Child(path, "name")); s.has_value()) {
    out.resource = std::move(*s);
  } else if (!Present(name)) {
    ctx.Error(node, Child(path, "name"), "Required value: resource name is required");
  }
  // Convert in the units of the named resource (or, when the name is missing, the covered one).
  const std::string& unit_resource = out.resource.empty() ? covered : out.resource;
  YAML::Node nominal = Get(node, "nominalQuota");
  if (!Present(nominal)) {
    ctx.Error(node, Child(path, "nominalQuota"), "Required value: nominalQuota is required");
  } else if (auto q = ctx.Quantity(nominal, Child(path, "nominalQuota"), unit_resource)) {
    out.nominal = *q;
  }
  out.borrowing_limit =
      ctx.Quantity(Get(node, "borrowingLimit"), Child(path, "borrowingLimit"), unit_resource);
  out.lending_limit =
      ctx.Quantity(Get(node, "lendingLimit"), Child(path, "lendingLimit"), unit_resource);
}

void ParseFlavorQuotas(ObjectContext& ctx, const YAML::Node& node, const std::string& path,
                       const std::vector<std::string>& covered, engine::FlavorQuotasSpec& out) {
  ctx.CheckKeys(node, path, {"name", "resources"});
  YAML::Node name = Get(node, "name");
  if (std::optional<std::string> s = ctx.String(name, Child(path, "name")); s.has_value()) {
    out.flavor = std::move(*s);
  } else if (!Present(name)) {
    ctx.Error(node, Child(path, "name"), "Required value: flavor name is required");
  }
  const std::string resources_path = Child(path, "resources");
  std::optional<YAML::Node> resources = OptionalSequence(ctx, node, "resources", resources_path);
  if (!resources.has_value()) {
    return;
  }
  for (size_t k = 0; k < resources->size(); ++k) {
    const YAML::Node item = (*resources)[k];
    const std::string item_path = Index(resources_path, k);
    if (!ctx.ExpectMap(item, item_path)) {
      out.resources.emplace_back();  // keeps later indices aligned with the YAML
      continue;
    }
    engine::ResourceQuotaSpec quota;
    ParseResourceQuota(ctx, item, item_path, k < covered.size() ? covered[k] : "", quota);
    out.resources.push_back(std::move(quota));
  }
}

std::vector<engine::ResourceGroupSpec> ParseResourceGroups(ObjectContext& ctx,
                                                           const YAML::Node& spec) {
  std::vector<engine::ResourceGroupSpec> groups;
  const std::string base = "spec.resourceGroups";
  std::optional<YAML::Node> list = OptionalSequence(ctx, spec, "resourceGroups", base);
  if (!list.has_value()) {
    return groups;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node group = (*list)[i];
    const std::string group_path = Index(base, i);
    if (!ctx.ExpectMap(group, group_path)) {
      groups.emplace_back();  // keeps later indices aligned with the YAML
      continue;
    }
    ctx.CheckKeys(group, group_path, {"coveredResources", "flavors"});
    engine::ResourceGroupSpec rg;
    rg.covered_resources =
        ctx.StringList(Get(group, "coveredResources"), Child(group_path, "coveredResources"))
            .value_or(std::vector<std::string>{});
    const std::string flavors_path = Child(group_path, "flavors");
    if (std::optional<YAML::Node> flavors = OptionalSequence(ctx, group, "flavors", flavors_path)) {
      for (size_t j = 0; j < flavors->size(); ++j) {
        const YAML::Node item = (*flavors)[j];
        const std::string item_path = Index(flavors_path, j);
        if (!ctx.ExpectMap(item, item_path)) {
          rg.flavors.emplace_back();  // keeps later indices aligned with the YAML
          continue;
        }
        engine::FlavorQuotasSpec fq;
        ParseFlavorQuotas(ctx, item, item_path, rg.covered_resources, fq);
        rg.flavors.push_back(std::move(fq));
      }
    }
    groups.push_back(std::move(rg));
  }
  return groups;
}

// --- ClusterQueue pieces ------------------------------------------------------------------------

engine::LabelSelector ParseSelector(ObjectContext& ctx, const YAML::Node& spec) {
  engine::LabelSelector sel;
  const std::string path = "spec.namespaceSelector";
  std::optional<YAML::Node> node = OptionalMap(ctx, spec, "namespaceSelector", path);
  if (!node.has_value()) {
    return sel;  // null: selects no namespace
  }
  sel.is_null = false;
  ctx.CheckKeys(*node, path, {"matchLabels", "matchExpressions"});
  sel.match_labels = ctx.StringMap(Get(*node, "matchLabels"), Child(path, "matchLabels"))
                         .value_or(std::map<std::string, std::string>{});
  const std::string exprs_path = Child(path, "matchExpressions");
  std::optional<YAML::Node> exprs = OptionalSequence(ctx, *node, "matchExpressions", exprs_path);
  if (!exprs.has_value()) {
    return sel;
  }
  for (size_t i = 0; i < exprs->size(); ++i) {
    const YAML::Node item = (*exprs)[i];
    const std::string item_path = Index(exprs_path, i);
    if (!ctx.ExpectMap(item, item_path)) {
      sel.match_expressions.emplace_back();  // keeps later indices aligned with the YAML
      continue;
    }
    ctx.CheckKeys(item, item_path, {"key", "operator", "values"});
    engine::LabelSelectorRequirement req;
    req.key = ctx.String(Get(item, "key"), Child(item_path, "key")).value_or("");
    req.op = ctx.String(Get(item, "operator"), Child(item_path, "operator")).value_or("");
    req.values = ctx.StringList(Get(item, "values"), Child(item_path, "values"))
                     .value_or(std::vector<std::string>{});
    sel.match_expressions.push_back(std::move(req));
  }
  return sel;
}

// One rule of spec.flavorFungibility.fallbackStrategy.rules. The timeout is a Go duration
// (`timeout: 10m`, canonical) or the seed's Go field `timeoutMinutes: 10`; giving both is
// ambiguous.
engine::FallbackRuleSpec ParseFallbackRule(ObjectContext& ctx, const YAML::Node& item,
                                           const std::string& item_path) {
  ctx.CheckKeys(item, item_path, {"name", "trigger", "timeout", "timeoutMinutes"});
  engine::FallbackRuleSpec rule;
  const YAML::Node name = Get(item, "name");
  if (!Present(name)) {
    ctx.Error(item, Child(item_path, "name"),
              "Required value: a rule names a ResourceFlavor or \"*\"");
  } else {
    rule.flavor = ctx.String(name, Child(item_path, "name")).value_or("");
  }
  rule.trigger =
      ctx.Enum<FallbackTrigger>(
             Get(item, "trigger"), Child(item_path, "trigger"),
             {{"TimeoutForPodsReadyExceeded", FallbackTrigger::kTimeoutForPodsReadyExceeded},
              {"AdmissionCheckRejected", FallbackTrigger::kAdmissionCheckRejected}})
          .value_or(FallbackTrigger::kTimeoutForPodsReadyExceeded);
  const YAML::Node timeout = Get(item, "timeout");
  const YAML::Node minutes = Get(item, "timeoutMinutes");
  if (Present(timeout) && Present(minutes)) {
    ctx.Error(minutes, Child(item_path, "timeoutMinutes"),
              "Invalid value: give either timeout or timeoutMinutes, not both");
    return rule;
  }
  std::optional<int64_t> micros;
  std::string timeout_path = Child(item_path, "timeout");
  if (Present(timeout)) {
    micros = DurationField(ctx, timeout, timeout_path);
  } else if (Present(minutes)) {
    timeout_path = Child(item_path, "timeoutMinutes");
    if (std::optional<int32_t> m = ctx.Int32(minutes, timeout_path)) {
      micros = int64_t{*m} * 60 * 1'000'000;
    }
  }
  if (micros.has_value() && *micros <= 0) {
    ctx.Error(Present(timeout) ? timeout : minutes, timeout_path,
              "Invalid value: the timeout must be positive (leave it out for no timeout)");
    micros.reset();
  }
  rule.timeout = micros;
  return rule;
}

// spec.flavorFungibility.fallbackStrategy (seed 002). The seed's YAML example spells it
// flavorFallbackStrategy; both are read, both at once is an error.
void ParseFallbackStrategy(ObjectContext& ctx, const YAML::Node& fungibility,
                           const std::string& fungibility_path,
                           std::optional<engine::FlavorFallbackSpec>& out) {
  const bool canonical = Present(Get(fungibility, "fallbackStrategy"));
  const bool seed_spelling = Present(Get(fungibility, "flavorFallbackStrategy"));
  if (canonical && seed_spelling) {
    ctx.Error(Get(fungibility, "flavorFallbackStrategy"),
              Child(fungibility_path, "flavorFallbackStrategy"),
              "Invalid value: give either fallbackStrategy or flavorFallbackStrategy, not both");
    return;
  }
  const std::string_view key = seed_spelling ? "flavorFallbackStrategy" : "fallbackStrategy";
  const std::string path = Child(fungibility_path, key);
  std::optional<YAML::Node> node = OptionalMap(ctx, fungibility, key, path);
  if (!node.has_value()) {
    return;
  }
  ctx.CheckKeys(*node, path, {"failurePolicy", "strategy", "rules"});
  engine::FlavorFallbackSpec spec;
  spec.failure_policy = ctx.Enum<FallbackFailurePolicy>(
                               Get(*node, "failurePolicy"), Child(path, "failurePolicy"),
                               {{"DeactivateWorkload", FallbackFailurePolicy::kDeactivateWorkload},
                                {"RetryAllFlavors", FallbackFailurePolicy::kRetryAllFlavors}})
                            .value_or(FallbackFailurePolicy::kDeactivateWorkload);
  // `strategy: TimeoutBased` appears in the seed's example; the trigger is per rule, so the only
  // accepted value changes nothing.
  (void)ctx.Enum<bool>(Get(*node, "strategy"), Child(path, "strategy"), {{"TimeoutBased", true}});
  const std::string rules_path = Child(path, "rules");
  if (std::optional<YAML::Node> rules = OptionalSequence(ctx, *node, "rules", rules_path)) {
    for (size_t i = 0; i < rules->size(); ++i) {
      const YAML::Node item = (*rules)[i];
      const std::string item_path = Index(rules_path, i);
      if (!ctx.ExpectMap(item, item_path)) {
        spec.rules.emplace_back();  // keeps later indices aligned with the YAML
        continue;
      }
      spec.rules.push_back(ParseFallbackRule(ctx, item, item_path));
    }
  }
  out = std::move(spec);
}

void ParseFungibility(ObjectContext& ctx, const YAML::Node& spec,
                      engine::FlavorFungibilitySpec& out) {
  const std::string path = "spec.flavorFungibility";
  std::optional<YAML::Node> node = OptionalMap(ctx, spec, "flavorFungibility", path);
  if (!node.has_value()) {
    return;
  }
  ctx.CheckKeys(*node, path,
                {"whenCanBorrow", "whenCanPreempt", "preference", "fallbackStrategy",
                 "flavorFallbackStrategy"});
  ParseFallbackStrategy(ctx, *node, path, out.fallback);
  const bool v1beta1 = ctx.api_version() == kKueueV1beta1;
  const auto may_stop = FungibilityPolicy::kMayStopSearch;
  const auto try_next = FungibilityPolicy::kTryNextFlavor;
  std::optional<FungibilityPolicy> borrow =
      v1beta1
          ? ctx.Enum<FungibilityPolicy>(
              Get(*node, "whenCanBorrow"), Child(path, "whenCanBorrow"),
              {{"MayStopSearch", may_stop}, {"TryNextFlavor", try_next}, {"Borrow", may_stop}})
          : ctx.Enum<FungibilityPolicy>(Get(*node, "whenCanBorrow"), Child(path, "whenCanBorrow"),
                                        {{"MayStopSearch", may_stop}, {"TryNextFlavor", try_next}});
  std::optional<FungibilityPolicy> preempt =
      v1beta1
          ? ctx.Enum<FungibilityPolicy>(
              Get(*node, "whenCanPreempt"), Child(path, "whenCanPreempt"),
              {{"MayStopSearch", may_stop}, {"TryNextFlavor", try_next}, {"Preempt", may_stop}})
          : ctx.Enum<FungibilityPolicy>(Get(*node, "whenCanPreempt"), Child(path, "whenCanPreempt"),
                                        {{"MayStopSearch", may_stop}, {"TryNextFlavor", try_next}});
  out.when_can_borrow = borrow.value_or(out.when_can_borrow);
  out.when_can_preempt = preempt.value_or(out.when_can_preempt);
  out.preference =
      ctx.Enum<FungibilityPreference>(
             Get(*node, "preference"), Child(path, "preference"),
             {{"BorrowingOverPreemption", FungibilityPreference::kBorrowingOverPreemption},
              {"PreemptionOverBorrowing", FungibilityPreference::kPreemptionOverBorrowing}})
          .value_or(FungibilityPreference::kUnset);
}

void ParsePreemption(ObjectContext& ctx, const YAML::Node& spec, engine::PreemptionSpec& out) {
  const std::string path = "spec.preemption";
  std::optional<YAML::Node> node = OptionalMap(ctx, spec, "preemption", path);
  if (!node.has_value()) {
    return;
  }
  ctx.CheckKeys(*node, path, {"reclaimWithinCohort", "withinClusterQueue", "borrowWithinCohort"});
  out.reclaim_within_cohort =
      ctx.Enum<PreemptionPolicy>(Get(*node, "reclaimWithinCohort"),
                                 Child(path, "reclaimWithinCohort"),
                                 {{"Never", PreemptionPolicy::kNever},
                                  {"LowerPriority", PreemptionPolicy::kLowerPriority},
                                  {"Any", PreemptionPolicy::kAny}})
          .value_or(PreemptionPolicy::kNever);
  out.within_cluster_queue =
      ctx.Enum<PreemptionPolicy>(
             Get(*node, "withinClusterQueue"), Child(path, "withinClusterQueue"),
             {{"Never", PreemptionPolicy::kNever},
              {"LowerPriority", PreemptionPolicy::kLowerPriority},
              {"LowerOrNewerEqualPriority", PreemptionPolicy::kLowerOrNewerEqualPriority}})
          .value_or(PreemptionPolicy::kNever);
  const std::string bwc_path = Child(path, "borrowWithinCohort");
  std::optional<YAML::Node> bwc = OptionalMap(ctx, *node, "borrowWithinCohort", bwc_path);
  if (!bwc.has_value()) {
    return;
  }
  ctx.CheckKeys(*bwc, bwc_path, {"policy", "maxPriorityThreshold"});
  out.borrow_within_cohort =
      ctx.Enum<PreemptionPolicy>(Get(*bwc, "policy"), Child(bwc_path, "policy"),
                                 {{"Never", PreemptionPolicy::kNever},
                                  {"LowerPriority", PreemptionPolicy::kLowerPriority}})
          .value_or(PreemptionPolicy::kNever);
  out.max_priority_threshold =
      ctx.Int32(Get(*bwc, "maxPriorityThreshold"), Child(bwc_path, "maxPriorityThreshold"));
}

void ParseAdmissionChecks(ObjectContext& ctx, const YAML::Node& spec,
                          std::vector<engine::AdmissionCheckRule>& out) {
  YAML::Node legacy = Get(spec, "admissionChecks");
  YAML::Node strategy = Get(spec, "admissionChecksStrategy");
  if (Present(legacy)) {
    if (ctx.api_version() != kKueueV1beta1) {
      ctx.Error(legacy, "spec.admissionChecks",
                fmt::format("field does not exist in {} (use spec.admissionChecksStrategy)",
                            ctx.api_version()));
    } else if (Present(strategy)) {
      ctx.Error(
          legacy, "spec.admissionChecks",
          "Forbidden: either admissionChecks or admissionChecksStrategy can be set, not both");
    } else if (auto names = ctx.StringList(legacy, "spec.admissionChecks")) {
      for (std::string& name : *names) {
        out.push_back(engine::AdmissionCheckRule{std::move(name), {}});
      }
    }
  }
  const std::string path = "spec.admissionChecksStrategy";
  std::optional<YAML::Node> node = OptionalMap(ctx, spec, "admissionChecksStrategy", path);
  if (!node.has_value()) {
    return;
  }
  ctx.CheckKeys(*node, path, {"admissionChecks"});
  const std::string list_path = Child(path, "admissionChecks");
  std::optional<YAML::Node> list = OptionalSequence(ctx, *node, "admissionChecks", list_path);
  if (!list.has_value()) {
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(list_path, i);
    if (!ctx.ExpectMap(item, item_path)) {
      out.emplace_back();  // keeps later indices aligned with the YAML
      continue;
    }
    ctx.CheckKeys(item, item_path, {"name", "onFlavors"});
    engine::AdmissionCheckRule rule;
    rule.name = ctx.String(Get(item, "name"), Child(item_path, "name")).value_or("");
    rule.on_flavors = ctx.StringList(Get(item, "onFlavors"), Child(item_path, "onFlavors"))
                          .value_or(std::vector<std::string>{});
    out.push_back(std::move(rule));
  }
}

// `wrong` is the other version's spelling of `right`: using it is an error, since Kueue would
// drop the field (or reject the object) and the meaning would be lost silently.
void CheckRenamedField(ObjectContext& ctx, const YAML::Node& spec, std::string_view wrong,
                       std::string_view right) {
  YAML::Node node = Get(spec, wrong);
  if (node.IsDefined()) {
    ctx.Error(node, Child("spec", wrong),
              fmt::format("field does not exist in {} (use spec.{})", ctx.api_version(), right));
  }
}

}  // namespace

std::optional<YAML::Node> OptionalMap(ObjectContext& ctx, const YAML::Node& parent,
                                      std::string_view key, const std::string& path) {
  YAML::Node node = Get(parent, key);
  if (!Present(node) || !ctx.ExpectMap(node, path)) {
    return std::nullopt;
  }
  return node;
}

std::optional<YAML::Node> OptionalSequence(ObjectContext& ctx, const YAML::Node& parent,
                                           std::string_view key, const std::string& path) {
  YAML::Node node = Get(parent, key);
  if (!Present(node) || !ctx.ExpectSequence(node, path)) {
    return std::nullopt;
  }
  return node;
}

std::optional<YAML::Node> SpecOf(ObjectContext& ctx, const YAML::Node& obj) {
  return OptionalMap(ctx, obj, "spec", "spec");
}

std::optional<Metadata> ParseMetadata(ObjectContext& ctx, const YAML::Node& obj, bool namespaced) {
  YAML::Node meta = Get(obj, "metadata");
  if (!Present(meta)) {
    ctx.Error(obj, "metadata.name", "Required value: metadata.name is required");
    return std::nullopt;
  }
  if (!ctx.ExpectMap(meta, "metadata")) {
    return std::nullopt;
  }
  Metadata out;
  const int errors_before = ctx.error_count();
  out.name = ctx.String(Get(meta, "name"), "metadata.name").value_or("");
  const bool name_reported = ctx.error_count() != errors_before;  // e.g. a map, not a string
  if (namespaced) {
    out.name_space = ctx.String(Get(meta, "namespace"), "metadata.namespace").value_or("default");
  }
  if (out.name.empty()) {
    if (!name_reported) {
      ctx.Error(meta, "metadata.name",
                Present(Get(meta, "generateName"))
                    ? "Required value: metadata.name is required (generateName is not supported)"
                    : "Required value: metadata.name is required");
    }
    return std::nullopt;
  }
  ctx.set_display_name(namespaced ? out.name_space + "/" + out.name : out.name);
  return out;
}

void CheckTopLevelKeys(ObjectContext& ctx, const YAML::Node& obj) {
  ctx.CheckKeys(obj, "", {"apiVersion", "kind", "metadata", "spec", "status"});
}

engine::Toleration ParseToleration(ObjectContext& ctx, const YAML::Node& item,
                                   const std::string& path) {
  ctx.CheckKeys(item, path, {"key", "operator", "value", "effect", "tolerationSeconds"});
  return engine::Toleration{
      ctx.String(Get(item, "key"), Child(path, "key")).value_or(""),
      ctx.String(Get(item, "operator"), Child(path, "operator")).value_or("Equal"),
      ctx.String(Get(item, "value"), Child(path, "value")).value_or(""),
      ctx.String(Get(item, "effect"), Child(path, "effect")).value_or("")};
}

bool ParseResourceFlavor(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::ResourceFlavorSpec rf;
  rf.name = meta->name;
  rf.source = ctx.source();
  if (std::optional<YAML::Node> s = SpecOf(ctx, obj)) {
    ctx.CheckKeys(*s, "spec", {"nodeLabels", "nodeTaints", "tolerations", "topologyName"});
    rf.node_labels = ctx.StringMap(Get(*s, "nodeLabels"), "spec.nodeLabels")
                         .value_or(std::map<std::string, std::string>{});
    rf.topology_name = ctx.String(Get(*s, "topologyName"), "spec.topologyName").value_or("");
    if (std::optional<YAML::Node> taints =
            OptionalSequence(ctx, *s, "nodeTaints", "spec.nodeTaints")) {
      for (size_t i = 0; i < taints->size(); ++i) {
        const YAML::Node item = (*taints)[i];
        const std::string path = Index("spec.nodeTaints", i);
        if (!ctx.ExpectMap(item, path)) {
          rf.node_taints.emplace_back();  // keeps later indices aligned with the YAML
          continue;
        }
        ctx.CheckKeys(item, path, {"key", "value", "effect", "timeAdded"});
        rf.node_taints.push_back(
            engine::Taint{ctx.String(Get(item, "key"), Child(path, "key")).value_or(""),
                          ctx.String(Get(item, "value"), Child(path, "value")).value_or(""),
                          ctx.String(Get(item, "effect"), Child(path, "effect")).value_or("")});
      }
    }
    if (std::optional<YAML::Node> tolerations =
            OptionalSequence(ctx, *s, "tolerations", "spec.tolerations")) {
      for (size_t i = 0; i < tolerations->size(); ++i) {
        const YAML::Node item = (*tolerations)[i];
        const std::string path = Index("spec.tolerations", i);
        if (!ctx.ExpectMap(item, path)) {
          rf.tolerations.emplace_back();  // keeps later indices aligned with the YAML
          continue;
        }
        rf.tolerations.push_back(ParseToleration(ctx, item, path));
      }
    }
  }
  spec.flavors.push_back(std::move(rf));
  return true;
}

bool ParseCohort(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::CohortSpec cohort;
  cohort.name = meta->name;
  cohort.source = ctx.source();
  if (std::optional<YAML::Node> s = SpecOf(ctx, obj)) {
    const bool v1alpha1 = ctx.api_version() == kKueueV1alpha1;
    ctx.CheckKeys(*s, "spec", {"parentName", "parent", "resourceGroups", "fairSharing"});
    cohort.parent = ctx.String(Get(*s, "parentName"), "spec.parentName").value_or("");
    if (v1alpha1 && cohort.parent.empty()) {
      cohort.parent = ctx.String(Get(*s, "parent"), "spec.parent").value_or("");
    } else if (!v1alpha1) {
      CheckRenamedField(ctx, *s, "parent", "parentName");
    }
    cohort.resource_groups = ParseResourceGroups(ctx, *s);
    cohort.fair_sharing_weight = ParseFairSharing(ctx, *s);
  }
  spec.cohorts.push_back(std::move(cohort));
  return true;
}

bool ParseClusterQueue(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::ClusterQueueSpec cq;
  cq.name = meta->name;
  cq.source = ctx.source();
  if (std::optional<YAML::Node> s = SpecOf(ctx, obj)) {
    ctx.CheckKeys(
        *s, "spec",
        {"resourceGroups", "cohort", "cohortName", "queueingStrategy", "namespaceSelector",
         "flavorFungibility", "preemption", "admissionChecks", "admissionChecksStrategy",
         "stopPolicy", "fairSharing", "admissionScope", "concurrentAdmissionPolicy"});
    if (ctx.api_version() == kKueueV1beta1) {
      cq.cohort = ctx.String(Get(*s, "cohort"), "spec.cohort").value_or("");
      CheckRenamedField(ctx, *s, "cohortName", "cohort");
    } else {
      cq.cohort = ctx.String(Get(*s, "cohortName"), "spec.cohortName").value_or("");
      CheckRenamedField(ctx, *s, "cohort", "cohortName");
    }
    cq.resource_groups = ParseResourceGroups(ctx, *s);
    cq.queueing_strategy = ctx.Enum<engine::QueueingStrategy>(
                                  Get(*s, "queueingStrategy"), "spec.queueingStrategy",
                                  {{"BestEffortFIFO", engine::QueueingStrategy::kBestEffortFifo},
                                   {"StrictFIFO", engine::QueueingStrategy::kStrictFifo}})
                               .value_or(engine::QueueingStrategy::kBestEffortFifo);
    cq.namespace_selector = ParseSelector(ctx, *s);
    ParseFungibility(ctx, *s, cq.flavor_fungibility);
    ParsePreemption(ctx, *s, cq.preemption);
    ParseAdmissionChecks(ctx, *s, cq.admission_checks);
    cq.stop_policy = ParseStopPolicy(ctx, *s).value_or(StopPolicy::kNone);
    cq.fair_sharing_weight = ParseFairSharing(ctx, *s);
  }
  spec.cluster_queues.push_back(std::move(cq));
  return true;
}

bool ParseLocalQueue(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/true);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::LocalQueueSpec lq;
  lq.name = meta->name;
  lq.name_space = meta->name_space;
  lq.source = ctx.source();
  if (std::optional<YAML::Node> s = SpecOf(ctx, obj)) {
    ctx.CheckKeys(*s, "spec", {"clusterQueue", "stopPolicy", "fairSharing"});
    lq.cluster_queue = ctx.String(Get(*s, "clusterQueue"), "spec.clusterQueue").value_or("");
    lq.stop_policy = ParseStopPolicy(ctx, *s).value_or(StopPolicy::kNone);
    // fairSharing.weight of a LocalQueue only matters to admission fair sharing: checked, dropped.
    (void)ParseFairSharing(ctx, *s);
  }
  spec.local_queues.push_back(std::move(lq));
  return true;
}

bool ParsePriorityClass(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  ctx.CheckKeys(obj, "", {"apiVersion", "kind", "metadata", "value", "description"});
  engine::PriorityClassSpec pc;
  pc.name = meta->name;
  pc.source = ctx.source();
  YAML::Node value = Get(obj, "value");
  if (!Present(value)) {
    ctx.Error(obj, "value", "Required value: value is required");
  } else {
    pc.value = ctx.Int32(value, "value").value_or(0);
  }
  pc.description = ctx.String(Get(obj, "description"), "description").value_or("");
  spec.priority_classes.push_back(std::move(pc));
  return true;
}

}  // namespace replay::internal
