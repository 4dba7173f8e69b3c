// TimerQueue (replay/sim/timer_queue.h) against one QuadHeap on random pushes, pops and removals:
// with a strict total order both give every element back in the same order, whichever items
// went to the list of those due at once. That is what keeps a shard's timers, and so its
// decisions, as they were with the heap alone.
#include "replay/sim/timer_queue.h"

#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "replay/sim/quad_heap.h"
#include "test/replay/sim/timed_item.h"

namespace replay {
namespace {

using heap_testing::Item;
using heap_testing::ItemEarlier;

// Pops both down to `until` elements, checking they agree.
void PopBoth(TimerQueue<Item, ItemEarlier>& queue, QuadHeap<Item, ItemEarlier>& oracle,
             size_t until, int64_t& now, uint32_t seed) {
  while (oracle.size() > until) {
    ASSERT_FALSE(queue.empty()) << "seed " << seed;
    ASSERT_EQ(queue.top().time, oracle.top().time) << "seed " << seed;
    ASSERT_EQ(queue.top().order, oracle.top().order) << "seed " << seed;
    now = queue.top().time;
    queue.pop();
    oracle.pop();
  }
}

TEST(TimerQueueTest, GivesEveryElementBackInTheHeapsOrder) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    TimerQueue<Item, ItemEarlier> queue;
    QuadHeap<Item, ItemEarlier> oracle;
    uint64_t order = 0;
    int64_t now = 0;  // the last popped element's time, as a shard's clock
    size_t pushed_now = 0;
    for (int step = 0; step < 20'000; ++step) {
      const uint64_t roll = rng() % 100;
      if (oracle.empty() || roll < 55) {
        // Due at once (the list) or later (the heap), many ties; now and then an item pushed as
        // due at once but earlier than the list's last one (it must go to the heap).
        const int64_t delay = roll < 30 ? 0 : static_cast<int64_t>(rng() % 40);
        const int64_t time = roll == 7 && now > 0 ? now - 1 : now + delay;
        const Item item{time, order++};
        if (delay == 0) {
          queue.push_now(item);
          ++pushed_now;
        } else {
          queue.push(item);
        }
        oracle.push(item);
      } else if (roll < 98) {
        PopBoth(queue, oracle, oracle.size() - 1, now, seed);
      } else {
        // A compaction: every element of a residue class leaves both.
        const uint64_t mod = 2 + rng() % 5;
        const auto drop = [mod](const Item& item) { return item.order % mod == 0; };
        queue.RemoveIf(drop);
        oracle.RemoveIf(drop);
      }
      ASSERT_EQ(queue.size(), oracle.size()) << "seed " << seed << " step " << step;
    }
    PopBoth(queue, oracle, 0, now, seed);
    EXPECT_TRUE(queue.empty());
    EXPECT_GT(pushed_now, 1000u);
  }
}

TEST(TimerQueueTest, ALongRunOfItemsDueAtOnceKeepsItsOrder) {
  // More than the list's compaction threshold, an item pushed for each popped: the list never
  // empties, drops what it gave, and still gives everything in order.
  TimerQueue<Item, ItemEarlier> queue;
  uint64_t order = 0;
  queue.push({10, order++});
  queue.push_now({0, order++});
  for (int i = 0; i < 5000; ++i) {
    queue.push_now({0, order++});
    ASSERT_EQ(queue.top().time, 0);
    ASSERT_EQ(queue.top().order, static_cast<uint64_t>(i + 1));
    queue.pop();
  }
  EXPECT_EQ(queue.size(), 2u);
  queue.pop();
  EXPECT_EQ(queue.top().time, 10);
  queue.pop();
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace replay
