// The nomination memo's key (engine/nomination_memo.h): what makes a stored entry reusable. The
// scheduler property test checks with NominationMemoMode::kVerify that every reuse equals a fresh
// nomination on random clusters; this test pins the scan part of the key on its own.
#include "engine/nomination_memo.h"

#include <gtest/gtest.h>

namespace engine {
namespace {

struct MemoFixture {
  WorkloadSpec spec;
  Workload w;
  NominationVersions versions{1, 2, 3, 4};
  CycleEntry entry;
  MemoFixture() : spec(MakeSpec()) {
    w.id = MakeId<WorkloadId>(3);
    w.key = spec.name_space + "/" + spec.name;
    w.spec = &spec;
    w.cluster_queue = MakeId<CqId>(1);
    entry.workload = w.id;
    entry.message = std::string(kStored);
  }
  static constexpr std::string_view kStored = "stored";
  static WorkloadSpec MakeSpec() {
    WorkloadSpec s;
    s.name = std::string(std::string_view("w"));
    s.name_space = std::string(std::string_view("ns"));
    return s;
  }
};

FlavorScanState Scan(std::vector<std::vector<std::pair<ResourceId, int>>> last_tried) {
  FlavorScanState s;
  s.valid = true;
  s.last_tried = std::move(last_tried);
  return s;
}

const ResourceId kCpu = MakeId<ResourceId>(0);
const ResourceId kGpu = MakeId<ResourceId>(1);

TEST(NominationMemoTest, OutdatedFreshAndFinishedScansAreTheSameInput) {
  MemoFixture f;
  NominationMemo memo;
  f.w.scan = FlavorScanState{};  // never scanned
  memo.Store(f.w, f.versions, /*scan_outdated=*/true, f.entry);
  // A scan that ran every group to its last flavor (-1) starts them all at 0 again.
  f.w.scan = Scan({{{kCpu, -1}, {kGpu, -1}}});
  const CycleEntry* hit = memo.Find(f.w, f.versions, /*scan_outdated=*/false);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->message, MemoFixture::kStored);
  // An outdated scan starts at 0 whatever it holds.
  f.w.scan = Scan({{{kCpu, 0}}});
  EXPECT_NE(memo.Find(f.w, f.versions, /*scan_outdated=*/true), nullptr);
  // The same scan, not outdated, resumes at flavor 1: another input.
  EXPECT_EQ(memo.Find(f.w, f.versions, /*scan_outdated=*/false), nullptr);
}

TEST(NominationMemoTest, ResumedScansMatchOnlyOnTheSameStarts) {
  MemoFixture f;
  NominationMemo memo;
  f.w.scan = Scan({{{kCpu, 0}, {kGpu, -1}}, {{kCpu, 1}}});
  memo.Store(f.w, f.versions, false, f.entry);
  // Generations and the cycle of the scan do not enter: only where each group starts.
  f.w.scan.scheduling_cycle = 99;
  f.w.scan.cluster_queue_generation = 7;
  EXPECT_NE(memo.Find(f.w, f.versions, false), nullptr);
  f.w.scan = Scan({{{kCpu, 0}, {kGpu, -1}}, {{kCpu, 0}}});  // pod set 1 starts at 1, not 2
  EXPECT_EQ(memo.Find(f.w, f.versions, false), nullptr);
  f.w.scan = Scan({{{kCpu, 0}}, {{kCpu, 1}}});  // gpu's -1 is a start at 0: same input
  EXPECT_NE(memo.Find(f.w, f.versions, false), nullptr);
  f.w.scan = Scan({{{kCpu, 0}}});  // pod set 1 now starts at 0
  EXPECT_EQ(memo.Find(f.w, f.versions, false), nullptr);
  f.w.scan = Scan({{{kCpu, 0}, {kGpu, -1}}, {{kCpu, 1}}});
  f.w.scan.valid = false;  // an invalid scan is never resumed
  EXPECT_EQ(memo.Find(f.w, f.versions, false), nullptr);
}

TEST(NominationMemoTest, AnyVersionOrHeadFieldChangeMisses) {
  MemoFixture f;
  NominationMemo memo;
  memo.Store(f.w, f.versions, true, f.entry);
  ASSERT_NE(memo.Find(f.w, f.versions, true), nullptr);
  NominationVersions v = f.versions;
  ++v.tree;
  EXPECT_EQ(memo.Find(f.w, v, true), nullptr);
  v = f.versions;
  ++v.reservations;
  EXPECT_EQ(memo.Find(f.w, v, true), nullptr);
  f.w.priority = 5;
  EXPECT_EQ(memo.Find(f.w, f.versions, true), nullptr);
  f.w.priority = 0;
  f.w.queue_order_time = 1;
  EXPECT_EQ(memo.Find(f.w, f.versions, true), nullptr);
  f.w.queue_order_time = 0;
  f.w.key += "-other";  // a recycled id
  EXPECT_EQ(memo.Find(f.w, f.versions, true), nullptr);
}

// The memo holds the entries of the newest versions only: a Store under newer versions recycles
// the older entries (they could never be found again: versions only grow), and reuses their
// storage for the new ones.
TEST(NominationMemoTest, NewerVersionsRecycleOlderEntries) {
  MemoFixture f;
  NominationMemo memo;
  Workload other = f.w;
  other.id = MakeId<WorkloadId>(7);
  memo.Store(f.w, f.versions, true, f.entry);
  memo.Store(other, f.versions, true, f.entry);
  EXPECT_EQ(memo.size(), 2u);
  EXPECT_NE(memo.Find(other, f.versions, true), nullptr);
  // Another cycle changed the tree: the next store drops both entries and reuses a slot.
  NominationVersions newer = f.versions;
  ++newer.tree;
  CycleEntry second = f.entry;
  second.message = "second";
  memo.Store(f.w, newer, true, second);
  EXPECT_EQ(memo.size(), 1u);
  EXPECT_EQ(memo.capacity(), 2u);
  EXPECT_EQ(memo.Find(other, f.versions, true), nullptr);
  EXPECT_EQ(memo.Find(other, newer, true), nullptr);  // not stored under the newer versions
  const CycleEntry* hit = memo.Find(f.w, newer, true);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->message, "second");
  // Stored again under the same versions: replaced in place.
  memo.Store(f.w, newer, true, f.entry);
  EXPECT_EQ(memo.size(), 1u);
  ASSERT_NE(memo.Find(f.w, newer, true), nullptr);
  EXPECT_EQ(memo.Find(f.w, newer, true)->message, MemoFixture::kStored);
  memo.Clear();
  EXPECT_EQ(memo.size(), 0u);
  EXPECT_EQ(memo.Find(f.w, newer, true), nullptr);
}

}  // namespace
}  // namespace engine
