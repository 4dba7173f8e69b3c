// QuadHeap (replay/sim/quad_heap.h) against std::priority_queue on random pushes and pops: with
// a strict total order both give every element back in the same order, which is what keeps a
// shard's timers, and so its decisions, as they were with the binary heap.
#include "replay/sim/quad_heap.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "test/replay/sim/timed_item.h"

namespace replay {
namespace {

using heap_testing::Item;
using heap_testing::ItemEarlier;
using heap_testing::ItemLater;

TEST(QuadHeapTest, PopsInTheSameOrderAsABinaryHeap) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    QuadHeap<Item, ItemEarlier> heap;
    std::priority_queue<Item, std::vector<Item>, ItemLater> oracle;
    uint64_t order = 0;
    int64_t now = 0;
    // Times never earlier than the last popped one, many ties (as timers): few distinct times.
    for (int step = 0; step < 20'000; ++step) {
      const bool push = oracle.empty() || rng() % 100 < 55;
      if (push) {
        const Item item{now + static_cast<int64_t>(rng() % 50), order++};
        heap.push(item);
        oracle.push(item);
      } else {
        ASSERT_FALSE(heap.empty());
        EXPECT_EQ(heap.top().time, oracle.top().time) << "seed " << seed << " step " << step;
        EXPECT_EQ(heap.top().order, oracle.top().order) << "seed " << seed << " step " << step;
        now = heap.top().time;
        heap.pop();
        oracle.pop();
      }
      ASSERT_EQ(heap.size(), oracle.size());
    }
    while (!oracle.empty()) {
      ASSERT_FALSE(heap.empty());
      EXPECT_EQ(heap.top().order, oracle.top().order) << "seed " << seed;
      heap.pop();
      oracle.pop();
    }
    EXPECT_TRUE(heap.empty());
  }
}

TEST(QuadHeapTest, OneElementAndEmptyAgain) {
  QuadHeap<Item, ItemEarlier> heap;
  EXPECT_TRUE(heap.empty());
  heap.push({5, 0});
  EXPECT_EQ(heap.size(), 1U);
  EXPECT_EQ(heap.top().time, 5);
  heap.pop();
  EXPECT_TRUE(heap.empty());
  for (int i = 9; i >= 0; --i) {
    heap.push({i, static_cast<uint64_t>(9 - i)});
  }
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(heap.top().time, i);
    heap.pop();
  }
  EXPECT_TRUE(heap.empty());
}

}  // namespace
}  // namespace replay
