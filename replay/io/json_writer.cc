#include "replay/io/json_writer.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "replay/io/utf8.h"

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
  if (!AppendPlainJsonString(key, ':', out_)) {
    AppendJsonString(key, out_);
    out_ += ':';
  }
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(value, out_);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  char text[24];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  out_.append(text, end);
}

void JsonWriter::Double(double value) {
  BeforeValue();
  // fmt's shortest round-trip form (not std::to_chars', which prefers exponents sooner: 1e+15);
  // the format string is compiled, so no parsing per number.
  char text[40];
  char* end = fmt::format_to(text, FMT_COMPILE("{}"), value);
  out_.append(text, end);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

void JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_ += json;
}

namespace {

// True when none of the sizeof(Word) bytes at `p` needs a look: no control byte, quote,
// backslash or byte of a UTF-8 sequence (SWAR: a byte below 0x20 or equal to a given one sets its
// high bit in these expressions; a false "needs a look" can only follow a true one in the same
// word, so a clean word is never missed). Names in decision lines are almost always plain ASCII.
template <typename Word>
bool PlainWordOf(const char* p) {
  constexpr Word kOnes = static_cast<Word>(0x0101010101010101ULL);
  constexpr Word kHigh = static_cast<Word>(0x8080808080808080ULL);
  Word w;
  std::memcpy(&w, p, sizeof w);
  const Word quote = w ^ (kOnes * '"');
  const Word backslash = w ^ (kOnes * '\\');
  const Word flagged = w | ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote)
                       | ((backslash - kOnes) & ~backslash);
  return (flagged & kHigh) == 0;
}
bool PlainWord(const char* p) {
  return PlainWordOf<uint64_t>(p);
}
bool PlainWord32(const char* p) {
  return PlainWordOf<uint32_t>(p);
}

// Every byte of `s` needs no look: PlainPrefix(s) == s.size(), with the tail read as one more
// word overlapping the last (a name in a decision line is 4 to 20 bytes; byte by byte, its tail
// was half the cost of appending it).
[[gnu::always_inline]] inline bool AllPlain(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      if (!PlainWord(p + i)) {
        return false;
      }
    }
    return i == n || PlainWord(p + n - 8);
  }
  if (n >= 4) {
    return PlainWord32(p) && PlainWord32(p + n - 4);
  }
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c >= 0x80 || NeedsJsonEscape(c)) {
      return false;
    }
  }
  return true;
}

// How many bytes at the start of `s` surely need no look: all of them when none does (as
// PlainWord, the tail byte by byte); else a prefix that stops at or before the first that does.
[[gnu::always_inline]] inline size_t PlainPrefix(std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    if (!PlainWord(s.data() + i)) {
      return i;
    }
  }
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80 || NeedsJsonEscape(c)) {
      return i;
    }
  }
  return i;
}

// Appends `s`, known plain, quoted and then `suffix` (unless '\0'). A decision line is some
// thirty of these. The quotes go in with push_back (inline, no zero fill): resize() then a copy,
// as this did until 2026-11-29, measured 24.5 against 16.9 ns for a line's time, type and
// workload strings (a quarter of a line's cost had gone to appending the quotes, the text and
// the colon through the general path).
[[gnu::always_inline]] inline void AppendQuotedPlain(std::string_view s, char suffix,
                                                     std::string& out) {
  out.push_back('"');
  out.append(s.data(), s.size());
  out.push_back('"');
  if (suffix != '\0') {
    out.push_back(suffix);
  }
}

}  // namespace

void JsonWriter::KeyPlain(std::string_view key) {
  BeforeValue();
  AppendQuotedPlain(key, ':', out_);
  after_key_ = true;
}

bool AppendPlainJsonString(std::string_view s, char suffix, std::string& out) {
  if (!AllPlain(s)) {
    return false;
  }
  AppendQuotedPlain(s, suffix, out);
  return true;
}

void AppendJsonString(std::string_view s, std::string& out) {
  if (AllPlain(s)) {
    AppendQuotedPlain(s, '\0', out);  // almost every name and value
    return;
  }
  const size_t plain = PlainPrefix(s);
  out += '"';
  // Runs without anything to escape are appended whole; the plain prefix is not read again.
  size_t run = 0;
  size_t bytewise_until = 0;  // a word that needed a look is read byte by byte, then words again
  for (size_t i = plain; i < s.size(); ++i) {
    if (i >= bytewise_until) {
      while (i + 8 <= s.size() && PlainWord(s.data() + i)) {
        i += 8;
      }
      if (i == s.size()) {
        break;
      }
      bytewise_until = i + 8;
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // Input bytes reach the outputs (names, error messages quoting a line): well-formed UTF-8
      // passes through, any other byte becomes U+FFFD, so every output is valid UTF-8 JSON.
      if (const size_t length = Utf8SequenceLength(s, i); length > 0) {
        i += length - 1;
        continue;
      }
      out.append(s.data() + run, i - run);
      out.append("\xEF\xBF\xBD");
      run = i + 1;
      continue;
    }
    if (!NeedsJsonEscape(c)) {
      continue;
    }
    out.append(s.data() + run, i - run);
    run = i + 1;
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
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out.append(escaped, sizeof escaped);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void AppendJsonString(std::string_view s, LineBuilder& out) {
  if (AllPlain(s)) {
    out.AppendQuoted(s);  // almost every name and value
    return;
  }
  thread_local std::string escaped;
  escaped.clear();
  AppendJsonString(s, escaped);
  out.Append(escaped);
}

std::string JsonQuoted(std::string_view s) {
  std::string out;
  AppendJsonString(s, out);
  return out;
}

size_t JsonWriter::RoundedText(double value, char* text) {
  // Integral values (counts, amounts in canonical units: most numbers of a report's series) take
  // a shortcut to the same text: rounded to six significant digits in integers, ties to even as
  // to_chars does; below 10^15 Double writes no exponent either. NaN fails the comparisons.
  if (value > -1e15 && value < 1e15 && value == std::trunc(value)) {
    const int64_t i = static_cast<int64_t>(value);
    uint64_t a = i < 0 ? static_cast<uint64_t>(-i) : static_cast<uint64_t>(i);
    if (a >= 1'000'000) {
      uint64_t p = 10;
      while (a / p >= 1'000'000) {
        p *= 10;
      }
      uint64_t q = a / p;
      const uint64_t r = a % p;
      if (2 * r > p || (2 * r == p && (q & 1) != 0)) {
        ++q;
      }
      a = q * p;
    }
    const auto [end, ec] = std::to_chars(
        text, text + kRoundedTextMax, i < 0 ? -static_cast<int64_t>(a) : static_cast<int64_t>(a));
    return static_cast<size_t>(end - text);
  }
  if (!std::isfinite(value)) {
    constexpr std::string_view kNull = "null";
    std::copy(kNull.begin(), kNull.end(), text);
    return kNull.size();
  }
  // Six significant digits, correctly rounded (as printf's %.6g), through a stack buffer: reports
  // write many thousands of these.
  if (value != last_rounded_) {
    char digits[40];
    auto [end, ec] =
        std::to_chars(digits, digits + sizeof digits, value, std::chars_format::general, 6);
    double rounded = 0;
    std::from_chars(digits, end, rounded);
    // Double's form (fmt's shortest round trip) of the rounded value.
    char* text_end =
        fmt::format_to(last_rounded_text_, FMT_COMPILE("{}"), rounded == 0 ? 0.0 : rounded);
    last_rounded_size_ = static_cast<size_t>(text_end - last_rounded_text_);
    last_rounded_ = value;
  }
  std::memcpy(text, last_rounded_text_, last_rounded_size_);
  return last_rounded_size_;
}

void JsonWriter::RoundedNumber(double value) {
  char text[kRoundedTextMax];
  const size_t size = RoundedText(value, text);
  BeforeValue();
  out_.append(text, size);
}

void JsonWriter::RoundedNumbers(std::span<const float> values) {
  BeginArray();
  // Through a stack buffer: one append per 4 KiB instead of a growth check per value.
  char buffer[4096];
  size_t used = 0;
  bool first = true;
  for (float v : values) {
    if (used + kRoundedTextMax + 1 > sizeof buffer) {
      out_.append(buffer, used);
      used = 0;
    }
    if (!first) {
      buffer[used++] = ',';
    }
    first = false;
    used += RoundedText(v, buffer + used);
  }
  out_.append(buffer, used);
  EndArray();
}

}  // namespace replay
