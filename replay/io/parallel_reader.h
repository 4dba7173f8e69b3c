// File: replay/io/parallel_reader.h
//
// Reads a `tally.events/v1` trace in batches of lines and parses each batch with several worker
// threads (oneTBB), each with its own reused simdjson parser (EventLineParser); results come back
// in file order, exactly as EventReader::Next would give them one by one — the same events, the
// same errors with the same file, line and field — whatever the number of threads.
//
//   ParallelEventReader reader(arena);        // a tbb::task_arena: how many threads parse
//   if (engine::Status s = reader.Open(path); !s.ok()) ...
//   std::vector<ParsedLine>& lines = ...;
//   while (reader.NextBatch(lines)) { for (ParsedLine& l : lines) ... }
//
// Thread safety: one reader per thread (it uses the arena's workers internally).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "engine/base/status.h"
#include "replay/io/event_reader.h"
#include "replay/io/routing_line_parser.h"

namespace replay {

struct ParsedLine {
  ReadResult result = ReadResult::kEvent;  // kEvent or kError
  TraceEvent event;
  EventError error;  // file and line set
  // Purpose::kRouting: a plain Workload line's names are in `route` (and `event` is stale).
  // Purpose::kReplay with set_error_ties: the same for a kError line the first pass would still
  // read names from (error_ties), its names in `route` (routed) or in `event` (not the event
  // applied: the line is rejected). PlanLine (replay/sim/sharded_replay.h) adds either.
  bool routed = false;
  bool error_ties = false;
  WorkloadRoute route;
};

class ParallelEventReader {
 public:
  static constexpr size_t kDefaultBatchLines = 2048;  // see SimulatorOptions::batch_lines

  // What a line is read for: the replay (every field, every error) or the shard planner's first
  // pass (RoutingLineParser: only what ties objects together; a line it cannot use is kError
  // without a message, and times are not checked).
  enum class Purpose : uint8_t { kReplay, kRouting };

  // `arena` runs the parse; it must outlive the reader. `batch_lines`: lines per batch.
  explicit ParallelEventReader(tbb::task_arena& arena, size_t batch_lines = kDefaultBatchLines,
                               Purpose purpose = Purpose::kReplay);
  ~ParallelEventReader();
  ParallelEventReader(const ParallelEventReader&) = delete;
  ParallelEventReader& operator=(const ParallelEventReader&) = delete;
  ParallelEventReader(ParallelEventReader&&) = delete;
  ParallelEventReader& operator=(ParallelEventReader&&) = delete;

  engine::Status Open(const std::string& path);
  void set_max_line_bytes(size_t bytes) { reader_.set_max_line_bytes(bytes); }
  // Purpose::kReplay: also read each rejected line as the shard planner's first pass does
  // (RoutingLineParser), so that the replay's lines tie exactly what the first pass's would (the
  // plan made from the manifests is checked against them: replay/sim/simulator.cc).
  void set_error_ties(bool on) { error_ties_ = on; }
  // The next batch, parsed, in file order (every non-blank line after the header gives one
  // entry, a read or header error one more at the end). False when nothing is left.
  bool NextBatch(std::vector<ParsedLine>& out);

  const std::string& path() const { return reader_.path(); }
  int64_t file_bytes_read() const { return reader_.file_bytes_read(); }
  int64_t bytes_read() const { return reader_.bytes_read(); }

 private:
  tbb::task_arena& arena_;
  size_t batch_lines_;
  EventReader reader_;
  LineBatch batch_;
  Purpose purpose_;
  bool error_ties_ = false;
  std::deque<EventLineParser> parsers_;  // one per arena thread slot
  std::deque<RoutingLineParser> routing_parsers_;
  std::vector<char> timed_;  // per line of the batch: the parse got to the time
  int64_t last_time_ = INT64_MIN;
};

}  // namespace replay
