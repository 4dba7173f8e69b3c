#include "engine/config_validation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "engine/k8s_names.h"

namespace engine {
namespace {

// Limits from Kueue's CRD schemas (clusterqueue_types.go, resourceflavor_types.go).
constexpr size_t kMaxResourceGroups = 16;
constexpr size_t kMaxCoveredResources = 64;
constexpr size_t kMaxFlavorsPerGroup = 64;
constexpr size_t kMaxFlavorsPerQueue = 256;  // across all resource groups
constexpr size_t kMaxFlavorDetails = 8;      // nodeLabels, nodeTaints, tolerations
// fairSharing.weight: "When not 0, Weight must be greater than 10^-9" (fairsharing_types.go).
constexpr double kMinNonZeroWeight = 1e-9;
std::string Quoted(std::string_view s) {
  return fmt::format("\"{}\"", s);
}

std::string Invalid(std::string_view value, std::string_view why) {
  return fmt::format("Invalid value: \"{}\": {}", value, why);
}

std::string Index(std::string_view path, size_t i) {
  return fmt::format("{}[{}]", path, i);
}

std::string Child(std::string_view path, std::string_view field) {
  return fmt::format("{}.{}", path, field);
}

struct QuotaRules {
  bool limits_allowed = false;          // borrowingLimit/lendingLimit may be set
  const char* limits_requirement = "";  // when they are forbidden, for the message
  bool lending_within_nominal = false;
};

class Validator {
 public:
  Validator(const ClusterSpec& spec, const ValidationLimits& limits)
      : spec_(spec), limits_(limits) {}

  std::vector<ValidationIssue> Run() {
    for (const ResourceFlavorSpec& rf : spec_.flavors) {
      flavor_names_.insert(rf.name);
    }
    for (const ClusterQueueSpec& cq : spec_.cluster_queues) {
      queue_names_.insert(cq.name);
    }
    for (const ResourceFlavorSpec& rf : spec_.flavors) {
      ValidateFlavor(rf);
    }
    for (const CohortSpec& cohort : spec_.cohorts) {
      ValidateCohort(cohort);
    }
    ValidateCohortCycles();
    for (const ClusterQueueSpec& cq : spec_.cluster_queues) {
      ValidateClusterQueue(cq);
    }
    for (const LocalQueueSpec& lq : spec_.local_queues) {
      ValidateLocalQueue(lq);
    }
    for (const PriorityClassSpec& pc : spec_.priority_classes) {
      ValidatePriorityClass(pc);
    }
    if (spec_.configuration.present) {
      ValidateConfiguration(spec_.configuration);
    }
    for (const ResourceClassSpec& rc : spec_.resource_classes) {
      CheckName(Object{rc.source, "ResourceClass", rc.name}, rc.name, rc.name);
    }
    for (const NodeSpec& node : spec_.nodes) {
      CheckName(Object{node.source, "Node", node.name}, node.name, node.name);
    }
    return std::move(issues_);
  }

 private:
  struct Object {
    const SourceRef& source;
    const char* kind;
    std::string name;
  };

  void Add(const Object& obj, std::string path, std::string message, bool warning) {
    issues_.push_back(ValidationIssue{obj.source, obj.kind, obj.name, std::move(path),
                                      std::move(message), warning});
  }
  void Error(const Object& obj, std::string path, std::string message) {
    Add(obj, std::move(path), std::move(message), /*warning=*/false);
  }
  void Warning(const Object& obj, std::string path, std::string message) {
    Add(obj, std::move(path), std::move(message), /*warning=*/true);
  }

  // metadata.name: required, a DNS subdomain, unique per kind (`key` is the uniqueness key).
  void CheckName(const Object& obj, const std::string& name, const std::string& key) {
    if (name.empty()) {
      Error(obj, "metadata.name", "Required value: name is required");
      return;
    }
    if (!IsDns1123Subdomain(name)) {
      Error(obj, "metadata.name", Invalid(name, kDns1123SubdomainRule));
    }
    auto [it, inserted] = first_seen_[obj.kind].emplace(key, &obj.source);
    if (!inserted) {
      Error(obj, "metadata.name",
            fmt::format("Duplicate value: {}: a {} with this name is already defined at {}",
                        Quoted(key), obj.kind, ToString(*it->second)));
    }
  }

  void CheckCount(const Object& obj, const std::string& path, size_t count, size_t max) {
    if (count > max) {
      Error(obj, path, fmt::format("Too many: {}: must have at most {} items", count, max));
    }
  }

  void CheckReference(const Object& obj, const std::string& path, const std::string& name) {
    if (!name.empty() && !IsDns1123Subdomain(name)) {
      Error(obj, path, Invalid(name, kDns1123SubdomainRule));
    }
  }

  void CheckResourceName(const Object& obj, const std::string& path, const std::string& name) {
    if (name.empty()) {
      Error(obj, path, "Required value: resource name is required");
    } else if (!IsQualifiedName(name)) {
      Error(obj, path, Invalid(name, kQualifiedNameRule));
    }
  }

  void CheckNonNegative(const Object& obj, const std::string& path, Quantity q,
                        const std::string& resource) {
    if (q < Quantity::Zero()) {
      Error(obj, path,
            fmt::format("Invalid value: {}: must be greater than or equal to 0",
                        Quoted(FormatAmount(q, resource))));
    }
  }

  void CheckWeight(const Object& obj, const std::optional<double>& weight) {
    if (!weight.has_value()) {
      return;
    }
    const std::string path = "spec.fairSharing.weight";
    if (*weight < 0) {
      Error(obj, path,
            fmt::format("Invalid value: \"{}\": must be greater than or equal to 0", *weight));
    } else if (*weight > 0 && *weight <= kMinNonZeroWeight) {
      Error(obj, path,
            fmt::format("Invalid value: \"{}\": must be 0 or greater than 1e-9", *weight));
    }
  }

  void ValidateFlavor(const ResourceFlavorSpec& rf) {
    const Object obj{rf.source, "ResourceFlavor", rf.name};
    CheckName(obj, rf.name, rf.name);
    CheckCount(obj, "spec.nodeLabels", rf.node_labels.size(), kMaxFlavorDetails);
    for (const auto& [key, value] : rf.node_labels) {
      if (!IsQualifiedName(key)) {
        Error(obj, "spec.nodeLabels", Invalid(key, kQualifiedNameRule));
      }
      if (!IsLabelValue(value)) {
        Error(obj, Child("spec.nodeLabels", key), Invalid(value, kLabelValueRule));
      }
    }
    CheckCount(obj, "spec.nodeTaints", rf.node_taints.size(), kMaxFlavorDetails);
    for (size_t i = 0; i < rf.node_taints.size(); ++i) {
      const Taint& taint = rf.node_taints[i];
      const std::string path = Index("spec.nodeTaints", i);
      if (!IsQualifiedName(taint.key)) {
        Error(obj, Child(path, "key"), Invalid(taint.key, kQualifiedNameRule));
      }
      if (taint.effect != "NoSchedule" && taint.effect != "PreferNoSchedule"
          && taint.effect != "NoExecute") {
        Error(obj, Child(path, "effect"),
              fmt::format("Unsupported value: {}: supported values: \"NoSchedule\", "
                          "\"PreferNoSchedule\", \"NoExecute\"",
                          Quoted(taint.effect)));
      }
    }
    CheckCount(obj, "spec.tolerations", rf.tolerations.size(), kMaxFlavorDetails);
    for (size_t i = 0; i < rf.tolerations.size(); ++i) {
      const Toleration& t = rf.tolerations[i];
      const std::string path = Index("spec.tolerations", i);
      if (t.op == "Exists" && !t.value.empty()) {
        Error(obj, Child(path, "operator"),
              "Invalid value: \"Exists\": value must be empty when `operator` is 'Exists'");
      } else if (t.op != "Exists" && t.op != "Equal" && t.op != "Lt" && t.op != "Gt") {
        Error(obj, Child(path, "operator"),
              fmt::format("Unsupported value: {}: supported values: \"Equal\", \"Exists\"",
                          Quoted(t.op)));
      }
      if (t.key.empty() && t.op != "Exists") {
        Error(obj, Child(path, "operator"),
              "Invalid value: operator must be Exists when `key` is empty");
      }
    }
  }

  void ValidateResourceGroups(const Object& obj, const std::vector<ResourceGroupSpec>& groups,
                              const QuotaRules& rules, bool warn_missing_flavors) {
    const std::string base = "spec.resourceGroups";
    CheckCount(obj, base, groups.size(), kMaxResourceGroups);
    size_t total_flavors = 0;
    for (const ResourceGroupSpec& rg : groups) {
      total_flavors += rg.flavors.size();
    }
    if (total_flavors > kMaxFlavorsPerQueue) {
      Error(obj, base,
            fmt::format("Too many: {} flavors across all resource groups: must have at most {}",
                        total_flavors, kMaxFlavorsPerQueue));
    }
    std::map<std::string, std::string> seen_resources;  // resource -> path where covered
    std::map<std::string, std::string> seen_flavors;    // flavor -> path where listed
    for (size_t i = 0; i < groups.size(); ++i) {
      const ResourceGroupSpec& rg = groups[i];
      const std::string group_path = Index(base, i);
      const std::string covered_path = Child(group_path, "coveredResources");
      if (rg.covered_resources.empty()) {
        Error(obj, covered_path, "Required value: must have at least 1 item");
      }
      CheckCount(obj, covered_path, rg.covered_resources.size(), kMaxCoveredResources);
      for (size_t j = 0; j < rg.covered_resources.size(); ++j) {
        const std::string& resource = rg.covered_resources[j];
        const std::string path = Index(covered_path, j);
        CheckResourceName(obj, path, resource);
        auto [it, inserted] = seen_resources.emplace(resource, path);
        if (!inserted) {
          Error(obj, path,
                fmt::format("Duplicate value: {}: already covered at {} (a resource can be in "
                            "one resource group only)",
                            Quoted(resource), it->second));
        }
      }
      const std::string flavors_path = Child(group_path, "flavors");
      if (rg.flavors.empty()) {
        Error(obj, flavors_path, "Required value: must have at least 1 item");
      }
      CheckCount(obj, flavors_path, rg.flavors.size(), kMaxFlavorsPerGroup);
      for (size_t j = 0; j < rg.flavors.size(); ++j) {
        ValidateFlavorQuotas(obj, rg, rg.flavors[j], Index(flavors_path, j), rules, seen_flavors,
                             warn_missing_flavors);
      }
    }
  }

  void ValidateFlavorQuotas(const Object& obj, const ResourceGroupSpec& rg,
                            const FlavorQuotasSpec& fq, const std::string& path,
                            const QuotaRules& rules, std::map<std::string, std::string>& seen,
                            bool warn_missing_flavor) {
    const std::string name_path = Child(path, "name");
    if (fq.flavor.empty()) {
      Error(obj, name_path, "Required value: flavor name is required");
    } else {
      CheckReference(obj, name_path, fq.flavor);
      auto [it, inserted] = seen.emplace(fq.flavor, name_path);
      if (!inserted) {
        Error(obj, name_path,
              fmt::format("Duplicate value: {}: already listed at {} (a flavor can be in one "
                          "resource group only)",
                          Quoted(fq.flavor), it->second));
      } else if (warn_missing_flavor && flavor_names_.count(fq.flavor) == 0) {
        Warning(obj, name_path,
                fmt::format("ResourceFlavor {} is not defined in the input: Kueue accepts the "
                            "ClusterQueue but keeps it inactive (FlavorNotFound)",
                            Quoted(fq.flavor)));
      }
    }
    const std::string resources_path = Child(path, "resources");
    if (fq.resources.size() != rg.covered_resources.size()) {
      Error(obj, resources_path,
            fmt::format("Invalid value: must have the same number of resources as the "
                        "coveredResources ({} listed, {} covered)",
                        fq.resources.size(), rg.covered_resources.size()));
    }
    for (size_t k = 0; k < fq.resources.size(); ++k) {
      const ResourceQuotaSpec& rq = fq.resources[k];
      const std::string rpath = Index(resources_path, k);
      if (k < rg.covered_resources.size() && rq.resource != rg.covered_resources[k]) {
        Error(obj, Child(rpath, "name"),
              fmt::format("Invalid value: {}: must match the name in coveredResources ({}): "
                          "flavors list the covered resources in the same order",
                          Quoted(rq.resource), Quoted(rg.covered_resources[k])));
      }
      CheckNonNegative(obj, Child(rpath, "nominalQuota"), rq.nominal, rq.resource);
      if (rq.borrowing_limit.has_value()) {
        const std::string bl_path = Child(rpath, "borrowingLimit");
        if (!rules.limits_allowed) {
          Error(obj, bl_path,
                fmt::format("Forbidden: borrowingLimit must be nil when {}",
                            rules.limits_requirement));
        }
        CheckNonNegative(obj, bl_path, *rq.borrowing_limit, rq.resource);
      }
      if (rq.lending_limit.has_value()) {
        const std::string ll_path = Child(rpath, "lendingLimit");
        if (!rules.limits_allowed) {
          Error(
              obj, ll_path,
              fmt::format("Forbidden: lendingLimit must be nil when {}", rules.limits_requirement));
        }
        CheckNonNegative(obj, ll_path, *rq.lending_limit, rq.resource);
        if (rules.lending_within_nominal && *rq.lending_limit > rq.nominal) {
          Error(obj, ll_path,
                fmt::format("Invalid value: {}: must be less than or equal to nominalQuota ({})",
                            Quoted(FormatAmount(*rq.lending_limit, rq.resource)),
                            FormatAmount(rq.nominal, rq.resource)));
        }
      }
    }
  }

  void ValidateSelector(const Object& obj, const std::string& path, const LabelSelector& sel) {
    if (sel.is_null) {
      return;
    }
    for (const auto& [key, value] : sel.match_labels) {
      const std::string label_path = Child(Child(path, "matchLabels"), key);
      if (!IsQualifiedName(key)) {
        Error(obj, label_path, Invalid(key, kQualifiedNameRule));
      }
      if (!IsLabelValue(value)) {
        Error(obj, label_path, Invalid(value, kLabelValueRule));
      }
    }
    for (size_t i = 0; i < sel.match_expressions.size(); ++i) {
      const LabelSelectorRequirement& req = sel.match_expressions[i];
      const std::string req_path = Index(Child(path, "matchExpressions"), i);
      if (!IsQualifiedName(req.key)) {
        Error(obj, Child(req_path, "key"), Invalid(req.key, kQualifiedNameRule));
      }
      if (req.op == "In" || req.op == "NotIn") {
        if (req.values.empty()) {
          Error(obj, Child(req_path, "values"),
                "Required value: must be specified when `operator` is 'In' or 'NotIn'");
        }
      } else if (req.op == "Exists" || req.op == "DoesNotExist") {
        if (!req.values.empty()) {
          Error(obj, Child(req_path, "values"),
                "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        }
      } else {
        Error(obj, Child(req_path, "operator"),
              fmt::format("Invalid value: {}: not a valid selector operator (want In, NotIn, "
                          "Exists or DoesNotExist)",
                          Quoted(req.op)));
      }
      for (size_t v = 0; v < req.values.size(); ++v) {
        if (!IsLabelValue(req.values[v])) {
          Error(obj, Index(Child(req_path, "values"), v), Invalid(req.values[v], kLabelValueRule));
        }
      }
    }
  }

  void ValidatePreemption(const Object& obj, const PreemptionSpec& p) {
    const std::string path = "spec.preemption";
    if (p.reclaim_within_cohort == PreemptionPolicy::kLowerOrNewerEqualPriority) {
      Error(obj, Child(path, "reclaimWithinCohort"),
            fmt::format("Unsupported value: {}: supported values: \"Never\", \"LowerPriority\", "
                        "\"Any\"",
                        Quoted(ToString(p.reclaim_within_cohort))));
    }
    if (p.within_cluster_queue == PreemptionPolicy::kAny) {
      Error(obj, Child(path, "withinClusterQueue"),
            fmt::format("Unsupported value: {}: supported values: \"Never\", \"LowerPriority\", "
                        "\"LowerOrNewerEqualPriority\"",
                        Quoted(ToString(p.within_cluster_queue))));
    }
    if (p.borrow_within_cohort != PreemptionPolicy::kNever
        && p.borrow_within_cohort != PreemptionPolicy::kLowerPriority) {
      Error(obj, Child(path, "borrowWithinCohort.policy"),
            fmt::format("Unsupported value: {}: supported values: \"Never\", \"LowerPriority\"",
                        Quoted(ToString(p.borrow_within_cohort))));
    }
    if (p.reclaim_within_cohort == PreemptionPolicy::kNever
        && p.borrow_within_cohort != PreemptionPolicy::kNever) {
      Error(obj, path,
            "Invalid value: reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never: "
            "preempting while borrowing requires reclaimWithinCohort LowerPriority or Any");
    }
  }

  // Seed 002: a rule names a flavor of this ClusterQueue (or "*"), once per trigger; only the
  // timeout trigger has a timeout (a rejection is immediate).
  void ValidateFallback(const Object& obj, const ClusterQueueSpec& cq,
                        const FlavorFallbackSpec& fallback) {
    std::vector<std::string> flavors;
    for (const ResourceGroupSpec& group : cq.resource_groups) {
      for (const FlavorQuotasSpec& fq : group.flavors) {
        flavors.push_back(fq.flavor);
      }
    }
    std::set<std::pair<std::string, FallbackTrigger>> seen;
    for (size_t i = 0; i < fallback.rules.size(); ++i) {
      const FallbackRuleSpec& rule = fallback.rules[i];
      const std::string path = Index("spec.flavorFungibility.fallbackStrategy.rules", i);
      if (rule.flavor.empty()) {
        continue;  // the reader reported the missing name
      }
      if (rule.flavor != "*"
          && std::find(flavors.begin(), flavors.end(), rule.flavor) == flavors.end()) {
        Error(obj, Child(path, "name"),
              fmt::format("Invalid value: {}: not a flavor of this ClusterQueue's resource groups "
                          "(flavors: {}; \"*\" means every flavor)",
                          Quoted(rule.flavor), fmt::join(flavors, ", ")));
      }
      if (!seen.emplace(rule.flavor, rule.trigger).second) {
        Error(obj, Child(path, "name"),
              fmt::format("Duplicate value: a second {} rule for {}", ToString(rule.trigger),
                          Quoted(rule.flavor)));
      }
      if (rule.trigger == FallbackTrigger::kAdmissionCheckRejected && rule.timeout.has_value()) {
        Error(obj, Child(path, "timeout"),
              "Forbidden: an AdmissionCheckRejected rule has no timeout (the rejection itself "
              "fails the flavor)");
      }
    }
  }

  void ValidateClusterQueue(const ClusterQueueSpec& cq) {
    const Object obj{cq.source, "ClusterQueue", cq.name};
    CheckName(obj, cq.name, cq.name);
    CheckReference(obj, "spec.cohortName", cq.cohort);
    const QuotaRules rules{!cq.cohort.empty(), "the ClusterQueue has no cohort",
                           /*lending_within_nominal=*/true};
    ValidateResourceGroups(obj, cq.resource_groups, rules, /*warn_missing_flavors=*/true);
    ValidateSelector(obj, "spec.namespaceSelector", cq.namespace_selector);
    const FlavorFungibilitySpec& ff = cq.flavor_fungibility;
    if (ff.preference != FungibilityPreference::kUnset
        && (ff.when_can_borrow != FungibilityPolicy::kTryNextFlavor
            || ff.when_can_preempt != FungibilityPolicy::kTryNextFlavor)) {
      Error(obj, "spec.flavorFungibility.preference",
            fmt::format("Forbidden: preference can only be set when both whenCanBorrow and "
                        "whenCanPreempt are TryNextFlavor (they are {} and {})",
                        ToString(ff.when_can_borrow), ToString(ff.when_can_preempt)));
    }
    if (ff.fallback.has_value()) {
      ValidateFallback(obj, cq, *ff.fallback);
    }
    ValidatePreemption(obj, cq.preemption);
    std::set<std::string> checks;
    for (size_t i = 0; i < cq.admission_checks.size(); ++i) {
      const AdmissionCheckRule& rule = cq.admission_checks[i];
      const std::string path = Index("spec.admissionChecksStrategy.admissionChecks", i);
      if (rule.name.empty()) {
        Error(obj, Child(path, "name"), "Required value: admission check name is required");
      } else if (!checks.insert(rule.name).second) {
        Error(obj, Child(path, "name"), fmt::format("Duplicate value: {}", Quoted(rule.name)));
      }
      for (size_t j = 0; j < rule.on_flavors.size(); ++j) {
        CheckReference(obj, Index(Child(path, "onFlavors"), j), rule.on_flavors[j]);
      }
    }
    CheckWeight(obj, cq.fair_sharing_weight);
  }

  void ValidateCohort(const CohortSpec& cohort) {
    const Object obj{cohort.source, "Cohort", cohort.name};
    CheckName(obj, cohort.name, cohort.name);
    CheckReference(obj, "spec.parentName", cohort.parent);
    if (!cohort.parent.empty() && cohort.parent == cohort.name) {
      Error(obj, "spec.parentName",
            fmt::format("Invalid value: {}: a Cohort cannot be its own parent",
                        Quoted(cohort.parent)));
    }
    const QuotaRules rules{!cohort.parent.empty(), "the Cohort has no parentName",
                           /*lending_within_nominal=*/false};
    ValidateResourceGroups(obj, cohort.resource_groups, rules, /*warn_missing_flavors=*/false);
    CheckWeight(obj, cohort.fair_sharing_weight);
  }

  // Kueue accepts a parent cycle but deactivates every member (and their ClusterQueues), so it
  // is a warning. Self-parenting is an error reported by ValidateCohort and skipped here.
  void ValidateCohortCycles() {
    std::map<std::string, const CohortSpec*> by_name;
    for (const CohortSpec& cohort : spec_.cohorts) {
      by_name.emplace(cohort.name, &cohort);
    }
    enum class Mark { kInProgress, kDone };
    std::map<std::string, Mark> marks;
    // Depth from the root (1 for a root), known once a chain is walked to a root or to a Cohort
    // whose depth is known; a Cohort in or below a cycle has none. Linear in the Cohorts.
    std::map<std::string, size_t> depths;
    for (const CohortSpec& start : spec_.cohorts) {
      std::vector<const CohortSpec*> chain;
      const CohortSpec* node = &start;
      while (node != nullptr && marks.count(node->name) == 0) {
        marks[node->name] = Mark::kInProgress;
        chain.push_back(node);
        if (node->parent.empty() || node->parent == node->name) {
          break;
        }
        auto it = by_name.find(node->parent);
        node = it == by_name.end() ? nullptr : it->second;
      }
      if (node != nullptr && !chain.empty() && node != chain.back()
          && marks[node->name] == Mark::kInProgress) {
        auto first = std::find(chain.begin(), chain.end(), node);
        std::string cycle;
        for (auto it = first; it != chain.end(); ++it) {
          cycle += (*it)->name + " -> ";
        }
        cycle += node->name;
        Warning(Object{node->source, "Cohort", node->name}, "spec.parentName",
                fmt::format("Cohort parent cycle ({}): Kueue accepts it but deactivates every "
                            "Cohort and ClusterQueue in the cycle",
                            cycle));
      }
      for (const CohortSpec* c : chain) {
        marks[c->name] = Mark::kDone;
      }
      // The depth below what the chain ended at: a root (the chain's last has no parent, or one
      // not defined: an implicit root one level up), or a Cohort walked before.
      if (chain.empty()
          || (node != nullptr && node != chain.back() && depths.count(node->name) == 0)) {
        continue;  // ends in a cycle: no depth
      }
      size_t depth = 0;
      if (node != nullptr && node != chain.back()) {
        depth = depths[node->name];
      } else if (!chain.back()->parent.empty() && chain.back()->parent != chain.back()->name) {
        depth = 1;  // a parent named but not defined: an implicit root
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        ++depth;
        depths[(*it)->name] = depth;
        if (depth == limits_.max_cohort_depth + 1) {
          Error(Object{(*it)->source, "Cohort", (*it)->name}, "spec.parentName",
                fmt::format("the Cohort tree is deeper than {} levels here (--max-cohort-depth): "
                            "every admission walks its ClusterQueue's path to the root",
                            limits_.max_cohort_depth));
        }
      }
    }
  }

  void ValidateLocalQueue(const LocalQueueSpec& lq) {
    const Object obj{lq.source, "LocalQueue", lq.name_space + "/" + lq.name};
    CheckName(obj, lq.name, obj.name);
    if (!lq.name_space.empty() && !IsDns1123Label(lq.name_space)) {
      Error(obj, "metadata.namespace", Invalid(lq.name_space, kDns1123LabelRule));
    }
    if (lq.cluster_queue.empty()) {
      Error(obj, "spec.clusterQueue", "Required value: a LocalQueue must name its ClusterQueue");
      return;
    }
    CheckReference(obj, "spec.clusterQueue", lq.cluster_queue);
    if (queue_names_.count(lq.cluster_queue) == 0) {
      Warning(obj, "spec.clusterQueue",
              fmt::format("ClusterQueue {} is not defined in the input: workloads submitted to "
                          "this LocalQueue stay pending",
                          Quoted(lq.cluster_queue)));
    }
  }

  void ValidatePriorityClass(const PriorityClassSpec& pc) {
    const Object obj{pc.source, "WorkloadPriorityClass", pc.name};
    CheckName(obj, pc.name, pc.name);
  }

  void ValidateConfiguration(const ConfigurationSpec& config) {
    const Object obj{config.source, "Configuration", ""};
    const ResourcesConfigSpec& res = config.resources;
    const std::string base = "resources.transformations";
    std::map<std::string, size_t> inputs;
    for (size_t i = 0; i < res.transformations.size(); ++i) {
      const ResourceTransformationSpec& t = res.transformations[i];
      const std::string path = Index(base, i);
      const std::string input_path = Child(path, "input");
      CheckResourceName(obj, input_path, t.input);
      auto [it, inserted] = inputs.emplace(t.input, i);
      if (!inserted) {
        Error(obj, input_path,
              fmt::format("Duplicate value: {}: already the input of {}", Quoted(t.input),
                          Index(base, it->second)));
      }
      for (size_t p = 0; p < res.exclude_resource_prefixes.size(); ++p) {
        const std::string& prefix = res.exclude_resource_prefixes[p];
        if (!t.input.empty() && t.input.starts_with(prefix)) {
          Error(obj, input_path,
                fmt::format("Invalid value: {}: matches resources.excludeResourcePrefixes[{}] "
                            "({}); excluded resources are dropped before transformations, so "
                            "this transformation would never apply",
                            Quoted(t.input), p, Quoted(prefix)));
          break;
        }
      }
      if (!t.multiply_by.empty()) {
        CheckResourceName(obj, Child(path, "multiplyBy"), t.multiply_by);
      }
      std::set<std::string> outputs;
      for (const auto& [output, factor] : t.outputs) {
        const std::string output_path = Child(Child(path, "outputs"), output);
        CheckResourceName(obj, output_path, output);
        if (!outputs.insert(output).second) {
          Error(obj, output_path, fmt::format("Duplicate value: {}", Quoted(output)));
        }
      }
    }
    if (res.quota_check_strategy == QuotaCheckStrategy::kIgnoreUndeclared
        && !res.exclude_resource_prefixes.empty()) {
      Error(
          obj, "resources.quotaCheckStrategy",
          "Forbidden: IgnoreUndeclared cannot be combined with resources.excludeResourcePrefixes");
    }
  }

  const ClusterSpec& spec_;
  const ValidationLimits& limits_;
  std::set<std::string> flavor_names_;
  std::set<std::string> queue_names_;
  std::map<std::string, std::map<std::string, const SourceRef*>> first_seen_;  // kind -> name ->
  std::vector<ValidationIssue> issues_;
};

}  // namespace

std::string ValidationIssue::ToString() const {
  std::string out = is_warning ? "warning: " : "";
  out += engine::ToString(source);
  out += ": ";
  out += kind;
  if (!name.empty()) {
    out += "/" + name;
  }
  if (!field_path.empty()) {
    out += ": " + field_path;
  }
  out += ": " + message;
  return out;
}

std::vector<ValidationIssue> ValidateClusterSpec(const ClusterSpec& spec,
                                                 const ValidationLimits& limits) {
  return Validator(spec, limits).Run();
}

bool HasErrors(const std::vector<ValidationIssue>& issues) {
  return std::any_of(issues.begin(), issues.end(),
                     [](const ValidationIssue& issue) { return !issue.is_warning; });
}

}  // namespace engine
