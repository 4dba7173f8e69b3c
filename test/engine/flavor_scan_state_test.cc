// FlavorScanState::Reset (engine/workload.h): what a default-constructed scan state holds, with
// the vectors' storage kept for the next scan the workload records.
#include <gtest/gtest.h>

#include "engine/workload.h"

namespace engine {
namespace {

TEST(FlavorScanStateTest, ResetIsTheDefaultStateButKeepsTheStorage) {
  FlavorScanState state;
  state.valid = true;
  state.last_tried = {{{MakeId<ResourceId>(0), 2}, {MakeId<ResourceId>(1), -1}},
                      {{MakeId<ResourceId>(0), 0}}};
  state.cluster_queue_generation = 7;
  state.cohort_generations = {3, 4, 5};
  state.flavor_lists = 0x1234;
  state.scheduling_cycle = 99;
  const size_t tried_capacity = state.last_tried.view().capacity();
  const size_t generations_capacity = state.cohort_generations.capacity();

  state.Reset();

  const FlavorScanState fresh;
  EXPECT_EQ(state.valid, fresh.valid);
  EXPECT_TRUE(state.last_tried.empty());
  EXPECT_EQ(state.cluster_queue_generation, fresh.cluster_queue_generation);
  EXPECT_TRUE(state.cohort_generations.empty());
  EXPECT_EQ(state.flavor_lists, fresh.flavor_lists);
  EXPECT_EQ(state.scheduling_cycle, fresh.scheduling_cycle);
  EXPECT_FALSE(state.HasPendingFlavors());
  EXPECT_EQ(state.NextFlavorIndex(0, MakeId<ResourceId>(0)), 0);
  // The point of Reset over `= FlavorScanState{}`: the next copy into it need not allocate (a
  // list of its own keeps its storage; a shared one is let go of, its owner keeps it).
  EXPECT_GE(state.last_tried.view().capacity(), tried_capacity);
  EXPECT_GE(state.cohort_generations.capacity(), generations_capacity);
}

}  // namespace
}  // namespace engine
