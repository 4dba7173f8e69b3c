// LineBuilder (replay/io/line_builder.h): the bytes appended, whatever their length (its copy
// has a path per length class) and across the growth of its buffer.
#include "replay/io/line_builder.h"

#include <string>

#include <gtest/gtest.h>

namespace replay {
namespace {

// A text of `length` bytes that tells every position apart.
std::string Text(size_t length, char first) {
  std::string text;
  for (size_t i = 0; i < length; ++i) {
    text += static_cast<char>(first + static_cast<char>(i % 26));
  }
  return text;
}

TEST(LineBuilderTest, EveryLengthIsCopiedWholeAfterAnyPrefix) {
  for (size_t prefix = 0; prefix < 10; ++prefix) {
    for (size_t length = 0; length <= 40; ++length) {
      LineBuilder line;
      std::string expected;
      line.Append(Text(prefix, 'A'));
      expected += Text(prefix, 'A');
      line.Append(Text(length, 'a'));
      expected += Text(length, 'a');
      line.AppendQuoted(Text(length, 'a'));
      expected += '"' + Text(length, 'a') + '"';
      line.Append('!');
      expected += '!';
      ASSERT_EQ(line.view(), expected) << prefix << " " << length;
      ASSERT_EQ(line.size(), expected.size());
    }
  }
}

TEST(LineBuilderTest, GrowingKeepsWhatWasAppendedAndClearKeepsNothing) {
  LineBuilder line;
  std::string expected;
  for (size_t i = 0; i < 500; ++i) {  // past the first 1,024 bytes several times
    const std::string piece = Text(i % 37, 'a');
    line.Append(piece);
    line.AppendQuoted(piece);
    expected += piece;
    expected += '"';
    expected += piece;
    expected += '"';
  }
  line.Append(std::string(5000, 'x'));  // more than the buffer at once
  expected += std::string(5000, 'x');
  EXPECT_EQ(line.view(), expected);
  line.Clear();
  EXPECT_EQ(line.view(), "");
  line.Append("{}");
  EXPECT_EQ(line.view(), "{}");
}

}  // namespace
}  // namespace replay
