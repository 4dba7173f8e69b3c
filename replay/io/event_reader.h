// File: replay/io/event_reader.h
//
// Streams a `tally.events/v1` trace (docs/events.md): JSON lines, plain or gzip-compressed
// (detected from the content), read in large blocks so that memory stays bounded whatever the
// file size. Each line is parsed with simdjson On-Demand; the `object` is handed to the manifest
// loader's parsers, so a Workload or ClusterQueue in an event is checked exactly as in a YAML
// manifest.
//
//   replay::EventReader reader;
//   if (engine::Status s = reader.Open("trace.jsonl.gz"); !s.ok()) ...
//   replay::TraceEvent event;
//   replay::EventError error;
//   while (true) {
//     replay::EventReader::Result r = reader.Next(event, error);
//     if (r == replay::EventReader::Result::kEnd) break;
//     if (r == replay::EventReader::Result::kError) { report(error); continue; }
//     apply(event);
//   }
//
// Every non-blank line after the optional header yields exactly one kEvent or one kError, so
// callers' counters reconcile (read = applied + rejected). Times going backwards are an error
// of the reader (the event is not returned). Thread safety: one reader per thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/status.h"
#include "engine/cluster_spec.h"
#include "replay/io/uninitialized_buffer.h"

namespace replay {

enum class EventType : uint8_t { kAdded, kModified, kDeleted };
const char* ToString(EventType type);

struct TraceEvent {
  EventType type = EventType::kAdded;
  int64_t time = 0;                         // microseconds since the epoch
  int64_t line = 0;                         // 1-based line in the file
  std::string kind;                         // the object's kind ("Workload", "ClusterQueue", ...)
  std::string name;                         // "namespace/name" for namespaced kinds, else the name
  std::optional<int64_t> runtime;           // microseconds
  std::optional<int64_t> pods_ready_after;  // microseconds
  // The object, parsed: exactly one entry in the list of its kind (or `configuration`).
  engine::ClusterSpec object;
  // Whether `object` may hold more than Workloads (the manifest loader's reading of it): a parser
  // reading its next line into this event resets the whole object then, and otherwise only the
  // Workload list (the rest of a ClusterSpec is 450 bytes a line would touch for nothing).
  bool object_loaded = false;
};

// Why a line was rejected, for the report's counters ("by reason").
enum class EventErrorReason : uint8_t {
  kMalformedJson,  // not JSON, or not an object
  kBadField,       // a missing, unknown or ill-typed event field
  kBadObject,      // the object fails the manifest rules (a bad quantity, ...)
  kUnsupportedKind,
  kTimeBackwards,
  kReadError,    // the file itself cannot be read on (a truncated or corrupt gzip stream)
  kLineTooLong,  // a line above EventReader's line limit (--max-line-bytes), skipped unread
  // Raised by the simulator, not the reader:
  kUnknownWorkload,  // MODIFIED / DELETED of a workload never added, or ADDED twice
  kUnknownQueue,     // a workload whose LocalQueue does not exist
  kInvalidConfig,    // a configuration change the validation rejects
};
const char* ToString(EventErrorReason reason);

struct EventError {
  std::string file;
  int64_t line = 0;
  std::string field;  // "time", "object.spec.podSets[0].count", ... empty if none
  std::string message;
  EventErrorReason reason = EventErrorReason::kMalformedJson;

  // "trace.jsonl:12: time: \"2026-13-01T00:00:00Z\": month 13 out of range"
  std::string ToString() const;
};

namespace internal {
// An EventError without file or line (EventReader adds them).
inline EventError MakeEventError(EventErrorReason reason, std::string field, std::string message) {
  EventError e;
  e.reason = reason;
  e.field = std::move(field);
  e.message = std::move(message);
  return e;
}
}  // namespace internal

enum class ReadResult : uint8_t { kEvent, kError, kEnd };

// Parses event lines one at a time, independently of any file: the parallel replay gives each
// worker thread one (it holds a reused simdjson parser). Not thread-safe: one per thread.
class EventLineParser {
 public:
  EventLineParser();
  ~EventLineParser();
  EventLineParser(const EventLineParser&) = delete;
  EventLineParser& operator=(const EventLineParser&) = delete;
  EventLineParser(EventLineParser&&) = delete;
  EventLineParser& operator=(EventLineParser&&) = delete;

  // Parses `size` bytes at `data`; `capacity` >= size + simdjson::SIMDJSON_PADDING bytes must be
  // readable there. On kError, `error` names the field but not the file or line (the caller's).
  // `timed` is set when the line got far enough for `event.time` to be its time: the order of
  // times is checked by the caller, which knows the previous event (an event whose time goes
  // backwards is rejected for that, whatever else is wrong with its object).
  ReadResult Parse(const char* data, size_t size, size_t capacity, const std::string& path,
                   int64_t line, TraceEvent& event, EventError& error, bool& timed);

  // Workload specs taken from the parser's memo of spec texts (replay/io/specs_by_text.h).
  int64_t spec_memo_hits() const;

 private:
  // Parse's body. With `in_place_declined`, a Workload object is read in place by the fast path
  // and the call sets *in_place_declined (returning kError) when that path declines, for the
  // caller to parse again without it (nullptr: the object is read as its own document).
  ReadResult ParseLine(const char* data, size_t size, size_t capacity, const std::string& path,
                       int64_t line, TraceEvent& event, EventError& error, bool& timed,
                       bool* in_place_declined);
  ReadResult ParseDeletedObject(std::string_view object_json, TraceEvent& event, EventError& error);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Lines of a trace copied out of the reader, to be parsed elsewhere (by several threads). Each
// line is followed by simdjson's padding in `arena`.
struct LineBatch {
  struct Line {
    size_t offset = 0;
    size_t size = 0;
    int64_t number = 0;     // 1-based line in the file
    bool too_long = false;  // above the reader's line limit: no bytes kept, an error to report
  };
  std::string arena;
  std::vector<Line> lines;
  // An error after the last line, counted as one rejected line: a corrupt gzip stream (fatal:
  // the reader has nothing more) or an unsupported header (the first line; the lines after it
  // are read on as events).
  std::optional<EventError> error;

  void Clear() {
    arena.clear();
    lines.clear();
    error.reset();
  }
  size_t Capacity(const Line& l) const { return arena.size() - l.offset; }
};

class EventReader {
 public:
  using Result = ReadResult;

  EventReader();
  ~EventReader();
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;
  EventReader(EventReader&&) = delete;
  EventReader& operator=(EventReader&&) = delete;

  // Opens `path` ("-" reads standard input). Errors: the file cannot be opened, or its header
  // names an unknown format or version (a fatal error: nothing can be read).
  engine::Status Open(const std::string& path);

  Result Next(TraceEvent& event, EventError& error);

  // Lines longer than this are skipped without being kept in memory and reported as one
  // kLineTooLong error each (a 10 GiB line of zeros in a small gzip file must not exhaust memory).
  static constexpr size_t kDefaultMaxLineBytes = size_t{64} << 20;
  void set_max_line_bytes(size_t bytes) { max_line_bytes_ = std::max<size_t>(bytes, 1); }
  size_t max_line_bytes() const { return max_line_bytes_; }
  // The error for a line that was too long (line number `line`).
  EventError LineTooLongError(int64_t line) const;

  // The next non-blank lines (at most `max_lines`), unparsed: the header is checked here, the
  // events are for EventLineParser. Returns false when the batch is empty and nothing is left.
  bool ReadBatch(LineBatch& batch, size_t max_lines);

  const std::string& path() const { return path_; }
  int64_t lines_read() const { return line_; }
  // Uncompressed bytes consumed so far (for progress and throughput).
  int64_t bytes_read() const { return bytes_consumed_; }
  // Compressed bytes read from the file so far (equals bytes_read for a plain file).
  int64_t file_bytes_read() const;
  int64_t last_time() const { return last_time_; }

 private:
  struct Impl;
  // The next line (without its newline), or nullopt at end of input. The view stays valid until
  // the next call; the bytes after it are readable padding for simdjson.
  std::optional<std::string_view> NextLine();
  bool Fill();
  // Checks the optional header on the first non-blank line: true when `line` was the header,
  // and `error` set when it is one this tally cannot read (only that line is rejected). A UTF-8
  // byte order mark before the first line is dropped from `line`.
  bool CheckHeader(std::string_view& line, std::optional<EventError>& error);
  std::optional<EventError> TakeReadError();

  std::unique_ptr<Impl> impl_;
  EventLineParser parser_;
  std::string path_;
  UninitializedBuffer buffer_;  // bytes past end_ are not zeroed (padding is set where needed)
  size_t begin_ = 0;            // start of unread data in buffer_
  size_t end_ = 0;              // end of valid data in buffer_
  bool eof_ = false;
  std::string read_error_;  // set when reading stopped on an error, reported once by Next
  bool header_checked_ = false;
  int64_t line_ = 0;
  int64_t bytes_consumed_ = 0;
  size_t max_line_bytes_ = kDefaultMaxLineBytes;
  bool skipping_ = false;       // inside a line above the limit: its bytes are dropped
  bool last_too_long_ = false;  // the line NextLine just returned was above the limit
  int64_t last_time_ = INT64_MIN;
};

}  // namespace replay
