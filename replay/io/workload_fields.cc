#include "replay/io/workload_fields.h"

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
#include "replay/io/manifest_fields.h"
#include "replay/io/pod_set_fields.h"
#include "replay/io/time_parse.h"
#include "replay/io/workload_status_fields.h"

namespace replay::internal {

constexpr std::string_view kWorkloadClassLabel = "tally.dev/class";
constexpr std::string_view kExpectedRuntimeAnnotation = "tally.dev/expected-runtime";
namespace {

constexpr std::string_view kWorkloadV1beta1Api = "kueue.x-k8s.io/v1beta1";
constexpr std::string_view kWorkloadPriorityClassSource = "kueue.x-k8s.io/workloadpriorityclass";
constexpr std::string_view kPodPriorityClassSource = "scheduling.k8s.io/priorityclass";
constexpr std::string_view kMetadataNameLabel = "kubernetes.io/metadata.name";

// The priority class: v1beta2 spec.priorityClassRef, v1beta1 spec.priorityClassName and
// spec.priorityClassSource. Either spelling in the other version is an error.
void ParsePriorityClassReference(ObjectContext& ctx, const YAML::Node& spec,
                                 engine::WorkloadSpec& wl) {
  const bool v1beta1 = ctx.api_version() == kWorkloadV1beta1Api;
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
      wl.priority_class_kind = source == kWorkloadPriorityClassSource
                                   ? engine::PriorityClassKind::kWorkloadPriorityClass
                                   : engine::PriorityClassKind::kPriorityClass;
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
  wl.priority_class_kind =
      kind.value_or(group == "scheduling.k8s.io" ? "PriorityClass" : "WorkloadPriorityClass")
              == "PriorityClass"
          ? engine::PriorityClassKind::kPriorityClass
          : engine::PriorityClassKind::kWorkloadPriorityClass;
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
    wl.uid.AssignSlashJoined(wl.name_space, wl.name);
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
  if (const YAML::Node annotations = Get(metadata, "annotations"); Present(annotations)) {
    std::map<std::string, std::string> map = ctx.StringMap(annotations, "metadata.annotations")
                                                 .value_or(std::map<std::string, std::string>{});
    if (auto it = map.find(std::string(kExpectedRuntimeAnnotation)); it != map.end()) {
      engine::StatusOr<int64_t> runtime = ParseGoDuration(it->second);
      if (runtime.ok()) {
        wl.expected_runtime = *runtime;
      } else {
        ctx.Error(annotations, fmt::format("metadata.annotations[{}]", kExpectedRuntimeAnnotation),
                  fmt::format("Invalid value: \"{}\": {}", it->second, runtime.status().message()));
      }
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
                fmt::format("Required value: priority should not be nil when {} is set",
                            ctx.api_version() == kWorkloadV1beta1Api ? "priorityClassName"
                                                                     : "priorityClassRef"));
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
    auto [it, inserted] = names.emplace(key, &wl.source.get());
    if (!inserted) {
      error.Add(wl.source, "Workload", key, "metadata.name",
                Duplicate(key, "Workload", *it->second));
      continue;  // its uid (if defaulted) repeats too: one message is enough
    }
    auto [uid_it, uid_inserted] = uids.emplace(wl.uid.str(), &wl.source.get());
    if (!uid_inserted) {
      error.Add(wl.source, "Workload", key, "metadata.uid",
                fmt::format("Duplicate value: {}: a Workload with this uid is already defined at "
                            "{} (uids break ties in queue order and must be unique)",
                            Quoted(wl.uid.str()), engine::ToString(*uid_it->second)));
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