// WorkloadStore::Reserve with pod sets written in place (the scheduler's admissions): the same
// reservation as the overload that takes whole vectors, and reservations of equal content share
// the store's pooled lists.
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/workload_store.h"
#include "test/engine/cpu_cluster_spec.h"

namespace engine {
namespace {

class ReserveInPlaceTest : public ::testing::Test {
 protected:
  ReserveInPlaceTest() {
    cluster_.Apply(CpuClusterSpec({"cq"}));
    cluster_.Refresh();
    cq_ = *cluster_.FindClusterQueue("cq");
    slot_ = *cluster_.FindSlot("f", "cpu");
    ids_ = AddCpuWorkloads(store_, 2);
  }

  // Reserves `id` in place: one pod set "main" of `count` pods on flavor f, `milli` cpu.
  void ReserveInPlace(WorkloadId id, int32_t count, int64_t milli) {
    const FlavorResource key = cluster_.SlotKey(slot_);
    const std::vector<SlotAmount> usage = {{slot_, Quantity(milli)}};
    store_.Reserve(
        id, cq_, 1,
        [&](size_t i, AdmittedPodSet& out) {
          EXPECT_EQ(i, 0U);
          EXPECT_TRUE(out.name.empty() && out.flavors.empty() && out.usage.empty())
              << "a pod set is handed over cleared, even one a released reservation left";
          out.name = "main";
          out.count = count;
          out.flavors.emplace_back(key.resource, key.flavor);
          out.usage.push_back({slot_, Quantity(milli)});
        },
        usage, 7);
  }

  Cluster cluster_;
  WorkloadStore store_{cluster_};
  CqId cq_{};
  FrSlot slot_{};
  std::vector<WorkloadId> ids_;
};

TEST_F(ReserveInPlaceTest, ChargesWhatTheVectorOverloadCharges) {
  const FlavorResource key = cluster_.SlotKey(slot_);
  AdmittedPodSet ps;
  ps.name = "main";
  ps.count = 3;
  ps.flavors.emplace_back(key.resource, key.flavor);
  ps.usage.push_back({slot_, Quantity(1500)});
  store_.Reserve(ids_[0], cq_, {ps}, {{slot_, Quantity(1500)}}, 7);
  ReserveInPlace(ids_[1], 3, 1500);

  const Workload& a = store_.Get(ids_[0]);
  const Workload& b = store_.Get(ids_[1]);
  ASSERT_TRUE(b.quota_reserved);
  EXPECT_EQ(b.quota_reserved_time, 7);
  EXPECT_EQ(b.cluster_queue, cq_);
  ASSERT_EQ(b.admitted.size(), 1U);
  EXPECT_EQ(b.admitted[0].name, a.admitted[0].name);
  EXPECT_EQ(b.admitted[0].count, a.admitted[0].count);
  EXPECT_EQ(b.admitted[0].flavors, a.admitted[0].flavors);
  ASSERT_EQ(b.admitted[0].usage.size(), 1U);
  EXPECT_EQ(b.admitted[0].usage[0].amount, a.admitted[0].usage[0].amount);
  EXPECT_EQ(b.admitted_mask, a.admitted_mask);
  ASSERT_EQ(b.usage.size(), 1U);
  EXPECT_EQ(b.usage[0].amount, Quantity(1500));
  EXPECT_EQ(store_.Admitted(cq_), (std::vector<WorkloadId>{ids_[0], ids_[1]}));
  EXPECT_EQ(store_.ReservedUsage(cq_, slot_), Quantity(3000));

  store_.Release(ids_[1]);
  EXPECT_FALSE(store_.Get(ids_[1]).quota_reserved);
  EXPECT_TRUE(store_.Get(ids_[1]).admitted.empty());
  EXPECT_EQ(store_.ReservedUsage(cq_, slot_), Quantity(1500));
}

// Reservations of equal content share one pooled list (engine/base/list_pool.h), whichever
// overload made them; a different content gets its own; a released reservation lets go of its
// lists without touching the others', and one made again with the same content gets the pooled
// list back.
TEST_F(ReserveInPlaceTest, EqualReservationsShareTheirPooledLists) {
  ReserveInPlace(ids_[0], 1, 500);
  ReserveInPlace(ids_[1], 1, 500);
  const Workload& a = store_.Get(ids_[0]);
  const Workload& b = store_.Get(ids_[1]);
  EXPECT_TRUE(a.admitted.SameBuffer(b.admitted));
  EXPECT_TRUE(a.usage.SameBuffer(b.usage));
  const AdmittedPodSet* pooled = a.admitted.data();
  EXPECT_EQ(store_.ReservedUsage(cq_, slot_), Quantity(1000));

  store_.Release(ids_[1]);
  EXPECT_TRUE(b.admitted.empty());
  EXPECT_TRUE(b.usage.empty());
  EXPECT_EQ(a.admitted.data(), pooled);  // the other holder keeps the list as it was
  EXPECT_EQ(a.admitted[0].usage[0].amount, Quantity(500));

  ReserveInPlace(ids_[1], 2, 700);  // another content
  EXPECT_FALSE(a.admitted.SameBuffer(b.admitted));
  EXPECT_FALSE(a.usage.SameBuffer(b.usage));
  EXPECT_EQ(b.admitted[0].count, 2);
  EXPECT_EQ(b.admitted[0].usage[0].amount, Quantity(700));
  EXPECT_EQ(a.admitted[0].count, 1);
  EXPECT_EQ(store_.ReservedUsage(cq_, slot_), Quantity(1200));

  store_.Release(ids_[1]);
  const FlavorResource key = cluster_.SlotKey(slot_);
  AdmittedPodSet ps;  // the first content again, through the overload that takes vectors
  ps.name = "main";
  ps.count = 1;
  ps.flavors.emplace_back(key.resource, key.flavor);
  ps.usage.push_back({slot_, Quantity(500)});
  store_.Reserve(ids_[1], cq_, {ps}, {{slot_, Quantity(500)}}, 9);
  EXPECT_EQ(b.admitted.data(), pooled);
  EXPECT_TRUE(a.usage.SameBuffer(b.usage));
  EXPECT_EQ(store_.ReservedUsage(cq_, slot_), Quantity(1000));
}

}  // namespace
}  // namespace engine
