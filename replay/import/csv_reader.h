// File: replay/import/csv_reader.h
//
// The rows of a CSV input (plain or gzip), streamed: the CSV importers read their traces through
// it, so memory holds one line at a time (at most `max_line_bytes`) besides what the importer
// keeps per row, whatever the size of the file (issue 23; docs/limits.md).
//
//   CsvReader csv(path, "timestamp,duration,num_gpus,gpu_time,cluster", max_line_bytes);
//   if (engine::Status s = csv.Open(); !s.ok()) return s;   // unreadable, or no/wrong header
//   CsvRow row;
//   while (csv.Next(row)) { if (row.too_long) skip(row.line); else use(row.text); }
//   if (engine::Status s = csv.Finish(); !s.ok()) return s;  // corrupt gzip, input too large
//
// The header is the first non-blank line and must equal `header` exactly (a misspelled or
// BOM-prefixed header is an error naming its line, never a silently empty import). Blank lines
// are skipped; a trailing '\r' is dropped. Above InputLimits::max_input_bytes decompressed bytes
// (replay/io/input_limits.h) reading stops and Finish reports it: the importers keep a record per
// row and write about 400 bytes of events per row, so a gzip bomb of valid rows is still refused.
//
// Thread safety: one reader per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "replay/io/line_reader.h"

namespace replay {

// One data row: `text` is valid until the next call to Next; empty when `too_long`.
struct CsvRow {
  int64_t line = 0;  // 1-based, for messages
  std::string_view text;
  bool too_long = false;  // longer than max_line_bytes: read through, not kept
};

class CsvReader {
 public:
  // Rows longer than this are returned as too_long: a CSV row of a public trace is under 1 KiB.
  static constexpr size_t kDefaultMaxLineBytes = size_t{1} << 20;

  CsvReader(std::string path, std::string header, size_t max_line_bytes = kDefaultMaxLineBytes);

  // Opens the file and reads up to its header: NotFound for a file that cannot be opened,
  // InvalidArgument "FILE:LINE: header ..." or "FILE: empty file (no header ...)".
  engine::Status Open();
  // The next data row; false at the end of the input, or once it grew past the size limit.
  bool Next(CsvRow& row);
  // Why the rows ended early, if they did: a truncated or corrupt gzip stream, or more than
  // max_input_bytes (--max-input-bytes). Call after Next returned false.
  engine::Status Finish() const;

  const std::string& path() const { return path_; }
  size_t max_line_bytes() const { return max_line_bytes_; }

 private:
  // The next non-blank line, '\r' dropped; false at the end or past the size limit.
  bool NextNonBlank(LineReader::Line& line);

  std::string path_;
  std::string header_;
  size_t max_line_bytes_;
  LineReader lines_;
  bool too_large_ = false;
};

}  // namespace replay
