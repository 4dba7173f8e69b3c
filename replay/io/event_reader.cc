#include "replay/io/event_reader.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <simdjson.h>

#include "engine/base/slash_join.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"
#include "replay/io/workload_fields.h"
#include "replay/io/workload_json.h"

namespace replay {
namespace {

constexpr size_t kBlockSize = size_t{4} << 20;  // read granularity
constexpr int kFormatVersion = 1;

EventError MakeError(EventErrorReason reason, std::string field, std::string message) {
  EventError e;
  e.reason = reason;
  e.field = std::move(field);
  e.message = std::move(message);
  return e;
}

// An event object larger than this is not handed to the manifest parsers (about 100 bytes of
// memory per byte): docs/limits.md. Real objects are a few KiB; the fast path, which reads
// common Workloads without that cost, has no such limit.
constexpr size_t kMaxSlowPathObjectBytes = size_t{4} << 20;

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
    error = MakeError(EventErrorReason::kBadObject, "object.spec.podSets",
                      fmt::format("{}/{}/{}: Too many: {}: must have at most {} items", kind,
                                  name_space, name, pod_sets.size(), internal::kMaxPodSets));
    return true;
  }
  if (bytes > kMaxSlowPathObjectBytes) {
    error =
        MakeError(EventErrorReason::kBadObject, "object",
                  fmt::format("{} bytes: larger than {} bytes, not loaded (only common Workload "
                              "shapes are read at any size)",
                              bytes, kMaxSlowPathObjectBytes));
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

const char* ToString(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "?";
}

const char* ToString(EventErrorReason reason) {
  switch (reason) {
    case EventErrorReason::kMalformedJson:
      return "malformedJson";
    case EventErrorReason::kBadField:
      return "badField";
    case EventErrorReason::kBadObject:
      return "badObject";
    case EventErrorReason::kUnsupportedKind:
      return "unsupportedKind";
    case EventErrorReason::kTimeBackwards:
      return "timeBackwards";
    case EventErrorReason::kUnknownWorkload:
      return "unknownWorkload";
    case EventErrorReason::kUnknownQueue:
      return "unknownQueue";
    case EventErrorReason::kInvalidConfig:
      return "invalidConfig";
    case EventErrorReason::kReadError:
      return "readError";
    case EventErrorReason::kLineTooLong:
      return "lineTooLong";
  }
  return "?";
}

std::string EventError::ToString() const {
  std::string out = fmt::format("{}:{}: ", file, line);
  if (!field.empty()) {
    out += field + ": ";
  }
  out += message;
  return out;
}

struct EventReader::Impl {
  gzFile file = nullptr;
  ~Impl() {
    if (file != nullptr) {
      gzclose(file);
    }
  }
};

struct EventLineParser::Impl {
  simdjson::ondemand::parser parser;
  simdjson::dom::parser validator;  // the object is JSON before the manifest parsers see it
};

EventReader::EventReader() : impl_(std::make_unique<Impl>()) {}
EventReader::~EventReader() = default;

engine::Status EventReader::Open(const std::string& path) {
  path_ = path;
  if (path == "-") {
    impl_->file = gzdopen(dup(fileno(stdin)), "rb");
  } else {
    impl_->file = gzopen(path.c_str(), "rb");
  }
  if (impl_->file == nullptr) {
    return engine::InvalidArgument(
        fmt::format("{}: cannot open: {}", path, std::strerror(errno != 0 ? errno : ENOENT)));
  }
  gzbuffer(impl_->file, 1 << 20);
  buffer_.assign(kBlockSize + simdjson::SIMDJSON_PADDING, '\0');
  return engine::Status::Ok();
}

int64_t EventReader::file_bytes_read() const {
  return impl_->file == nullptr ? 0 : static_cast<int64_t>(gzoffset(impl_->file));
}

bool EventReader::Fill() {
  if (eof_) {
    return false;
  }
  // Move the unread tail to the front, grow if a single line fills the whole buffer.
  size_t pending = end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, pending);
    begin_ = 0;
    end_ = pending;
  }
  size_t usable = buffer_.size() - simdjson::SIMDJSON_PADDING;
  if (end_ == usable) {
    buffer_.resize(buffer_.size() * 2);
    usable = buffer_.size() - simdjson::SIMDJSON_PADDING;
  }
  int n = gzread(impl_->file, buffer_.data() + end_, static_cast<unsigned>(usable - end_));
  if (n <= 0) {
    eof_ = true;
    int code = Z_OK;
    const char* message = gzerror(impl_->file, &code);
    if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
      // A truncated or corrupt gzip stream: the rest of the trace is lost, and must be said.
      read_error_ = code == Z_ERRNO ? std::strerror(errno) : (message != nullptr ? message : "?");
    }
    return false;
  }
  end_ += static_cast<size_t>(n);
  return true;
}

std::optional<std::string_view> EventReader::NextLine() {
  last_too_long_ = false;
  while (true) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr) {
      size_t len = static_cast<const char*>(nl) - start;
      begin_ += len + 1;
      bytes_consumed_ += static_cast<int64_t>(len + 1);
      ++line_;
      if (skipping_ || len > max_line_bytes_) {
        // The end of a line above the limit: it is reported, not returned.
        skipping_ = false;
        last_too_long_ = true;
        return std::string_view();
      }
      std::string_view line(start, len);
      if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
      }
      return line;
    }
    if (end_ - begin_ >= max_line_bytes_) {
      // No newline within the limit: drop what is buffered and the rest of the line as it comes.
      bytes_consumed_ += static_cast<int64_t>(end_ - begin_);
      begin_ = end_;
      skipping_ = true;
    }
    if (!Fill()) {
      if (begin_ == end_ && !skipping_) {
        return std::nullopt;
      }
      // Last line without a newline.
      std::string_view line(buffer_.data() + begin_, end_ - begin_);
      bytes_consumed_ += static_cast<int64_t>(line.size());
      begin_ = end_;
      ++line_;
      if (skipping_ || line.size() > max_line_bytes_) {
        skipping_ = false;
        last_too_long_ = true;
        return std::string_view();
      }
      std::memset(buffer_.data() + end_, 0, simdjson::SIMDJSON_PADDING);
      return line;
    }
  }
}

EventError EventReader::LineTooLongError(int64_t line) const {
  EventError e = MakeError(
      EventErrorReason::kLineTooLong, "",
      fmt::format("line longer than {} bytes, skipped (--max-line-bytes raises the limit)",
                  max_line_bytes_));
  e.file = path_;
  e.line = line;
  return e;
}

std::optional<EventError> EventReader::TakeReadError() {
  if (read_error_.empty()) {
    return std::nullopt;
  }
  EventError error = MakeError(
      EventErrorReason::kReadError, "",
      fmt::format("cannot read past this point: {}; the rest of the file is lost", read_error_));
  error.file = path_;
  error.line = line_ + 1;
  read_error_.clear();
  return error;
}

bool EventReader::CheckHeader(std::string_view& line, std::optional<EventError>& error) {
  if (header_checked_) {
    return false;
  }
  header_checked_ = true;
  // Editors on some systems put a byte order mark before the first line: it is not data.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (line.starts_with(kBom)) {
    line.remove_prefix(kBom.size());
  }
  if (line.find("\"format\"") == std::string_view::npos) {
    return false;
  }
  // The header is an object with a top-level "format" and no "type": {"format":"tally.events",
  // "version":1}. Anything else (an event with "format" in a label, say) is read as an event.
  simdjson::padded_string copy(line);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  if (parser.iterate(copy).get(doc) != simdjson::SUCCESS
      || doc.get_object().get(object) != simdjson::SUCCESS) {
    return false;
  }
  bool has_format = false;
  bool has_type = false;
  bool well_formed = true;
  std::string_view format;
  int64_t version = 0;
  bool has_version = false;
  size_t keys = 0;
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    std::string_view key;
    if (std::move(field_result).get(field) != simdjson::SUCCESS
        || field.unescaped_key().get(key) != simdjson::SUCCESS) {
      well_formed = false;
      break;
    }
    ++keys;
    if (key == "type") {
      has_type = true;
    } else if (key == "format") {
      has_format = true;
      if (field.value().get_string().get(format) != simdjson::SUCCESS) {
        format = {};
      }
    } else if (key == "version") {
      has_version = field.value().get_int64().get(version) == simdjson::SUCCESS;
    }
  }
  if (!well_formed || !has_format || has_type) {
    return false;
  }
  if (!has_version || keys != 2 || format != "tally.events" || version != kFormatVersion) {
    // Only this line is rejected: the events after it are read on (a typo in a header must not
    // drop a whole trace).
    EventError e = MakeError(EventErrorReason::kBadField, "format",
                             fmt::format("unsupported trace header {} (this tally reads "
                                         "{{\"format\":\"tally.events\",\"version\":{}}}); "
                                         "the lines after it are read as events",
                                         line, kFormatVersion));
    e.file = path_;
    e.line = line_;
    error = std::move(e);
  }
  return true;
}

EventReader::Result EventReader::Next(TraceEvent& event, EventError& error) {
  while (true) {
    std::optional<std::string_view> line = NextLine();
    if (!line) {
      if (std::optional<EventError> e = TakeReadError()) {
        error = std::move(*e);
        return Result::kError;
      }
      return Result::kEnd;
    }
    if (last_too_long_) {
      error = LineTooLongError(line_);
      return Result::kError;
    }
    if (line->find_first_not_of(" \t") == std::string_view::npos) {
      continue;  // blank lines are not events
    }
    std::optional<EventError> header_error;
    if (CheckHeader(*line, header_error)) {
      if (header_error) {
        error = std::move(*header_error);
        return Result::kError;
      }
      continue;
    }
    size_t capacity = buffer_.size() - static_cast<size_t>(line->data() - buffer_.data());
    bool timed = false;
    Result r =
        parser_.Parse(line->data(), line->size(), capacity, path_, line_, event, error, timed);
    if (timed && event.time < last_time_) {
      error = MakeError(EventErrorReason::kTimeBackwards, "time",
                        fmt::format("time goes backwards: {} is before the previous event's {}",
                                    FormatRfc3339(event.time), FormatRfc3339(last_time_)));
      r = Result::kError;
    } else if (r == Result::kEvent) {
      last_time_ = event.time;
    }
    if (r == Result::kError) {
      error.file = path_;
      error.line = line_;
    }
    return r;
  }
}

bool EventReader::ReadBatch(LineBatch& batch, size_t max_lines) {
  batch.Clear();
  while (batch.lines.size() < max_lines) {
    std::optional<std::string_view> line = NextLine();
    if (!line) {
      batch.error = TakeReadError();
      break;
    }
    if (last_too_long_) {
      header_checked_ = true;  // a first line that long is no header
      LineBatch::Line l{batch.arena.size(), 0, line_};
      l.too_long = true;
      batch.arena.append(simdjson::SIMDJSON_PADDING, '\0');
      batch.lines.push_back(l);
      continue;
    }
    if (line->find_first_not_of(" \t") == std::string_view::npos) {
      continue;
    }
    if (CheckHeader(*line, batch.error)) {
      if (batch.error) {
        break;
      }
      continue;
    }
    LineBatch::Line l{batch.arena.size(), line->size(), line_};
    batch.arena.append(*line);
    batch.arena.append(simdjson::SIMDJSON_PADDING, '\0');
    batch.lines.push_back(l);
  }
  return !batch.lines.empty() || batch.error.has_value();
}

EventLineParser::EventLineParser() : impl_(std::make_unique<Impl>()) {}
EventLineParser::~EventLineParser() = default;

ReadResult EventLineParser::ParseDeletedObject(std::string_view object_json, TraceEvent& event,
                                               EventError& error) {
  simdjson::padded_string copy(object_json);
  simdjson::ondemand::document doc;
  std::string_view kind;
  std::string_view name;
  std::string_view name_space;
  if (impl_->parser.iterate(copy).get(doc) != simdjson::SUCCESS
      || doc["kind"].get_string().get(kind) != simdjson::SUCCESS) {
    error = MakeError(EventErrorReason::kBadField, "object.kind", "Required value");
    return ReadResult::kError;
  }
  event.kind = std::string(kind);
  simdjson::ondemand::object metadata;
  if (doc["metadata"].get_object().get(metadata) != simdjson::SUCCESS
      || metadata["name"].get_string().get(name) != simdjson::SUCCESS || name.empty()) {
    error = MakeError(EventErrorReason::kBadField, "object.metadata.name", "Required value");
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
    error = MakeError(EventErrorReason::kUnsupportedKind, "object.kind",
                      fmt::format("unsupported kind {} for DELETED", kind));
    return ReadResult::kError;
  }
  if (event.runtime || event.pods_ready_after) {
    error = MakeError(EventErrorReason::kBadField, event.runtime ? "runtime" : "podsReadyAfter",
                      "a DELETED event takes no replay hints");
    return ReadResult::kError;
  }
  return ReadResult::kEvent;
}

ReadResult EventLineParser::Parse(const char* data, size_t size, size_t capacity,
                                  const std::string& path, int64_t line, TraceEvent& event,
                                  EventError& error, bool& timed) {
  event = TraceEvent{};
  event.line = line;
  timed = false;
  simdjson::padded_string_view view(data, size, capacity);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (impl_->parser.iterate(view).get(doc) != simdjson::SUCCESS
      || doc.get_object().get(obj) != simdjson::SUCCESS) {
    error = MakeError(EventErrorReason::kMalformedJson, "", "not a JSON object");
    return ReadResult::kError;
  }
  bool have_type = false;
  bool have_time = false;
  std::string_view object_json;
  for (auto field_result : obj) {
    simdjson::ondemand::field field;
    std::string_view key;
    if (std::move(field_result).get(field) != simdjson::SUCCESS
        || field.unescaped_key().get(key) != simdjson::SUCCESS) {
      error = MakeError(EventErrorReason::kMalformedJson, "", "malformed JSON");
      return ReadResult::kError;
    }
    simdjson::ondemand::value value = field.value();
    if (key == "type") {
      std::string_view type;
      if (value.get_string().get(type) != simdjson::SUCCESS) {
        error = MakeError(EventErrorReason::kBadField, "type", "expected a string");
        return ReadResult::kError;
      }
      if (type == "ADDED") {
        event.type = EventType::kAdded;
      } else if (type == "MODIFIED") {
        event.type = EventType::kModified;
      } else if (type == "DELETED") {
        event.type = EventType::kDeleted;
      } else {
        error = MakeError(EventErrorReason::kBadField, "type",
                          fmt::format("Unsupported value: \"{}\": supported values: \"ADDED\", "
                                      "\"MODIFIED\", \"DELETED\"",
                                      type));
        return ReadResult::kError;
      }
      have_type = true;
    } else if (key == "time") {
      engine::StatusOr<int64_t> t = ParseTimeValue(value, /*duration=*/false);
      if (!t.ok()) {
        error = MakeError(EventErrorReason::kBadField, "time", t.status().message());
        return ReadResult::kError;
      }
      event.time = *t;
      have_time = true;
    } else if (key == "runtime" || key == "podsReadyAfter") {
      engine::StatusOr<int64_t> d = ParseTimeValue(value, /*duration=*/true);
      if (!d.ok()) {
        error = MakeError(EventErrorReason::kBadField, std::string(key), d.status().message());
        return ReadResult::kError;
      }
      (key == "runtime" ? event.runtime : event.pods_ready_after) = *d;
    } else if (key == "object") {
      simdjson::ondemand::object object;
      if (value.get_object().get(object) != simdjson::SUCCESS
          || object.raw_json().get(object_json) != simdjson::SUCCESS) {
        error = MakeError(EventErrorReason::kBadField, "object", "expected a JSON object");
        return ReadResult::kError;
      }
    } else {
      error = MakeError(EventErrorReason::kBadField, std::string(key),
                        "unknown field (supported: type, time, object, runtime, podsReadyAfter)");
      return ReadResult::kError;
    }
  }
  const char* trailing = nullptr;
  if (doc.current_location().get(trailing) == simdjson::SUCCESS) {
    error = MakeError(EventErrorReason::kMalformedJson, "", "trailing content after the event");
    return ReadResult::kError;
  }
  if (!have_type) {
    error = MakeError(EventErrorReason::kBadField, "type", "Required value");
    return ReadResult::kError;
  }
  if (!have_time) {
    error = MakeError(EventErrorReason::kBadField, "time", "Required value");
    return ReadResult::kError;
  }
  if (object_json.empty()) {
    error = MakeError(EventErrorReason::kBadField, "object", "Required value");
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
      error = MakeError(EventErrorReason::kMalformedJson, "object",
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
    error = MakeError(EventErrorReason::kUnsupportedKind, "object.kind",
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
    error = MakeError(EventErrorReason::kBadObject, std::move(field), std::move(message));
    return ReadResult::kError;
  }
  DescribeObject(load.spec, event.kind, event.name);
  if (event.kind.empty()) {
    error = MakeError(EventErrorReason::kBadObject, "object", "no object");
    return ReadResult::kError;
  }
  if ((event.runtime || event.pods_ready_after) && event.kind != "Workload") {
    error = MakeError(EventErrorReason::kBadField, event.runtime ? "runtime" : "podsReadyAfter",
                      fmt::format("only Workload events take replay hints, not {}", event.kind));
    return ReadResult::kError;
  }
  event.object = std::move(load.spec);
  return ReadResult::kEvent;
}

}  // namespace replay
