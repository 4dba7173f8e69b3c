// replay::PodSetsByText (replay/io/pod_sets_by_text.h): a list is found only under exactly the
// text it was kept with, the memo holds the last kSlots lists, and it shares the kept buffer.
#include "replay/io/pod_sets_by_text.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace replay {
namespace {

engine::PodSetList ListOf(int count) {
  engine::PodSetList list;
  list.emplace_back().count = count;
  return list;
}

TEST(PodSetsByTextTest, FindsAListOnlyUnderItsExactText) {
  PodSetsByText memo;
  const std::string text = R"([{"name":"main","count":2}])";
  const engine::PodSetList list = ListOf(2);
  EXPECT_EQ(memo.Find(text, PodSetsByText::Hash(text)), nullptr);
  memo.Keep(text, PodSetsByText::Hash(text), list);
  const engine::PodSetList* found = memo.Find(text, PodSetsByText::Hash(text));
  ASSERT_NE(found, nullptr);
  EXPECT_TRUE(found->SharesWith(list));
  const std::string spaced = R"([ {"name":"main","count":2}])";
  EXPECT_EQ(memo.Find(spaced, PodSetsByText::Hash(spaced)), nullptr);
  // The same hash with another text (a collision) is not a hit either.
  EXPECT_EQ(memo.Find(spaced, PodSetsByText::Hash(text)), nullptr);
  EXPECT_EQ(memo.hits(), 1);
  EXPECT_EQ(memo.misses(), 3);
}

TEST(PodSetsByTextTest, KeepsTheLastSlotsListsAndForgetsTheOldest) {
  PodSetsByText memo;
  std::vector<std::string> texts;
  for (size_t i = 0; i <= PodSetsByText::kSlots; ++i) {
    texts.push_back(fmt::format(R"([{{"count":{}}}])", i));
    memo.Keep(texts.back(), PodSetsByText::Hash(texts.back()), ListOf(static_cast<int>(i)));
  }
  EXPECT_EQ(memo.Find(texts[0], PodSetsByText::Hash(texts[0])), nullptr) << "the oldest";
  for (size_t i = 1; i <= PodSetsByText::kSlots; ++i) {
    const engine::PodSetList* found = memo.Find(texts[i], PodSetsByText::Hash(texts[i]));
    ASSERT_NE(found, nullptr) << i;
    EXPECT_EQ((*found)[0].count, static_cast<int>(i));
  }
}

TEST(PodSetsByTextTest, AnEmptyListIsNotKept) {
  PodSetsByText memo;
  const std::string text = "[]";
  memo.Keep(text, PodSetsByText::Hash(text), engine::PodSetList{});
  EXPECT_EQ(memo.Find(text, PodSetsByText::Hash(text)), nullptr);
}

}  // namespace
}  // namespace replay
