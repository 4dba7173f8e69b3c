// File: replay/io/routing_line_parser.h
//
// The shard planner's reading of an event line (engine/shard/shard_plan.h): what the line ties
// together, without the rest. A Workload event is read only for its metadata.name,
// metadata.namespace and spec.queueName — its pod sets, quantities and the other fields are
// skipped, not parsed — which is most of a trace and most of the cost of reading it a first
// time. Any other line (another kind, a Workload with a status, anything unusual) goes through
// the full EventLineParser, as the replay itself reads it.
//
//   RoutingLineParser parser;                     // one per thread (it holds simdjson parsers)
//   TraceEvent event;
//   if (parser.Parse(data, size, capacity, path, line, event)) PlanEvent(planner, event);
//
// A line the replay later rejects still ties the queues it names, exactly as an event rejected
// by the simulator does: a name can only join two shards, never split one (docs/replay.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "replay/io/event_reader.h"

namespace replay {

// What a plain Workload line ties: its queue (the planner's ShardPlanner::AddWorkloadNames).
struct WorkloadRoute {
  std::string name_space;
  std::string name;
  std::string queue_name;
};

class RoutingLineParser {
 public:
  enum class Result : uint8_t {
    kNothing,   // the line gives the planner nothing (as Parse's false)
    kWorkload,  // a plain Workload line: `route` holds its names, `event` is untouched
    kEvent,     // any other line, read by the full parser into `event`
  };

  RoutingLineParser();
  ~RoutingLineParser();
  RoutingLineParser(const RoutingLineParser&) = delete;
  RoutingLineParser& operator=(const RoutingLineParser&) = delete;
  RoutingLineParser(RoutingLineParser&&) = delete;
  RoutingLineParser& operator=(RoutingLineParser&&) = delete;

  // Fills `event` with what the line ties together: type, kind, name and an object that holds
  // at least the fields the planner reads. False when the line gives the planner nothing (a
  // line the full parser rejects without a readable Workload, or a deletion, which ties
  // nothing). `capacity` as for EventLineParser::Parse.
  bool Parse(const char* data, size_t size, size_t capacity, const std::string& path, int64_t line,
             TraceEvent& event);
  // Parse without building an event for a plain Workload line (most of a trace): its names go to
  // `route`, whose strings keep their storage from line to line.
  Result Route(const char* data, size_t size, size_t capacity, const std::string& path,
               int64_t line, WorkloadRoute& route, TraceEvent& event);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace replay
