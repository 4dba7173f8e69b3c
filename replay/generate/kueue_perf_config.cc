// Reading Kueue's scheduler performance-test generator config
// (replay/generate/kueue_perf_config.h); the field semantics mirror Kueue's
// test/performance/scheduler/runner/generator/generator.go.
#include "replay/generate/kueue_perf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "engine/k8s_names.h"
#include "engine/quantity.h"
#include "replay/io/time_parse.h"
#include "replay/io/yaml_tree.h"

#include <yaml-cpp/yaml.h>

namespace replay {

namespace {

// Bound on the expanded size, so a typo in a count fails fast instead of exhausting memory.
constexpr int64_t kMaxWorkloads = 100'000'000;
constexpr int64_t kMaxClusterQueues = 1'000'000;

// Key/value pairs of a YAML map, in file order. Iterating avoids yaml-cpp's const operator[]
// zombie nodes (Mark() and IsNull() throw on them).
using Entries = std::vector<std::pair<std::string, YAML::Node>>;

int LineOf(const YAML::Node& node) {
  return node.IsDefined() ? node.Mark().line + 1 : 0;
}

class ConfigReader {
 public:
  explicit ConfigReader(std::string_view file) : file_(file) {}

  void Error(const YAML::Node& node, std::string_view path, std::string_view message) {
    int line = LineOf(node);
    errors_.push_back(line > 0 ? fmt::format("{}:{}: {}: {}", file_, line, path, message)
                               : fmt::format("{}: {}: {}", file_, path, message));
  }
  void Warn(std::string_view path, std::string_view message) {
    warnings_.push_back(fmt::format("{}: {}: {}", file_, path, message));
  }

  // The entries of a map node, checking the keys: `known` are read, `unsupported` are accepted
  // with a warning, anything else is an error.
  std::optional<Entries> Map(const YAML::Node& node, std::string_view path,
                             std::initializer_list<std::string_view> known,
                             std::initializer_list<std::string_view> unsupported,
                             std::string_view unsupported_why) {
    if (!node.IsMap()) {
      Error(node, path, fmt::format("expected a map, found {}", Shape(node)));
      return std::nullopt;
    }
    Entries entries;
    for (const auto& kv : node) {
      std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
      std::string child = Child(path, key);
      if (std::find(known.begin(), known.end(), key) != known.end()) {
        entries.emplace_back(key, kv.second);
      } else if (std::find(unsupported.begin(), unsupported.end(), key) != unsupported.end()) {
        Warn(child, unsupported_why);
      } else {
        Error(kv.first, child,
              "unknown field (not in Kueue's generator config; a typo would silently change "
              "the benchmark)");
      }
    }
    return entries;
  }

  static const YAML::Node* Find(const Entries& entries, std::string_view key) {
    for (const auto& [k, v] : entries) {
      if (k == key) {
        return &v;
      }
    }
    return nullptr;
  }

  // A scalar field, as written. Missing or null: nullopt, and an error when `required`.
  std::optional<std::string> Scalar(const Entries& entries, const YAML::Node& parent,
                                    std::string_view path, std::string_view key, bool required) {
    const YAML::Node* node = Find(entries, key);
    std::string child = Child(path, key);
    if (node == nullptr || node->IsNull()) {
      if (required) {
        Error(node != nullptr ? *node : parent, child,
              fmt::format("Required value: {} is required", key));
      }
      return std::nullopt;
    }
    if (!node->IsScalar()) {
      Error(*node, child, fmt::format("expected a scalar, found {}", Shape(*node)));
      return std::nullopt;
    }
    return node->Scalar();
  }

  // An integer field in [min, max]. Missing: `fallback` (or an error when required).
  std::optional<int64_t> Int(const Entries& entries, const YAML::Node& parent,
                             std::string_view path, std::string_view key, bool required,
                             int64_t fallback, int64_t min, int64_t max) {
    std::optional<std::string> text = Scalar(entries, parent, path, key, required);
    if (!text) {
      return required ? std::nullopt : std::optional<int64_t>(fallback);
    }
    const YAML::Node& node = *Find(entries, key);
    int64_t value = 0;
    const char* end = text->data() + text->size();
    auto [ptr, ec] = std::from_chars(text->data(), end, value);
    if (ec != std::errc() || ptr != end || text->empty()) {
      Error(node, Child(path, key), fmt::format("expected an integer, found \"{}\"", *text));
      return std::nullopt;
    }
    if (value < min || value > max) {
      Error(node, Child(path, key),
            fmt::format("Invalid value: {}: must be between {} and {}", value, min, max));
      return std::nullopt;
    }
    return value;
  }

  // A Kubernetes quantity (a YAML number or string), checked to parse and be >= 0.
  std::optional<std::string> Quantity(const Entries& entries, const YAML::Node& parent,
                                      std::string_view path, std::string_view key, bool required) {
    std::optional<std::string> text = Scalar(entries, parent, path, key, required);
    if (!text) {
      return std::nullopt;
    }
    const YAML::Node& node = *Find(entries, key);
    engine::StatusOr<engine::DecimalQuantity> q = engine::ParseDecimalQuantity(*text);
    if (!q.ok()) {
      Error(node, Child(path, key), q.status().message());
      return std::nullopt;
    }
    if (q->negative && !q->IsZero()) {
      Error(node, Child(path, key),
            fmt::format("Invalid value: \"{}\": must be greater than or equal to 0", *text));
      return std::nullopt;
    }
    return text;
  }

  // The items of a list field; a missing list is an error when `required`.
  std::vector<YAML::Node> List(const Entries& entries, const YAML::Node& parent,
                               std::string_view path, std::string_view key, bool required) {
    const YAML::Node* node = Find(entries, key);
    std::vector<YAML::Node> items;
    if (node == nullptr || node->IsNull()) {
      if (required) {
        Error(node != nullptr ? *node : parent, Child(path, key),
              fmt::format("Required value: {} is required", key));
      }
      return items;
    }
    if (!node->IsSequence()) {
      Error(*node, Child(path, key), fmt::format("expected a list, found {}", Shape(*node)));
      return items;
    }
    for (const auto& item : *node) {
      items.push_back(item);
    }
    return items;
  }

  // A className: it becomes part of object names, so it must be a DNS-1123 label.
  std::optional<std::string> ClassName(const Entries& entries, const YAML::Node& parent,
                                       std::string_view path) {
    std::optional<std::string> name = Scalar(entries, parent, path, "className", true);
    if (name && !engine::IsDns1123Label(*name)) {
      Error(*Find(entries, "className"), Child(path, "className"),
            fmt::format("Invalid value: \"{}\": {} (it becomes part of object names)", *name,
                        engine::kDns1123LabelRule));
      return std::nullopt;
    }
    return name;
  }

  std::optional<std::string> Enum(const Entries& entries, const YAML::Node& parent,
                                  std::string_view path, std::string_view key,
                                  std::initializer_list<std::string_view> values) {
    std::optional<std::string> text = Scalar(entries, parent, path, key, false);
    if (!text || text->empty()) {
      return std::nullopt;
    }
    if (std::find(values.begin(), values.end(), *text) == values.end()) {
      std::string supported;
      for (std::string_view v : values) {
        supported += fmt::format("{}\"{}\"", supported.empty() ? "" : ", ", v);
      }
      Error(*Find(entries, key), Child(path, key),
            fmt::format("Unsupported value: \"{}\": supported values: {}", *text, supported));
      return std::nullopt;
    }
    return text;
  }

  static std::string Child(std::string_view path, std::string_view key) {
    return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  }
  static std::string Index(std::string_view path, size_t i) {
    return fmt::format("{}[{}]", path, i);
  }
  static const char* Shape(const YAML::Node& node) {
    if (node.IsMap()) {
      return "a map";
    }
    if (node.IsSequence()) {
      return "a list";
    }
    if (node.IsScalar()) {
      return "a scalar";
    }
    return "null";
  }

  bool ok() const { return errors_.empty(); }
  std::vector<std::string>& warnings() { return warnings_; }
  std::string JoinedErrors() const {
    std::string out;
    for (const std::string& e : errors_) {
      out += out.empty() ? e : "\n" + e;
    }
    return out;
  }

 private:
  std::string file_;
  std::vector<std::string> errors_;
  std::vector<std::string> warnings_;
};

constexpr std::string_view kTasWhy =
    "Topology-Aware Scheduling is not modelled by tally: ignored (the workloads keep their pod "
    "count and cpu request, without a topology request)";
constexpr std::string_view kDraWhy =
    "Dynamic Resource Allocation is not modelled by tally: ignored (no device quota, no device "
    "claims)";

std::optional<KueuePerfWorkloadTemplate> ReadTemplate(ConfigReader& r, const YAML::Node& node,
                                                      const std::string& path) {
  std::optional<Entries> e =
      r.Map(node, path,
            {"className", "runtimeMs", "priority", "request", "podCount", "tasLevel", "devices"},
            {"tasConstraint", "sliceSize"}, kTasWhy);
  if (!e) {
    return std::nullopt;
  }
  KueuePerfWorkloadTemplate t;
  std::optional<std::string> name = r.ClassName(*e, node, path);
  std::optional<int64_t> runtime =
      r.Int(*e, node, path, "runtimeMs", false, 0, 0, std::numeric_limits<uint32_t>::max());
  std::optional<int64_t> priority =
      r.Int(*e, node, path, "priority", false, 0, std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max());
  std::optional<std::string> request = r.Quantity(*e, node, path, "request", true);
  std::optional<int64_t> pod_count = r.Int(*e, node, path, "podCount", false, 0, 0, 1'000'000);
  std::optional<std::string> tas_level = r.Scalar(*e, node, path, "tasLevel", false);
  if (const YAML::Node* devices = ConfigReader::Find(*e, "devices"); devices != nullptr) {
    r.Warn(ConfigReader::Child(path, "devices"), kDraWhy);
  }
  if (!name || !runtime || !priority || !request || !pod_count) {
    return std::nullopt;
  }
  t.class_name = *name;
  t.runtime_ms = *runtime;
  t.priority = static_cast<int32_t>(*priority);
  t.request = *request;
  // Kueue reads podCount only when building a TAS pod set; the standard workload has one pod.
  bool tas = tas_level.has_value() && !tas_level->empty();
  if (tas) {
    r.Warn(ConfigReader::Child(path, "tasLevel"), kTasWhy);
  }
  t.pod_count = tas && *pod_count > 0 ? static_cast<int32_t>(*pod_count) : 1;
  return t;
}

std::optional<KueuePerfWorkloadsSet> ReadWorkloadsSet(ConfigReader& r, const YAML::Node& node,
                                                      const std::string& path) {
  std::optional<Entries> e =
      r.Map(node, path, {"count", "creationIntervalMs", "workloads"}, {}, "");
  if (!e) {
    return std::nullopt;
  }
  KueuePerfWorkloadsSet s;
  std::optional<int64_t> count = r.Int(*e, node, path, "count", true, 0, 0, kMaxWorkloads);
  std::optional<int64_t> interval = r.Int(*e, node, path, "creationIntervalMs", false, 0, 0,
                                          std::numeric_limits<uint32_t>::max());
  std::string list_path = ConfigReader::Child(path, "workloads");
  bool ok = count && interval;
  std::vector<YAML::Node> items = r.List(*e, node, path, "workloads", true);
  for (size_t i = 0; i < items.size(); ++i) {
    std::optional<KueuePerfWorkloadTemplate> t =
        ReadTemplate(r, items[i], ConfigReader::Index(list_path, i));
    if (t) {
      s.workloads.push_back(std::move(*t));
    } else {
      ok = false;
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  s.count = *count;
  s.creation_interval_ms = *interval;
  return s;
}

std::optional<KueuePerfQueuesSet> ReadQueuesSet(ConfigReader& r, const YAML::Node& node,
                                                const std::string& path) {
  std::optional<Entries> e = r.Map(node, path,
                                   {"className", "count", "nominalQuota", "borrowingLimit",
                                    "reclaimWithinCohort", "withinClusterQueue", "workloadsSets"},
                                   {"deviceNominalQuota", "deviceBorrowingLimit"}, kDraWhy);
  if (!e) {
    return std::nullopt;
  }
  KueuePerfQueuesSet q;
  std::optional<std::string> name = r.ClassName(*e, node, path);
  std::optional<int64_t> count = r.Int(*e, node, path, "count", true, 0, 0, kMaxClusterQueues);
  std::optional<std::string> nominal = r.Quantity(*e, node, path, "nominalQuota", true);
  std::optional<std::string> borrowing = r.Quantity(*e, node, path, "borrowingLimit", false);
  bool ok = name && count && nominal;
  std::optional<std::string> reclaim =
      r.Enum(*e, node, path, "reclaimWithinCohort", {"Never", "LowerPriority", "Any"});
  std::optional<std::string> within =
      r.Enum(*e, node, path, "withinClusterQueue",
             {"Never", "LowerPriority", "LowerOrNewerEqualPriority"});
  std::string list_path = ConfigReader::Child(path, "workloadsSets");
  std::vector<YAML::Node> items = r.List(*e, node, path, "workloadsSets", true);
  for (size_t i = 0; i < items.size(); ++i) {
    std::optional<KueuePerfWorkloadsSet> s =
        ReadWorkloadsSet(r, items[i], ConfigReader::Index(list_path, i));
    if (s) {
      q.workloads_sets.push_back(std::move(*s));
    } else {
      ok = false;
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  q.class_name = *name;
  q.count = *count;
  q.nominal_quota = *nominal;
  q.borrowing_limit = borrowing.value_or("");
  q.reclaim_within_cohort = reclaim.value_or("");
  q.within_cluster_queue = within.value_or("");
  return q;
}

std::optional<KueuePerfCohortSet> ReadCohortSet(ConfigReader& r, const YAML::Node& node,
                                                const std::string& path) {
  std::optional<Entries> e = r.Map(node, path, {"className", "count", "queuesSets"}, {}, "");
  if (!e) {
    return std::nullopt;
  }
  KueuePerfCohortSet c;
  std::optional<std::string> name = r.ClassName(*e, node, path);
  std::optional<int64_t> count = r.Int(*e, node, path, "count", true, 0, 0, kMaxClusterQueues);
  bool ok = name && count;
  std::string list_path = ConfigReader::Child(path, "queuesSets");
  std::vector<YAML::Node> items = r.List(*e, node, path, "queuesSets", true);
  for (size_t i = 0; i < items.size(); ++i) {
    std::optional<KueuePerfQueuesSet> q =
        ReadQueuesSet(r, items[i], ConfigReader::Index(list_path, i));
    if (q) {
      c.queues_sets.push_back(std::move(*q));
    } else {
      ok = false;
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  c.class_name = *name;
  c.count = *count;
  return c;
}

// Names that Kubernetes would reject or that collide: checked on the largest indices.
void CheckNames(ConfigReader& r, const KueuePerfConfig& config, const YAML::Node& root) {
  int64_t total_queues = 0;
  int64_t total_workloads = 0;
  std::set<std::string> queue_names;
  for (size_t ci = 0; ci < config.cohorts.size(); ++ci) {
    const KueuePerfCohortSet& cs = config.cohorts[ci];
    std::string cs_path = ConfigReader::Index("cohorts", ci);
    for (size_t qi = 0; qi < cs.queues_sets.size(); ++qi) {
      const KueuePerfQueuesSet& qs = cs.queues_sets[qi];
      std::string qs_path = ConfigReader::Index(ConfigReader::Child(cs_path, "queuesSets"), qi);
      total_queues += cs.count * qs.count;
      if (cs.count > 0 && qs.count > 0) {
        std::string longest = QueueName(qs, qi, qs.count - 1, CohortName(cs, cs.count - 1));
        if (!engine::IsDns1123Label(longest)) {
          r.Error(root, ConfigReader::Child(qs_path, "className"),
                  fmt::format("Invalid value: ClusterQueue and Namespace name \"{}\" is longer "
                              "than {} characters",
                              longest, engine::kMaxDns1123LabelLength));
        }
      }
      if (total_queues > kMaxClusterQueues) {
        continue;
      }
      for (int64_t c = 0; c < cs.count; ++c) {
        for (int64_t q = 0; q < qs.count; ++q) {
          std::string name = QueueName(qs, qi, q, CohortName(cs, c));
          if (!queue_names.insert(name).second) {
            r.Error(root, ConfigReader::Child(qs_path, "className"),
                    fmt::format("Duplicate value: ClusterQueue \"{}\" is generated twice (two "
                                "cohort sets with the same className?)",
                                name));
            return;
          }
        }
      }
      for (size_t wi = 0; wi < qs.workloads_sets.size(); ++wi) {
        const KueuePerfWorkloadsSet& ws = qs.workloads_sets[wi];
        total_workloads +=
            cs.count * qs.count * ws.count * static_cast<int64_t>(ws.workloads.size());
        for (const KueuePerfWorkloadTemplate& t : ws.workloads) {
          std::string longest =
              fmt::format("{}-{}-{}-{}", t.class_name, wi, ws.count, ws.workloads.size());
          if (!engine::IsDns1123Subdomain(longest)) {
            r.Error(root, ConfigReader::Child(qs_path, "workloadsSets"),
                    fmt::format("Invalid value: Workload name \"{}\" is not a DNS-1123 subdomain",
                                longest));
          }
        }
      }
    }
  }
  if (total_queues > kMaxClusterQueues) {
    r.Error(root, "cohorts",
            fmt::format("Invalid value: {} ClusterQueues: at most {}", total_queues,
                        kMaxClusterQueues));
  }
  if (total_workloads > kMaxWorkloads) {
    r.Error(root, "cohorts",
            fmt::format("Invalid value: {} workloads: at most {}", total_workloads, kMaxWorkloads));
  }
}

}  // namespace

std::string CohortName(const KueuePerfCohortSet& c, int64_t idx) {
  return fmt::format("{}-{}", c.class_name, idx);
}
std::string QueueName(const KueuePerfQueuesSet& q, size_t set_idx, int64_t idx,
                      std::string_view cohort) {
  return fmt::format("{}-{}-{}-{}", q.class_name, set_idx, idx, cohort);
}

engine::StatusOr<KueuePerfConfig> ParseKueuePerfConfig(std::string_view yaml,
                                                       std::string_view file_name) {
  ConfigReader r(file_name);
  YAML::Node root;
  try {
    root = LoadYaml(yaml);
  } catch (const YAML::Exception& e) {
    return engine::InvalidArgument(
        fmt::format("{}:{}: not valid YAML: {}", file_name, e.mark.line + 1, e.msg));
  }
  KueuePerfConfig config;
  config.file = std::string(file_name);
  if (root.IsNull() || !root.IsDefined()) {
    return engine::InvalidArgument(fmt::format(
        "{}: cohorts: Required value: the config must contain at least one cohort", file_name));
  }
  std::optional<Entries> e =
      r.Map(root, "", {"cohorts", "resourceFlavor", "dra"}, {"topology"}, kTasWhy);
  if (e) {
    if (ConfigReader::Find(*e, "dra") != nullptr) {
      r.Warn("dra", kDraWhy);
    }
    if (const YAML::Node* rf = ConfigReader::Find(*e, "resourceFlavor"); rf != nullptr) {
      std::optional<Entries> rfe =
          r.Map(*rf, "resourceFlavor", {"name", "nodeLabel"}, {"topologyName"}, kTasWhy);
      if (rfe) {
        std::optional<std::string> name = r.Scalar(*rfe, *rf, "resourceFlavor", "name", true);
        if (name && !engine::IsDns1123Subdomain(*name)) {
          r.Error(*ConfigReader::Find(*rfe, "name"), "resourceFlavor.name",
                  fmt::format("Invalid value: \"{}\": {}", *name, engine::kDns1123SubdomainRule));
        } else if (name) {
          config.flavor_name = *name;
        }
        // Kueue sets nodeLabel: "tas" only together with a topology; tally keeps the label.
        std::optional<std::string> label =
            r.Scalar(*rfe, *rf, "resourceFlavor", "nodeLabel", false);
        if (label && !label->empty()) {
          config.flavor_node_labels[*label] = "tas";
        }
      }
    }
    std::vector<YAML::Node> items = r.List(*e, root, "", "cohorts", true);
    if (items.empty() && r.ok()) {
      r.Error(root, "cohorts", "Required value: the config must contain at least one cohort");
    }
    for (size_t i = 0; i < items.size(); ++i) {
      std::optional<KueuePerfCohortSet> c =
          ReadCohortSet(r, items[i], ConfigReader::Index("cohorts", i));
      if (c) {
        config.cohorts.push_back(std::move(*c));
      }
    }
  }
  if (r.ok()) {
    CheckNames(r, config, root);
  }
  if (!r.ok()) {
    return engine::InvalidArgument(r.JoinedErrors());
  }
  config.warnings = std::move(r.warnings());
  return config;
}

engine::StatusOr<KueuePerfConfig> LoadKueuePerfConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return engine::NotFound(fmt::format("{}: cannot open the generator config", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseKueuePerfConfig(text.str(), path);
}

}  // namespace replay
