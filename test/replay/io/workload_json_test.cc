// Differential tests for the Workload JSON fast path (replay/io/workload_json.h) against the slow
// path it stands in for (LoadManifestString -> spec.workloads[0]): for every object, either the
// fast path falls back, or the slow path accepts it with no error and both WorkloadSpecs are equal
// field by field. The corpus: every Workload in the YAML files under data/ and test/ (converted to
// JSON here), the workloads of both generators, and hand-written edge cases; invalid objects must
// fall back. Run with the repository root as working directory (ctest does that).
#include "replay/io/workload_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/generate/kueue_perf_generator.h"
#include "replay/generate/synthetic_generator.h"
#include "replay/io/event_reader.h"
#include "replay/io/input_limits.h"
#include "replay/io/literal_equals.h"
#include "replay/io/manifest_loader.h"

#include <yaml-cpp/yaml.h>

namespace replay {
namespace {

constexpr std::string_view kFile = "trace.jsonl";
constexpr int64_t kStart = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z

// --- YAML -> JSON --------------------------------------------------------------------------------

void AppendJsonString(std::string_view s, std::string& out) {
  out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += c;
    }
  }
  out += '"';
}

// A JSON number as RFC 8259 writes it.
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
    }
    return i - start;
  };
  if (i < s.size() && s[i] == '-') {
    ++i;
  }
  const size_t int_start = i;
  const size_t n = digits();
  if (n == 0 || (n > 1 && s[int_start] == '0')) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) {
      return false;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      ++i;
    }
    if (digits() == 0) {
      return false;
    }
  }
  return i == s.size();
}

// `spaced` puts a space after ':' and ',' (both are valid JSON; raw number tokens then carry
// trailing whitespace in simdjson).
void AppendJson(const YAML::Node& node, bool spaced, std::string& out) {
  const char* sep = spaced ? ", " : ",";
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      out += '{';
      bool first = true;
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (!first) {
          out += sep;
        }
        first = false;
        AppendJsonString(it->first.IsScalar() ? it->first.Scalar() : "?", out);
        out += spaced ? ": " : ":";
        AppendJson(it->second, spaced, out);
      }
      out += '}';
      return;
    }
    case YAML::NodeType::Sequence: {
      out += '[';
      for (size_t i = 0; i < node.size(); ++i) {
        if (i > 0) {
          out += sep;
        }
        AppendJson(node[i], spaced, out);
      }
      out += ']';
      return;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() == "?" && (IsJsonNumber(s) || s == "true" || s == "false")) {
        out += s;
      } else {
        AppendJsonString(s, out);
      }
      return;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out += "null";
      return;
  }
}

std::string ToJson(const YAML::Node& node, bool spaced = false) {
  std::string out;
  AppendJson(node, spaced, out);
  return out;
}

// --- comparison ----------------------------------------------------------------------------------

std::string Str(const engine::DecimalQuantity& d) {
  return fmt::format("{}{:x}:{:x}e{}{}", d.negative ? "-" : "",
                     static_cast<uint64_t>(d.mantissa >> 64), static_cast<uint64_t>(d.mantissa),
                     d.exponent, d.sticky ? "+" : "");
}

std::string Str(const engine::ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) {
    out += fmt::format("{}={} ", name, Str(q));
  }
  return out;
}

std::string Str(const std::map<std::string, std::string>& m) {
  std::string out;
  for (const auto& [k, v] : m) {
    out += fmt::format("{}={} ", k, v);
  }
  return out;
}

std::string Str(const std::vector<std::string>& v) {
  return fmt::format("[{}]", fmt::join(v, ","));
}

std::string Str(const std::optional<int32_t>& v) {
  return v ? std::to_string(*v) : "none";
}
std::string Str(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "none";
}

// Appends "path: a != b" to `diffs` when the rendered values differ.
struct Differ {
  std::vector<std::string> diffs;
  template <typename T>
  void Eq(const std::string& path, const T& a, const T& b) {
    if (!(a == b)) {
      diffs.push_back(fmt::format("{}: slow {} != fast {}", path, Render(a), Render(b)));
    }
  }
  template <typename T>
  static std::string Render(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      return fmt::format("\"{}\"", v);
    } else if constexpr (std::is_same_v<T, engine::InternedName>) {
      return fmt::format("\"{}\"", v.view());
    } else if constexpr (std::is_same_v<T, engine::WorkloadUid>) {
      return fmt::format("\"{}\"", v.str());
    } else if constexpr (std::is_arithmetic_v<T>) {
      return fmt::format("{}", v);
    } else {
      return Str(v);
    }
  }
  void Resources(const std::string& path, const engine::ResourceList& a,
                 const engine::ResourceList& b) {
    if (Str(a) != Str(b)) {
      diffs.push_back(fmt::format("{}: slow {{{}}} != fast {{{}}}", path, Str(a), Str(b)));
    }
  }
  void Containers(const std::string& path, const std::vector<engine::ContainerResources>& a,
                  const std::vector<engine::ContainerResources>& b) {
    Eq(path + ".size", a.size(), b.size());
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      const std::string p = fmt::format("{}[{}]", path, i);
      Resources(p + ".requests", a[i].requests, b[i].requests);
      Resources(p + ".limits", a[i].limits, b[i].limits);
      Eq(p + ".restartable_sidecar", a[i].restartable_sidecar, b[i].restartable_sidecar);
    }
  }
};

// Every field of two WorkloadSpecs; empty when equal.
std::vector<std::string> Diff(const engine::WorkloadSpec& a, const engine::WorkloadSpec& b) {
  Differ d;
  d.Eq("name_space", a.name_space, b.name_space);
  d.Eq("name", a.name, b.name);
  d.Eq("uid", a.uid, b.uid);
  d.Eq("creation_time", a.creation_time, b.creation_time);
  d.Eq("workload_class", a.workload_class, b.workload_class);
  d.Eq("expected_runtime", a.expected_runtime, b.expected_runtime);
  d.Eq("queue_name", a.queue_name, b.queue_name);
  d.Eq("priority_class_name", a.priority_class_name, b.priority_class_name);
  d.Eq("priority_class_kind", std::string(engine::ToString(a.priority_class_kind)),
       std::string(engine::ToString(b.priority_class_kind)));
  d.Eq("priority", a.priority, b.priority);
  d.Eq("active", a.active, b.active);
  d.Eq("maximum_execution_time_seconds", a.maximum_execution_time_seconds,
       b.maximum_execution_time_seconds);
  d.Eq("pod_sets.size", a.pod_sets.size(), b.pod_sets.size());
  for (size_t i = 0; i < std::min(a.pod_sets.size(), b.pod_sets.size()); ++i) {
    const engine::PodSetSpec& x = a.pod_sets[i];
    const engine::PodSetSpec& y = b.pod_sets[i];
    const std::string p = fmt::format("pod_sets[{}]", i);
    d.Eq(p + ".name", x.name, y.name);
    d.Eq(p + ".count", x.count, y.count);
    d.Eq(p + ".min_count", x.min_count, y.min_count);
    d.Containers(p + ".containers", x.resources.containers, y.resources.containers);
    d.Containers(p + ".init_containers", x.resources.init_containers, y.resources.init_containers);
    d.Resources(p + ".overhead", x.resources.overhead, y.resources.overhead);
    d.Resources(p + ".pod_requests", x.resources.pod_requests, y.resources.pod_requests);
    d.Resources(p + ".pod_limits", x.resources.pod_limits, y.resources.pod_limits);
    d.Eq(p + ".node_selector", x.node_selector, y.node_selector);
    d.Eq(p + ".required_affinity.size", x.required_affinity.size(), y.required_affinity.size());
    for (size_t t = 0; t < std::min(x.required_affinity.size(), y.required_affinity.size()); ++t) {
      const auto& ex = x.required_affinity[t].match_expressions;
      const auto& ey = y.required_affinity[t].match_expressions;
      const std::string tp = fmt::format("{}.required_affinity[{}]", p, t);
      d.Eq(tp + ".size", ex.size(), ey.size());
      for (size_t e = 0; e < std::min(ex.size(), ey.size()); ++e) {
        const std::string ep = fmt::format("{}[{}]", tp, e);
        d.Eq(ep + ".key", ex[e].key, ey[e].key);
        d.Eq(ep + ".op", ex[e].op, ey[e].op);
        d.Eq(ep + ".values", ex[e].values, ey[e].values);
      }
    }
    d.Eq(p + ".tolerations.size", x.tolerations.size(), y.tolerations.size());
    for (size_t t = 0; t < std::min(x.tolerations.size(), y.tolerations.size()); ++t) {
      const std::string tp = fmt::format("{}.tolerations[{}]", p, t);
      d.Eq(tp + ".key", x.tolerations[t].key, y.tolerations[t].key);
      d.Eq(tp + ".op", x.tolerations[t].op, y.tolerations[t].op);
      d.Eq(tp + ".value", x.tolerations[t].value, y.tolerations[t].value);
      d.Eq(tp + ".effect", x.tolerations[t].effect, y.tolerations[t].effect);
    }
    d.Eq(p + ".priority_class_name", x.priority_class_name, y.priority_class_name);
  }
  d.Eq("admission", a.admission.has_value(), b.admission.has_value());
  d.Eq("conditions.size", a.conditions->size(), b.conditions->size());
  d.Eq("reclaimable_pods.size", a.reclaimable_pods->size(), b.reclaimable_pods->size());
  d.Eq("admission_checks.size", a.admission_checks->size(), b.admission_checks->size());
  d.Eq("requeue_at", a.requeue_at, b.requeue_at);
  d.Eq("requeue_count", a.requeue_count, b.requeue_count);
  d.Eq("source.file", a.source->file, b.source->file);
  d.Eq("source.document", a.source->document, b.source->document);
  d.Eq("source.line", a.source->line, b.source->line);
  return d.diffs;
}

// --- the two paths -------------------------------------------------------------------------------

struct Outcome {
  bool slow_ok = false;  // one Workload, no error
  bool fast = false;     // kParsed
  std::string first_error;
  std::vector<std::string> diffs;  // when both parsed
};

Outcome RunBoth(std::string_view json) {
  Outcome o;
  LoadResult load = LoadManifestString(json, kFile);
  const engine::ClusterSpec& s = load.spec;
  o.slow_ok = load.errors.empty() && load.skipped_unknown == 0 && s.workloads.size() == 1
              && s.cluster_queues.empty() && s.cohorts.empty() && s.flavors.empty()
              && s.local_queues.empty() && s.namespaces.empty() && s.admission_checks.empty()
              && s.priority_classes.empty() && !s.configuration.present;
  if (!load.errors.empty()) {
    o.first_error = load.errors.front().ToString();
  }
  static simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  engine::WorkloadSpec wl;
  o.fast = ParseWorkloadJsonFast(parser, padded, kFile, wl) == FastParse::kParsed;
  if (o.fast && o.slow_ok) {
    o.diffs = Diff(s.workloads[0], wl);
  }
  return o;
}

// The contract: kParsed implies the slow path accepts and agrees. Returns whether it parsed.
bool ExpectConsistent(std::string_view json, const std::string& what) {
  Outcome o = RunBoth(json);
  if (o.fast) {
    EXPECT_TRUE(o.slow_ok) << what
                           << ": fast path parsed what the slow path rejects: " << o.first_error
                           << "\n"
                           << json;
    EXPECT_TRUE(o.diffs.empty()) << what << ": first difference: "
                                 << (o.diffs.empty() ? "" : o.diffs.front()) << "\n"
                                 << json;
  }
  return o.fast;
}

void ExpectParsed(std::string_view json, const std::string& what) {
  Outcome o = RunBoth(json);
  ASSERT_TRUE(o.slow_ok) << what << ": the slow path rejects the case itself: " << o.first_error
                         << "\n"
                         << json;
  EXPECT_TRUE(o.fast) << what << ": fell back\n" << json;
  EXPECT_TRUE(o.diffs.empty()) << what
                               << ": first difference: " << (o.diffs.empty() ? "" : o.diffs.front())
                               << "\n"
                               << json;
}

// Invalid for the slow path, and the fast path must fall back.
void ExpectRejected(std::string_view json, const std::string& what) {
  Outcome o = RunBoth(json);
  EXPECT_FALSE(o.slow_ok) << what << ": the slow path accepts the case\n" << json;
  EXPECT_FALSE(o.fast) << what << ": fast path parsed an invalid object\n" << json;
}

// --- corpus: YAML files --------------------------------------------------------------------------

void CollectWorkloads(const YAML::Node& node, std::vector<YAML::Node>& out) {
  if (!node.IsMap()) {
    return;
  }
  const YAML::Node kind = node["kind"];
  if (kind.IsDefined() && kind.IsScalar() && kind.Scalar() == "Workload") {
    out.push_back(node);
    return;
  }
  const YAML::Node items = node["items"];
  if (items.IsDefined() && items.IsSequence()) {
    for (size_t i = 0; i < items.size(); ++i) {
      CollectWorkloads(items[i], out);
    }
  }
}

std::vector<std::string> YamlCorpusFiles() {
  std::vector<std::string> files;
  for (const char* root : {"data", "test"}) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory() && (it->path() == "test/robustness" || it->path() == "test/fuzz")) {
        // hostile inputs (self-referring aliases, yaml-cpp's endless loops), on purpose
        it.disable_recursion_pending();
        continue;
      }
      const auto ext = it->path().extension();
      if (it->is_regular_file() && (ext == ".yaml" || ext == ".yml")) {
        files.push_back(it->path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The parsers' key compare (replay/io/literal_equals.h) is string_view's ==: equal text only,
// not a prefix, an extension, a different case or a text with a NUL inside.
TEST(WorkloadJsonTest, LiteralCompareIsStringViewEquality) {
  const std::string_view cases[] = {
      "",         "k",         "kind",    "kin",      "kinds",
      "Kind",     "kine",      "spec",    "metadata", "metadat",
      "metadatA", "metadataa", "podSets", "podSetsX", std::string_view("kin\0", 4)};
  for (std::string_view text : cases) {
    SCOPED_TRACE(std::string(text));
    EXPECT_EQ(Is(text, "kind"), text == "kind");
    EXPECT_EQ(Is(text, "metadata"), text == "metadata");
    EXPECT_EQ(Is(text, "podSets"), text == "podSets");
    EXPECT_EQ(Is(text, ""), text.empty());
  }
  static_assert(Is("Workload", "Workload") && !Is("Workloads", "Workload"));
}

TEST(WorkloadJsonTest, YamlCorpusAgrees) {
  int total = 0;
  int parsed = 0;
  int valid_fallbacks = 0;  // accepted by the slow path, not taken by the fast path
  int with_status = 0;      // ... of which have a status
  for (const std::string& file : YamlCorpusFiles()) {
    std::vector<YAML::Node> docs;
    try {
      std::ifstream in(file);
      docs = YAML::LoadAll(in);
    } catch (const YAML::Exception&) {
      continue;  // templates and deliberately broken files
    }
    std::vector<YAML::Node> workloads;
    for (const YAML::Node& doc : docs) {
      CollectWorkloads(doc, workloads);
    }
    for (size_t i = 0; i < workloads.size(); ++i) {
      for (bool spaced : {false, true}) {
        const std::string what = fmt::format("{} workload {}{}", file, i, spaced ? " spaced" : "");
        ++total;
        const std::string json = ToJson(workloads[i], spaced);
        if (ExpectConsistent(json, what)) {
          ++parsed;
        } else if (RunBoth(json).slow_ok) {
          ++valid_fallbacks;
          with_status += json.find("\"status\":") != std::string::npos ? 1 : 0;
          // Read on the test's one thread, before any other starts.
          if (std::getenv("WORKLOAD_JSON_DUMP") != nullptr) {  // NOLINT(concurrency-mt-unsafe)
            std::printf("fallback: %s\n%s\n", what.c_str(), json.c_str());
          }
        }
      }
    }
  }
  std::printf(
      "YAML corpus: %d objects (compact + spaced), %d on the fast path, %d valid ones fall back "
      "(%d with a status)\n",
      total, parsed, valid_fallbacks, with_status);
  EXPECT_GT(total, 300);
  EXPECT_GT(parsed, total / 4);  // most have a status (slow path) or YAML-only spellings
}

// --- corpus: generators --------------------------------------------------------------------------

// The `object` of every event line, as written.
std::vector<std::string> EventObjects(std::string_view events, size_t stride) {
  std::vector<std::string> out;
  simdjson::ondemand::parser parser;
  size_t index = 0;
  while (!events.empty()) {
    const size_t nl = events.find('\n');
    std::string_view line = events.substr(0, nl);
    events = nl == std::string_view::npos ? std::string_view() : events.substr(nl + 1);
    if (line.find("\"object\"") == std::string_view::npos || index++ % stride != 0) {
      continue;
    }
    simdjson::padded_string padded(line);
    simdjson::ondemand::document doc;
    simdjson::ondemand::object object;
    std::string_view raw;
    if (parser.iterate(padded).get(doc) == simdjson::SUCCESS
        && doc["object"].get_object().get(object) == simdjson::SUCCESS
        && object.raw_json().get(raw) == simdjson::SUCCESS) {
      out.emplace_back(raw);
    }
  }
  return out;
}

TEST(WorkloadJsonTest, KueuePerfGeneratorWorkloadsAllTakeTheFastPath) {
  const std::string dir = "data/kueue-examples/test/performance/scheduler/configs/";
  int total = 0;
  for (const char* name : {"baseline", "large-scale", "tas"}) {
    engine::StatusOr<KueuePerfConfig> config =
        LoadKueuePerfConfig(fmt::format("{}{}/generator.yaml", dir, name));
    ASSERT_TRUE(config.ok()) << config.status().message();
    KueuePerfScenario s = GenerateKueuePerfScenario(*config, kStart);
    // Every workload class appears early; a stride keeps the slow path's share short.
    const size_t stride = std::max<size_t>(1, static_cast<size_t>(s.workloads / 1500));
    for (const std::string& object : EventObjects(s.events, stride)) {
      ++total;
      ExpectParsed(object, fmt::format("kueue-perf {}", name));
    }
  }
  std::printf("kueue-perf: %d objects\n", total);
  EXPECT_GT(total, 1000);
}

TEST(WorkloadJsonTest, SyntheticGeneratorWorkloadsAllTakeTheFastPath) {
  int total = 0;
  for (uint64_t seed : {1, 7}) {
    SyntheticOptions o;
    o.workloads = 1500;
    o.seed = seed;
    o.flavors = 3;
    o.resources = 5;  // cpu, memory, nvidia.com/gpu and extended resources
    std::string manifests;
    std::string events;
    GenerateSynthetic(o, &manifests, [&events](std::string_view chunk) { events.append(chunk); });
    for (const std::string& object : EventObjects(events, 1)) {
      ++total;
      ExpectParsed(object, fmt::format("synthetic seed {}", seed));
    }
  }
  EXPECT_EQ(total, 3000);
}

// --- hand-written edge cases ---------------------------------------------------------------------

// A Workload around `spec` (the text inside "spec":{...}) and extra metadata.
std::string Wl(std::string_view spec, std::string_view metadata = R"("name":"w","namespace":"ns")",
               std::string_view api = "kueue.x-k8s.io/v1beta2") {
  return fmt::format(R"({{"apiVersion":"{}","kind":"Workload","metadata":{{{}}},"spec":{{{}}}}})",
                     api, metadata, spec);
}

// One pod set whose template.spec is `pod`.
std::string PodSpec(std::string_view pod, std::string_view podset_extra = "") {
  return fmt::format(
      R"("queueName":"q","podSets":[{{"name":"main"{}"template":{{"spec":{{{}}}}}}}])",
      podset_extra.empty() ? "," : fmt::format(",{},", podset_extra), pod);
}

constexpr std::string_view kCpu1 =
    R"("containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}])";

// The Workload objects of a small synthetic trace (2 flavors, 3 resources).
std::vector<std::string> SyntheticObjects(int64_t workloads, uint64_t seed) {
  SyntheticOptions o;
  o.workloads = workloads;
  o.seed = seed;
  o.flavors = 2;
  o.resources = 3;
  std::string manifests;
  std::string events;
  GenerateSynthetic(o, &manifests, [&events](std::string_view chunk) { events.append(chunk); });
  return EventObjects(events, 1);
}

// Objects of every shape the fast path reads, each with what it shows.
std::vector<std::pair<std::string, std::string>> EdgeCaseObjects() {
  return {
      {"minimal", Wl(PodSpec(kCpu1))},
      {"no namespace, no uid", Wl(PodSpec(kCpu1), R"("name":"w")")},
      {"uid, class label, other labels, creationTimestamp",
       Wl(PodSpec(kCpu1),
          R"("name":"w","namespace":"ns","uid":"u-1","creationTimestamp":"2024-03-19T21:49:17.25+01:00","labels":{"a":"b","tally.dev/class":"big"})")},
      {"expected-runtime annotation",
       Wl(PodSpec(kCpu1),
          R"("name":"w","annotations":{"x":"y","tally.dev/expected-runtime":"1h30m"})")},
      {"kubectl metadata",
       Wl(PodSpec(kCpu1),
          R"("name":"w","namespace":"ns","resourceVersion":"12","generation":3,"annotations":{"x":"y"},"ownerReferences":[{"kind":"Job","name":"j","controller":true}],"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}],"generateName":"w-")")},
      {"init containers and sidecars",
       Wl(PodSpec(
           R"("initContainers":[{"name":"i","resources":{"requests":{"cpu":"2","memory":"1Gi"}}},{"name":"s","restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}}],)"
           R"("containers":[{"name":"c","image":"busybox","command":["sleep","1"],"ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"1"}}}])"))},
      {"overhead and pod-level resources",
       Wl(PodSpec(
           R"("overhead":{"cpu":"250m","memory":"120Mi"},"resources":{"requests":{"cpu":"3"},"limits":{"cpu":"4"}},)"
           R"("containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}])"))},
      {"limits only",
       Wl(PodSpec(
           R"("containers":[{"name":"c","resources":{"limits":{"cpu":"2","nvidia.com/gpu":"1"},"claims":[{"name":"x"}]}}])"))},
      {"no resources", Wl(PodSpec(R"("containers":[{"name":"c"}])"))},
      {"empty containers", Wl(PodSpec(R"("containers":[])"))},
      {"quantities as numbers",
       Wl(PodSpec(
           R"("containers":[{"name":"c","resources":{"requests":{"cpu":0.5,"memory":1e9,"example.com/x":3}}}])"))},
      {"tolerations",
       Wl(PodSpec(
           std::string(kCpu1)
           + R"(,"tolerations":[{"key":"k","operator":"Equal","value":"v","effect":"NoSchedule"},{"operator":"Exists"},{"key":"g","operator":"Exists","effect":"NoExecute","tolerationSeconds":30}])"))},
      {"node selector and affinity",
       Wl(PodSpec(
           std::string(kCpu1)
           + R"(,"nodeSelector":{"zone":"a","pool":"gpu"},"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"In","values":["x","y"]},{"key":"b","operator":"Exists"}]},{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}],"matchExpressions":[{"key":"c","operator":"Gt","values":["3"]}]}]},"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1}]},"podAntiAffinity":{}})"))},
      {"template metadata, other pod fields, pod priorityClassName",
       Wl(R"("podSets":[{"name":"main","count":2,"template":{"metadata":{"creationTimestamp":null,"labels":{"a":"b"}},"spec":{"restartPolicy":"Never","schedulerName":"x","priorityClassName":"high",)"
          R"("containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}}])")},
      {"several pod sets, minCount, topologyRequest",
       Wl(R"("podSets":[{"name":"driver","count":1,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}},)"
          R"({"name":"workers","count":8,"minCount":2,"topologyRequest":{"required":"rack"},"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"4","memory":"8Gi"}}}]}}}])")},
      {"count 0, default name and count",
       Wl(R"("podSets":[{"template":{"spec":{"containers":[]}}},{"name":"b","count":0,"template":{"spec":{"containers":[]}}}])")},
      {"priorityClassRef kueue",
       Wl(R"("priority":100,"priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass","name":"high"},)"
          + PodSpec(kCpu1))},
      {"priorityClassRef pod",
       Wl(R"("priority":-5,"priorityClassRef":{"name":"low","group":"scheduling.k8s.io","kind":"PriorityClass"},)"
          + PodSpec(kCpu1))},
      {"v1beta1 priorityClassName + source",
       Wl(R"("priority":7,"priorityClassName":"p","priorityClassSource":"kueue.x-k8s.io/workloadpriorityclass",)"
              + PodSpec(kCpu1),
          R"("name":"w")", "kueue.x-k8s.io/v1beta1")},
      {"v1beta1 priorityClassName without source",
       Wl(R"("priority":7,"priorityClassName":"p",)" + PodSpec(kCpu1), R"("name":"w")",
          "kueue.x-k8s.io/v1beta1")},
      {"v1beta1 empty source", Wl(R"("priorityClassSource":"",)" + PodSpec(kCpu1), R"("name":"w")",
                                  "kueue.x-k8s.io/v1beta1")},
      {"active, maximumExecutionTimeSeconds, priority only",
       Wl(R"("active":false,"maximumExecutionTimeSeconds":3600,"priority":2147483647,)"
          + PodSpec(kCpu1))},
      {"keys in another order",
       R"({"spec":{"podSets":[{"template":{"spec":{"containers":[{"resources":{"requests":{"cpu":"1"}},"name":"c"}]}},"count":3,"name":"p"}],"queueName":"q"},"metadata":{"namespace":"x","name":"y"},"kind":"Workload","apiVersion":"kueue.x-k8s.io/v1beta2"})"},
      {"spaced JSON",
       R"({ "apiVersion" : "kueue.x-k8s.io/v1beta2" , "kind" : "Workload" , "metadata" : { "name" : "w" } , "spec" : { "priority" : 3 , "podSets" : [ { "count" : 2 , "template" : { "spec" : { "containers" : [ { "resources" : { "requests" : { "cpu" : 1.5 } } } ] } } } ] } })"},
  };
}

TEST(WorkloadJsonTest, EdgeCasesTakeTheFastPathAndAgree) {
  for (const auto& [what, json] : EdgeCaseObjects()) {
    ExpectParsed(json, what);
  }
}

// The fast path writes over the spec it is given, keeping its storage (engine::ResetForReuse):
// a reader passes the same spec line after line. Whatever the spec held before (any other
// object, one the fast path declined halfway, a spec reset for reuse), the result is the one a
// fresh spec gets.
TEST(WorkloadJsonTest, ASpecReadOverAnotherReadsAsAFreshOne) {
  std::vector<std::pair<std::string, std::string>> objects = EdgeCaseObjects();
  objects.emplace_back("declined late: bad uid after pod sets",
                       Wl(PodSpec(kCpu1), R"("name":"w","uid":7)"));
  objects.emplace_back(
      "declined in the second pod set",
      Wl(R"("podSets":[{"name":"a","count":2,"template":{"spec":{)" + std::string(kCpu1)
         + R"(}}},{"name":"b","template":{"spec":{"containers":7}}}])"));
  for (const std::string& object : SyntheticObjects(12, 11)) {
    objects.emplace_back("synthetic", object);
  }
  simdjson::ondemand::parser parser;
  int compared = 0;
  for (const auto& [first_what, first] : objects) {
    for (const auto& [what, json] : objects) {
      const simdjson::padded_string first_padded(first);
      const simdjson::padded_string padded(json);
      engine::WorkloadSpec reused;
      (void)ParseWorkloadJsonFast(parser, first_padded, kFile, reused);
      const FastParse over = ParseWorkloadJsonFast(parser, padded, kFile, reused);
      engine::WorkloadSpec fresh;
      const FastParse alone = ParseWorkloadJsonFast(parser, padded, kFile, fresh);
      const std::string label = fmt::format("{} then {}", first_what, what);
      ASSERT_EQ(over, alone) << label;
      if (alone == FastParse::kParsed) {
        const std::vector<std::string> diffs = Diff(reused, fresh);
        EXPECT_TRUE(diffs.empty()) << label << ": first difference: " << diffs.front();
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 500);
}

TEST(WorkloadJsonTest, InvalidObjectsFallBack) {
  const std::string ok_spec = PodSpec(kCpu1);
  std::string many;
  for (int i = 0; i < 19; ++i) {
    many += fmt::format(R"({}{{"name":"p{}","template":{{"spec":{{"containers":[]}}}}}})",
                        i == 0 ? "" : ",", i);
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad name", Wl(ok_spec, R"("name":"Bad_Name")")},
      {"bad namespace", Wl(ok_spec, R"("name":"w","namespace":"Team.A")")},
      {"empty namespace", Wl(ok_spec, R"("name":"w","namespace":"")")},
      {"no name", Wl(ok_spec, R"("namespace":"ns")")},
      {"empty name", Wl(ok_spec, R"("name":"")")},
      {"bad creationTimestamp",
       Wl(ok_spec, R"("name":"w","creationTimestamp":"2024-13-01T00:00:00Z")")},
      {"label value a map", Wl(ok_spec, R"("name":"w","labels":{"a":{"b":"c"}})")},
      {"expected-runtime not a duration",
       Wl(ok_spec, R"("name":"w","annotations":{"tally.dev/expected-runtime":"soon"})")},
      {"bad queueName",
       Wl(R"("queueName":"Bad_Q","podSets":[{"template":{"spec":{"containers":[]}}}])")},
      {"19 pod sets", Wl("\"podSets\":[" + many + "]")},
      {"no pod sets", Wl(R"("podSets":[])")},
      {"no spec",
       R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w"}})"},
      {"duplicate pod set names",
       Wl(R"("podSets":[{"name":"a","template":{"spec":{"containers":[]}}},{"name":"a","template":{"spec":{"containers":[]}}}])")},
      {"bad pod set name",
       Wl(R"("podSets":[{"name":"A_b","template":{"spec":{"containers":[]}}}])")},
      {"minCount above count",
       Wl(R"("podSets":[{"count":2,"minCount":3,"template":{"spec":{"containers":[]}}}])")},
      {"minCount 0",
       Wl(R"("podSets":[{"count":2,"minCount":0,"template":{"spec":{"containers":[]}}}])")},
      {"two pod sets with minCount",
       Wl(R"("podSets":[{"name":"a","count":2,"minCount":1,"template":{"spec":{"containers":[]}}},{"name":"b","count":2,"minCount":1,"template":{"spec":{"containers":[]}}}])")},
      {"count as string", Wl(R"("podSets":[{"count":"2","template":{"spec":{"containers":[]}}}])")},
      {"count fractional",
       Wl(R"("podSets":[{"count":2.5,"template":{"spec":{"containers":[]}}}])")},
      {"count negative", Wl(R"("podSets":[{"count":-1,"template":{"spec":{"containers":[]}}}])")},
      {"count too large",
       Wl(R"("podSets":[{"count":4294967296,"template":{"spec":{"containers":[]}}}])")},
      {"no template", Wl(R"("podSets":[{"name":"a"}])")},
      {"no template spec", Wl(R"("podSets":[{"template":{"metadata":{}}}])")},
      {"no containers", Wl(PodSpec(R"("nodeSelector":{"a":"b"})"))},
      {"containers a map", Wl(PodSpec(R"("containers":{"name":"c"})"))},
      {"bad quantity", Wl(PodSpec(R"("containers":[{"resources":{"requests":{"cpu":"5Qi"}}}])"))},
      {"quantity a map",
       Wl(PodSpec(R"("containers":[{"resources":{"requests":{"cpu":{"a":1}}}}])"))},
      {"quantity null", Wl(PodSpec(R"("containers":[{"resources":{"requests":{"cpu":null}}}])"))},
      {"pods requested", Wl(PodSpec(R"("containers":[{"resources":{"requests":{"pods":"1"}}}])"))},
      {"duplicate resource",
       Wl(PodSpec(R"("containers":[{"resources":{"requests":{"cpu":"1","cpu":"2"}}}])"))},
      {"init restartPolicy Never",
       Wl(PodSpec(R"("initContainers":[{"restartPolicy":"Never"}],"containers":[])"))},
      {"toleration operator",
       Wl(PodSpec(R"("containers":[],"tolerations":[{"key":"k","operator":"Is"}])"))},
      {"toleration effect",
       Wl(PodSpec(R"("containers":[],"tolerations":[{"key":"k","effect":"Sometimes"}])"))},
      {"affinity operator",
       Wl(PodSpec(
           R"("containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Near"}]}]}}})"))},
      {"affinity without key",
       Wl(PodSpec(
           R"("containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"operator":"Exists"}]}]}}})"))},
      {"affinity value null",
       Wl(PodSpec(
           R"("containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"In","values":[null]}]}]}}})"))},
      {"priorityClassRef in v1beta1",
       Wl(R"("priority":1,"priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass","name":"p"},)"
              + ok_spec,
          R"("name":"w")", "kueue.x-k8s.io/v1beta1")},
      {"priorityClassName in v1beta2", Wl(R"("priority":1,"priorityClassName":"p",)" + ok_spec)},
      {"priorityClassRef group/kind mismatch",
       Wl(R"("priority":1,"priorityClassRef":{"group":"scheduling.k8s.io","kind":"WorkloadPriorityClass","name":"p"},)"
          + ok_spec)},
      {"priorityClassRef without name",
       Wl(R"("priority":1,"priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass"},)"
          + ok_spec)},
      {"priorityClassRef without priority",
       Wl(R"("priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass","name":"p"},)"
          + ok_spec)},
      {"v1beta1 bad source",
       Wl(R"("priority":1,"priorityClassName":"p","priorityClassSource":"x",)" + ok_spec,
          R"("name":"w")", "kueue.x-k8s.io/v1beta1")},
      {"maximumExecutionTimeSeconds 0", Wl(R"("maximumExecutionTimeSeconds":0,)" + ok_spec)},
      {"active as string", Wl(R"("active":"false",)" + ok_spec)},
      {"priority too large", Wl(R"("priority":2147483648,)" + ok_spec)},
      {"duplicate spec key", Wl(R"("priority":1,"priority":2,)" + ok_spec)},
      {"duplicate top-level key",
       R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","kind":"Workload","metadata":{"name":"w"},"spec":{"podSets":[{"template":{"spec":{"containers":[]}}}]}})"},
      {"apiVersion v1alpha1", Wl(ok_spec, R"("name":"w")", "kueue.x-k8s.io/v1alpha1")},
  };
  for (const auto& [what, json] : cases) {
    ExpectRejected(json, what);
  }
}

// More containers than --max-containers: the fast path stops reading at the limit and falls
// back, and the slow path refuses the object with the limit's message.
TEST(WorkloadJsonTest, ContainersBeyondTheLimitFallBackAndAreRefused) {
  auto containers = [](int n) {
    std::string list;
    for (int i = 0; i < n; ++i) {
      list += fmt::format(R"({}{{"name":"c{}","resources":{{"requests":{{"cpu":"1"}}}}}})",
                          i == 0 ? "" : ",", i);
    }
    return Wl(PodSpec("\"containers\":[" + list + "]"));
  };
  InputLimits limits;
  limits.max_containers = 3;
  SetInputLimits(limits);
  const Outcome three = RunBoth(containers(3));
  const Outcome four = RunBoth(containers(4));
  SetInputLimits(InputLimits{});
  EXPECT_TRUE(three.fast);
  EXPECT_TRUE(three.slow_ok);
  EXPECT_FALSE(four.fast);
  EXPECT_FALSE(four.slow_ok);
  EXPECT_TRUE(RunBoth(containers(4)).fast);  // within the default
}

// Valid objects the fast path does not model: it falls back (or agrees).
TEST(WorkloadJsonTest, UnmodelledObjectsFallBack) {
  const std::string ok_spec = PodSpec(kCpu1);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"status",
       R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w"},"spec":{)"
           + ok_spec
           + R"(},"status":{"conditions":[{"type":"Finished","status":"True","reason":"R","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})"},
      {"unknown top-level key",
       R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w"},"spec":{)"
           + ok_spec + R"(},"extra":{}})"},
      {"escaped string", Wl(ok_spec, R"("name":"w","labels":{"tally.dev/class":"\u0062ig"})")},
      {"non-ASCII label", Wl(ok_spec, "\"name\":\"w\",\"labels\":{\"a\":\"caf\xc3\xa9\"}")},
      {"label value a number", Wl(ok_spec, R"("name":"w","labels":{"tally.dev/class":7})")},
      {"null queueName",
       Wl(R"("podSets":[{"template":{"spec":{"containers":[]}}}],"queueName":null)")},
      {"name a number", Wl(ok_spec, R"("name":7)")},
      {"unknown spec key (a warning)", Wl(R"("foo":1,)" + ok_spec)},
      {"unknown resources key (a warning)",
       Wl(PodSpec(R"("containers":[{"resources":{"request":{"cpu":"1"}}}])"))},
      {"podset unknown key",
       Wl(R"("podSets":[{"extra":1,"template":{"spec":{"containers":[]}}}])")},
      {"tab whitespace", Wl(ok_spec, "\"name\":\t\"w\"")},
      {"kind ClusterQueue",
       R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq"},"spec":{}})"},
  };
  for (const auto& [what, json] : cases) {
    EXPECT_FALSE(ExpectConsistent(json, what)) << what << ": expected a fallback";
  }
}

// --- event lines: the object read in place ---------------------------------------------------

// What EventLineParser::Parse made of a line, for comparing two readings.
struct LineReading {
  ReadResult result = ReadResult::kError;
  bool timed = false;
  TraceEvent event;
  EventError error;
};

LineReading ReadLine(std::string_view line) {
  static EventLineParser parser;
  std::string padded(line);
  padded.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
  LineReading r;
  r.result = parser.Parse(padded.data(), line.size(), padded.size(), std::string(kFile), 3, r.event,
                          r.error, r.timed);
  return r;
}

void ExpectSameReading(const LineReading& in_place, const LineReading& general,
                       const std::string& what) {
  ASSERT_EQ(in_place.result, general.result) << what << ": " << general.error.message;
  EXPECT_EQ(in_place.timed, general.timed) << what;
  EXPECT_EQ(in_place.error.reason, general.error.reason) << what;
  EXPECT_EQ(in_place.error.field, general.error.field) << what;
  EXPECT_EQ(in_place.error.message, general.error.message) << what;
  const TraceEvent& a = in_place.event;
  const TraceEvent& b = general.event;
  EXPECT_EQ(a.type, b.type) << what;
  EXPECT_EQ(a.time, b.time) << what;
  EXPECT_EQ(a.line, b.line) << what;
  EXPECT_EQ(a.kind, b.kind) << what;
  EXPECT_EQ(a.name, b.name) << what;
  EXPECT_EQ(a.runtime, b.runtime) << what;
  EXPECT_EQ(a.pods_ready_after, b.pods_ready_after) << what;
  ASSERT_EQ(a.object.workloads.size(), b.object.workloads.size()) << what;
  if (!a.object.workloads.empty()) {
    const std::vector<std::string> diffs = Diff(a.object.workloads[0], b.object.workloads[0]);
    EXPECT_TRUE(diffs.empty()) << what << ": first difference: " << diffs.front();
  }
  EXPECT_EQ(a.object.cluster_queues.size(), b.object.cluster_queues.size()) << what;
}

// A plain ASCII line has its Workload object read in place, as the line is iterated; a line
// with an escape anywhere is read the general way (its object as a document of its own, as
// before). "\u0041DDED" is "ADDED" with an escape: the same event, read the general way. Every
// envelope around every object reads the same both ways: the object before or after the other
// fields, deletions (which read only the kind and name), a field the envelope refuses after the
// object, a second object, content after the line's object, objects the fast path declines.
TEST(WorkloadJsonTest, EventLinesReadTheirObjectInPlaceAsTheGeneralPathDoes) {
  std::vector<std::pair<std::string, std::string>> objects = {
      {"minimal", Wl(PodSpec(kCpu1))},
      {"no namespace", Wl(PodSpec(kCpu1), R"("name":"w")")},
      {"labels and uid",
       Wl(PodSpec(kCpu1),
          R"("name":"w","namespace":"ns","uid":"u-1","labels":{"tally.dev/class":"small"})")},
      {"bad name (declined, refused)", Wl(PodSpec(kCpu1), R"("name":"Bad_Name")")},
      {"status (declined)", R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",)"
                            R"("metadata":{"name":"w","namespace":"ns"},"spec":{)"
                                + PodSpec(kCpu1) + R"(},"status":{}})"},
      {"a ClusterQueue", R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue",)"
                         R"("metadata":{"name":"cq"},"spec":{}})"},
      {"not an object", R"([1,2])"},
  };
  for (const std::string& object : SyntheticObjects(40, 7)) {
    objects.emplace_back("synthetic", object);
  }
  ASSERT_GT(objects.size(), 40u);
  const std::string time = R"("time":"2026-01-01T00:00:05Z")";
  int in_place_events = 0;
  for (const auto& [what, obj] : objects) {
    for (const char* type : {"ADDED", "DELETED"}) {
      const std::string plain = fmt::format(R"("type":"{}")", type);
      const std::string escaped = fmt::format(R"("type":"\u00{:02x}{}")", type[0], type + 1);
      const std::vector<std::pair<std::string, std::string>> shapes = {
          {"usual", "{{{0}," + time + R"(,"runtime":"1m","object":{1}}})"},
          {"object first", "{{\"object\":{1}," + time + ",{0}}}"},
          {"unknown field after the object", "{{{0}," + time + R"(,"object":{1},"x":1}})"},
          {"two objects", "{{{0}," + time + R"(,"object":{1},"object":{1}}})"},
          {"content after the line", "{{{0}," + time + R"(,"object":{1}}} x)"},
      };
      for (const auto& [shape, format] : shapes) {
        const std::string label = fmt::format("{} / {} / {}", what, type, shape);
        const std::string in_place_line = fmt::format(fmt::runtime(format), plain, obj);
        const std::string general_line = fmt::format(fmt::runtime(format), escaped, obj);
        if (what == "synthetic") {
          ASSERT_TRUE(IsPlainAsciiJson(in_place_line)) << label;
        }
        ASSERT_FALSE(IsPlainAsciiJson(general_line)) << label;
        const LineReading a = ReadLine(in_place_line);
        const LineReading b = ReadLine(general_line);
        ExpectSameReading(a, b, fmt::format("{}\n{}", label, in_place_line));
        in_place_events += a.result == ReadResult::kEvent && !a.event.object.workloads.empty();
      }
    }
  }
  EXPECT_GT(in_place_events, 80);
}

// A reader passes the same event line after line, and the simulator hands the storage of an
// erased workload's spec back in it (WorkloadStore::AddSwapping): the next line is read into
// that storage. Every line reads as it does into a fresh event, whatever the event held: the
// object of the line before (with more pod sets, other fields), an error, another kind (a
// ClusterQueue, which the next line must not keep: TraceEvent::object_loaded).
TEST(WorkloadJsonTest, AnEventReadOverAnotherReadsAsAFreshOne) {
  std::vector<std::string> objects;
  for (const auto& [what, json] : EdgeCaseObjects()) {
    objects.push_back(json);
  }
  objects.push_back(Wl(PodSpec(kCpu1), R"("name":"Bad_Name")"));
  objects.push_back(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue",)"
                    R"("metadata":{"name":"cq"},"spec":{}})");
  const std::string time = R"("time":"2026-01-01T00:00:05Z")";
  std::vector<std::string> lines;
  for (const std::string& object : objects) {
    lines.push_back(
        fmt::format(R"({{"type":"ADDED",{},"runtime":"1m","object":{}}})", time, object));
    // Without the replay hint a ClusterQueue is read too (by the manifest loader: the event's
    // whole object is written, which the next line read into the event must not keep).
    lines.push_back(fmt::format(R"({{"type":"ADDED",{},"object":{}}})", time, object));
    lines.push_back(fmt::format(R"({{"type":"DELETED",{},"object":{}}})", time, object));
  }
  lines.push_back("not json");
  EventLineParser parser;
  LineReading reused;
  int workloads = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < lines.size(); ++i) {
      // The second pass reads them in the other order: every line after every kind of state.
      const std::string& line = lines[pass == 0 ? i : lines.size() - 1 - i];
      std::string padded(line);
      padded.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
      reused.error = EventError{};
      reused.result = parser.Parse(padded.data(), line.size(), padded.size(), std::string(kFile), 3,
                                   reused.event, reused.error, reused.timed);
      ExpectSameReading(reused, ReadLine(line), line);
      workloads += reused.result == ReadResult::kEvent && !reused.event.object.workloads.empty();
    }
  }
  EXPECT_GT(workloads, 40);
}

// A parser keeps the last spec objects it read with their text (replay/io/specs_by_text.h): a
// Workload line whose spec is written exactly as an earlier one's takes that reading, and reads
// as a parser that never saw it reads it. Every field the spec gives is covered (queue name,
// priority and either spelling of its class, active, maximum execution time, several pod sets),
// under both API versions (the class is resolved against apiVersion after the spec is read), and
// a spec that differs by one byte is read afresh.
TEST(WorkloadJsonTest, ASpecTextReadBeforeGivesTheSameReading) {
  const std::string two_pod_sets =
      R"("queueName":"q","podSets":[{"name":"a","count":2,"template":{"spec":{)"
      + std::string(kCpu1) + R"(}}},{"name":"b","template":{"spec":{)" + std::string(kCpu1)
      + "}}}]";
  std::string other_queue = PodSpec(kCpu1);  // one byte apart: read afresh
  other_queue.replace(other_queue.find(R"("q")"), 3, R"("r")");
  const std::vector<std::pair<std::string, std::string>> objects = {
      {"minimal", Wl(PodSpec(kCpu1))},
      {"minimal, another queue", Wl(other_queue)},
      {"class ref", Wl(PodSpec(kCpu1)
                       + R"(,"priority":7,"priorityClassRef":{"group":"kueue.x-k8s.io",)"
                         R"("kind":"WorkloadPriorityClass","name":"high"})")},
      {"pod priority class ref",
       Wl(PodSpec(kCpu1)
          + R"(,"priority":-3,"priorityClassRef":{"group":"scheduling.k8s.io",)"
            R"("kind":"PriorityClass","name":"low"})")},
      {"v1beta1 class name",
       Wl(PodSpec(kCpu1)
              + R"(,"priority":5,"priorityClassName":"mid",)"
                R"("priorityClassSource":"kueue.x-k8s.io/workloadpriorityclass")",
          R"("name":"w","namespace":"ns")", "kueue.x-k8s.io/v1beta1")},
      {"inactive, deadline",
       Wl(PodSpec(kCpu1) + R"(,"active":false,"maximumExecutionTimeSeconds":600)")},
      {"two pod sets", Wl(two_pod_sets)},
      {"spec before metadata (the skipped object is not the last)",
       R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","spec":{)" + PodSpec(kCpu1)
           + R"(},"metadata":{"name":"w2","namespace":"ns"}})"},
  };
  const std::string time = R"("time":"2026-01-01T00:00:05Z")";
  EventLineParser parser;
  for (int pass = 0; pass < 3; ++pass) {
    for (const auto& [what, object] : objects) {
      // The same line each pass: its spec is taken from the memo from the second pass on.
      const std::string line =
          fmt::format(R"({{"type":"ADDED",{},"runtime":"1m","object":{}}})", time, object);
      std::string padded(line);
      padded.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
      LineReading memoised;
      memoised.result = parser.Parse(padded.data(), line.size(), padded.size(), std::string(kFile),
                                     3, memoised.event, memoised.error, memoised.timed);
      EventLineParser fresh_parser;
      LineReading fresh;
      fresh.result =
          fresh_parser.Parse(padded.data(), line.size(), padded.size(), std::string(kFile), 3,
                             fresh.event, fresh.error, fresh.timed);
      ASSERT_EQ(memoised.result, ReadResult::kEvent) << what << ": " << memoised.error.message;
      ExpectSameReading(memoised, fresh, fmt::format("{} (pass {})", what, pass));
    }
  }
  // Every spec after its first reading (two passes of eight; "spec before metadata" has the
  // minimal one's spec, found from its first pass on), none before.
  EXPECT_EQ(parser.spec_memo_hits(), 17);
}

// A parser keeps the last pod-set lists it read with their text (replay/io/pod_sets_by_text.h):
// a Workload line whose podSets are written exactly as an earlier one's shares that list, and
// reads as the general path reads it. A spec holding a shared list, read over by another line,
// leaves the kept list as it was; a text that differs only in its spacing reads equal, not shared.
TEST(WorkloadJsonTest, APodSetsTextReadBeforeSharesItsListAndReadsTheSame) {
  const std::string time = R"("time":"2026-01-01T00:00:05Z")";
  const auto line = [&time](const std::string& object) {
    return R"({"type":"ADDED",)" + time + R"(,"object":)" + object + "}";
  };
  const std::string cpu2 = R"("containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}])";
  const std::string a = line(Wl(PodSpec(kCpu1), R"("name":"a","namespace":"ns")"));
  const std::string b = line(Wl(PodSpec(kCpu1), R"("name":"b","namespace":"ns")"));
  const std::string c = line(Wl(PodSpec(cpu2), R"("name":"c","namespace":"ns")"));
  const std::string spaced =
      line(Wl(R"("queueName":"q","podSets":[ {"name":"main","template":{"spec":{)"
                  + std::string(kCpu1) + "}}}]",
              R"("name":"d","namespace":"ns")"));
  EventLineParser parser;
  const auto read = [&parser](const std::string& text, LineReading& into) {
    std::string padded(text);
    padded.resize(text.size() + simdjson::SIMDJSON_PADDING, '\0');
    into.result = parser.Parse(padded.data(), text.size(), padded.size(), std::string(kFile), 3,
                               into.event, into.error, into.timed);
    ASSERT_EQ(into.result, ReadResult::kEvent) << text << ": " << into.error.message;
    // The general path (an escape in the type) reads the object as its own document.
    const std::string general = std::regex_replace(text, std::regex("ADDED"), R"(\u0041DDED)");
    ExpectSameReading(into, ReadLine(general), text);
  };
  const auto pod_sets = [](const LineReading& r) -> const engine::PodSetList& {
    return r.event.object.workloads.at(0).pod_sets;
  };
  const auto cpu = [&](const LineReading& r) {  // "1" or "2": mantissa 1 or 2, exponent 0
    return static_cast<int>(pod_sets(r)[0].resources.containers[0].requests.at(0).second.mantissa);
  };
  LineReading ra;
  LineReading rb;
  LineReading rd;
  read(a, ra);
  read(b, rb);
  EXPECT_TRUE(pod_sets(rb).SharesWith(pod_sets(ra))) << "the same text: the kept list";
  read(c, rb);  // over the shared list
  EXPECT_EQ(cpu(rb), 2);
  EXPECT_FALSE(pod_sets(rb).SharesWith(pod_sets(ra)));
  EXPECT_EQ(cpu(ra), 1) << "the kept list was not written over";
  LineReading again;
  read(b, again);
  EXPECT_TRUE(pod_sets(again).SharesWith(pod_sets(ra)));
  read(spaced, rd);
  EXPECT_FALSE(pod_sets(rd).SharesWith(pod_sets(ra))) << "another text";
  EXPECT_TRUE(pod_sets(rd).view() == pod_sets(ra).view()) << "the same list";
}

// The fast path's gate: every byte printable ASCII and no backslash. Checked against the byte rule
// for each byte value at each position of texts of 0..40 bytes and of lengths around the vector
// loops' bounds (64 bytes a branch, then 16, then the last 16 overlapping: positions 0, 15, 16,
// 63, 64 and the tail are where a wrong mask or bound would show).
TEST(WorkloadJsonTest, PlainAsciiGateAgreesWithTheByteRuleAtEveryPosition) {
  auto plain_byte = [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; };
  std::vector<size_t> lengths;
  for (size_t length = 0; length <= 40; ++length) {
    lengths.push_back(length);
  }
  for (size_t length : {47, 48, 63, 64, 65, 79, 80, 95, 127, 128, 129, 143, 150}) {
    lengths.push_back(length);
  }
  for (size_t length : lengths) {
    const std::string clean(length, 'a');
    ASSERT_TRUE(IsPlainAsciiJson(clean)) << length;
    for (size_t at = 0; at < length; ++at) {
      for (int value = 0; value < 256; ++value) {
        std::string text = clean;
        text[at] = static_cast<char>(value);
        ASSERT_EQ(IsPlainAsciiJson(text), plain_byte(static_cast<unsigned char>(value)))
            << "length " << length << " at " << at << " byte " << value;
      }
    }
  }
}

}  // namespace
}  // namespace replay
