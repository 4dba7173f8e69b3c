// File: test/fuzz/event_line_fuzz.cc
//
// Trace events: one line through the parser the parallel replay's workers use and through the
// shard planner's first-pass reading of it (RoutingLineParser::Route), and the same
// bytes as a whole tally.events/v1 file through the reader (header check, line splitting, the
// order of times). Every line the reader sees ends as an event or an error with its line number:
// nothing is dropped without a word.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include <simdjson.h>

#include "replay/io/event_reader.h"
#include "replay/io/routing_line_parser.h"
#include "test/fuzz/fuzz_support.h"

namespace {

// The line's event, when the replay's parser accepts it.
std::optional<replay::TraceEvent> ParseOneLine(std::string_view line) {
  static replay::EventLineParser parser;
  std::string padded(line);
  padded.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
  replay::TraceEvent event;
  replay::EventError error;
  bool timed = false;
  const replay::ReadResult r =
      parser.Parse(padded.data(), line.size(), padded.size(), "fuzz.jsonl", 7, event, error, timed);
  FUZZ_CHECK(r == replay::ReadResult::kEvent || r == replay::ReadResult::kError);
  if (r != replay::ReadResult::kEvent) {
    return std::nullopt;
  }
  FUZZ_CHECK(event.line == 7);
  return event;
}

// The first pass reads a plain Workload line's names only: when it says so, it has a name and a
// namespace ("default" when absent); whatever the line, it ends in one of its three results.
// And a line the replay accepts ties the same names read either way (a replay planned from the
// manifests reads its lines' ties from their events: replay/sim/simulator.cc): a plain Workload
// line's names are its event's, and only a deletion ties nothing.
void RouteOneLine(std::string_view line, const std::optional<replay::TraceEvent>& parsed) {
  static replay::RoutingLineParser parser;
  std::string padded(line);
  padded.resize(line.size() + simdjson::SIMDJSON_PADDING, '\0');
  replay::WorkloadRoute route;
  replay::TraceEvent event;
  const replay::RoutingLineParser::Result r =
      parser.Route(padded.data(), line.size(), padded.size(), "fuzz.jsonl", 7, route, event);
  if (r == replay::RoutingLineParser::Result::kWorkload) {
    FUZZ_CHECK(!route.name.empty());
    FUZZ_CHECK(!route.name_space.empty());
  } else {
    FUZZ_CHECK(r == replay::RoutingLineParser::Result::kEvent
               || r == replay::RoutingLineParser::Result::kNothing);
  }
  if (!parsed.has_value()) {
    return;
  }
  switch (r) {
    case replay::RoutingLineParser::Result::kWorkload: {
      FUZZ_CHECK(parsed->type != replay::EventType::kDeleted);
      FUZZ_CHECK(parsed->object.workloads.size() == 1);
      const engine::WorkloadSpec& w = parsed->object.workloads[0];
      FUZZ_CHECK(w.name_space == route.name_space && w.name == route.name
                 && w.queue_name == route.queue_name && !w.admission.has_value());
      break;
    }
    case replay::RoutingLineParser::Result::kNothing:
      FUZZ_CHECK(parsed->type == replay::EventType::kDeleted);
      break;
    case replay::RoutingLineParser::Result::kEvent:
      FUZZ_CHECK(event.type == parsed->type && event.kind == parsed->kind);
      break;
  }
}

void ReadAsFile(std::string_view text) {
  static tally_fuzz::ScratchFile file("events.jsonl");
  replay::EventReader reader;
  reader.set_max_line_bytes(4096);
  if (!reader.Open(file.Write(text)).ok()) {
    return;
  }
  replay::TraceEvent event;
  replay::EventError error;
  int64_t results = 0;
  int64_t last_line = 0;
  for (;;) {
    const replay::ReadResult r = reader.Next(event, error);
    if (r == replay::ReadResult::kEnd) {
      break;
    }
    ++results;
    const int64_t line = r == replay::ReadResult::kEvent ? event.line : error.line;
    FUZZ_CHECK(line >= 1 && line <= reader.lines_read());
    FUZZ_CHECK(line >= last_line);
    last_line = line;
    FUZZ_CHECK(results <= reader.lines_read() + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = tally_fuzz::AsText(data, size);
  const size_t newline = text.find('\n');
  RouteOneLine(text.substr(0, newline), ParseOneLine(text.substr(0, newline)));
  ReadAsFile(text);
  return 0;
}
