// replay/sim/routed_batch.h: the slots of batches in flight and a batch's per-shard state.
#include "replay/sim/routed_batch.h"

#include <set>

#include <gtest/gtest.h>

namespace replay {
namespace {

// Batches in flight have distinct slots; a batch takes the slot freed last, so that a window
// mostly run with few batches in flight keeps touching the same few slots (and their storage).
TEST(BatchSlotsTest, BatchesInFlightHaveTheirOwnSlotAndTheLastFreedIsReused) {
  BatchSlots slots(4, 3);
  std::set<const RoutedBatch*> distinct;
  for (int64_t b = 0; b < 4; ++b) {
    RoutedBatch& batch = slots.Take(b);
    EXPECT_EQ(&slots.Get(b), &batch);
    EXPECT_EQ(batch.routed.size(), 3u);
    EXPECT_EQ(batch.outcomes.size(), 3u);
    EXPECT_EQ(batch.next.size(), 3u);
    distinct.insert(&batch);
  }
  EXPECT_EQ(distinct.size(), 4u);
  const RoutedBatch* slot0 = &slots.Get(0);
  const RoutedBatch* slot1 = &slots.Get(1);
  slots.Release(0);
  slots.Release(1);
  EXPECT_EQ(&slots.Take(4), slot1);  // the slot freed last
  EXPECT_EQ(&slots.Take(5), slot0);
  // With one batch in flight at a time, every batch gets the same slot.
  slots.Release(2);
  slots.Release(3);
  slots.Release(4);
  slots.Release(5);
  const RoutedBatch* only = &slots.Take(6);
  for (int64_t b = 7; b < 20; ++b) {
    slots.Release(b - 1);
    EXPECT_EQ(&slots.Take(b), only) << b;
  }
}

TEST(RoutedBatchTest, ResetOutcomesGivesEveryRoutedLineAFreshOutcome) {
  BatchSlots slots(1, 2);
  RoutedBatch& b = slots.Take(0);
  b.routed[0] = {0, 2};
  b.routed[1] = {1};
  b.outcomes[0] = {Outcome{true, {}}};
  b.next = {5, 7};
  b.ResetOutcomes();
  ASSERT_EQ(b.outcomes[0].size(), 2u);
  ASSERT_EQ(b.outcomes[1].size(), 1u);
  EXPECT_FALSE(b.outcomes[0][0].applied);
  EXPECT_EQ(b.next[0], 0u);
  EXPECT_EQ(b.next[1], 0u);
}

}  // namespace
}  // namespace replay
