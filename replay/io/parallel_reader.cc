#include "replay/io/parallel_reader.h"

#include <fmt/format.h>

#include "engine/base/phase_profile.h"
#include "replay/io/parallel_for.h"
#include "replay/io/time_parse.h"

namespace replay {

ParallelEventReader::ParallelEventReader(tbb::task_arena& arena, size_t batch_lines,
                                         Purpose purpose)
    : arena_(arena), batch_lines_(std::max<size_t>(batch_lines, 1)), purpose_(purpose) {}

ParallelEventReader::~ParallelEventReader() = default;

engine::Status ParallelEventReader::Open(const std::string& path) {
  return reader_.Open(path);
}

bool ParallelEventReader::NextBatch(std::vector<ParsedLine>& out) {
  engine::PhaseScope profile(engine::Phase::kParse);
  if (!reader_.ReadBatch(batch_, batch_lines_)) {
    out.clear();
    return false;
  }
  const size_t n = batch_.lines.size();
  out.resize(n + (batch_.error ? 1 : 0));
  timed_.assign(n, 0);
  const std::string& path = reader_.path();
  // Each line is parsed on its own: the result depends on the line only, not on the thread.
  const auto slots = static_cast<size_t>(arena_.max_concurrency());
  if (purpose_ == Purpose::kRouting) {
    routing_parsers_.resize(std::max(routing_parsers_.size(), slots));
    ParallelFor(
        arena_, n, 64,
        [&](size_t slot, size_t i) {
          const LineBatch::Line& l = batch_.lines[i];
          ParsedLine& p = out[i];
          p.routed = false;
          p.error_ties = false;
          if (l.too_long) {
            p.result = ReadResult::kError;
            return;
          }
          const RoutingLineParser::Result r =
              routing_parsers_[slot].Route(batch_.arena.data() + l.offset, l.size,
                                           batch_.Capacity(l), path, l.number, p.route, p.event);
          p.routed = r == RoutingLineParser::Result::kWorkload;
          p.result =
              r == RoutingLineParser::Result::kNothing ? ReadResult::kError : ReadResult::kEvent;
        },
        engine::Phase::kParse);
    if (batch_.error) {
      out[n].result = ReadResult::kError;
      out[n].routed = false;
      out[n].error_ties = false;
    }
    return true;
  }
  if (parsers_.size() < slots) {
    parsers_.resize(slots);
  }
  if (error_ties_) {
    routing_parsers_.resize(std::max(routing_parsers_.size(), slots));
  }
  ParallelFor(
      arena_, n, 64,
      [&](size_t slot, size_t i) {
        const LineBatch::Line& l = batch_.lines[i];
        ParsedLine& p = out[i];
        bool timed = false;
        if (l.too_long) {
          p.event = TraceEvent{};
          p.error = reader_.LineTooLongError(l.number);
          p.result = ReadResult::kError;
          timed_[i] = 0;
          return;
        }
        p.result = parsers_[slot].Parse(batch_.arena.data() + l.offset, l.size, batch_.Capacity(l),
                                        path, l.number, p.event, p.error, timed);
        timed_[i] = timed ? 1 : 0;
        p.error_ties = false;
        p.routed = false;
      },
      engine::Phase::kParse);
  // In file order: the time of an event must not go backwards (checked against the last event
  // accepted, as EventReader::Next does).
  for (size_t i = 0; i < n; ++i) {
    ParsedLine& p = out[i];
    if (timed_[i] != 0 && p.event.time < last_time_) {
      p.error = EventError{};
      p.error.reason = EventErrorReason::kTimeBackwards;
      p.error.field = "time";
      p.error.message = fmt::format("time goes backwards: {} is before the previous event's {}",
                                    FormatRfc3339(p.event.time), FormatRfc3339(last_time_));
      p.result = ReadResult::kError;
    } else if (p.result == ReadResult::kEvent) {
      last_time_ = p.event.time;
    }
    if (p.result == ReadResult::kError) {
      p.error.file = path;
      p.error.line = batch_.lines[i].number;
      if (error_ties_ && !batch_.lines[i].too_long) {
        // Rare (a rejected line), and read again only for the names the first pass would take.
        const LineBatch::Line& l = batch_.lines[i];
        const RoutingLineParser::Result r =
            routing_parsers_[0].Route(batch_.arena.data() + l.offset, l.size, batch_.Capacity(l),
                                      path, l.number, p.route, p.event);
        p.routed = r == RoutingLineParser::Result::kWorkload;
        p.error_ties = r != RoutingLineParser::Result::kNothing;
      }
    }
  }
  if (batch_.error) {
    out[n].result = ReadResult::kError;
    out[n].routed = false;
    out[n].error_ties = false;
    out[n].error = std::move(*batch_.error);
  }
  return true;
}

}  // namespace replay
