#include "replay/generate/audit_log_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "replay/generate/audit_log_lines.h"
#include "replay/io/input_file.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"
#include "replay/io/yaml_tree.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {
namespace {

bool LooksLikeJsonLiteral(const std::string& s) {
  if (s.empty()) {
    return false;
  }
  if (s == "true" || s == "false" || s == "null") {
    return true;
  }
  size_t i = s.empty() || s[0] != '-' ? 0 : 1;
  bool digits = false;
  bool dot = false;
  for (; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') {
      digits = true;
    } else if (s[i] == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  const size_t first = s[0] == '-' ? 1 : 0;
  return digits && s[first] != '.' && s.back() != '.'
         && !(s.size() > first + 1 && s[first] == '0' && s[first + 1] != '.');
}

// A YAML node as JSON: quoted scalars stay strings, plain numbers and booleans stay literals.
std::string YamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      std::string out = "{";
      for (const auto& kv : n) {
        out += fmt::format("{}{}:{}", out.size() > 1 ? "," : "", JsonString(kv.first.Scalar()),
                           YamlToJson(kv.second));
      }
      return out + "}";
    }
    case YAML::NodeType::Sequence: {
      std::string out = "[";
      for (const auto& item : n) {
        out += fmt::format("{}{}", out.size() > 1 ? "," : "", YamlToJson(item));
      }
      return out + "]";
    }
    case YAML::NodeType::Scalar:
      return n.Tag() != "!" && LooksLikeJsonLiteral(n.Scalar()) ? n.Scalar()
                                                                : JsonString(n.Scalar());
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "null";
  }
  return "null";
}

// The objects of one document: itself, or the items of a List (`kubectl get -o yaml`); items of
// a typed list (ClusterQueueList) may leave out apiVersion and kind.
void CollectObjects(const YAML::Node& doc, std::vector<std::string>& out) {
  if (!doc.IsMap()) {
    return;
  }
  const YAML::Node kind = doc["kind"];
  const YAML::Node items = doc["items"];
  const std::string kind_name = kind && kind.IsScalar() ? kind.Scalar() : "";
  if (kind_name.ends_with("List") && items && items.IsSequence()) {
    for (const YAML::Node& item : items) {
      if (!item.IsMap()) {
        continue;
      }
      YAML::Node copy = YAML::Clone(item);
      if (!copy["kind"] && kind_name != "List") {
        copy["kind"] = kind_name.substr(0, kind_name.size() - 4);
      }
      if (!copy["apiVersion"] && doc["apiVersion"]) {
        copy["apiVersion"] = doc["apiVersion"].Scalar();
      }
      CollectObjects(copy, out);
    }
    return;
  }
  out.push_back(YamlToJson(doc));
}

bool ServerSetMetadata(std::string_view key) {
  return key == "uid" || key == "resourceVersion" || key == "generation"
         || key == "creationTimestamp" || key == "deletionTimestamp"
         || key == "deletionGracePeriodSeconds" || key == "managedFields" || key == "selfLink";
}

// fieldsV1 of a value: the fields of an object, three levels deep (lists are atomic here).
std::string FieldSet(simdjson::dom::element v, int depth) {
  simdjson::dom::object o;
  if (depth >= 3 || v.get_object().get(o) != simdjson::SUCCESS) {
    return "{}";
  }
  std::vector<std::pair<std::string, std::string>> members;
  for (auto [key, child] : o) {
    members.emplace_back(fmt::format("f:{}", key), FieldSet(child, depth + 1));
  }
  std::sort(members.begin(), members.end());
  std::string out = R"({".":{})";
  for (const auto& [key, value] : members) {
    out += fmt::format(",{}:{}", JsonString(key), value);
  }
  return out + "}";
}

std::string LabelsJson(const StoredObject& o, bool stored) {
  std::vector<std::pair<std::string, std::string>> labels = o.labels;
  if (stored && o.kind == "Namespace") {  // the API server sets it on every Namespace
    std::erase_if(labels, [](const auto& l) { return l.first == "kubernetes.io/metadata.name"; });
    labels.emplace_back("kubernetes.io/metadata.name", JsonString(o.name));
  }
  if (labels.empty()) {
    return "";
  }
  std::string out;
  for (const auto& [key, value] : labels) {
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", JsonString(key), value);
  }
  return fmt::format(R"(,"labels":{{{}}})", out);
}

std::string NameAndNamespace(const StoredObject& o) {
  std::string meta = fmt::format(R"("name":{})", JsonString(o.name));
  if (o.ref.namespaced) {
    meta += fmt::format(R"(,"namespace":{})", JsonString(o.namespace_name));
  }
  return meta;
}

std::string ConditionsJson(const StoredObject& o) {
  std::string out;
  for (const Condition& c : o.conditions) {
    out += fmt::format(
        R"({}{{"type":{},"status":"{}","observedGeneration":{},"lastTransitionTime":"{}",)"
        R"("reason":{},"message":{}}})",
        out.empty() ? "" : ",", JsonString(c.type), c.status, c.generation, SecondTime(c.micros),
        JsonString(c.reason), JsonString(c.message));
  }
  return "[" + out + "]";
}

}  // namespace

std::string StoredObject::Key() const {
  return fmt::format("{}/{}/{}", kind, namespace_name, name);
}

engine::Status LoadManifestObjects(const std::vector<std::string>& paths,
                                   std::vector<std::string>& objects) {
  std::vector<UnlistedDirectory> unlisted;
  for (const std::string& path : ExpandManifestPaths(paths, unlisted)) {
    engine::StatusOr<std::string> text = ReadPlainOrGzip(path);
    if (!text.ok()) {
      return text.status();
    }
    try {
      for (const YAML::Node& doc : LoadAllYaml(*text)) {
        CollectObjects(doc, objects);
      }
    } catch (const YAML::Exception& e) {
      return engine::InvalidArgument(fmt::format("{}: {}", path, e.what()));
    }
  }
  if (!unlisted.empty()) {
    return engine::InvalidArgument(
        fmt::format("{}: {}", unlisted.front().path, unlisted.front().reason));
  }
  return engine::Status::Ok();
}

std::string_view StringField(simdjson::dom::element e, std::string_view key) {
  std::string_view v;
  return e[key].get_string().get(v) == simdjson::SUCCESS ? v : std::string_view();
}

bool ResourceOf(std::string_view kind, ResourceRef& out) {
  static const std::map<std::string_view, ResourceRef, std::less<>> kinds = {
      {"Workload", {"workloads", "kueue.x-k8s.io", true}},
      {"ClusterQueue", {"clusterqueues", "kueue.x-k8s.io", false}},
      {"Cohort", {"cohorts", "kueue.x-k8s.io", false}},
      {"LocalQueue", {"localqueues", "kueue.x-k8s.io", true}},
      {"ResourceFlavor", {"resourceflavors", "kueue.x-k8s.io", false}},
      {"WorkloadPriorityClass", {"workloadpriorityclasses", "kueue.x-k8s.io", false}},
      {"AdmissionCheck", {"admissionchecks", "kueue.x-k8s.io", false}},
      {"Namespace", {"namespaces", "", false}}};
  auto it = kinds.find(kind);
  if (it == kinds.end()) {
    return false;
  }
  out = it->second;
  return true;
}

// Reads apiVersion, kind, metadata and body of an object (not its status).
engine::Status ParseObject(simdjson::dom::element e, StoredObject& o) {
  simdjson::dom::object fields;
  if (e.get_object().get(fields) != simdjson::SUCCESS) {
    return engine::InvalidArgument("object: not a JSON object");
  }
  o.api_version = std::string(StringField(e, "apiVersion"));
  o.kind = std::string(StringField(e, "kind"));
  ResourceOf(o.kind, o.ref);
  simdjson::dom::element meta = e["metadata"];
  o.name = std::string(StringField(meta, "name"));
  o.namespace_name = std::string(StringField(meta, "namespace"));
  if (o.namespace_name.empty() && o.ref.namespaced) {
    o.namespace_name = "default";  // kubectl's namespace when the object names none
  }
  o.labels.clear();
  o.meta_rest.clear();
  o.body.clear();
  std::vector<std::pair<std::string, std::string>> meta_fields;
  simdjson::dom::object meta_object;
  if (meta.get_object().get(meta_object) == simdjson::SUCCESS) {
    for (auto [key, value] : meta_object) {
      if (key == "labels") {
        simdjson::dom::object labels;
        if (value.get_object().get(labels) == simdjson::SUCCESS) {
          for (auto [label, text] : labels) {
            o.labels.emplace_back(std::string(label), simdjson::minify(text));
          }
        }
      } else if (key == "name" || key == "namespace" || ServerSetMetadata(key)) {
        continue;
      } else {
        o.meta_rest += fmt::format(",{}:{}", JsonString(key), simdjson::minify(value));
      }
      meta_fields.emplace_back(fmt::format("f:{}", key), FieldSet(value, 1));
    }
  }
  std::vector<std::pair<std::string, std::string>> top;
  for (auto [key, value] : fields) {
    if (key != "apiVersion" && key != "kind" && key != "metadata" && key != "status") {
      o.body += fmt::format(",{}:{}", JsonString(key), simdjson::minify(value));
      top.emplace_back(fmt::format("f:{}", key), FieldSet(value, 1));
    }
  }
  std::sort(meta_fields.begin(), meta_fields.end());
  std::sort(top.begin(), top.end());
  std::string meta_set;
  for (const auto& [key, value] : meta_fields) {
    meta_set += fmt::format("{}{}:{}", meta_set.empty() ? "" : ",", JsonString(key), value);
  }
  o.fields = meta_set.empty() ? "{" : fmt::format(R"({{"f:metadata":{{{}}})", meta_set);
  for (const auto& [key, value] : top) {
    o.fields += fmt::format("{}{}:{}", o.fields.size() > 1 ? "," : "", JsonString(key), value);
  }
  o.fields += "}";
  return engine::Status::Ok();
}

// The object as a client sends it; `identity` adds the uid and resourceVersion it read (an
// update's optimistic concurrency).
std::string ClientObject(const StoredObject& o, bool identity) {
  std::string meta = NameAndNamespace(o);
  if (identity) {
    meta += fmt::format(R"(,"uid":"{}","resourceVersion":"{}")", o.uid, o.resource_version);
  }
  return fmt::format(R"({{"apiVersion":{},"kind":{},"metadata":{{{}{}{}}}{}}})",
                     JsonString(o.api_version), JsonString(o.kind), meta, LabelsJson(o, false),
                     o.meta_rest, o.body);
}

// A Workload's status, "" when it has none yet.
std::string StatusJson(const StoredObject& o) {
  if (o.admission.empty() && o.conditions.empty()) {
    return "";
  }
  std::string out = "{";
  if (!o.admission.empty()) {
    out += fmt::format(R"("admission":{})", o.admission);
  }
  if (!o.conditions.empty()) {
    out += fmt::format(R"({}"conditions":{})", out.size() > 1 ? "," : "", ConditionsJson(o));
  }
  return out + "}";
}

// fieldsV1 of what the status patch owns.
std::string StatusFields(const StoredObject& o) {
  std::string out;
  if (!o.admission.empty()) {
    out += R"("f:admission":{".":{},"f:clusterQueue":{},"f:podSetAssignments":{}})";
  }
  if (!o.conditions.empty()) {
    std::string conditions = R"(".":{})";
    for (const Condition& c : o.conditions) {
      conditions += fmt::format(
          R"(,{}:{{".":{{}},"f:lastTransitionTime":{{}},"f:message":{{}},)"
          R"("f:observedGeneration":{{}},"f:reason":{{}},"f:status":{{}},"f:type":{{}}}})",
          JsonString(fmt::format(R"(k:{{"type":"{}"}})", c.type)));
    }
    out += fmt::format(R"({}"f:conditions":{{{}}})", out.empty() ? "" : ",", conditions);
  }
  return fmt::format(R"({{"f:status":{{{}}}}})", out);
}

// The object as stored (and returned); `deleted` >= 0 adds the deletionTimestamp.
std::string StoredJson(const StoredObject& o, int64_t deleted) {
  std::string meta = NameAndNamespace(o);
  meta += fmt::format(R"(,"uid":"{}","resourceVersion":"{}")", o.uid, o.resource_version);
  if (o.kind != "Namespace") {
    meta += fmt::format(R"(,"generation":{})", o.generation);
  }
  meta += fmt::format(R"(,"creationTimestamp":"{}")", SecondTime(o.created));
  if (deleted >= 0) {
    meta += fmt::format(R"(,"deletionTimestamp":"{}","deletionGracePeriodSeconds":0)",
                        SecondTime(deleted));
  }
  meta += LabelsJson(o, true) + o.meta_rest;
  std::string managed;
  for (const ManagedEntry& m : o.managed) {
    managed += fmt::format(
        R"({}{{"manager":"{}","operation":"{}","apiVersion":{},"time":"{}",)"
        R"("fieldsType":"FieldsV1",)"
        R"("fieldsV1":{}{}}})",
        managed.empty() ? "" : ",", m.manager, m.operation, JsonString(o.api_version),
        SecondTime(m.micros), m.fields,
        m.subresource.empty() ? "" : fmt::format(R"(,"subresource":"{}")", m.subresource));
  }
  meta += fmt::format(R"(,"managedFields":[{}])", managed);
  std::string body = o.body;
  std::string status;
  if (o.kind == "Namespace") {
    if (body.find(R"("spec":)") == std::string::npos) {
      body += R"(,"spec":{"finalizers":["kubernetes"]})";
    }
    status = deleted >= 0 ? R"({"phase":"Terminating"})" : R"({"phase":"Active"})";
  } else if (o.kind == "Workload") {
    status = StatusJson(o);
  }
  return fmt::format(R"({{"apiVersion":{},"kind":{},"metadata":{{{}}}{}{}}})",
                     JsonString(o.api_version), JsonString(o.kind), meta, body,
                     status.empty() ? "" : fmt::format(R"(,"status":{})", status));
}

void Touch(StoredObject& o, std::string_view manager, std::string_view operation,
           std::string_view subresource, std::string fields, int64_t micros) {
  for (ManagedEntry& m : o.managed) {
    if (m.manager == manager && m.operation == operation && m.subresource == subresource) {
      m.fields = std::move(fields);
      m.micros = micros;
      return;
    }
  }
  o.managed.push_back(ManagedEntry{std::string(manager), std::string(operation),
                                   std::string(subresource), std::move(fields), micros});
}

// apimeta.SetStatusCondition: a new type is appended; lastTransitionTime changes with the status.
void SetCondition(StoredObject& o, std::string_view type, std::string_view status,
                  std::string_view reason, std::string message, int64_t micros) {
  for (Condition& c : o.conditions) {
    if (c.type == type) {
      if (c.status != status) {
        c.status = std::string(status);
        c.micros = micros;
      }
      c.reason = std::string(reason);
      c.message = std::move(message);
      c.generation = o.generation;
      return;
    }
  }
  o.conditions.push_back(Condition{std::string(type), std::string(status), std::string(reason),
                                   std::move(message), micros, o.generation});
}

Condition* FindCondition(StoredObject& o, std::string_view type) {
  for (Condition& c : o.conditions) {
    if (c.type == type) {
      return &c;
    }
  }
  return nullptr;
}

// A Kubernetes quantity as resource.Quantity.String() writes Kueue's usage: decisions count cpu
// in millicores and every other resource in base units; memory-like resources use the largest
// binary suffix that divides them (137438953472 -> "128Gi"), cpu whole cores when it can ("16",
// "500m").
std::string QuantityString(std::string_view resource, int64_t amount) {
  if (resource == "cpu") {
    return amount % 1000 == 0 ? fmt::format("{}", amount / 1000) : fmt::format("{}m", amount);
  }
  const bool binary = resource == "memory" || resource == "ephemeral-storage"
                      || resource == "storage" || resource.starts_with("hugepages-");
  if (binary && amount != 0) {
    constexpr std::pair<const char*, int64_t> kSuffixes[] = {{"Ei", 1LL << 60}, {"Pi", 1LL << 50},
                                                             {"Ti", 1LL << 40}, {"Gi", 1LL << 30},
                                                             {"Mi", 1LL << 20}, {"Ki", 1LL << 10}};
    for (const auto& [suffix, unit] : kSuffixes) {
      if (amount % unit == 0) {
        return fmt::format("{}{}", amount / unit, suffix);
      }
    }
  }
  return fmt::format("{}", amount);
}

// status.admission of a QuotaReserved / Admitted decision.
std::string AdmissionJson(simdjson::dom::element d) {
  std::string assignments;
  simdjson::dom::array pod_sets;
  if (d["podSets"].get_array().get(pod_sets) == simdjson::SUCCESS) {
    for (simdjson::dom::element ps : pod_sets) {
      std::string usage;
      simdjson::dom::object u;
      if (ps["resourceUsage"].get_object().get(u) == simdjson::SUCCESS) {
        for (auto [resource, value] : u) {
          int64_t amount = 0;
          double real = 0;
          std::string q;
          if (value.get_int64().get(amount) == simdjson::SUCCESS) {
            q = QuantityString(resource, amount);
          } else if (value.get_double().get(real) == simdjson::SUCCESS) {
            q = fmt::format("{}", real);
          }
          usage +=
              fmt::format("{}{}:{}", usage.empty() ? "" : ",", JsonString(resource), JsonString(q));
        }
      }
      simdjson::dom::object flavors;
      int64_t count = 1;
      if (ps["count"].get_int64().get(count) != simdjson::SUCCESS) {
        count = 1;
      }
      const std::string_view name = StringField(ps, "name");
      assignments += fmt::format(
          R"({}{{"name":{},"flavors":{},"resourceUsage":{{{}}},"count":{}}})",
          assignments.empty() ? "" : ",", JsonString(name.empty() ? "main" : name),
          ps["flavors"].get_object().get(flavors) == simdjson::SUCCESS ? simdjson::minify(flavors)
                                                                       : "{}",
          usage, count);
    }
  }
  return fmt::format(R"({{"clusterQueue":{},"podSetAssignments":[{}]}})",
                     JsonString(StringField(d, "clusterQueue")), assignments);
}

// The status a Workload was created with (admitted or finished before the trace): applied by
// a status patch, since a create cannot set it. False when there is none.
bool ReadWorkloadStatus(simdjson::dom::element source, StoredObject& w, int64_t micros) {
  simdjson::dom::element status;
  if (source["status"].get(status) != simdjson::SUCCESS || !status.is_object()) {
    return false;
  }
  simdjson::dom::object admission;
  if (status["admission"].get_object().get(admission) == simdjson::SUCCESS) {
    w.admission = simdjson::minify(admission);
  }
  simdjson::dom::array conditions;
  if (status["conditions"].get_array().get(conditions) == simdjson::SUCCESS) {
    for (simdjson::dom::element c : conditions) {
      engine::StatusOr<int64_t> t = ParseRfc3339(StringField(c, "lastTransitionTime"));
      SetCondition(w, StringField(c, "type"), StringField(c, "status"), StringField(c, "reason"),
                   std::string(StringField(c, "message")), t.ok() ? *t : micros);
    }
  }
  if (!w.admission.empty() && FindCondition(w, "QuotaReserved") == nullptr) {
    // As the replay reads it: an admission without QuotaReserved is reserved.
    const std::string cq(StringField(status["admission"].value_unsafe(), "clusterQueue"));
    SetCondition(w, "QuotaReserved", "True", "QuotaReserved",
                 fmt::format("Quota reserved in ClusterQueue {}", cq), micros);
    SetCondition(w, "Admitted", "True", "Admitted", "The workload is admitted", micros);
  }
  return !w.admission.empty() || !w.conditions.empty();
}

}  // namespace replay::internal
