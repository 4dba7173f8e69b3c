// File: replay/io/line_reader.h
//
// Lines of a plain or gzip file, read in blocks of up to 1 MiB: memory stays about the longest line
// kept (at most `max_line_bytes`), whatever the file's size. A longer line is read through without
// being kept and returned as too long (a gzip bomb of one 10 GiB line costs a few MiB).
// `tally import audit` reads its logs with it (robustness finding 19).
//
//   LineReader reader(1 << 20);
//   if (engine::Status s = reader.Open("audit.log.gz"); !s.ok()) ...
//   LineReader::Line line;
//   while (reader.Next(line)) { if (line.too_long) ...; else use(line.text, line.number); }
//   if (!reader.damage().empty()) ...   // a corrupt gzip stream ended the reading early
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace replay {

class LineReader {
 public:
  struct Line {
    std::string_view text;  // without the newline; valid until the next call; empty if too_long
    int64_t number = 0;     // 1-based
    bool too_long = false;
  };

  explicit LineReader(size_t max_line_bytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  LineReader(LineReader&&) = delete;
  LineReader& operator=(LineReader&&) = delete;

  engine::Status Open(const std::string& path);
  // The next line, blank ones included; false at the end of the input (or of what could be read).
  bool Next(Line& line);
  // Why reading stopped before the end ("FILE: incorrect header check"), or empty.
  const std::string& damage() const { return damage_; }
  // Decompressed bytes read from the file so far (a block ahead of the lines returned).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  bool Fill();  // reads one more block; false at end of input

  size_t max_line_bytes_;
  std::string path_;
  void* file_ = nullptr;  // gzFile
  std::string buffer_;
  size_t block_ = 0;  // bytes read per Fill, sized to the file (input_file.h: ReadBlockFor)
  size_t begin_ = 0;  // unread data is buffer_[begin_, end_)
  size_t end_ = 0;
  bool eof_ = false;
  int64_t number_ = 0;
  uint64_t bytes_read_ = 0;
  std::string damage_;
};

}  // namespace replay
