// JsonWriter and AppendJsonString: the escaping of every ASCII byte, numbers as reports print
// them (the decision logs and reports are compared byte for byte, so the exact text matters).
#include "replay/io/json_writer.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

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
  for (int c = 0; c < 256; ++c) {
    std::string one(1, static_cast<char>(c));
    EXPECT_EQ(JsonQuoted(one), ReferenceQuoted(one)) << c;
    std::string mixed = "ab" + one + "cd" + one + one + "e";
    EXPECT_EQ(JsonQuoted(mixed), ReferenceQuoted(mixed)) << c;
  }
  EXPECT_EQ(JsonQuoted(""), "\"\"");
  EXPECT_EQ(JsonQuoted("team-a/job-1"), "\"team-a/job-1\"");
  EXPECT_EQ(JsonQuoted("a\"b\\c\x01"), R"("a\"b\\c\u0001")");
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

}  // namespace
}  // namespace replay
