// The nomination memo's key (engine/nomination_memo.h): what makes a stored entry reusable. The
// scheduler property test checks with NominationMemoMode::kVerify that every reuse equals a fresh
// nomination on random clusters; this test pins the scan part of the key on its own.
#include "engine/nomination_memo.h"

#include <string>
#include <vector>

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

constexpr ResourceId kCpu = MakeId<ResourceId>(0);
constexpr ResourceId kGpu = MakeId<ResourceId>(1);
constexpr TimeMicros kNow = 1'000'000;

TEST(NominationMemoTest, OutdatedFreshAndFinishedScansAreTheSameInput) {
  MemoFixture f;
  NominationMemo memo;
  f.w.scan = FlavorScanState{};  // never scanned
  memo.Store(f.w, f.versions, /*scan_outdated=*/true, kNow, /*reads_now=*/false, f.entry);
  // A scan that ran every group to its last flavor (-1) starts them all at 0 again.
  f.w.scan = Scan({{{kCpu, -1}, {kGpu, -1}}});
  const CycleEntry* hit = memo.Find(f.w, f.versions, /*scan_outdated=*/false, kNow);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->message, MemoFixture::kStored);
  // An outdated scan starts at 0 whatever it holds.
  f.w.scan = Scan({{{kCpu, 0}}});
  EXPECT_NE(memo.Find(f.w, f.versions, /*scan_outdated=*/true, kNow), nullptr);
  // The same scan, not outdated, resumes at flavor 1: another input.
  EXPECT_EQ(memo.Find(f.w, f.versions, /*scan_outdated=*/false, kNow), nullptr);
}

TEST(NominationMemoTest, ResumedScansMatchOnlyOnTheSameStarts) {
  MemoFixture f;
  NominationMemo memo;
  f.w.scan = Scan({{{kCpu, 0}, {kGpu, -1}}, {{kCpu, 1}}});
  memo.Store(f.w, f.versions, false, kNow, /*reads_now=*/false, f.entry);
  // Generations and the cycle of the scan do not enter: only where each group starts.
  f.w.scan.Mutable().scheduling_cycle = 99;
  f.w.scan.Mutable().cluster_queue_generation = 7;
  EXPECT_NE(memo.Find(f.w, f.versions, false, kNow), nullptr);
  f.w.scan = Scan({{{kCpu, 0}, {kGpu, -1}}, {{kCpu, 0}}});  // pod set 1 starts at 1, not 2
  EXPECT_EQ(memo.Find(f.w, f.versions, false, kNow), nullptr);
  f.w.scan = Scan({{{kCpu, 0}}, {{kCpu, 1}}});  // gpu's -1 is a start at 0: same input
  EXPECT_NE(memo.Find(f.w, f.versions, false, kNow), nullptr);
  f.w.scan = Scan({{{kCpu, 0}}});  // pod set 1 now starts at 0
  EXPECT_EQ(memo.Find(f.w, f.versions, false, kNow), nullptr);
  f.w.scan = Scan({{{kCpu, 0}, {kGpu, -1}}, {{kCpu, 1}}});
  f.w.scan.Mutable().valid = false;  // an invalid scan is never resumed
  EXPECT_EQ(memo.Find(f.w, f.versions, false, kNow), nullptr);
}

TEST(NominationMemoTest, AnyVersionOrHeadFieldChangeMisses) {
  MemoFixture f;
  NominationMemo memo;
  memo.Store(f.w, f.versions, true, kNow, /*reads_now=*/false, f.entry);
  ASSERT_NE(memo.Find(f.w, f.versions, true, kNow), nullptr);
  NominationVersions v = f.versions;
  ++v.tree;
  EXPECT_EQ(memo.Find(f.w, v, true, kNow), nullptr);
  v = f.versions;
  ++v.reservations;
  EXPECT_EQ(memo.Find(f.w, v, true, kNow), nullptr);
  f.w.priority = 5;
  EXPECT_EQ(memo.Find(f.w, f.versions, true, kNow), nullptr);
  f.w.priority = 0;
  f.w.queue_order_time = 1;
  EXPECT_EQ(memo.Find(f.w, f.versions, true, kNow), nullptr);
  f.w.queue_order_time = 0;
  f.w.key += "-other";  // a recycled id
  EXPECT_EQ(memo.Find(f.w, f.versions, true, kNow), nullptr);
}

// A stored entry's pod sets and scan lists are the memo's own, not shared with the cycle's entry
// (which is nominated into again at once), and a hit's copy shares the memo's instead of copying
// them (Assignment::pod_sets, FlavorScanState::last_tried).
TEST(NominationMemoTest, StoreCopiesThePodSetsAndAHitSharesThem) {
  MemoFixture f;
  NominationMemo memo;
  f.entry.assignment.pod_sets.emplace_back().name = "main";
  f.entry.assignment.pod_sets.Mutable()[0].count = 3;
  f.entry.assignment.last_state.last_tried = {{{kCpu, 1}}};
  memo.Store(f.w, f.versions, true, kNow, /*reads_now=*/false, f.entry);
  const CycleEntry* hit = memo.Find(f.w, f.versions, true, kNow);
  ASSERT_NE(hit, nullptr);
  EXPECT_FALSE(hit->assignment.pod_sets.SharesWith(f.entry.assignment.pod_sets));
  EXPECT_FALSE(
      hit->assignment.last_state.last_tried.SharesWith(f.entry.assignment.last_state.last_tried));
  EXPECT_EQ(hit->assignment.last_state.NextFlavorIndex(0, kCpu), 2);
  ASSERT_EQ(hit->assignment.pod_sets.size(), 1u);
  EXPECT_EQ(hit->assignment.pod_sets[0].name, "main");
  EXPECT_EQ(hit->assignment.pod_sets[0].count, 3);
  // The cycle's entry written again leaves the stored one as it was.
  f.entry.assignment.pod_sets.Mutable()[0].count = 5;
  EXPECT_EQ(hit->assignment.pod_sets[0].count, 3);
  const CycleEntry copy = *hit;
  EXPECT_TRUE(copy.assignment.pod_sets.SharesWith(hit->assignment.pod_sets));
  EXPECT_TRUE(
      copy.assignment.last_state.last_tried.SharesWith(hit->assignment.last_state.last_tried));
}

// The memo keeps the entries of the last kEpochs keys stored under: a state that comes back (the
// preemption ping-pong alternates two) finds its entries again; a fifth key recycles the least
// recently stored one's slots, reusing their storage.
TEST(NominationMemoTest, EntriesOfTheLastFourKeysAreKeptAndTheOldestRecycled) {
  static_assert(NominationMemo::kEpochs == 4);
  MemoFixture f;
  NominationMemo memo;
  Workload other = f.w;
  other.id = MakeId<WorkloadId>(7);
  std::vector<NominationVersions> keys;
  for (uint64_t k = 0; k < 5; ++k) {
    NominationVersions v = f.versions;
    v.tree += k;
    keys.push_back(v);
  }
  for (size_t k = 0; k < 4; ++k) {
    CycleEntry e = f.entry;
    e.message = "key " + std::to_string(k);
    memo.Store(f.w, keys[k], true, kNow, /*reads_now=*/false, e);
  }
  memo.Store(other, keys[0], true, kNow, /*reads_now=*/false, f.entry);
  EXPECT_EQ(memo.size(), 5u);
  for (size_t k = 0; k < 4; ++k) {
    const CycleEntry* hit = memo.Find(f.w, keys[k], true, kNow);
    ASSERT_NE(hit, nullptr) << k;
    EXPECT_EQ(hit->message, "key " + std::to_string(k));
  }
  EXPECT_EQ(memo.Find(other, keys[1], true, kNow), nullptr);  // not stored under that key
  // keys[0] was stored under last (for `other`); keys[1] is the least recently stored.
  memo.Store(f.w, keys[4], true, kNow, /*reads_now=*/false, f.entry);
  EXPECT_EQ(memo.Find(f.w, keys[1], true, kNow), nullptr);
  EXPECT_NE(memo.Find(f.w, keys[0], true, kNow), nullptr);
  EXPECT_NE(memo.Find(other, keys[0], true, kNow), nullptr);
  EXPECT_NE(memo.Find(f.w, keys[4], true, kNow), nullptr);
  EXPECT_EQ(memo.size(), 5u);
  EXPECT_EQ(memo.capacity(), 5u);  // the recycled slot held the new entry
  // Stored again under the same key: replaced in place.
  CycleEntry again = f.entry;
  again.message = "again";
  memo.Store(f.w, keys[4], true, kNow, /*reads_now=*/false, again);
  EXPECT_EQ(memo.size(), 5u);
  EXPECT_EQ(memo.Find(f.w, keys[4], true, kNow)->message, "again");
  memo.Clear();
  EXPECT_EQ(memo.size(), 0u);
  for (const NominationVersions& v : keys) {
    EXPECT_EQ(memo.Find(f.w, v, true, kNow), nullptr);
  }
}

// Each key finds its workloads' entries through a table of the workloads it stored (not a table
// by id): sparse and large ids, many of them under one key through several growths of that table,
// ids never stored that share a probe run, and a recycled key that forgets all of them.
TEST(NominationMemoTest, ManyWorkloadsUnderOneKeyAreFoundAndARecycledKeyForgetsThem) {
  MemoFixture f;
  NominationMemo memo;
  constexpr uint32_t kStoredHeads = 1'000;
  auto id_of = [](uint32_t n) { return MakeId<WorkloadId>(n * 7'919 + 3); };
  std::vector<Workload> heads;
  for (uint32_t n = 0; n < kStoredHeads; ++n) {
    Workload h = f.w;
    h.id = id_of(n);
    heads.push_back(h);
  }
  for (const Workload& h : heads) {
    CycleEntry e = f.entry;
    e.message = "head " + std::to_string(Index(h.id));
    memo.Store(h, f.versions, true, kNow, /*reads_now=*/false, e);
  }
  EXPECT_EQ(memo.size(), kStoredHeads);
  for (const Workload& h : heads) {
    const CycleEntry* hit = memo.Find(h, f.versions, true, kNow);
    ASSERT_NE(hit, nullptr) << Index(h.id);
    EXPECT_EQ(hit->message, "head " + std::to_string(Index(h.id)));
  }
  for (uint32_t n = 0; n < kStoredHeads; ++n) {
    Workload absent = f.w;
    absent.id = MakeId<WorkloadId>(n * 7'919 + 4);  // between the stored ones
    EXPECT_EQ(memo.Find(absent, f.versions, true, kNow), nullptr) << n;
  }
  // Four newer keys recycle this one: none of its workloads is found any more, and a store
  // under it again starts from an empty table.
  for (uint64_t k = 1; k <= NominationMemo::kEpochs; ++k) {
    NominationVersions v = f.versions;
    v.tree += k;
    memo.Store(heads[0], v, true, kNow, /*reads_now=*/false, f.entry);
  }
  for (const Workload& h : heads) {
    ASSERT_EQ(memo.Find(h, f.versions, true, kNow), nullptr) << Index(h.id);
  }
  memo.Store(heads[5], f.versions, true, kNow, /*reads_now=*/false, f.entry);
  EXPECT_NE(memo.Find(heads[5], f.versions, true, kNow), nullptr);
  EXPECT_EQ(memo.Find(heads[6], f.versions, true, kNow), nullptr);
}

// A nomination that collected preemption candidates read the time (a candidate without a
// reservation time is ordered by it): its entry is found at the same instant only. One that
// collected none is found at any time.
TEST(NominationMemoTest, AnEntryThatReadTheTimeIsFoundAtTheSameInstantOnly) {
  MemoFixture f;
  NominationMemo memo;
  Workload other = f.w;
  other.id = MakeId<WorkloadId>(7);
  memo.Store(f.w, f.versions, true, kNow, /*reads_now=*/true, f.entry);
  memo.Store(other, f.versions, true, kNow, /*reads_now=*/false, f.entry);
  EXPECT_NE(memo.Find(f.w, f.versions, true, kNow), nullptr);
  EXPECT_EQ(memo.Find(f.w, f.versions, true, kNow + 1), nullptr);
  EXPECT_NE(memo.Find(other, f.versions, true, kNow + 1), nullptr);
}

// Entries are kept only while heads come back (the file comment of nomination_memo.h): after a
// long run of misses the memo keeps keys without entries, Find says when such a key matched,
// and a run of those makes it keep entries again. Nothing found is ever a stale entry.
TEST(NominationMemoTest, EntriesAreDroppedWhileNothingIsReusedAndKeptAgainWhenHeadsComeBack) {
  MemoFixture f;
  NominationMemo memo;
  ASSERT_TRUE(memo.keeps_entries());
  int misses = 0;
  while (memo.keeps_entries()) {
    memo.Observe(false);
    ASSERT_LT(++misses, 100'000);
  }
  // About a thousand misses in a row: a few hundred would still keep the entries.
  EXPECT_GT(misses, 500);
  EXPECT_LT(misses, 5'000);
  memo.Store(f.w, f.versions, true, kNow, /*reads_now=*/false, f.entry);
  EXPECT_EQ(memo.stats().key_only_stores, 1U);
  bool kept_key = false;
  EXPECT_EQ(memo.Find(f.w, f.versions, true, kNow, &kept_key), nullptr);
  EXPECT_TRUE(kept_key);
  // Another state does not match the kept key.
  NominationVersions other = f.versions;
  other.tree += 1;
  kept_key = false;
  EXPECT_EQ(memo.Find(f.w, other, true, kNow, &kept_key), nullptr);
  EXPECT_FALSE(kept_key);
  // Heads that would have been reused bring the entries back within a few dozen.
  int reusable = 0;
  while (!memo.keeps_entries()) {
    memo.Observe(true);
    ASSERT_LT(++reusable, 1'000);
  }
  EXPECT_LT(reusable, 64);
  f.entry.message = "fresh";
  memo.Store(f.w, f.versions, true, kNow, /*reads_now=*/false, f.entry);
  kept_key = false;
  const CycleEntry* hit = memo.Find(f.w, f.versions, true, kNow, &kept_key);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->message, "fresh");
  EXPECT_FALSE(kept_key);
  EXPECT_EQ(memo.stats().key_only_stores, 1U);
}

TEST(NominationMemoTest, WhileEvenKeysStopMatchingTheMemoRestsThenProbesAgain) {
  NominationMemo memo;
  int observed = 0;
  while (!memo.sitting_out()) {
    memo.Observe(false);
    ASSERT_LT(++observed, 100'000);
  }
  // Not before kProbeHeads observations, nor long after the average fell below 1 in 512.
  EXPECT_GE(observed, NominationMemo::kProbeHeads);
  EXPECT_LT(observed, 2 * NominationMemo::kProbeHeads);
  EXPECT_FALSE(memo.keeps_entries());
  for (int64_t i = 0; i < NominationMemo::kSitOutHeads; ++i) {
    ASSERT_TRUE(memo.sitting_out()) << i;
    memo.SatOut();
  }
  EXPECT_FALSE(memo.sitting_out());
  EXPECT_EQ(memo.stats().sat_out, static_cast<uint64_t>(NominationMemo::kSitOutHeads));
  // The probe: keys are stored again for kProbeHeads heads; keys that match bring the memo back
  // to keeping entries, and it does not rest while they do.
  for (int i = 0; i < 200; ++i) {
    memo.Observe(true);
    ASSERT_FALSE(memo.sitting_out()) << i;
  }
  EXPECT_TRUE(memo.keeps_entries());
  for (int i = 0; i < 2 * NominationMemo::kProbeHeads; ++i) {
    memo.Observe(i % 16 == 0);  // 1 in 16 reusable: well above 1 in 512
    ASSERT_FALSE(memo.sitting_out()) << i;
  }
}

// kVerify compares every stored entry with a fresh nomination: it keeps them whatever the reuse,
// and never rests.
TEST(NominationMemoTest, AlwaysKeepingEntriesIgnoresTheReuseRate) {
  MemoFixture f;
  NominationMemo memo;
  memo.set_always_keep_entries(true);
  for (int i = 0; i < 20'000; ++i) {
    memo.Observe(false);
  }
  EXPECT_TRUE(memo.keeps_entries());
  EXPECT_FALSE(memo.sitting_out());
  memo.Store(f.w, f.versions, true, kNow, /*reads_now=*/false, f.entry);
  EXPECT_NE(memo.Find(f.w, f.versions, true, kNow), nullptr);
}

}  // namespace
}  // namespace engine
