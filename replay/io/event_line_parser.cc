// File: replay/io/event_line_parser.cc
//
// EventLineParser (replay/io/event_reader.h): one trace line into a TraceEvent. Common Workloads
// go through the on-demand fast path (workload_json.h); anything else is validated as JSON,
// checked for size, and read by the manifest parsers, which give the exact errors.
#include <fmt/format.h>

#include <string>
#include <string_view>

#include <simdjson.h>

#include "engine/base/slash_join.h"
#include "replay/io/event_reader.h"
#include "replay/io/input_limits.h"
#include "replay/io/literal_equals.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/pod_sets_by_text.h"
#include "replay/io/specs_by_text.h"
#include "replay/io/time_parse.h"
#include "replay/io/workload_fields.h"
#include "replay/io/workload_json.h"

namespace replay {
namespace {

using internal::MakeEventError;

// True (with `error`) when `object` would only be refused by the manifest parsers, or is too big
// to give them: a Workload with more pod sets than Kueue allows, with the loader's own message.
bool RefuseOversizedObject(simdjson::dom::element object, size_t bytes, EventError& error) {
  simdjson::dom::array pod_sets;
  if (object["spec"]["podSets"].get(pod_sets) == simdjson::SUCCESS
      && pod_sets.size() > internal::kMaxPodSets) {
    // For the message only: a field missing or of another type is shown empty.
    auto text = [](simdjson::simdjson_result<simdjson::dom::element> field) {
      std::string_view value;
      return field.get(value) == simdjson::SUCCESS ? value : std::string_view();
    };
    const std::string_view kind = text(object["kind"]);
    const std::string_view name_space = text(object["metadata"]["namespace"]);
    const std::string_view name = text(object["metadata"]["name"]);
    error = MakeEventError(EventErrorReason::kBadObject, "object.spec.podSets",
                           fmt::format("{}/{}/{}: Too many: {}: must have at most {} items", kind,
                                       name_space, name, pod_sets.size(), internal::kMaxPodSets));
    return true;
  }
  // An event object larger than this is not handed to the manifest parsers (about 100 bytes of
  // memory per byte): docs/limits.md. Real objects are a few KiB; the fast path, which reads
  // common Workloads without that cost, has no such limit.
  if (const size_t limit = CurrentInputLimits().max_object_bytes; bytes > limit) {
    error = MakeEventError(
        EventErrorReason::kBadObject, "object",
        fmt::format("{} bytes: larger than {} bytes, not loaded (only common Workload "
                    "shapes are read at any size; --max-object-bytes)",
                    bytes, limit));
    return true;
  }
  return false;
}

// A time or duration given as a JSON number or string.
engine::StatusOr<int64_t> ParseTimeValue(simdjson::ondemand::value value, bool duration) {
  simdjson::ondemand::json_type type;
  if (value.type().get(type) != simdjson::SUCCESS) {
    return engine::InvalidArgument("not a JSON value");
  }
  if (type == simdjson::ondemand::json_type::number) {
    std::string_view token = value.raw_json_token();
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) {
      token.remove_suffix(1);
    }
    return ParseDecimalSeconds(token);
  }
  if (type == simdjson::ondemand::json_type::string) {
    std::string_view text;
    if (value.get_string().get(text) != simdjson::SUCCESS) {
      return engine::InvalidArgument("invalid string");
    }
    return duration ? ParseGoDuration(text) : ParseRfc3339(text);
  }
  return engine::InvalidArgument(duration ? "expected a number of seconds or a duration string"
                                          : "expected an RFC 3339 string or a number of seconds");
}

// The kind and name of the one object a manifest load produced.
void DescribeObject(const engine::ClusterSpec& spec, std::string& kind, std::string& name) {
  if (!spec.workloads.empty()) {
    kind = "Workload";
    name = spec.workloads[0].name_space + "/" + spec.workloads[0].name;
  } else if (!spec.cluster_queues.empty()) {
    kind = "ClusterQueue";
    name = spec.cluster_queues[0].name;
  } else if (!spec.cohorts.empty()) {
    kind = "Cohort";
    name = spec.cohorts[0].name;
  } else if (!spec.flavors.empty()) {
    kind = "ResourceFlavor";
    name = spec.flavors[0].name;
  } else if (!spec.local_queues.empty()) {
    kind = "LocalQueue";
    name = spec.local_queues[0].name_space + "/" + spec.local_queues[0].name;
  } else if (!spec.priority_classes.empty()) {
    kind = "WorkloadPriorityClass";
    name = spec.priority_classes[0].name;
  } else if (!spec.namespaces.empty()) {
    kind = "Namespace";
    name = spec.namespaces[0].name;
  } else if (!spec.admission_checks.empty()) {
    kind = "AdmissionCheck";
    name = spec.admission_checks[0].name;
  } else if (!spec.resource_classes.empty()) {
    kind = "ResourceClass";
    name = spec.resource_classes[0].name;
  } else if (!spec.nodes.empty()) {
    kind = "Node";
    name = spec.nodes[0].name;
  } else if (!spec.flavor_supplies.empty()) {
    kind = "FlavorSupply";
    name = spec.flavor_supplies[0].name;
  } else if (spec.configuration.present) {
    kind = "Configuration";
  }
}

}  // namespace

struct EventLineParser::Impl {
  simdjson::ondemand::parser parser;
  PodSetsByText pod_sets_by_text;   // Workload lines read in place share repeated pod-set lists
  SpecsByText specs_by_text;        // and take repeated specs' readings
  simdjson::dom::parser validator;  // the object is JSON before the manifest parsers see it
};

EventLineParser::EventLineParser() : impl_(std::make_unique<Impl>()) {}
EventLineParser::~EventLineParser() = default;

int64_t EventLineParser::spec_memo_hits() const {
  return impl_->specs_by_text.hits();
}

ReadResult EventLineParser::ParseDeletedObject(std::string_view object_json, TraceEvent& event,
                                               EventError& error) {
  simdjson::padded_string copy(object_json);
  simdjson::ondemand::document doc;
  std::string_view kind;
  std::string_view name;
  std::string_view name_space;
  if (impl_->parser.iterate(copy).get(doc) != simdjson::SUCCESS
      || doc["kind"].get_string().get(kind) != simdjson::SUCCESS) {
    error = MakeEventError(EventErrorReason::kBadField, "object.kind", "Required value");
    return ReadResult::kError;
  }
  event.kind = std::string(kind);
  simdjson::ondemand::object metadata;
  if (doc["metadata"].get_object().get(metadata) != simdjson::SUCCESS
      || metadata["name"].get_string().get(name) != simdjson::SUCCESS || name.empty()) {
    error = MakeEventError(EventErrorReason::kBadField, "object.metadata.name", "Required value");
    return ReadResult::kError;
  }
  event.name = std::string(name);
  static constexpr std::string_view kNamespaced[] = {"Workload", "LocalQueue"};
  static constexpr std::string_view kClusterScoped[] = {
      "ClusterQueue",          "Cohort",         "ResourceFlavor",
      "WorkloadPriorityClass", "AdmissionCheck", "Namespace",
      "FlavorSupply",          "ResourceClass",  "Node"};
  bool namespaced =
      std::find(std::begin(kNamespaced), std::end(kNamespaced), kind) != std::end(kNamespaced);
  if (namespaced) {
    if (metadata.find_field_unordered("namespace").get_string().get(name_space)
        != simdjson::SUCCESS) {
      name_space = "default";
    }
    event.name = engine::SlashJoin(name_space, event.name);
  } else if (std::find(std::begin(kClusterScoped), std::end(kClusterScoped), kind)
             == std::end(kClusterScoped)) {
    error = MakeEventError(EventErrorReason::kUnsupportedKind, "object.kind",
                           fmt::format("unsupported kind {} for DELETED", kind));
    return ReadResult::kError;
  }
  if (event.runtime || event.pods_ready_after) {
    error =
        MakeEventError(EventErrorReason::kBadField, event.runtime ? "runtime" : "podsReadyAfter",
                       "a DELETED event takes no replay hints");
    return ReadResult::kError;
  }
  return ReadResult::kEvent;
}

ReadResult EventLineParser::Parse(const char* data, size_t size, size_t capacity,
                                  const std::string& path, int64_t line, TraceEvent& event,
                                  EventError& error, bool& timed) {
  // Common Workload lines are plain ASCII: their object is read by the fast path in place, as
  // the line is iterated (the line indexed once). Anything the fast path declines is read again
  // from the start the general way, which is what every line went through before.
  if (IsPlainAsciiJson(std::string_view(data, size))) {
    bool again = false;
    const ReadResult r = ParseLine(data, size, capacity, path, line, event, error, timed, &again);
    if (!again) {
      return r;
    }
  }
  return ParseLine(data, size, capacity, path, line, event, error, timed, nullptr);
}

ReadResult EventLineParser::ParseLine(const char* data, size_t size, size_t capacity,
                                      const std::string& path, int64_t line, TraceEvent& event,
                                      EventError& error, bool& timed, bool* in_place_declined) {
  // Afresh, but the Workload list keeps its storage: a reader reuses its events line after line,
  // and most lines are a Workload (one allocation and one free fewer per line). So does the
  // Workload's spec, which the fast path below writes its next object into: the simulator hands
  // the storage of an erased workload's spec back in it (WorkloadStore::AddSwapping), and a
  // Workload line then allocates nothing (engine::ResetForReuse).
  engine::WorkloadSpec in_place;  // the object, when read in place
  if (!event.object.workloads.empty()) {
    in_place = std::move(event.object.workloads.front());
  }
  std::vector<engine::WorkloadSpec> workloads = std::move(event.object.workloads);
  workloads.clear();
  if (event.object_loaded) {
    event.object = engine::ClusterSpec{};
    event.object_loaded = false;
  }
  // TraceEvent{} field by field, the object's other lists left untouched (empty: see
  // TraceEvent::object_loaded), the strings' storage kept.
  event.type = EventType::kAdded;
  event.time = 0;
  event.kind.clear();
  event.name.clear();
  event.runtime.reset();
  event.pods_ready_after.reset();
  event.object.workloads = std::move(workloads);
  event.line = line;
  timed = false;
  simdjson::padded_string_view view(data, size, capacity);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (impl_->parser.iterate(view).get(doc) != simdjson::SUCCESS
      || doc.get_object().get(obj) != simdjson::SUCCESS) {
    error = MakeEventError(EventErrorReason::kMalformedJson, "", "not a JSON object");
    return ReadResult::kError;
  }
  bool have_type = false;
  bool have_time = false;
  std::string_view object_json;
  bool have_in_place = false;
  for (auto field_result : obj) {
    simdjson::ondemand::field field;
    std::string_view key;
    if (std::move(field_result).get(field) != simdjson::SUCCESS
        || field.unescaped_key().get(key) != simdjson::SUCCESS) {
      error = MakeEventError(EventErrorReason::kMalformedJson, "", "malformed JSON");
      return ReadResult::kError;
    }
    simdjson::ondemand::value value = field.value();
    if (Is(key, "type")) {
      std::string_view type;
      if (value.get_string().get(type) != simdjson::SUCCESS) {
        error = MakeEventError(EventErrorReason::kBadField, "type", "expected a string");
        return ReadResult::kError;
      }
      if (Is(type, "ADDED")) {
        event.type = EventType::kAdded;
      } else if (Is(type, "MODIFIED")) {
        event.type = EventType::kModified;
      } else if (Is(type, "DELETED")) {
        event.type = EventType::kDeleted;
      } else {
        error =
            MakeEventError(EventErrorReason::kBadField, "type",
                           fmt::format("Unsupported value: \"{}\": supported values: \"ADDED\", "
                                       "\"MODIFIED\", \"DELETED\"",
                                       type));
        return ReadResult::kError;
      }
      have_type = true;
    } else if (Is(key, "time")) {
      engine::StatusOr<int64_t> t = ParseTimeValue(value, /*duration=*/false);
      if (!t.ok()) {
        error = MakeEventError(EventErrorReason::kBadField, "time", t.status().message());
        return ReadResult::kError;
      }
      event.time = *t;
      have_time = true;
    } else if (Is(key, "runtime") || Is(key, "podsReadyAfter")) {
      engine::StatusOr<int64_t> d = ParseTimeValue(value, /*duration=*/true);
      if (!d.ok()) {
        error = MakeEventError(EventErrorReason::kBadField, std::string(key), d.status().message());
        return ReadResult::kError;
      }
      (Is(key, "runtime") ? event.runtime : event.pods_ready_after) = *d;
    } else if (Is(key, "object") && in_place_declined != nullptr) {
      simdjson::ondemand::object object;
      if (have_in_place || value.get_object().get(object) != simdjson::SUCCESS
          || ParseWorkloadObjectFast(object, path, in_place, &impl_->pod_sets_by_text,
                                     &impl_->specs_by_text, data + size)
                 != FastParse::kParsed) {
        *in_place_declined = true;  // a second object, or not the common Workload shape
        return ReadResult::kError;
      }
      have_in_place = true;
    } else if (Is(key, "object")) {
      simdjson::ondemand::object object;
      if (value.get_object().get(object) != simdjson::SUCCESS
          || object.raw_json().get(object_json) != simdjson::SUCCESS) {
        error = MakeEventError(EventErrorReason::kBadField, "object", "expected a JSON object");
        return ReadResult::kError;
      }
    } else {
      error =
          MakeEventError(EventErrorReason::kBadField, std::string(key),
                         "unknown field (supported: type, time, object, runtime, podsReadyAfter)");
      return ReadResult::kError;
    }
  }
  const char* trailing = nullptr;
  if (doc.current_location().get(trailing) == simdjson::SUCCESS) {
    error =
        MakeEventError(EventErrorReason::kMalformedJson, "", "trailing content after the event");
    return ReadResult::kError;
  }
  if (!have_type) {
    error = MakeEventError(EventErrorReason::kBadField, "type", "Required value");
    return ReadResult::kError;
  }
  if (!have_time) {
    error = MakeEventError(EventErrorReason::kBadField, "time", "Required value");
    return ReadResult::kError;
  }
  if (have_in_place) {
    if (event.type == EventType::kDeleted) {
      *in_place_declined = true;  // a deletion reads only the kind and name: the general way
      return ReadResult::kError;
    }
    timed = true;
    event.kind = "Workload";
    event.name = engine::SlashJoin(in_place.name_space, in_place.name);
    event.object.workloads.push_back(std::move(in_place));
    return ReadResult::kEvent;
  }
  if (object_json.empty()) {
    error = MakeEventError(EventErrorReason::kBadField, "object", "Required value");
    return ReadResult::kError;
  }
  timed = true;

  if (event.type == EventType::kDeleted) {
    // A deletion needs only the kind and name (watch streams send the last state, audit logs
    // often only the metadata).
    return ParseDeletedObject(object_json, event, error);
  }
  // The fast path for the common Workload shape; anything else, or anything it is not sure of,
  // goes through the manifest parsers (JSON is YAML), which give the exact errors.
  {
    const size_t object_capacity = capacity - static_cast<size_t>(object_json.data() - data);
    simdjson::padded_string_view object_view(object_json.data(), object_json.size(),
                                             object_capacity);
    engine::WorkloadSpec wl;
    if (ParseWorkloadJsonFast(impl_->parser, object_view, path, wl) == FastParse::kParsed)
        [[likely]] {
      event.kind = "Workload";
      event.name = engine::SlashJoin(wl.name_space, wl.name);
      event.object.workloads.push_back(std::move(wl));
      return ReadResult::kEvent;
    }
  }
  // The on-demand parser skipped over the object without validating it, and the manifest parsers
  // read YAML (a superset of JSON): an object that is not JSON (unquoted strings, YAML tags,
  // anchors and aliases, which may refer to themselves) is rejected here, as docs/events.md says.
  {
    simdjson::dom::element object;
    if (const auto e =
            impl_->validator.parse(object_json.data(), object_json.size(), false).get(object)) {
      error = MakeEventError(EventErrorReason::kMalformedJson, "object",
                             fmt::format("not JSON ({})", simdjson::error_message(e)));
      return ReadResult::kError;
    }
    // The manifest parsers hold about 100 bytes of memory per byte of object (robustness finding
    // 20: 800,000 pod sets, 55 MB, took 5.7 GB and 51 s to be refused as "Too many"). What they
    // would refuse for its size is refused here, from the validated document, before they run.
    if (RefuseOversizedObject(object, object_json.size(), error)) {
      return ReadResult::kError;
    }
  }
  LoadResult load = LoadManifestString(object_json, path);
  if (load.skipped_unknown > 0) {
    std::string kind = load.skipped_by_kind.empty() ? "?" : load.skipped_by_kind.begin()->first;
    error = MakeEventError(EventErrorReason::kUnsupportedKind, "object.kind",
                           fmt::format("unsupported kind {}", kind));
    return ReadResult::kError;
  }
  if (!load.errors.empty()) {
    const LoadError& first = load.errors.front();
    std::string field = first.field_path.empty() ? "object" : "object." + first.field_path;
    std::string message = first.message;
    if (!first.kind.empty()) {
      message = fmt::format("{}/{}: {}", first.kind, first.name, message);
    }
    if (load.errors.size() > 1) {
      message += fmt::format(" (and {} more)", load.errors.size() - 1);
    }
    error = MakeEventError(EventErrorReason::kBadObject, std::move(field), std::move(message));
    return ReadResult::kError;
  }
  DescribeObject(load.spec, event.kind, event.name);
  if (event.kind.empty()) {
    error = MakeEventError(EventErrorReason::kBadObject, "object", "no object");
    return ReadResult::kError;
  }
  if ((event.runtime || event.pods_ready_after) && event.kind != "Workload") {
    error =
        MakeEventError(EventErrorReason::kBadField, event.runtime ? "runtime" : "podsReadyAfter",
                       fmt::format("only Workload events take replay hints, not {}", event.kind));
    return ReadResult::kError;
  }
  event.object = std::move(load.spec);
  event.object_loaded = true;
  return ReadResult::kEvent;
}

}  // namespace replay
