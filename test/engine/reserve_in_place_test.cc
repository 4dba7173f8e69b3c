// WorkloadStore::Reserve with pod sets written in place (the scheduler's admissions): the same
// reservation as the overload that takes whole vectors, and, once a reservation was released,
// the next one reuses the storage of its pod sets' vectors instead of allocating.
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

TEST_F(ReserveInPlaceTest, ANewReservationReusesTheStorageAReleasedOneLeft) {
  ReserveInPlace(ids_[0], 1, 500);
  const AdmittedPodSet* first_pod_set = store_.Get(ids_[0]).admitted.data();
  const void* flavors = first_pod_set->flavors.data();
  const void* usage = first_pod_set->usage.data();
  store_.Release(ids_[0]);

  // Another workload: the pod set's vectors move over from the released reservation.
  ReserveInPlace(ids_[1], 2, 700);
  const AdmittedPodSet& reused = store_.Get(ids_[1]).admitted[0];
  EXPECT_EQ(static_cast<const void*>(reused.flavors.data()), flavors);
  EXPECT_EQ(static_cast<const void*>(reused.usage.data()), usage);
  EXPECT_EQ(reused.count, 2);
  EXPECT_EQ(reused.usage[0].amount, Quantity(700));
  EXPECT_EQ(store_.ReservedUsage(cq_, slot_), Quantity(700));

  // The same workload again: its own usage vector keeps its storage too.
  const void* own_usage = store_.Get(ids_[1]).usage.data();
  store_.Release(ids_[1]);
  ReserveInPlace(ids_[1], 1, 300);
  EXPECT_EQ(static_cast<const void*>(store_.Get(ids_[1]).usage.data()), own_usage);
  EXPECT_EQ(store_.ReservedUsage(cq_, slot_), Quantity(300));
}

}  // namespace
}  // namespace engine
