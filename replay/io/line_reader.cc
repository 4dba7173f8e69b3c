// File: replay/io/line_reader.cc
#include "replay/io/line_reader.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "replay/io/input_file.h"

namespace replay {
namespace {

gzFile AsGz(void* file) {
  return static_cast<gzFile>(file);
}

}  // namespace

LineReader::LineReader(size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

LineReader::~LineReader() {
  if (file_ != nullptr) {
    gzclose(AsGz(file_));
  }
}

engine::Status LineReader::Open(const std::string& path) {
  path_ = path;
  gzFile file = gzopen(path.c_str(), "rb");  // passes a file that is not gzip through unchanged
  if (file == nullptr) {
    return engine::NotFound(fmt::format(
        "{}: cannot open: {}", path, std::generic_category().message(errno != 0 ? errno : ENOENT)));
  }
  block_ = ReadBlockFor(path);
  gzbuffer(file, static_cast<unsigned>(block_));
  file_ = file;
  return engine::Status::Ok();
}

bool LineReader::Fill() {
  if (eof_ || file_ == nullptr) {
    return false;
  }
  // Keep the unread bytes, at the front.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buffer_.size() < end_ + block_) {
    buffer_.resize(end_ + block_);
  }
  const int n = gzread(AsGz(file_), buffer_.data() + end_, static_cast<unsigned>(block_));
  if (n > 0) {
    end_ += static_cast<size_t>(n);
    bytes_read_ += static_cast<uint64_t>(n);
    return true;
  }
  eof_ = true;
  if (n < 0) {
    int errnum = 0;
    damage_ = fmt::format("{}: {}", path_, gzerror(AsGz(file_), &errnum));
  }
  const int closed = gzclose(AsGz(file_));
  file_ = nullptr;
  if (n == 0 && closed != Z_OK) {
    damage_ = fmt::format("{}: truncated or corrupt gzip data", path_);
  }
  return false;
}

bool LineReader::Next(Line& line) {
  line = Line{};
  size_t scanned = 0;     // bytes after begin_ already searched for '\n'
  bool skipping = false;  // the line is too long: its bytes are dropped as they come
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start + scanned, '\n', end_ - begin_ - scanned);
    if (nl != nullptr) {
      const size_t length = static_cast<size_t>(static_cast<const char*>(nl) - start);
      line.number = ++number_;
      line.too_long = skipping || length > max_line_bytes_;
      if (!line.too_long) {
        line.text = std::string_view(start, length);
      }
      begin_ += length + 1;
      return true;
    }
    if (!skipping && end_ - begin_ > max_line_bytes_) {
      skipping = true;
    }
    if (skipping) {
      begin_ = end_;  // drop what is buffered of the line
      scanned = 0;
    } else {
      scanned = end_ - begin_;
    }
    if (!Fill()) {
      if (!skipping && begin_ == end_) {
        return false;
      }
      // The last line, without a newline.
      line.number = ++number_;
      line.too_long = skipping;
      if (!skipping) {
        line.text = std::string_view(buffer_.data() + begin_, end_ - begin_);
      }
      begin_ = end_;
      return true;
    }
  }
}

}  // namespace replay
