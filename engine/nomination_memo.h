// File: engine/nomination_memo.h
//
// Memoised nominations (issue 21). On a congested tree most heads are nominated again and again
// while nothing they depend on has changed: a finish anywhere in the tree requeues every
// inadmissible head (as in Kueue), and a cycle that admits nothing leaves the state as it was.
// A nomination (Scheduler::Nominate) reads only
//   - the head itself: its spec, priority, queue-order time, ClusterQueue, and where the flavor
//     scan it resumes from starts each resource group (0 everywhere when the scan is outdated,
//     so an outdated scan and a finished one are the same input),
//   - the usage in the quota tree (ResourceTree::state_key),
//   - the workloads holding quota and being evicted (WorkloadStore::reservation_key),
//   - the cluster's specs, configuration and devices (Cluster::config_version),
//   - the scheduler's namespace labels,
//   - and, through preemption candidates only, the current time (a candidate without a
//     reservation time is ordered by `now`).
// An entry is reused when every item above is the same, the time too if its nomination
// collected preemption candidates. The reused entry is the stored one with what only records the
// moment patched in: the scan's scheduling cycle and the generations of the ClusterQueue and its
// cohorts (a generation moves on every release, so it is not part of the key; where the scan
// resumes from is). Workloads with a flavor-fallback history or clusters with resource classes
// are never memoised (state outside the items above).
//
// Why keys of the state's content rather than version counters (issue 22): in a preemption
// ping-pong (docs/replay.md) the tree alternates between two states — the victim admitted, the
// victim released — for up to 1,000 cycles at one instant, and every cycle nominated the
// preemptor's partial-admission search again (flavor assignments and preemption searches were
// two thirds of the 16-tree trace's CPU). A counter only grows; the content keys come back.
//
// Memory: the entries of the kEpochs most recently stored keys are kept, at most kPerHead per
// workload and key, each key with a small table of the workloads it holds entries for; a Store
// under a fifth
// key recycles the slots of the least recently stored one (their storage is reused, not freed).
// Before, an entry was kept for every workload ever nominated and not yet erased (18 MiB at
// Kueue's large-scale peak for a 3 % hit rate).
//
// Entries are kept only while they are reused (issue 22). Keeping one costs a copy of the entry
// at every nomination; a trace with little contention (the moderate trace of issue 22: 1,311 hits
// in 1,007,453 nominations) paid that copy, about 1.4 % of its instructions, for nothing. While
// the share of heads whose stored key matched falls below 1 in 128 (a moving average over about
// a thousand nominations), Store keeps the head's key but not its entry; a later Find that matches
// such a key is a miss that says it would have been a hit (`kept_key`), and once those come back
// above 1 in 64 the entries are kept again. The threshold is low on purpose: a reused nomination
// of the 16-tree trace saves some 24,600 instructions against 550 for the copy (about 200 since
// 2026-12-07: a copy shares the pod sets and the scan's lists, Assignment::pod_sets), so the memo
// must stay on whenever a few percent of heads come back. A key without its entry changes no
// decision: the head is nominated afresh, as on any miss.
//
// A trace on which even the keys stop matching (fewer than 1 in 512 heads, the moving average
// again) takes a rest from the memo: for the next kSitOutHeads memoisable heads the scheduler
// neither looks up nor stores (sitting_out(); each such head counted by SatOut), then stores keys
// again for at least kProbeHeads heads, enough for the average to see the keys matching if they
// do. Each key stored cost the moderate trace some 450 instructions a nomination (copying the
// head's key and scan starts, recycling an epoch every cycle) for 847 would-be hits in 1,008,300
// nominations. Sitting out changes no decision either: every head is then nominated afresh.
//
// Thread safety: Find is read-only and may run on several nomination threads at once; Store and
// the counters are for the scheduler's sequential part.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/ids.h"
#include "engine/cycle_entry.h"
#include "engine/workload.h"

namespace engine {

enum class NominationMemoMode : uint8_t {
  kOn,      // reuse entries (the default)
  kOff,     // nominate every head from scratch
  kVerify,  // nominate from scratch, and count the stored entries that would have differed
};

// What a nomination reads besides the head (see the file comment): the tree's and the
// reservations' content keys, and versions of the rest.
struct NominationVersions {
  uint64_t tree = 0;
  uint64_t reservations = 0;
  uint64_t config = 0;
  uint64_t namespaces = 0;
  bool operator==(const NominationVersions&) const = default;
};

struct NominationMemoStats {
  uint64_t hits = 0;              // entries reused (kVerify: found and compared)
  uint64_t misses = 0;            // memoisable heads nominated from scratch
  uint64_t not_memoised = 0;      // heads excluded (fallback history, resource classes)
  uint64_t mismatches = 0;        // kVerify: a stored entry differed from the fresh nomination
  uint64_t key_only_stores = 0;   // stores that kept the key but not the entry (few reuses)
  uint64_t key_only_matches = 0;  // misses whose key was kept without its entry (would-be hits)
  uint64_t sat_out = 0;           // memoisable heads nominated while the memo rested
};

class NominationMemo {
 public:
  static constexpr size_t kEpochs = 4;
  // Entries kept per workload and key, for different inputs of the head itself (where its scan
  // resumes: a ping-pong's preemptor is nominated twice per round in one state, once with the
  // scan of its skipped attempt and once without).
  static constexpr size_t kPerHead = 4;

  // The entry stored for `w` if it is still valid: same versions, same head, same scan input,
  // and the same `now` if its nomination collected preemption candidates. When everything
  // matches but only the key was kept (see the file comment), returns null and sets *kept_key.
  const CycleEntry* Find(const Workload& w, const NominationVersions& versions, bool scan_outdated,
                         TimeMicros now, bool* kept_key = nullptr) const;
  // `reads_now`: the nomination collected preemption candidates (its entry depends on `now`).
  // While entries are not being kept (keeps_entries()), only the key is.
  void Store(const Workload& w, const NominationVersions& versions, bool scan_outdated,
             TimeMicros now, bool reads_now, const CycleEntry& entry);
  // One memoisable head nominated: `reusable` when Find returned an entry or set `kept_key`.
  // Moves the average that decides whether Store keeps entries.
  void Observe(bool reusable);
  bool keeps_entries() const { return keep_entries_; }
  // The memo is resting (see the file comment): heads are neither looked up nor stored.
  bool sitting_out() const { return sit_out_left_ > 0; }
  // One memoisable head nominated without the memo while sitting_out().
  void SatOut();
  static constexpr int64_t kSitOutHeads = 28'672;
  static constexpr int64_t kProbeHeads = 4'096;
  // Always keep entries (kVerify compares every stored entry with a fresh nomination).
  void set_always_keep_entries(bool on) {
    always_keep_ = on;
    keep_entries_ = keep_entries_ || on;
  }
  void Clear();
  // Entries held (those of the newest versions stored), and slots allocated to hold them.
  size_t size() const { return used_; }
  size_t capacity() const { return pool_.size(); }

  NominationMemoStats& stats() { return stats_; }
  const NominationMemoStats& stats() const { return stats_; }

 public:
  // Where the flavor assigner starts a group: pod set, resource, FlavorScanState index.
  struct ScanStart {
    uint32_t pod_set = 0;
    ResourceId resource{};
    int next = 0;
    bool operator==(const ScanStart&) const = default;
  };

 private:
  struct Slot {
    Slot* next = nullptr;  // the next entry of the same workload and key (another head input)
    bool reads_now = false;
    TimeMicros now = 0;
    const WorkloadSpec* spec = nullptr;
    std::string key;  // ids are recycled: the workload's key and spec tell them apart
    int32_t priority = 0;
    TimeMicros queue_order_time = 0;
    CqId cq{};
    std::vector<ScanStart> starts;  // where the scan resumed (see nomination_memo.cc)
    bool has_entry = false;         // false: only the key was kept (see the file comment)
    CycleEntry entry;
  };
  // The keys entries are stored under, and the slots stored under each.
  struct Epoch {
    bool used = false;
    NominationVersions versions;
    uint64_t stored_at = 0;  // store_clock_ at its last Store: the least recent is recycled
    std::vector<Slot*> slots;
    // The first slot of each workload's chain, by Index(WorkloadId): open addressing, linear
    // probing, load <= 1/2. Entries of an earlier `generation` are empty: recycling the epoch
    // empties its table by counting on, without touching it. It holds the workloads this key
    // stored, not every id: a table by id for every epoch was 32 bytes per workload the store
    // ever held (about 52 of the 1,012 bytes a live workload cost in a replay).
    struct Head {
      uint32_t id_index = 0;
      uint32_t generation = 0;  // the entry is in use when it equals the epoch's
      Slot* first = nullptr;
    };
    std::vector<Head> heads;  // power-of-two size, or empty
    uint32_t generation = 1;
    size_t num_heads = 0;
    // The chain head of workload `i`, or null.
    Slot* First(uint32_t i) const;
    // The chain head of workload `i`, added (null) when absent.
    Slot*& FirstOrAdd(uint32_t i);
    void ClearHeads();
  };
  // The head fields and scan input `s` was stored for are `w`'s.
  static bool SameHead(const Slot& s, const Workload& w, bool scan_outdated);
  // The epoch holding `versions`, or kEpochs.
  size_t FindEpoch(const NominationVersions& versions) const;
  // An epoch for `versions`: the unused one, else the least recently stored, recycled.
  size_t TakeEpoch(const NominationVersions& versions);

  std::array<Epoch, kEpochs> epochs_;
  uint64_t store_clock_ = 0;
  // Every slot ever allocated; free_ those not in any epoch (they keep their storage).
  std::vector<std::unique_ptr<Slot>> pool_;
  std::vector<Slot*> free_;
  size_t used_ = 0;
  NominationMemoStats stats_;
  // The share of reusable heads, a moving average in units of 1 / kReuseOne (see Observe).
  static constexpr uint32_t kReuseOne = uint32_t{1} << 20;
  uint32_t reuse_average_ = kReuseOne / 32;  // starts well above both thresholds: entries kept
  bool keep_entries_ = true;
  bool always_keep_ = false;
  int64_t sit_out_left_ = 0;  // heads still to nominate without the memo
  int64_t probed_heads_ = 0;  // heads observed since the last rest
};

// Everything in an entry a decision depends on, as text: kVerify compares two entries with it.
std::string EntryFingerprint(const CycleEntry& entry);

}  // namespace engine
