// replay::SpecsByText (replay/io/specs_by_text.h): a reading is found only where the input's bytes
// from the spec's start are exactly a kept text (never reading past the input's end), the memo
// holds the last kSlots texts, and it stays out of the way of traces whose specs do not repeat.
#include "replay/io/specs_by_text.h"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace replay {
namespace {

SpecsByText::Reading ReadingWithPriority(int32_t priority) {
  SpecsByText::Reading r;
  r.priority = priority;
  r.pod_sets.emplace_back().count = 1;
  return r;
}

// `text` alone in a heap block of its exact size: a read past its end is caught by ASan.
std::unique_ptr<char[]> Exactly(const std::string& text) {
  auto block = std::make_unique<char[]>(text.size());
  std::copy(text.begin(), text.end(), block.get());
  return block;
}

TEST(SpecsByTextTest, FindsAReadingOnlyWhereTheInputStartsWithItsText) {
  SpecsByText memo;
  const std::string text = R"({"queueName":"q","priority":3})";
  memo.Keep(text, ReadingWithPriority(3));
  // The spec followed by the rest of its line: found.
  const std::string line = text + R"(}},"x":1})";
  const SpecsByText::Reading* found = memo.Find(line.data(), line.data() + line.size());
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->priority, 3);
  // One byte apart, or with other spacing: not found.
  const std::string other = R"({"queueName":"r","priority":3}})";
  EXPECT_EQ(memo.Find(other.data(), other.data() + other.size()), nullptr);
  const std::string spaced = R"({"queueName": "q","priority":3}})";
  EXPECT_EQ(memo.Find(spaced.data(), spaced.data() + spaced.size()), nullptr);
  // An input that ends before the kept text would: not found, and not read past its end.
  const std::string cut = text.substr(0, text.size() - 1);
  const std::unique_ptr<char[]> block = Exactly(cut);
  EXPECT_EQ(memo.Find(block.get(), block.get() + cut.size()), nullptr);
  EXPECT_EQ(memo.hits(), 1);
  EXPECT_EQ(memo.misses(), 3);
}

TEST(SpecsByTextTest, KeepsTheLastSlotsTextsAndForgetsTheOldest) {
  SpecsByText memo;
  std::vector<std::string> texts;
  for (size_t i = 0; i <= SpecsByText::kSlots; ++i) {
    texts.push_back(fmt::format(R"({{"priority":{}}})", i));
    memo.Keep(texts.back(), ReadingWithPriority(static_cast<int32_t>(i)));
  }
  const std::string& oldest = texts[0];
  EXPECT_EQ(memo.Find(oldest.data(), oldest.data() + oldest.size()), nullptr);
  for (size_t i = 1; i <= SpecsByText::kSlots; ++i) {
    const SpecsByText::Reading* found =
        memo.Find(texts[i].data(), texts[i].data() + texts[i].size());
    ASSERT_NE(found, nullptr) << i;
    EXPECT_EQ(found->priority, static_cast<int32_t>(i));
  }
}

// A window of kProbe lookups with fewer than kMinHits hits sits out the next kPause lookups,
// then the memo tries again; a window with enough hits keeps it on.
TEST(SpecsByTextTest, StaysOutOfTheWayWhileItsTextsDoNotRepeat) {
  SpecsByText memo;
  const std::string text = R"({"priority":1})";
  memo.Keep(text, ReadingWithPriority(1));
  const std::string miss = R"({"priority":2})";
  for (int i = 0; i < SpecsByText::kProbe; ++i) {
    ASSERT_TRUE(memo.Active()) << i;
    const std::string& input = i < SpecsByText::kMinHits - 1 ? text : miss;
    memo.Find(input.data(), input.data() + input.size());
  }
  for (int i = 0; i < SpecsByText::kPause; ++i) {
    ASSERT_FALSE(memo.Active()) << i;
  }
  for (int i = 0; i < SpecsByText::kProbe; ++i) {
    ASSERT_TRUE(memo.Active()) << i;
    const std::string& input = i < SpecsByText::kMinHits ? text : miss;
    memo.Find(input.data(), input.data() + input.size());
  }
  EXPECT_TRUE(memo.Active()) << "kMinHits hits in the last window: still on";
}

}  // namespace
}  // namespace replay
