#include "replay/workload_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "engine/k8s_names.h"
#include "replay/manifest_fields.h"
#include "replay/time_parse.h"

namespace replay::internal {

constexpr std::string_view kWorkloadClassLabel = "tally.dev/class";
namespace {

constexpr std::string_view kKueueV1beta1 = "kueue.x-k8s.io/v1beta1";
constexpr std::string_view kWorkloadPriorityClassSource = "kueue.x-k8s.io/workloadpriorityclass";
constexpr std::string_view kPodPriorityClassSource = "scheduling.k8s.io/priorityclass";
constexpr std::string_view kMetadataNameLabel = "kubernetes.io/metadata.name";

std::string Quoted(std::string_view s) {
  return fmt::format("\"{}\"", s);
}

std::string Invalid(std::string_view value, std::string_view why) {
  return fmt::format("Invalid value: \"{}\": {}", value, why);
}

// A required string field: nullopt plus a "Required value" error when absent or empty.
std::optional<std::string> RequiredString(ObjectContext& ctx, const YAML::Node& map,
                                          std::string_view key, const std::string& path,
                                          std::string_view what) {
  YAML::Node node = Get(map, key);
  const int errors_before = ctx.error_count();
  std::optional<std::string> value = ctx.String(node, path);
  if (value.has_value() && !value->empty()) {
    return value;
  }
  if (ctx.error_count() == errors_before) {
    ctx.Error(Present(node) ? node : map, path, fmt::format("Required value: {}", what));
  }
  return std::nullopt;
}

// An RFC 3339 timestamp, as microseconds since the epoch.
std::optional<int64_t> Time(ObjectContext& ctx, const YAML::Node& node, const std::string& path) {
  std::optional<std::string> text = ctx.String(node, path);
  if (!text.has_value()) {
    return std::nullopt;
  }
  engine::StatusOr<int64_t> t = ParseRfc3339(*text);
  if (!t.ok()) {
    ctx.Error(node, path, t.status().message());
    return std::nullopt;
  }
  return *t;
}

// An int32 field that must be >= `min`.
std::optional<int32_t> Int32AtLeast(ObjectContext& ctx, const YAML::Node& node,
                                    const std::string& path, int32_t min) {
  std::optional<int32_t> value = ctx.Int32(node, path);
  if (value.has_value() && *value < min) {
    ctx.Error(node, path,
              fmt::format("Invalid value: {}: must be greater than or equal to {}", *value, min));
    return std::nullopt;
  }
  return value;
}

const engine::DecimalQuantity* FindResource(const engine::ResourceList& list,
                                            std::string_view name) {
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  return it != list.end() && it->first == name ? &it->second : nullptr;
}

// A Kubernetes ResourceList (resource name -> quantity) under `key`, as exact decimals kept
// sorted by name (engine/pod_requests.h).
engine::ResourceList ParseResourceList(ObjectContext& ctx, const YAML::Node& parent,
                                       std::string_view key, const std::string& path) {
  engine::ResourceList out;
  std::optional<YAML::Node> node = OptionalMap(ctx, parent, key, path);
  if (!node.has_value()) {
    return out;
  }
  for (auto it = node->begin(); it != node->end(); ++it) {
    if (!it->first.IsScalar()) {
      ctx.Error(it->first, path, "expected a resource name as key");
      continue;
    }
    const std::string& name = it->first.Scalar();
    const std::string item_path = Child(path, name);
    if (!Present(it->second)) {
      ctx.Error(it->first, item_path, "Required value: a quantity is required");
      continue;
    }
    std::optional<engine::DecimalQuantity> amount = ctx.Decimal(it->second, item_path);
    if (!amount.has_value()) {
      continue;
    }
    auto pos =
        std::lower_bound(out.begin(), out.end(), name,
                         [](const auto& entry, const std::string& n) { return entry.first < n; });
    if (pos != out.end() && pos->first == name) {
      ctx.Error(it->first, item_path,
                fmt::format("duplicate key \"{}\": Kubernetes rejects repeated fields", name));
      continue;
    }
    out.insert(pos, {name, *amount});
  }
  return out;
}

// requests and limits of a container (or of the pod, `spec.resources`).
void ParseRequirements(ObjectContext& ctx, const YAML::Node& parent, const std::string& path,
                       engine::ResourceList& requests, engine::ResourceList& limits) {
  std::optional<YAML::Node> res = OptionalMap(ctx, parent, "resources", path);
  if (!res.has_value()) {
    return;
  }
  ctx.CheckKeys(*res, path, {"requests", "limits", "claims"});
  requests = ParseResourceList(ctx, *res, "requests", Child(path, "requests"));
  limits = ParseResourceList(ctx, *res, "limits", Child(path, "limits"));
}

std::vector<engine::ContainerResources> ParseContainers(ObjectContext& ctx,
                                                        const YAML::Node& pod_spec,
                                                        std::string_view key,
                                                        const std::string& path, bool init) {
  std::vector<engine::ContainerResources> out;
  std::optional<YAML::Node> list = OptionalSequence(ctx, pod_spec, key, path);
  if (!list.has_value()) {
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    engine::ContainerResources c;
    if (!ctx.ExpectMap(item, item_path)) {
      out.push_back(std::move(c));  // keeps later indices aligned with the YAML
      continue;
    }
    const std::string res_path = Child(item_path, "resources");
    ParseRequirements(ctx, item, res_path, c.requests, c.limits);
    if (FindResource(c.requests, "pods") != nullptr) {
      const std::string pods_path = Child(Child(res_path, "requests"), "pods");
      ctx.Error(Get(Get(Get(item, "resources"), "requests"), "pods"), pods_path,
                Invalid("pods", "the key is reserved for internal kueue use"));
    }
    if (init) {
      c.restartable_sidecar = ctx.Enum<bool>(Get(item, "restartPolicy"),
                                             Child(item_path, "restartPolicy"), {{"Always", true}})
                                  .value_or(false);
    }
    out.push_back(std::move(c));
  }
  return out;
}

// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.
std::vector<engine::NodeSelectorTerm> ParseRequiredAffinity(ObjectContext& ctx,
                                                            const YAML::Node& pod_spec,
                                                            const std::string& spec_path) {
  std::vector<engine::NodeSelectorTerm> terms;
  const std::string affinity_path = Child(spec_path, "affinity");
  std::optional<YAML::Node> affinity = OptionalMap(ctx, pod_spec, "affinity", affinity_path);
  if (!affinity.has_value()) {
    return terms;
  }
  ctx.CheckKeys(*affinity, affinity_path, {"nodeAffinity", "podAffinity", "podAntiAffinity"});
  const std::string node_path = Child(affinity_path, "nodeAffinity");
  std::optional<YAML::Node> node_affinity = OptionalMap(ctx, *affinity, "nodeAffinity", node_path);
  if (!node_affinity.has_value()) {
    return terms;
  }
  ctx.CheckKeys(*node_affinity, node_path,
                {"requiredDuringSchedulingIgnoredDuringExecution",
                 "preferredDuringSchedulingIgnoredDuringExecution"});
  const std::string required_path =
      Child(node_path, "requiredDuringSchedulingIgnoredDuringExecution");
  std::optional<YAML::Node> required = OptionalMap(
      ctx, *node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", required_path);
  if (!required.has_value()) {
    return terms;
  }
  ctx.CheckKeys(*required, required_path, {"nodeSelectorTerms"});
  const std::string terms_path = Child(required_path, "nodeSelectorTerms");
  std::optional<YAML::Node> list =
      OptionalSequence(ctx, *required, "nodeSelectorTerms", terms_path);
  if (!list.has_value()) {
    return terms;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string term_path = Index(terms_path, i);
    engine::NodeSelectorTerm term;
    if (!ctx.ExpectMap(item, term_path)) {
      terms.push_back(std::move(term));  // keeps later indices aligned with the YAML
      continue;
    }
    ctx.CheckKeys(item, term_path, {"matchExpressions", "matchFields"});
    const std::string exprs_path = Child(term_path, "matchExpressions");
    if (std::optional<YAML::Node> exprs =
            OptionalSequence(ctx, item, "matchExpressions", exprs_path)) {
      for (size_t j = 0; j < exprs->size(); ++j) {
        const YAML::Node expr = (*exprs)[j];
        const std::string expr_path = Index(exprs_path, j);
        engine::NodeSelectorRequirement req;
        if (!ctx.ExpectMap(expr, expr_path)) {
          term.match_expressions.push_back(std::move(req));
          continue;
        }
        ctx.CheckKeys(expr, expr_path, {"key", "operator", "values"});
        req.key = RequiredString(ctx, expr, "key", Child(expr_path, "key"), "key is required")
                      .value_or("");
        const std::string op_path = Child(expr_path, "operator");
        if (!Present(Get(expr, "operator"))) {
          ctx.Error(expr, op_path, "Required value: operator is required");
        }
        req.op = std::string(ctx.Enum<std::string_view>(Get(expr, "operator"), op_path,
                                                        {{"In", "In"},
                                                         {"NotIn", "NotIn"},
                                                         {"Exists", "Exists"},
                                                         {"DoesNotExist", "DoesNotExist"},
                                                         {"Gt", "Gt"},
                                                         {"Lt", "Lt"}})
                                 .value_or(""));
        req.values = ctx.StringList(Get(expr, "values"), Child(expr_path, "values"))
                         .value_or(std::vector<std::string>{});
        term.match_expressions.push_back(std::move(req));
      }
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

std::vector<engine::Toleration> ParsePodTolerations(ObjectContext& ctx, const YAML::Node& pod_spec,
                                                    const std::string& path) {
  std::vector<engine::Toleration> out;
  std::optional<YAML::Node> list = OptionalSequence(ctx, pod_spec, "tolerations", path);
  if (!list.has_value()) {
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    if (!ctx.ExpectMap(item, item_path)) {
      out.emplace_back();  // keeps later indices aligned with the YAML
      continue;
    }
    engine::Toleration t = ParseToleration(ctx, item, item_path);
    if (t.op != "Equal" && t.op != "Exists") {
      ctx.Error(Get(item, "operator"), Child(item_path, "operator"),
                fmt::format("Unsupported value: {}: supported values: \"Equal\", \"Exists\"",
                            Quoted(t.op)));
    }
    if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule"
        && t.effect != "NoExecute") {
      ctx.Error(Get(item, "effect"), Child(item_path, "effect"),
                fmt::format("Unsupported value: {}: supported values: \"NoSchedule\", "
                            "\"PreferNoSchedule\", \"NoExecute\"",
                            Quoted(t.effect)));
    }
    out.push_back(std::move(t));
  }
  return out;
}

// One spec.podSets[i].
void ParsePodSet(ObjectContext& ctx, const YAML::Node& item, const std::string& path,
                 engine::PodSetSpec& ps) {
  ctx.CheckKeys(item, path, {"name", "template", "count", "minCount", "topologyRequest"});
  const std::string name_path = Child(path, "name");
  YAML::Node name = Get(item, "name");
  ps.name = ctx.String(name, name_path).value_or("main");
  if (Present(name) && !engine::IsDns1123Label(ps.name)) {
    ctx.Error(name, name_path, Invalid(ps.name, engine::kDns1123LabelRule));
  }
  ps.count = Int32AtLeast(ctx, Get(item, "count"), Child(path, "count"), 0).value_or(1);
  YAML::Node min_count = Get(item, "minCount");
  ps.min_count = Int32AtLeast(ctx, min_count, Child(path, "minCount"), 1);
  if (ps.min_count.has_value() && *ps.min_count > ps.count) {
    ctx.Error(min_count, Child(path, "minCount"),
              fmt::format("Invalid value: {}: minCount should be positive and less or equal to "
                          "count ({})",
                          *ps.min_count, ps.count));
  }

  const std::string template_path = Child(path, "template");
  YAML::Node tmpl = Get(item, "template");
  if (!Present(tmpl)) {
    ctx.Error(item, template_path, "Required value: a pod set needs a pod template");
    return;
  }
  if (!ctx.ExpectMap(tmpl, template_path)) {
    return;
  }
  ctx.CheckKeys(tmpl, template_path, {"metadata", "spec"});
  const std::string spec_path = Child(template_path, "spec");
  YAML::Node pod = Get(tmpl, "spec");
  if (!Present(pod)) {
    ctx.Error(tmpl, spec_path, "Required value: the pod template needs a spec with containers");
    return;
  }
  if (!ctx.ExpectMap(pod, spec_path)) {
    return;
  }
  // A pod spec has many more fields; only those that matter to admission are read, and the
  // others are not reported.
  const std::string containers_path = Child(spec_path, "containers");
  if (!Present(Get(pod, "containers"))) {
    ctx.Error(pod, containers_path, "Required value: the pod template needs containers");
  }
  ps.resources.containers = ParseContainers(ctx, pod, "containers", containers_path, false);
  ps.resources.init_containers =
      ParseContainers(ctx, pod, "initContainers", Child(spec_path, "initContainers"), true);
  ps.resources.overhead = ParseResourceList(ctx, pod, "overhead", Child(spec_path, "overhead"));
  ParseRequirements(ctx, pod, Child(spec_path, "resources"), ps.resources.pod_requests,
                    ps.resources.pod_limits);
  ps.node_selector = ctx.StringMap(Get(pod, "nodeSelector"), Child(spec_path, "nodeSelector"))
                         .value_or(std::map<std::string, std::string>{});
  ps.required_affinity = ParseRequiredAffinity(ctx, pod, spec_path);
  ps.tolerations = ParsePodTolerations(ctx, pod, Child(spec_path, "tolerations"));
  ps.priority_class_name =
      ctx.String(Get(pod, "priorityClassName"), Child(spec_path, "priorityClassName")).value_or("");
}

// spec.podSets, with the checks across pod sets.
void ParsePodSets(ObjectContext& ctx, const YAML::Node& spec, engine::WorkloadSpec& wl) {
  const std::string path = "spec.podSets";
  YAML::Node node = Get(spec, "podSets");
  if (!Present(node)) {
    ctx.Error(spec, path, "Required value: a Workload needs at least one pod set");
    return;
  }
  if (!ctx.ExpectSequence(node, path)) {
    return;
  }
  if (node.size() == 0) {
    ctx.Error(node, path, "Required value: a Workload needs at least one pod set");
    return;
  }
  if (node.size() > kMaxPodSets) {
    ctx.Error(node, path,
              fmt::format("Too many: {}: must have at most {} items", node.size(), kMaxPodSets));
  }
  std::map<std::string, size_t> seen;
  size_t with_min_count = 0;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const std::string item_path = Index(path, i);
    engine::PodSetSpec ps;
    if (!ctx.ExpectMap(item, item_path)) {
      wl.pod_sets.push_back(std::move(ps));  // keeps later indices aligned with the YAML
      continue;
    }
    ParsePodSet(ctx, item, item_path, ps);
    auto [it, inserted] = seen.emplace(ps.name, i);
    if (!inserted) {
      YAML::Node name = Get(item, "name");
      ctx.Error(Present(name) ? name : item, Child(item_path, "name"),
                fmt::format("Duplicate value: {}: already the name of {}", Quoted(ps.name),
                            Index(path, it->second)));
    }
    with_min_count += ps.min_count.has_value() ? 1 : 0;
    wl.pod_sets.push_back(std::move(ps));
  }
  if (with_min_count > 1) {
    ctx.Error(
        node, path,
        fmt::format("Invalid value: {}: at most one podSet can use minCount", with_min_count));
  }
}

// The priority class: v1beta2 spec.priorityClassRef, v1beta1 spec.priorityClassName and
// spec.priorityClassSource. Either spelling in the other version is an error.
void ParsePriorityClassReference(ObjectContext& ctx, const YAML::Node& spec,
                                 engine::WorkloadSpec& wl) {
  const bool v1beta1 = ctx.api_version() == kKueueV1beta1;
  if (v1beta1) {
    if (YAML::Node ref = Get(spec, "priorityClassRef"); ref.IsDefined()) {
      ctx.Error(ref, "spec.priorityClassRef",
                fmt::format("field does not exist in {} (use spec.priorityClassName and "
                            "spec.priorityClassSource)",
                            ctx.api_version()));
    }
    YAML::Node name = Get(spec, "priorityClassName");
    wl.priority_class_name = ctx.String(name, "spec.priorityClassName").value_or("");
    if (!wl.priority_class_name.empty() && !engine::IsDns1123Subdomain(wl.priority_class_name)) {
      ctx.Error(name, "spec.priorityClassName",
                Invalid(wl.priority_class_name, engine::kDns1123SubdomainRule));
    }
    const std::string source = std::string(
        ctx.Enum<std::string_view>(Get(spec, "priorityClassSource"), "spec.priorityClassSource",
                                   {{kWorkloadPriorityClassSource, kWorkloadPriorityClassSource},
                                    {kPodPriorityClassSource, kPodPriorityClassSource},
                                    {"", ""}})
            .value_or(""));
    if (!wl.priority_class_name.empty()) {
      wl.priority_class_kind =
          source == kWorkloadPriorityClassSource ? "WorkloadPriorityClass" : "PriorityClass";
    }
    return;
  }
  for (std::string_view field : {"priorityClassName", "priorityClassSource"}) {
    if (YAML::Node old = Get(spec, field); old.IsDefined()) {
      ctx.Error(
          old, Child("spec", field),
          fmt::format("field does not exist in {} (use spec.priorityClassRef)", ctx.api_version()));
    }
  }
  const std::string path = "spec.priorityClassRef";
  std::optional<YAML::Node> ref = OptionalMap(ctx, spec, "priorityClassRef", path);
  if (!ref.has_value()) {
    return;
  }
  ctx.CheckKeys(*ref, path, {"group", "kind", "name"});
  const std::string group_path = Child(path, "group");
  const std::string kind_path = Child(path, "kind");
  std::optional<std::string_view> group;
  std::optional<std::string_view> kind;
  if (!Present(Get(*ref, "group"))) {
    ctx.Error(*ref, group_path, "Required value: group is required");
  } else {
    group = ctx.Enum<std::string_view>(
        Get(*ref, "group"), group_path,
        {{"kueue.x-k8s.io", "kueue.x-k8s.io"}, {"scheduling.k8s.io", "scheduling.k8s.io"}});
  }
  if (!Present(Get(*ref, "kind"))) {
    ctx.Error(*ref, kind_path, "Required value: kind is required");
  } else {
    kind = ctx.Enum<std::string_view>(
        Get(*ref, "kind"), kind_path,
        {{"WorkloadPriorityClass", "WorkloadPriorityClass"}, {"PriorityClass", "PriorityClass"}});
  }
  if (group.has_value() && kind.has_value()) {
    if (*group == "scheduling.k8s.io" && *kind != "PriorityClass") {
      ctx.Error(Get(*ref, "kind"), kind_path,
                "Invalid value: only the PriorityClass kind is allowed for the scheduling.k8s.io "
                "group");
    } else if (*group == "kueue.x-k8s.io" && *kind != "WorkloadPriorityClass") {
      ctx.Error(Get(*ref, "kind"), kind_path,
                "Invalid value: only the WorkloadPriorityClass kind is allowed for the "
                "kueue.x-k8s.io group");
    }
  }
  const std::string name_path = Child(path, "name");
  wl.priority_class_name =
      RequiredString(ctx, *ref, "name", name_path, "name is required").value_or("");
  if (!wl.priority_class_name.empty() && !engine::IsDns1123Subdomain(wl.priority_class_name)) {
    ctx.Error(Get(*ref, "name"), name_path,
              Invalid(wl.priority_class_name, engine::kDns1123SubdomainRule));
  }
  wl.priority_class_kind = std::string(
      kind.value_or(group == "scheduling.k8s.io" ? "PriorityClass" : "WorkloadPriorityClass"));
}

struct ParsedCondition {
  engine::ConditionSpec spec;
  bool is_false = false;  // status "False" (spec.status is also false for "Unknown")
};

// status.conditions (metav1.Condition): type and status required, one condition per type;
// reason and lastTransitionTime read when present.
std::vector<ParsedCondition> ParseConditions(ObjectContext& ctx, const YAML::Node& status,
                                             const std::string& path) {
  std::vector<ParsedCondition> out;
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "conditions", path);
  if (!list.has_value()) {
    return out;
  }
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    if (!ctx.ExpectMap(item, item_path)) {
      continue;
    }
    ctx.CheckKeys(
        item, item_path,
        {"type", "status", "reason", "message", "lastTransitionTime", "observedGeneration"});
    ParsedCondition c;
    const std::string type_path = Child(item_path, "type");
    c.spec.type = RequiredString(ctx, item, "type", type_path, "type is required").value_or("");
    const std::string status_path = Child(item_path, "status");
    if (!Present(Get(item, "status"))) {
      ctx.Error(item, status_path, "Required value: status is required");
    }
    // Unquoted True / False are YAML booleans but read as the same strings here.
    enum class Status : uint8_t { kTrue, kFalse, kUnknown };
    const std::optional<Status> value = ctx.Enum<Status>(
        Get(item, "status"), status_path,
        {{"True", Status::kTrue}, {"False", Status::kFalse}, {"Unknown", Status::kUnknown}});
    c.spec.status = value == Status::kTrue;
    c.is_false = value == Status::kFalse;
    c.spec.reason = ctx.String(Get(item, "reason"), Child(item_path, "reason")).value_or("");
    c.spec.last_transition =
        Time(ctx, Get(item, "lastTransitionTime"), Child(item_path, "lastTransitionTime"))
            .value_or(0);
    if (c.spec.type.empty()) {
      continue;
    }
    auto [it, inserted] = seen.emplace(c.spec.type, i);
    if (!inserted) {
      ctx.Error(Get(item, "type"), type_path,
                fmt::format("Duplicate value: {}: already the type of {}", Quoted(c.spec.type),
                            Index(path, it->second)));
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

// status.admission; `pod_set_counts` are the spec's pod sets (name -> count).
std::optional<engine::AdmissionSpec> ParseAdmission(
    ObjectContext& ctx, const YAML::Node& node, const std::string& path,
    const std::map<std::string, int32_t>& pod_set_counts) {
  ctx.CheckKeys(node, path, {"clusterQueue", "podSetAssignments"});
  engine::AdmissionSpec admission;
  admission.cluster_queue =
      RequiredString(ctx, node, "clusterQueue", Child(path, "clusterQueue"),
                     "the ClusterQueue that admitted the Workload is required")
          .value_or("");
  const std::string list_path = Child(path, "podSetAssignments");
  std::optional<YAML::Node> list = OptionalSequence(ctx, node, "podSetAssignments", list_path);
  if (!list.has_value()) {
    return admission;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(list_path, i);
    engine::PodSetAssignmentSpec psa;
    if (!ctx.ExpectMap(item, item_path)) {
      admission.pod_set_assignments.push_back(std::move(psa));
      continue;
    }
    ctx.CheckKeys(item, item_path,
                  {"name", "flavors", "resourceUsage", "count", "topologyAssignment",
                   "delayedTopologyRequest"});
    const std::string name_path = Child(item_path, "name");
    YAML::Node name = Get(item, "name");
    psa.name = ctx.String(name, name_path).value_or("main");
    if (!pod_set_counts.empty() && pod_set_counts.count(psa.name) == 0) {
      ctx.Error(
          Present(name) ? name : item, name_path,
          fmt::format("Not found: {}: no pod set of spec.podSets has this name", Quoted(psa.name)));
    }
    if (!seen.insert(psa.name).second) {
      ctx.Error(Present(name) ? name : item, name_path,
                fmt::format("Duplicate value: {}", Quoted(psa.name)));
    }
    psa.flavors = ctx.StringMap(Get(item, "flavors"), Child(item_path, "flavors"))
                      .value_or(std::map<std::string, std::string>{});
    YAML::Node count = Get(item, "count");
    psa.count = Int32AtLeast(ctx, count, Child(item_path, "count"), 0);
    const std::string usage_path = Child(item_path, "resourceUsage");
    if (std::optional<YAML::Node> usage = OptionalMap(ctx, item, "resourceUsage", usage_path)) {
      for (auto it = usage->begin(); it != usage->end(); ++it) {
        if (!it->first.IsScalar()) {
          ctx.Error(it->first, usage_path, "expected a resource name as key");
          continue;
        }
        const std::string& resource = it->first.Scalar();
        const std::string q_path = Child(usage_path, resource);
        std::optional<std::string> text = ctx.String(it->second, q_path);
        if (!text.has_value()) {
          if (!Present(it->second)) {
            ctx.Error(it->first, q_path, "Required value: a quantity is required");
          }
          continue;
        }
        engine::StatusOr<engine::Quantity> q =
            engine::ParseCanonicalQuantity(*text, engine::IsMilliResource(resource));
        if (!q.ok()) {
          ctx.Error(it->second, q_path, q.status().message());
          continue;
        }
        if (psa.count.has_value() && *psa.count > 0 && q->value() % *psa.count != 0) {
          ctx.Error(it->second, q_path,
                    fmt::format("Invalid value: {}: is not a multiple of {} (the count)",
                                Quoted(*text), *psa.count));
        }
        if (!psa.resource_usage.emplace(resource, *q).second) {
          ctx.Error(
              it->first, q_path,
              fmt::format("duplicate key \"{}\": Kubernetes rejects repeated fields", resource));
        }
      }
    }
    admission.pod_set_assignments.push_back(std::move(psa));
  }
  return admission;
}

void ParseReclaimablePods(ObjectContext& ctx, const YAML::Node& status,
                          const std::map<std::string, int32_t>& pod_set_counts,
                          engine::WorkloadSpec& wl) {
  const std::string path = "status.reclaimablePods";
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "reclaimablePods", path);
  if (!list.has_value()) {
    return;
  }
  std::string known;
  for (const auto& entry : pod_set_counts) {
    known += fmt::format("{}\"{}\"", known.empty() ? "" : ", ", entry.first);
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    if (!ctx.ExpectMap(item, item_path)) {
      continue;
    }
    ctx.CheckKeys(item, item_path, {"name", "count"});
    const std::string name_path = Child(item_path, "name");
    std::optional<std::string> name =
        RequiredString(ctx, item, "name", name_path, "name is required");
    YAML::Node count_node = Get(item, "count");
    const std::string count_path = Child(item_path, "count");
    if (!Present(count_node)) {
      ctx.Error(item, count_path, "Required value: count is required");
    }
    std::optional<int32_t> count = Int32AtLeast(ctx, count_node, count_path, 0);
    if (!name.has_value() || !count.has_value()) {
      continue;
    }
    auto ps = pod_set_counts.find(*name);
    if (ps == pod_set_counts.end()) {
      ctx.Error(Get(item, "name"), name_path,
                fmt::format("Unsupported value: {}: supported values: {}", Quoted(*name), known));
      continue;
    }
    if (*count > ps->second) {
      ctx.Error(
          count_node, count_path,
          fmt::format("Invalid value: {}: should be less or equal to {}", *count, ps->second));
      continue;
    }
    if (!wl.reclaimable_pods.emplace(*name, *count).second) {
      ctx.Error(Get(item, "name"), name_path, fmt::format("Duplicate value: {}", Quoted(*name)));
    }
  }
}

void ParseCheckStates(ObjectContext& ctx, const YAML::Node& status, engine::WorkloadSpec& wl) {
  const std::string path = "status.admissionChecks";
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "admissionChecks", path);
  if (!list.has_value()) {
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    engine::AdmissionCheckStateSpec check;
    if (!ctx.ExpectMap(item, item_path)) {
      wl.admission_checks.push_back(std::move(check));
      continue;
    }
    ctx.CheckKeys(item, item_path,
                  {"name", "state", "lastTransitionTime", "message", "podSetUpdates",
                   "requeueAfterSeconds", "retryCount"});
    const std::string name_path = Child(item_path, "name");
    check.name = RequiredString(ctx, item, "name", name_path, "name is required").value_or("");
    if (!check.name.empty() && !seen.insert(check.name).second) {
      ctx.Error(Get(item, "name"), name_path,
                fmt::format("Duplicate value: {}", Quoted(check.name)));
    }
    const std::string state_path = Child(item_path, "state");
    if (!Present(Get(item, "state"))) {
      ctx.Error(item, state_path, "Required value: state is required");
    }
    check.state = ctx.Enum<engine::CheckState>(Get(item, "state"), state_path,
                                               {{"Pending", engine::CheckState::kPending},
                                                {"Ready", engine::CheckState::kReady},
                                                {"Retry", engine::CheckState::kRetry},
                                                {"Rejected", engine::CheckState::kRejected}})
                      .value_or(engine::CheckState::kPending);
    (void)Time(ctx, Get(item, "lastTransitionTime"), Child(item_path, "lastTransitionTime"));
    wl.admission_checks.push_back(std::move(check));
  }
}

// status.flavorAssignmentHistory[] (seed 002): {resourceFlavor, assignmentTime} and tally's
// {usedTime (Go duration), failed, failedBy}.
void ParseFlavorHistory(ObjectContext& ctx, const YAML::Node& status, engine::WorkloadSpec& wl) {
  const std::string path = "status.flavorAssignmentHistory";
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "flavorAssignmentHistory", path);
  if (!list.has_value()) {
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string item_path = fmt::format("{}[{}]", path, i);
    const YAML::Node item = (*list)[i];
    if (!ctx.ExpectMap(item, item_path)) {
      continue;
    }
    ctx.CheckKeys(item, item_path,
                  {"resourceFlavor", "assignmentTime", "usedTime", "failed", "failedBy"});
    engine::WorkloadSpec::FlavorHistorySpec h;
    std::optional<std::string> flavor =
        ctx.String(Get(item, "resourceFlavor"), Child(item_path, "resourceFlavor"));
    if (!flavor.has_value() || flavor->empty()) {
      ctx.Error(item, Child(item_path, "resourceFlavor"), "Required value");
      continue;
    }
    if (std::any_of(wl.flavor_history.begin(), wl.flavor_history.end(),
                    [&](const engine::WorkloadSpec::FlavorHistorySpec& seen) {
                      return seen.flavor == *flavor;
                    })) {
      // +listMapKey=resourceFlavor: one entry per flavor.
      ctx.Error(Get(item, "resourceFlavor"), Child(item_path, "resourceFlavor"),
                fmt::format("Duplicate value: \"{}\"", *flavor));
      continue;
    }
    h.flavor = *flavor;
    h.assignment_time = Time(ctx, Get(item, "assignmentTime"), Child(item_path, "assignmentTime"));
    if (std::optional<std::string> used =
            ctx.String(Get(item, "usedTime"), Child(item_path, "usedTime"))) {
      engine::StatusOr<int64_t> d = ParseGoDuration(*used);
      if (d.ok()) {
        h.used = *d;
      } else {
        ctx.Error(Get(item, "usedTime"), Child(item_path, "usedTime"), d.status().message());
      }
    }
    h.failed = ctx.Bool(Get(item, "failed"), Child(item_path, "failed")).value_or(false);
    h.failed_by_check =
        ctx.Enum<bool>(Get(item, "failedBy"), Child(item_path, "failedBy"),
                       {{"TimeoutForPodsReadyExceeded", false}, {"AdmissionCheckRejected", true}})
            .value_or(false);
    wl.flavor_history.push_back(std::move(h));
  }
}

void ParseWorkloadStatus(ObjectContext& ctx, const YAML::Node& status, engine::WorkloadSpec& wl) {
  ctx.CheckKeys(status, "status",
                {"conditions", "admission", "requeueState", "reclaimablePods", "admissionChecks",
                 "resourceRequests", "accumulatedPastExecutionTimeSeconds",
                 "accumulatedPastExexcutionTimeSeconds", "schedulingStats", "nominatedClusterNames",
                 "clusterName", "unhealthyNodes", "flavorAssignmentHistory"});
  std::map<std::string, int32_t> pod_set_counts;
  for (const engine::PodSetSpec& ps : wl.pod_sets) {
    pod_set_counts.emplace(ps.name, ps.count);
  }
  std::vector<ParsedCondition> conditions = ParseConditions(ctx, status, "status.conditions");
  for (ParsedCondition& c : conditions) {
    wl.conditions.push_back(c.spec);
  }
  if (std::optional<YAML::Node> admission =
          OptionalMap(ctx, status, "admission", "status.admission")) {
    wl.admission = ParseAdmission(ctx, *admission, "status.admission", pod_set_counts);
    const engine::ConditionSpec* reserved = wl.Condition("QuotaReserved");
    if (reserved == nullptr) {
      ctx.Warning(*admission, "status.admission",
                  "status.admission without a QuotaReserved condition: tally treats the Workload "
                  "as holding its quota (as if status.conditions had QuotaReserved=True at its "
                  "creationTimestamp)");
      wl.conditions.push_back(
          engine::ConditionSpec{"QuotaReserved", true, "QuotaReserved", wl.creation_time});
    } else if (!reserved->status) {
      ctx.Warning(*admission, "status.admission",
                  "status.admission is ignored: the QuotaReserved condition is not True, and "
                  "Kueue charges a Workload's admission only while it is");
      wl.admission.reset();
    }
  }
  ParseReclaimablePods(ctx, status, pod_set_counts, wl);
  ParseCheckStates(ctx, status, wl);
  ParseFlavorHistory(ctx, status, wl);
  const std::string requeue_path = "status.requeueState";
  if (std::optional<YAML::Node> requeue = OptionalMap(ctx, status, "requeueState", requeue_path)) {
    ctx.CheckKeys(*requeue, requeue_path, {"count", "requeueAt"});
    wl.requeue_count =
        Int32AtLeast(ctx, Get(*requeue, "count"), Child(requeue_path, "count"), 0).value_or(0);
    wl.requeue_at = Time(ctx, Get(*requeue, "requeueAt"), Child(requeue_path, "requeueAt"));
  }
}

// --- cross-object checks -------------------------------------------------------------------------

struct Reporter {
  const FieldLines& lines;
  std::vector<LoadError>& out;

  void Add(const engine::SourceRef& source, std::string kind, std::string name, std::string path,
           std::string message) {
    const int line = lines.Find(source, path);
    out.push_back(LoadError{source.file, source.document, line, std::move(kind), std::move(name),
                            std::move(path), std::move(message)});
  }
};

std::string Duplicate(std::string_view key, std::string_view kind, const engine::SourceRef& first) {
  const bool vowel =
      !kind.empty() && std::string_view("AEIOU").find(kind[0]) != std::string_view::npos;
  return fmt::format("Duplicate value: {}: {} {} with this name is already defined at {}",
                     Quoted(key), vowel ? "an" : "a", kind, engine::ToString(first));
}

}  // namespace

bool ParseWorkload(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/true);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::WorkloadSpec wl;
  wl.name = meta->name;
  wl.name_space = meta->name_space;
  wl.source = ctx.source();
  const YAML::Node metadata = Get(obj, "metadata");  // a map: ParseMetadata checked it
  if (!engine::IsDns1123Subdomain(wl.name)) {
    ctx.Error(Get(metadata, "name"), "metadata.name",
              Invalid(wl.name, engine::kDns1123SubdomainRule));
  }
  if (!engine::IsDns1123Label(wl.name_space)) {
    ctx.Error(Get(metadata, "namespace"), "metadata.namespace",
              Invalid(wl.name_space, engine::kDns1123LabelRule));
  }
  wl.uid = ctx.String(Get(metadata, "uid"), "metadata.uid").value_or("");
  if (wl.uid.empty()) {
    wl.uid = wl.name_space + "/" + wl.name;
  }
  wl.creation_time =
      Time(ctx, Get(metadata, "creationTimestamp"), "metadata.creationTimestamp").value_or(0);
  if (const YAML::Node labels = Get(metadata, "labels"); Present(labels)) {
    std::map<std::string, std::string> map =
        ctx.StringMap(labels, "metadata.labels").value_or(std::map<std::string, std::string>{});
    if (auto it = map.find(std::string(kWorkloadClassLabel)); it != map.end()) {
      wl.workload_class = it->second;
    }
  }

  std::optional<YAML::Node> s = SpecOf(ctx, obj);
  if (!s.has_value()) {
    if (!Present(Get(obj, "spec"))) {
      ctx.Error(obj, "spec.podSets", "Required value: a Workload needs at least one pod set");
    }
  } else {
    ctx.CheckKeys(*s, "spec",
                  {"podSets", "queueName", "priorityClassRef", "priorityClassName",
                   "priorityClassSource", "priority", "active", "maximumExecutionTimeSeconds"});
    ParsePodSets(ctx, *s, wl);
    YAML::Node queue = Get(*s, "queueName");
    wl.queue_name = ctx.String(queue, "spec.queueName").value_or("");
    if (!wl.queue_name.empty() && !engine::IsDns1123Subdomain(wl.queue_name)) {
      ctx.Error(queue, "spec.queueName", Invalid(wl.queue_name, engine::kDns1123SubdomainRule));
    }
    ParsePriorityClassReference(ctx, *s, wl);
    wl.priority = ctx.Int32(Get(*s, "priority"), "spec.priority");
    if (!wl.priority_class_name.empty() && !Present(Get(*s, "priority"))) {
      ctx.Error(*s, "spec.priority",
                fmt::format(
                    "Required value: priority should not be nil when {} is set",
                    ctx.api_version() == kKueueV1beta1 ? "priorityClassName" : "priorityClassRef"));
    }
    wl.active = ctx.Bool(Get(*s, "active"), "spec.active").value_or(true);
    if (std::optional<int32_t> max = Int32AtLeast(ctx, Get(*s, "maximumExecutionTimeSeconds"),
                                                  "spec.maximumExecutionTimeSeconds", 1)) {
      wl.maximum_execution_time_seconds = *max;
    }
  }
  if (std::optional<YAML::Node> status = OptionalMap(ctx, obj, "status", "status")) {
    ParseWorkloadStatus(ctx, *status, wl);
  }
  spec.workloads.push_back(std::move(wl));
  return true;
}

bool ParseNamespace(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::NamespaceSpec ns;
  ns.name = meta->name;
  ns.source = ctx.source();
  const YAML::Node metadata = Get(obj, "metadata");
  if (!engine::IsDns1123Label(ns.name)) {
    ctx.Error(Get(metadata, "name"), "metadata.name", Invalid(ns.name, engine::kDns1123LabelRule));
  }
  const YAML::Node labels = Get(metadata, "labels");
  ns.labels =
      ctx.StringMap(labels, "metadata.labels").value_or(std::map<std::string, std::string>{});
  for (const auto& [key, value] : ns.labels) {
    const std::string path = Child("metadata.labels", key);
    if (!engine::IsQualifiedName(key)) {
      ctx.Error(labels, path, Invalid(key, engine::kQualifiedNameRule));
    }
    if (!engine::IsLabelValue(value)) {
      ctx.Error(Get(labels, key), path, Invalid(value, engine::kLabelValueRule));
    }
  }
  // The API server sets this label on every Namespace (it cannot be changed).
  ns.labels[std::string(kMetadataNameLabel)] = ns.name;
  spec.namespaces.push_back(std::move(ns));
  return true;
}

bool ParseAdmissionCheck(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::AdmissionCheckSpec check;
  check.name = meta->name;
  check.source = ctx.source();
  if (!engine::IsDns1123Subdomain(check.name)) {
    ctx.Error(Get(Get(obj, "metadata"), "name"), "metadata.name",
              Invalid(check.name, engine::kDns1123SubdomainRule));
  }
  std::optional<YAML::Node> s = SpecOf(ctx, obj);
  if (s.has_value()) {
    ctx.CheckKeys(*s, "spec", {"controllerName", "parameters", "retryDelayMinutes"});
    check.controller_name = RequiredString(ctx, *s, "controllerName", "spec.controllerName",
                                           "controllerName is required")
                                .value_or("");
  } else if (!Present(Get(obj, "spec"))) {
    ctx.Error(obj, "spec.controllerName", "Required value: controllerName is required");
  }
  if (std::optional<YAML::Node> status = OptionalMap(ctx, obj, "status", "status")) {
    ctx.CheckKeys(*status, "status", {"conditions"});
    for (const ParsedCondition& c : ParseConditions(ctx, *status, "status.conditions")) {
      if (c.spec.type == "Active") {
        check.active = !c.is_false;
      }
    }
  }
  spec.admission_checks.push_back(std::move(check));
  return true;
}

void CheckWorkloadObjects(const engine::ClusterSpec& spec, const FieldLines& lines,
                          std::vector<LoadError>& errors, std::vector<LoadError>& warnings) {
  Reporter error{lines, errors};
  Reporter warning{lines, warnings};

  std::set<std::string> local_queues;
  for (const engine::LocalQueueSpec& lq : spec.local_queues) {
    local_queues.insert(lq.name_space + "/" + lq.name);
  }
  std::set<std::string> cluster_queues;
  for (const engine::ClusterQueueSpec& cq : spec.cluster_queues) {
    cluster_queues.insert(cq.name);
  }

  std::map<std::string, const engine::SourceRef*> names;
  std::map<std::string, const engine::SourceRef*> uids;
  for (const engine::WorkloadSpec& wl : spec.workloads) {
    const std::string key = wl.name_space + "/" + wl.name;
    auto [it, inserted] = names.emplace(key, &wl.source);
    if (!inserted) {
      error.Add(wl.source, "Workload", key, "metadata.name",
                Duplicate(key, "Workload", *it->second));
      continue;  // its uid (if defaulted) repeats too: one message is enough
    }
    auto [uid_it, uid_inserted] = uids.emplace(wl.uid, &wl.source);
    if (!uid_inserted) {
      error.Add(wl.source, "Workload", key, "metadata.uid",
                fmt::format("Duplicate value: {}: a Workload with this uid is already defined at "
                            "{} (uids break ties in queue order and must be unique)",
                            Quoted(wl.uid), engine::ToString(*uid_it->second)));
    }
    if (!wl.queue_name.empty() && local_queues.count(wl.name_space + "/" + wl.queue_name) == 0) {
      warning.Add(wl.source, "Workload", key, "spec.queueName",
                  fmt::format("LocalQueue {} is not defined in namespace {} in the input: the "
                              "Workload stays pending",
                              Quoted(wl.queue_name), Quoted(wl.name_space)));
    }
    if (wl.admission.has_value() && !wl.admission->cluster_queue.empty()
        && cluster_queues.count(wl.admission->cluster_queue) == 0) {
      warning.Add(wl.source, "Workload", key, "status.admission.clusterQueue",
                  fmt::format("ClusterQueue {} is not defined in the input: the quota this "
                              "admission holds is not charged anywhere",
                              Quoted(wl.admission->cluster_queue)));
    }
  }

  std::map<std::string, const engine::SourceRef*> namespaces;
  for (const engine::NamespaceSpec& ns : spec.namespaces) {
    auto [it, inserted] = namespaces.emplace(ns.name, &ns.source);
    if (!inserted) {
      error.Add(ns.source, "Namespace", ns.name, "metadata.name",
                Duplicate(ns.name, "Namespace", *it->second));
    }
  }
  std::map<std::string, const engine::SourceRef*> checks;
  for (const engine::AdmissionCheckSpec& check : spec.admission_checks) {
    auto [it, inserted] = checks.emplace(check.name, &check.source);
    if (!inserted) {
      error.Add(check.source, "AdmissionCheck", check.name, "metadata.name",
                Duplicate(check.name, "AdmissionCheck", *it->second));
    }
  }
}

}  // namespace replay::internal
