// engine::ListPool and engine::SharedList (engine/base/list_pool.h, engine/base/shared_list.h):
// equal lists are one buffer, different ones are not (hash collisions included), and the pool
// drops the lists nobody else holds when it would grow, so that it stays within a bound of the
// lists in use whatever passed through it.
#include "engine/base/list_pool.h"

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

struct SumHash {  // a weak hash: lists with the same sum collide
  uint64_t operator()(std::span<const int> items) const {
    uint64_t sum = 0;
    for (int x : items) {
      sum += static_cast<uint64_t>(x);
    }
    return sum;
  }
};

TEST(ListPoolTest, EqualListsShareOneBufferAndCollisionsStayApart) {
  ListPool<int, SumHash> pool;
  const std::vector<int> a = {1, 2, 3};
  const std::vector<int> b = {3, 2, 1};  // the same hash
  SharedList<int> a1 = pool.Intern(a);
  SharedList<int> a2 = pool.Intern(a);
  SharedList<int> b1 = pool.Intern(b);
  EXPECT_TRUE(a1.SameBuffer(a2));
  EXPECT_FALSE(a1.SameBuffer(b1));
  EXPECT_EQ(std::vector<int>(b1.begin(), b1.end()), b);
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.hits(), 1u);
  EXPECT_TRUE(pool.Intern(std::vector<int>{}).empty());
  EXPECT_EQ(a1, SharedList<int>::Own(a));  // content equality
  EXPECT_NE(a1, b1);
}

TEST(ListPoolTest, ListsNobodyHoldsAreDroppedAsThePoolWouldGrow) {
  ListPool<int, SumHash> pool;
  std::vector<SharedList<int>> held;
  std::vector<std::vector<int>> held_items;
  std::mt19937 rng(11);
  size_t most = 0;
  size_t most_spares = 0;
  for (int step = 0; step < 20'000; ++step) {
    std::vector<int> items = {static_cast<int>(rng() % 100'000), step};
    SharedList<int> list = pool.Intern(items);
    ASSERT_EQ(std::vector<int>(list.begin(), list.end()), items);
    if (step % 100 == 0) {
      held.push_back(list);  // a few stay in use; the rest are dropped at once
      held_items.push_back(items);
    }
    most = std::max(most, pool.size());
    most_spares = std::max(most_spares, pool.spares());
  }
  // 200 lists in use, 20,000 interned: the pool never held more than four times those in use.
  using Pool = ListPool<int, SumHash>;
  EXPECT_LE(most, 4 * (held.size() + 1) + Pool::kMinSlots / 2);
  // Its spares, half its table at most.
  EXPECT_GT(most_spares, 0u);
  EXPECT_LE(most_spares, 4 * (held.size() + 1) + Pool::kMinSlots / 2);
  for (size_t i = 0; i < held.size(); ++i) {
    // A list in use is never a spare: its content is what it was interned with.
    EXPECT_EQ(std::vector<int>(held[i].begin(), held[i].end()), held_items[i]);
    EXPECT_TRUE(pool.Intern(held_items[i]).SameBuffer(held[i]));
  }
}

TEST(ListPoolTest, ADroppedListsStorageIsWrittenOverByANewList) {
  ListPool<int, SumHash> pool;
  const SharedList<int> kept = pool.Intern(std::vector<int>{1, 1});
  const int* dropped_buffer = nullptr;
  {
    // Eight ints: a buffer of another allocator size class than the two-int lists below, so
    // that a new list found at its address took it over, not a new allocation in its place.
    const SharedList<int> dropped = pool.Intern(std::vector<int>(8, 2));
    dropped_buffer = dropped.data();
  }
  // New lists, all held, until the table would grow: its sweep takes the dropped list out as a
  // spare, and the new list that asked for room is written over it.
  std::vector<SharedList<int>> more;
  std::vector<int> last;
  while (more.empty() || more.back().data() != dropped_buffer) {
    ASSERT_LT(more.size(), 100u) << "the dropped list's storage was never reused";
    last = {100 + static_cast<int>(more.size()), 0};
    more.push_back(pool.Intern(last));
  }
  EXPECT_EQ(std::vector<int>(more.back().begin(), more.back().end()), last);
  EXPECT_EQ(pool.spares(), 0u);
  EXPECT_EQ(std::vector<int>(kept.begin(), kept.end()), (std::vector<int>{1, 1}));
  EXPECT_TRUE(pool.Intern(last).SameBuffer(more.back()));
  EXPECT_FALSE(pool.Intern(std::vector<int>(8, 2)).SameBuffer(more.back()))
      << "its old content is gone";
}

}  // namespace
}  // namespace engine
