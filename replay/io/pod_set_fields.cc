#include "replay/io/pod_set_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "engine/k8s_names.h"
#include "replay/io/field_values.h"
#include "replay/io/input_limits.h"
#include "replay/io/manifest_fields.h"
#include "replay/io/time_parse.h"
#include "replay/io/workload_fields.h"

namespace replay::internal {
namespace {

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
  for (const auto& entry : *node) {  // read once: each `it->` builds two Nodes
    if (!entry.first.IsScalar()) {
      ctx.Error(entry.first, path, "expected a resource name as key");
      continue;
    }
    const std::string& name = entry.first.Scalar();
    const std::string item_path = Child(path, name);
    if (!Present(entry.second)) {
      ctx.Error(entry.first, item_path, "Required value: a quantity is required");
      continue;
    }
    std::optional<engine::DecimalQuantity> amount = ctx.Decimal(entry.second, item_path);
    if (!amount.has_value()) {
      continue;
    }
    auto pos =
        std::lower_bound(out.begin(), out.end(), name,
                         [](const auto& listed, const std::string& n) { return listed.first < n; });
    if (pos != out.end() && pos->first == name) {
      ctx.Error(entry.first, item_path,
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
  if (const size_t limit = CurrentInputLimits().max_containers; list->size() > limit) {
    ctx.Error(*list, path,
              fmt::format("Too many: {}: must have at most {} items (--max-containers)",
                          list->size(), limit));
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
}  // namespace

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

}  // namespace replay::internal
