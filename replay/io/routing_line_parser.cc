#include "replay/io/routing_line_parser.h"

#include <string_view>

#include <simdjson.h>

#include "replay/io/literal_equals.h"

namespace replay {
namespace {

namespace od = simdjson::ondemand;

enum class Quick : uint8_t { kWorkload, kDeleted, kFull };

// metadata: name and namespace (namespace "default" when absent, as the full parser has it).
bool ReadMetadata(od::value value, WorkloadRoute& w) {
  od::object metadata;
  if (value.get_object().get(metadata) != simdjson::SUCCESS) {
    return false;
  }
  bool has_name = false;
  bool has_namespace = false;
  for (auto field_result : metadata) {
    od::field field;
    std::string_view key;
    if (std::move(field_result).get(field) != simdjson::SUCCESS
        || field.unescaped_key().get(key) != simdjson::SUCCESS) {
      return false;
    }
    std::string_view text;
    if (Is(key, "name") || Is(key, "namespace")) {
      if (field.value().get_string().get(text) != simdjson::SUCCESS) {
        return false;
      }
      if (Is(key, "name")) {
        w.name.assign(text);
        has_name = true;
      } else {
        w.name_space.assign(text);
        has_namespace = true;
      }
    }
  }
  if (!has_namespace) {
    w.name_space.assign("default");
  }
  return has_name && !w.name.empty();
}

// The Workload object's routing fields; kFull when it is not a plain Workload without status.
Quick ReadObject(od::value value, WorkloadRoute& w) {
  od::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) {
    return Quick::kFull;
  }
  bool is_workload = false;
  bool has_metadata = false;
  bool has_queue = false;
  for (auto field_result : object) {
    od::field field;
    std::string_view key;
    if (std::move(field_result).get(field) != simdjson::SUCCESS
        || field.unescaped_key().get(key) != simdjson::SUCCESS) {
      return Quick::kFull;
    }
    if (Is(key, "kind")) {
      std::string_view kind;
      if (field.value().get_string().get(kind) != simdjson::SUCCESS || kind != "Workload") {
        return Quick::kFull;
      }
      is_workload = true;
    } else if (Is(key, "metadata")) {
      if (!ReadMetadata(field.value(), w)) {
        return Quick::kFull;
      }
      has_metadata = true;
    } else if (Is(key, "spec")) {
      od::object spec;
      std::string_view queue;
      if (field.value().get_object().get(spec) != simdjson::SUCCESS
          || spec.find_field_unordered("queueName").get_string().get(queue) != simdjson::SUCCESS) {
        return Quick::kFull;
      }
      w.queue_name.assign(queue);
      has_queue = true;
    } else if (Is(key, "status")) {
      return Quick::kFull;  // an admission ties a ClusterQueue too: read it all
    }
  }
  return is_workload && has_metadata && has_queue ? Quick::kWorkload : Quick::kFull;
}

}  // namespace

struct RoutingLineParser::Impl {
  od::parser parser;
  EventLineParser full;
};

RoutingLineParser::RoutingLineParser() : impl_(std::make_unique<Impl>()) {}
RoutingLineParser::~RoutingLineParser() = default;

bool RoutingLineParser::Parse(const char* data, size_t size, size_t capacity,
                              const std::string& path, int64_t line, TraceEvent& event) {
  WorkloadRoute route;
  switch (Route(data, size, capacity, path, line, route, event)) {
    case Result::kNothing:
      return false;
    case Result::kEvent:
      return true;
    case Result::kWorkload:
      break;
  }
  event = TraceEvent{};
  event.line = line;
  event.kind = "Workload";
  engine::WorkloadSpec& w = event.object.workloads.emplace_back();
  w.name_space = std::move(route.name_space);
  w.name = std::move(route.name);
  w.queue_name = std::move(route.queue_name);
  return true;
}

RoutingLineParser::Result RoutingLineParser::Route(const char* data, size_t size, size_t capacity,
                                                   const std::string& path, int64_t line,
                                                   WorkloadRoute& route, TraceEvent& event) {
  Quick quick = Quick::kFull;
  {
    simdjson::padded_string_view view(data, size, capacity);
    od::document doc;
    od::object obj;
    if (impl_->parser.iterate(view).get(doc) == simdjson::SUCCESS
        && doc.get_object().get(obj) == simdjson::SUCCESS) {
      bool deleted = false;
      bool has_object = false;
      for (auto field_result : obj) {
        od::field field;
        std::string_view key;
        if (std::move(field_result).get(field) != simdjson::SUCCESS
            || field.unescaped_key().get(key) != simdjson::SUCCESS) {
          has_object = false;
          break;
        }
        if (Is(key, "type")) {
          std::string_view type;
          deleted =
              field.value().get_string().get(type) == simdjson::SUCCESS && Is(type, "DELETED");
        } else if (Is(key, "object")) {
          quick = ReadObject(field.value(), route);
          has_object = true;
          if (quick == Quick::kFull) {
            break;
          }
        }
      }
      if (deleted) {
        return Result::kNothing;  // a deletion ties nothing (PlanEvent)
      }
      if (!has_object) {
        quick = Quick::kFull;
      }
    }
  }
  if (quick == Quick::kWorkload) {
    return Result::kWorkload;
  }
  EventError error;  // the full parser starts `event` afresh
  bool timed = false;
  return impl_->full.Parse(data, size, capacity, path, line, event, error, timed)
                 == ReadResult::kEvent
             ? Result::kEvent
             : Result::kNothing;
}

}  // namespace replay
