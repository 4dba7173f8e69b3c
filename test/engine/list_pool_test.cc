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
  std::mt19937 rng(11);
  size_t most = 0;
  for (int step = 0; step < 20'000; ++step) {
    std::vector<int> items = {static_cast<int>(rng() % 100'000), step};
    SharedList<int> list = pool.Intern(items);
    ASSERT_EQ(std::vector<int>(list.begin(), list.end()), items);
    if (step % 100 == 0) {
      held.push_back(list);  // a few stay in use; the rest are dropped at once
    }
    most = std::max(most, pool.size());
  }
  // 200 lists in use, 20,000 interned: the pool never held more than four times those in use.
  using Pool = ListPool<int, SumHash>;
  EXPECT_LE(most, 4 * (held.size() + 1) + Pool::kMinSlots / 2);
  for (const SharedList<int>& list : held) {
    EXPECT_TRUE(pool.Intern(std::vector<int>(list.begin(), list.end())).SameBuffer(list));
  }
}

}  // namespace
}  // namespace engine
