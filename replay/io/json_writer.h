// File: replay/io/json_writer.h
//
// A minimal streaming JSON writer for reports and decision logs: compact output, RFC 8259 string
// escaping, commas handled by the writer. Callers emit keys in sorted order where the output
// schema promises it (reports are diffed byte for byte).
//
//   JsonWriter w;
//   w.BeginObject(); w.Key("name"); w.String("team-a"); w.Key("usage"); w.Int(4000); w.EndObject();
//   std::string out = w.Take();   // {"name":"team-a","usage":4000}
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "replay/io/line_builder.h"

namespace replay {

// Whether byte `c` must be escaped in a JSON string (RFC 8259: control bytes, '"', '\\').
constexpr bool NeedsJsonEscape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}

// Whether `s` is written in JSON as it is: ASCII, nothing to escape (the rule of the writer's
// fast path, AppendPlainJsonString).
constexpr bool IsPlainText(std::string_view s) {
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x80 || NeedsJsonEscape(b)) {
      return false;
    }
  }
  return true;
}

class JsonWriter {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key);
  // A key written as a string literal (every key of tally's own schemas): inlined, the look for
  // characters to escape is made by the compiler on the literal, and the key appended as is.
  template <size_t N>
  void Key(const char (&key)[N]) {
    const std::string_view k(key);
    if (IsPlainText(k)) {
      KeyPlain(k);
    } else {
      Key(k);
    }
  }
  void String(std::string_view value);
  void Int(int64_t value);
  void Double(double value);
  // For reports: rounded to 6 significant digits (so that the last bits of a float sum never
  // reach the file), null when not finite, never "-0". Locale-independent.
  void RoundedNumber(double value);
  // An array of RoundedNumber values (a report's series: most of report.json's bytes), written
  // as they would be one by one, without the per-value bookkeeping.
  void RoundedNumbers(std::span<const float> values);
  void Bool(bool value);
  void Null();
  // A value already in JSON form, written as it is (after a comma if one is due).
  void Raw(std::string_view json);

  // Empties the writer for the next document, keeping its buffers (a writer reused per decision
  // line allocates nothing once warm).
  void Clear() {
    out_.clear();
    has_element_.clear();
    after_key_ = false;
  }

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Open(char c);
  void Close(char c);
  void BeforeValue();
  void KeyPlain(std::string_view key);
  // RoundedNumber's text for `value` into `text` (at least kRoundedTextMax bytes); its length.
  size_t RoundedText(double value, char* text);
  static constexpr size_t kRoundedTextMax = 40;

  std::string out_;
  // One flag per open container: whether it already holds an element (bytes, not bits: set and
  // read for every value written).
  std::vector<uint8_t> has_element_;
  bool after_key_ = false;
  // RoundedNumber's last non-integral value and its text: a report series repeats its previous
  // value most of the time (62 % of the fractional values of a congested replay's report), and
  // rounding one costs three conversions.
  double last_rounded_ = 0;  // 0 never takes that path (integral)
  char last_rounded_text_[40] = {};
  size_t last_rounded_size_ = 0;
};

// Appends `s` as a JSON string literal (quotes included, RFC 8259 escaping) to `out`.
void AppendJsonString(std::string_view s, std::string& out);
// The same bytes, into a decision line's buffer (replay/io/line_builder.h).
void AppendJsonString(std::string_view s, LineBuilder& out);
// The common case of AppendJsonString at its cheapest: when `s` needs no escape and is plain
// ASCII, appends it quoted and then `suffix` (unless '\0'), and returns true; else appends
// nothing and returns false.
bool AppendPlainJsonString(std::string_view s, char suffix, std::string& out);
// `s` as a JSON string literal: JsonQuoted("a\"b") == R"("a\"b")".
std::string JsonQuoted(std::string_view s);

}  // namespace replay
