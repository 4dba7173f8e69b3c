// engine/base/small_sort.h: the same order as std::stable_sort on random short ranges with many
// equal keys (stability is what the decision lines rely on: a field given twice keeps its first).
#include "engine/base/small_sort.h"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

TEST(SmallStableSortTest, SameOrderAsStableSortWithTies) {
  std::mt19937 random(11);
  for (int round = 0; round < 2000; ++round) {
    const size_t size = random() % 12;
    std::vector<std::pair<int, int>> values;  // (key, original position)
    for (size_t i = 0; i < size; ++i) {
      values.emplace_back(static_cast<int>(random() % 4), static_cast<int>(i));
    }
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::vector<std::pair<int, int>> expected = values;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    SmallStableSort(values.begin(), values.end(), by_key);
    ASSERT_EQ(values, expected) << "round " << round;
  }
}

TEST(SmallStableSortTest, EmptyAndSingleRanges) {
  std::vector<int> empty;
  SmallStableSort(empty.begin(), empty.end(), std::less<>());
  EXPECT_TRUE(empty.empty());
  std::vector<int> one{5};
  SmallStableSort(one.begin(), one.end(), std::less<>());
  EXPECT_EQ(one, std::vector<int>{5});
}

}  // namespace
}  // namespace engine
