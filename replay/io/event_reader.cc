#include "replay/io/event_reader.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <simdjson.h>

#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

constexpr size_t kBlockSize = size_t{4} << 20;      // read granularity
constexpr size_t kMinBlockSize = size_t{64} << 10;  // for small files
constexpr int kFormatVersion = 1;

using internal::MakeEventError;

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
  Impl() = default;
  ~Impl() {
    if (file != nullptr) {
      gzclose(file);
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  Impl(Impl&&) = delete;
  Impl& operator=(Impl&&) = delete;
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
    return engine::InvalidArgument(fmt::format(
        "{}: cannot open: {}", path, std::generic_category().message(errno != 0 ? errno : ENOENT)));
  }
  // Buffers no larger than the file: zlib's (input, and twice that for output) and the line
  // block. A trace of a few lines opened thousands of times (tests, the fuzz targets) had
  // 7 MiB mapped, touched and unmapped per open. A gzip file's text may be larger than the file:
  // the block is then refilled, and grows only for a line longer than itself.
  size_t block = kBlockSize;
  std::error_code ec;
  if (path != "-" && std::filesystem::is_regular_file(path, ec)) {
    const uintmax_t bytes = std::filesystem::file_size(path, ec);
    if (!ec) {
      block = std::clamp<size_t>(static_cast<size_t>(std::min<uintmax_t>(bytes, kBlockSize)) + 1,
                                 kMinBlockSize, kBlockSize);
    }
  }
  gzbuffer(impl_->file, static_cast<unsigned>(std::min<size_t>(block, size_t{1} << 20)));
  buffer_.resize(block + simdjson::SIMDJSON_PADDING);  // not zeroed: gzread fills it
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
      read_error_ = code == Z_ERRNO ? std::generic_category().message(errno)
                                    : std::string(message != nullptr ? message : "?");
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
  EventError e = MakeEventError(
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
  EventError error = MakeEventError(
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
    EventError e = MakeEventError(EventErrorReason::kBadField, "format",
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
      error =
          MakeEventError(EventErrorReason::kTimeBackwards, "time",
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

}  // namespace replay
