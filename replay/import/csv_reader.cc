#include "replay/import/csv_reader.h"

#include <fmt/format.h>

#include <utility>

#include "replay/io/input_limits.h"

namespace replay {

CsvReader::CsvReader(std::string path, std::string header, size_t max_line_bytes)
    : path_(std::move(path)),
      header_(std::move(header)),
      max_line_bytes_(max_line_bytes),
      lines_(max_line_bytes) {}

engine::Status CsvReader::Open() {
  if (engine::Status s = lines_.Open(path_); !s.ok()) {
    return s;
  }
  LineReader::Line line;
  if (!NextNonBlank(line)) {
    if (engine::Status s = Finish(); !s.ok()) {
      return s;
    }
    return engine::InvalidArgument(
        fmt::format("{}: empty file (no header \"{}\")", path_, header_));
  }
  if (line.too_long || line.text != header_) {
    const std::string_view shown =
        line.too_long ? std::string_view("(a line too long to show)") : line.text.substr(0, 200);
    return engine::InvalidArgument(
        fmt::format("{}:{}: header \"{}\" is not \"{}\"", path_, line.number, shown, header_));
  }
  return engine::Status::Ok();
}

bool CsvReader::NextNonBlank(LineReader::Line& line) {
  while (!too_large_ && lines_.Next(line)) {
    if (lines_.bytes_read() > CurrentInputLimits().max_input_bytes) {
      too_large_ = true;
      return false;
    }
    if (line.too_long) {
      return true;
    }
    if (!line.text.empty() && line.text.back() == '\r') {
      line.text.remove_suffix(1);
    }
    if (line.text.find_first_not_of(" \t") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

bool CsvReader::Next(CsvRow& row) {
  LineReader::Line line;
  if (!NextNonBlank(line)) {
    return false;
  }
  row.line = line.number;
  row.text = line.text;
  row.too_long = line.too_long;
  return true;
}

engine::Status CsvReader::Finish() const {
  if (too_large_) {
    return engine::InvalidArgument(
        fmt::format("{}: more than {} bytes (decompressed): not read (--max-input-bytes)", path_,
                    CurrentInputLimits().max_input_bytes));
  }
  if (!lines_.damage().empty()) {
    return engine::InvalidArgument(lines_.damage());
  }
  return engine::Status::Ok();
}

}  // namespace replay
