// File: engine/nomination_memo.h
//
// Memoised nominations (issue 21). On a congested tree most heads are nominated again and again
// while nothing they depend on has changed: a finish anywhere in the tree requeues every
// inadmissible head (as in Kueue), and a cycle that admits nothing leaves the state as it was.
// A nomination (Scheduler::Nominate) reads only
//   - the head itself: its spec, priority, queue-order time, ClusterQueue, and where the flavor
//     scan it resumes from starts each resource group (0 everywhere when the scan is outdated,
//     so an outdated scan and a finished one are the same input),
//   - the quota tree (ResourceTree::state_version),
//   - the workloads holding quota and being evicted (WorkloadStore::reservation_version),
//   - the cluster's specs, configuration and devices (Cluster::config_version),
//   - the scheduler's namespace labels,
//   - and, through preemption candidates only, the current time (a candidate without a
//     reservation time is ordered by `now`).
// An entry is therefore kept only for a nomination that collected no preemption candidates (its
// searches, if any, were all rejected by the O(depth) bound), and reused when every item above is
// unchanged. The reused entry is the stored one with the scan's scheduling cycle set to the
// current cycle. Workloads with a flavor-fallback history or clusters with resource classes are
// never memoised (state outside the versions above).
//
// Memory: the versions only grow (each is a counter bumped on change), so an entry stored under
// older versions than the newest stored can never be found again. The memo therefore holds the
// entries of the newest versions only: a Store under newer versions recycles every older entry
// (their storage is reused, not freed). It held an entry for every workload ever nominated and
// not yet erased — 18 MiB at Kueue's large-scale peak for a 3 % hit rate — and now holds those
// of the last few cycles that changed nothing.
//
// Thread safety: Find is read-only and may run on several nomination threads at once; Store and
// the counters are for the scheduler's sequential part.
#pragma once

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

// The versions of what a nomination reads besides the head (see the file comment).
struct NominationVersions {
  uint64_t tree = 0;
  uint64_t reservations = 0;
  uint64_t config = 0;
  uint64_t namespaces = 0;
  bool operator==(const NominationVersions&) const = default;
};

struct NominationMemoStats {
  uint64_t hits = 0;          // entries reused (kVerify: found and compared)
  uint64_t misses = 0;        // memoisable heads nominated from scratch
  uint64_t not_memoised = 0;  // nominations that collected preemption candidates, or excluded
  uint64_t mismatches = 0;    // kVerify: a stored entry differed from the fresh nomination
};

class NominationMemo {
 public:
  // The entry stored for `w` if it is still valid: same versions, same head, same scan input.
  const CycleEntry* Find(const Workload& w, const NominationVersions& versions,
                         bool scan_outdated) const;
  void Store(const Workload& w, const NominationVersions& versions, bool scan_outdated,
             const CycleEntry& entry);
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
    size_t id_index = 0;  // Index(WorkloadId) of the workload it was stored for
    NominationVersions versions;
    const WorkloadSpec* spec = nullptr;
    std::string key;  // ids are recycled: the workload's key and spec tell them apart
    int32_t priority = 0;
    TimeMicros queue_order_time = 0;
    CqId cq{};
    std::vector<ScanStart> starts;  // where the scan resumed (see nomination_memo.cc)
    CycleEntry entry;
  };
  // pool_[0, used_) hold the entries stored under `epoch_`; by_id_ points to them by WorkloadId
  // index (null: none). Slots past used_ keep their storage for the next entries.
  std::vector<std::unique_ptr<Slot>> pool_;
  size_t used_ = 0;
  std::vector<Slot*> by_id_;
  NominationVersions epoch_;
  NominationMemoStats stats_;
};

// Everything in an entry a decision depends on, as text: kVerify compares two entries with it.
std::string EntryFingerprint(const CycleEntry& entry);

}  // namespace engine
