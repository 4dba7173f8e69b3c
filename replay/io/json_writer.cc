#include "replay/io/json_writer.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>

namespace replay {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) {
      out_ += ',';
    }
    has_element_.back() = true;
  }
}

void JsonWriter::Open(char c) {
  BeforeValue();
  out_ += c;
  has_element_.push_back(false);
}

void JsonWriter::Close(char c) {
  out_ += c;
  has_element_.pop_back();
}

void JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendJsonString(key, out_);
  out_ += ':';
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(value, out_);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  fmt::format_to(std::back_inserter(out_), "{}", value);  // no temporary string
}

void JsonWriter::Double(double value) {
  BeforeValue();
  out_ += fmt::format("{}", value);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

void AppendJsonString(std::string_view s, std::string& out) {
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

std::string JsonQuoted(std::string_view s) {
  std::string out;
  AppendJsonString(s, out);
  return out;
}

void JsonWriter::RoundedNumber(double value) {
  if (!std::isfinite(value)) {
    Null();
    return;
  }
  // Six significant digits, through a stack buffer (reports write many thousands of these).
  fmt::memory_buffer text;
  fmt::format_to(std::back_inserter(text), "{:.6g}", value);
  double rounded = 0;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  Double(rounded == 0 ? 0.0 : rounded);
}

}  // namespace replay
