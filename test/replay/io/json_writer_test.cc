// JsonWriter and AppendJsonString: the escaping of every ASCII byte, numbers as reports print
// them (the decision logs and reports are compared byte for byte, so the exact text matters).
#include "replay/io/json_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

namespace replay {
namespace {

// RFC 8259 escaping written the slow, obvious way.
std::string ReferenceQuoted(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

TEST(JsonWriterTest, EscapesEveryByteLikeTheReference) {
  for (int c = 0; c < 128; ++c) {
    std::string one(1, static_cast<char>(c));
    EXPECT_EQ(JsonQuoted(one), ReferenceQuoted(one)) << c;
    std::string mixed = "ab";
    mixed.append(one).append("cd").append(one).append(one).append("e");
    EXPECT_EQ(JsonQuoted(mixed), ReferenceQuoted(mixed)) << c;
  }
  EXPECT_EQ(JsonQuoted(""), "\"\"");
  EXPECT_EQ(JsonQuoted("team-a/job-1"), "\"team-a/job-1\"");
  EXPECT_EQ(JsonQuoted("a\"b\\c\x01"), R"("a\"b\\c\u0001")");
}

// AppendJsonString into a decision line's buffer (replay/io/line_builder.h): the same bytes.
std::string QuotedInLine(std::string_view s) {
  LineBuilder line;
  line.Append('<');  // not at the start of the buffer
  AppendJsonString(s, line);
  return std::string(line.view().substr(1));
}

// AppendJsonString skips plain ASCII 8 bytes at a time, and reads a string's tail as one more
// word overlapping the last (4 bytes at a time below 8): every byte that needs a look, at every
// offset within and across words, in strings of every length up to 40, is escaped as the
// reference does (ASCII), or passed through (valid UTF-8) or replaced (any other byte >= 0x80),
// by both overloads.
TEST(JsonWriterTest, EveryByteAtEveryOffsetOfAWordIsSeen) {
  for (size_t length = 1; length <= 40; ++length) {
    for (size_t at = 0; at < length; ++at) {
      for (int c : {0x00, 0x01, 0x0a, 0x1f, 0x22, 0x5c, 0x20, 0x21, 0x5b, 0x7f}) {
        std::string text(length, 'a');
        text[at] = static_cast<char>(c);
        ASSERT_EQ(JsonQuoted(text), ReferenceQuoted(text)) << length << " " << at << " " << c;
        ASSERT_EQ(QuotedInLine(text), ReferenceQuoted(text)) << length << " " << at << " " << c;
      }
      std::string utf8(length, 'a');
      utf8.replace(at, 1, "\xC3\xA9");  // é: kept whole
      ASSERT_EQ(JsonQuoted(utf8), "\"" + utf8 + "\"") << length << " " << at;
      ASSERT_EQ(QuotedInLine(utf8), "\"" + utf8 + "\"") << length << " " << at;
      std::string invalid(length, 'a');
      invalid[at] = static_cast<char>(0xFF);
      std::string replaced = invalid;
      replaced.replace(at, 1, "\xEF\xBF\xBD");  // U+FFFD
      ASSERT_EQ(JsonQuoted(invalid), "\"" + replaced + "\"") << length << " " << at;
      ASSERT_EQ(QuotedInLine(invalid), "\"" + replaced + "\"") << length << " " << at;
    }
  }
  EXPECT_EQ(QuotedInLine(""), "\"\"");
}

TEST(JsonWriterTest, IntegersAndDoublesPrintTheirShortestForm) {
  JsonWriter w;
  w.BeginArray();
  w.Int(0);
  w.Int(-42);
  w.Int(std::numeric_limits<int64_t>::max());
  w.Int(std::numeric_limits<int64_t>::min());
  w.Double(0.1);
  w.Double(1e15);
  w.Double(1e16);
  w.Double(2.5);
  w.Double(-3);
  w.EndArray();
  EXPECT_EQ(w.str(),
            "[0,-42,9223372036854775807,-9223372036854775808,0.1,1000000000000000,1e+16,2.5,-3]");
}

TEST(JsonWriterTest, RoundedNumberKeepsSixSignificantDigits) {
  JsonWriter w;
  w.BeginArray();
  w.RoundedNumber(0.1 + 0.2);         // the float noise never reaches the file
  w.RoundedNumber(123456789.0);       // 1.23457e+08
  w.RoundedNumber(2.0 / 3.0);         // 0.666667
  w.RoundedNumber(-0.0);              // never "-0"
  w.RoundedNumber(-1e-300 * 1e-300);  // underflows to -0
  w.RoundedNumber(std::numeric_limits<double>::infinity());
  w.RoundedNumber(std::numeric_limits<double>::quiet_NaN());
  w.RoundedNumber(1234565.0);  // ties round to even digits as printf does
  w.EndArray();
  EXPECT_EQ(w.str(), "[0.3,123457000,0.666667,0,0,null,null,1234560]");
}

// RoundedNumber keeps the text of its last non-integral value (report series repeat theirs):
// a repeat, a different value in between, and the first again each get their own digits.
TEST(JsonWriterTest, RoundedNumberRepeatsAndAlternations) {
  JsonWriter w;
  w.BeginArray();
  for (double v : {2.0 / 3.0, 2.0 / 3.0, 0.25, 2.0 / 3.0, 7.0, 2.0 / 3.0, 1e-7 / 3, 1e-7 / 3}) {
    w.RoundedNumber(v);
  }
  w.EndArray();
  EXPECT_EQ(w.str(), "[0.666667,0.666667,0.25,0.666667,7,0.666667,3.33333e-08,3.33333e-08]");
}

// RoundedNumber's shortcut for integral values writes what the general path writes: to_chars'
// six significant digits, read back, in Double's shortest form.
TEST(JsonWriterTest, RoundedIntegersAsTheGeneralPath) {
  auto general = [](double v) {
    char text[40];
    auto [end, ec] = std::to_chars(text, text + sizeof text, v, std::chars_format::general, 6);
    double rounded = 0;
    std::from_chars(text, end, rounded);
    JsonWriter w;
    w.Double(rounded == 0 ? 0.0 : rounded);
    return w.str();
  };
  // Boundaries, ties (to even), a rounding up to the next power of ten, the largest values taken.
  std::vector<double> values = {0, -0.0, 1, -1, 999999, 1000000, 1000005, 1000015};
  values.insert(values.end(), {1234565, -1234565, 9999995, 9999994, 99999950, 1374389534720.0});
  values.insert(values.end(), {999999999999999.0, -999999999999999.0, 999999499999999.0});
  values.push_back(999999500000000.0);
  for (int exponent = 0; exponent < 15; ++exponent) {  // p = 1, 10, ..., 1e14
    const double p = std::pow(10.0, exponent);
    for (double d : {-1.0, 0.0, 1.0}) {
      values.push_back(p + d);
      values.push_back(5 * p + d);
      values.push_back(-(p + d));
      values.push_back(p * 1.0000005 + d);
    }
  }
  std::mt19937_64 random(24);
  for (int i = 0; i < 200000; ++i) {
    const int digits = static_cast<int>(random() % 15) + 1;
    const double bound = std::pow(10.0, digits);
    double v = std::floor(static_cast<double>(random() % static_cast<uint64_t>(bound)));
    if (i % 3 == 0 && digits > 6) {  // a tie after the sixth digit (for 10^(digits-1) <= v)
      const double unit = std::pow(10.0, digits - 6);
      v = std::floor(v / unit) * unit + unit / 2;
    }
    values.push_back(i % 2 == 0 ? v : -v);
  }
  for (double v : values) {
    if (std::abs(v) >= 1e15) {
      continue;
    }
    JsonWriter w;
    w.RoundedNumber(v);
    ASSERT_EQ(w.str(), general(v)) << fmt::format("{}", v);
  }
}

// Keys take the one-copy path when plain and the escaping path otherwise (JsonWriter::Key,
// AppendPlainJsonString): both give the reference's text, and the plain path appends nothing
// when it declines.
TEST(JsonWriterTest, KeysAreEscapedLikeValuesAtEveryOffset) {
  for (size_t length = 0; length <= 20; ++length) {
    for (size_t at = 0; at <= length; ++at) {
      for (int c : {0x01, 0x0a, 0x22, 0x5c, 0x41, 0x7f}) {
        std::string text(length, 'k');
        if (at < length) {
          text[at] = static_cast<char>(c);
        }
        JsonWriter w;
        w.BeginObject();
        w.Key(text);
        w.Int(1);
        w.EndObject();
        const std::string quoted = ReferenceQuoted(text);
        std::string object = "{";
        object.append(quoted).append(":1}");
        ASSERT_EQ(w.str(), object) << length << " " << at << " " << c;
        std::string out = "x";
        const bool plain = AppendPlainJsonString(text, ':', out);
        EXPECT_EQ(plain, text.find_first_of("\x01\n\"\\") == std::string::npos)
            << length << " " << at;
        std::string want = "x";
        if (plain) {
          want.append(quoted).append(":");
        }
        EXPECT_EQ(out, want);
      }
    }
  }
}

// An empty string_view may hold a null pointer (audit_log_fuzz found one reaching the writer):
// it is written as "", key or value, with nothing read from it.
TEST(JsonWriterTest, AnEmptyViewWithANullPointerIsAnEmptyString) {
  const std::string_view empty;
  ASSERT_EQ(empty.data(), nullptr);
  JsonWriter w;
  w.BeginObject();
  w.Key(empty);
  w.String(empty);
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"":""})");
  EXPECT_EQ(JsonQuoted(empty), "\"\"");
}

TEST(JsonWriterTest, KeysAndCommas) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.EndArray();
  w.Key("b\n");
  w.BeginObject();
  w.Key("c");
  w.Bool(true);
  w.Key("d");
  w.Null();
  w.EndObject();
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"a":[],"b\n":{"c":true,"d":null}})");
}

// Issue 23, findings 10-12: input bytes that are not UTF-8 (a CSV field, a YAML name, a quoted
// line) never reach an output as they are: each becomes U+FFFD, well-formed UTF-8 passes through.
TEST(JsonWriterTest, OutputIsValidUtf8WhateverTheInput) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(JsonQuoted("caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x99\x82"),
            "\"caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x99\x82\"");
  EXPECT_EQ(JsonQuoted("a\xFF"
                       "b"),
            "\"a" + replacement + "b\"");
  EXPECT_EQ(JsonQuoted("\xC3"), "\"" + replacement + "\"");                    // truncated
  EXPECT_EQ(JsonQuoted("\xC0\xAF"), "\"" + replacement + replacement + "\"");  // overlong
  EXPECT_EQ(JsonQuoted("\xED\xA0\x80"), "\"" + replacement + replacement + replacement + "\"");
  EXPECT_EQ(JsonQuoted("\xF4\x90\x80\x80").find('\xF4'), std::string::npos);  // > U+10FFFF
  std::mt19937 rng(5);
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 12, '\0');
    for (char& c : s) {
      c = static_cast<char>(rng() % 4 == 0 ? rng() % 128 : 0x80 + rng() % 128);
    }
    const std::string quoted = JsonQuoted(s);
    ASSERT_TRUE(simdjson::validate_utf8(quoted.data(), quoted.size())) << round;
    // And it is one JSON string that parses back.
    simdjson::dom::parser parser;
    simdjson::padded_string padded(quoted);
    std::string_view back;
    ASSERT_EQ(parser.parse(padded).get_string().get(back), simdjson::SUCCESS) << round;
    if (simdjson::validate_utf8(s.data(), s.size())) {
      EXPECT_EQ(back, s);  // valid input comes back unchanged
    }
  }
}

// A series written whole (RoundedNumbers) is byte for byte the values written one by one: every
// kind of value (integral, fractional, repeated, huge, tiny, NaN, infinite, -0), arrays longer than
// the 4 KiB staging buffer, empty ones, and arrays after other elements and keys.
TEST(JsonWriterTest, RoundedNumbersWritesWhatRoundedNumberWritesOneByOne) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> kind(0, 7);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (size_t size : {size_t{0}, size_t{1}, size_t{7}, size_t{300}, size_t{5000}}) {
    std::vector<float> values;
    values.reserve(size);
    for (size_t i = 0; i < size; ++i) {
      switch (kind(rng)) {
        case 0:
          values.push_back(static_cast<float>(static_cast<int>(unit(rng) * 1e6f)));
          break;
        case 1:
          values.push_back(values.empty() ? 0.5f : values.back());  // repeated
          break;
        case 2:
          values.push_back(std::ldexp(unit(rng), exponent(rng)));
          break;
        case 3:
          values.push_back(unit(rng) * 3e9f);  // integral above 10^6 once rounded
          break;
        case 4:
          values.push_back(std::numeric_limits<float>::quiet_NaN());
          break;
        case 5:
          values.push_back(i % 2 == 0 ? std::numeric_limits<float>::infinity() : -0.0f);
          break;
        default:
          values.push_back(unit(rng));
      }
    }
    JsonWriter whole;
    JsonWriter single;
    for (JsonWriter* w : {&whole, &single}) {
      w->BeginObject();
      w->Key("before");
      w->Int(1);
      w->Key("series");
      w->BeginArray();
      w->Int(2);  // not the first element of the outer array
    }
    whole.RoundedNumbers(values);
    single.BeginArray();
    for (float v : values) {
      single.RoundedNumber(v);
    }
    single.EndArray();
    for (JsonWriter* w : {&whole, &single}) {
      w->RoundedNumbers(values);  // the same values again: the cache of the last fraction
      w->EndArray();
      w->Key("after");
      w->Int(3);
      w->EndObject();
    }
    // `single` wrote its second array through RoundedNumbers too: compare its first array's text
    // with a third writer that never uses RoundedNumbers.
    JsonWriter reference;
    reference.BeginArray();
    for (int copy = 0; copy < 2; ++copy) {
      reference.BeginArray();
      for (float v : values) {
        reference.RoundedNumber(v);
      }
      reference.EndArray();
    }
    reference.EndArray();
    const std::string expected = "{\"before\":1,\"series\":[2,"
                                 + reference.str().substr(1, reference.str().size() - 2)
                                 + "],\"after\":3}";
    EXPECT_EQ(whole.str(), expected) << size << " values";
    EXPECT_EQ(single.str(), expected) << size << " values";
  }
}

}  // namespace
}  // namespace replay
