// File: engine/workload_key_index.h
//
// The WorkloadStore's workloads by "namespace/name": every trace event looks its workload up, and
// every ADDED one is inserted and later erased. A node-based map held a second copy of each key
// and allocated per workload; this table keeps (hash, id) pairs and compares a candidate against
// the key the Workload itself holds.
//
//   WorkloadKeyIndex index(workloads);       // the store's id-indexed workloads
//   index.Insert(w.key, id);                 // REQUIRES: absent; workloads[id] holds the key
//   std::optional<WorkloadId> id = index.Find("team-a/job-1");
//   index.Erase(w.key);                      // REQUIRES: present
//
// Layout: open addressing, linear probing, backward-shift deletion, load <= 1/2; 8 bytes a slot:
// the id and 32 bits of the key's hash, which place the slot (its home is their low bits) and
// spare most key comparisons (two different keys share them once in 2^32). Slots of a 64-bit
// hash and the id were 16 bytes, 32 to 64 bytes per workload at that load: about 52 of the 1,012
// bytes a live workload cost in a replay (docs/replay.md, "Memory").
//
// Thread safety: none; owned by the WorkloadStore.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/base/ids.h"
#include "engine/workload.h"

namespace engine {

class WorkloadKeyIndex {
 public:
  explicit WorkloadKeyIndex(const std::vector<std::unique_ptr<StoredWorkload>>& workloads)
      : workloads_(workloads) {}

  std::optional<WorkloadId> Find(std::string_view key) const;
  // Fetches the slot where Find(key) starts into the cache: a replay looks up a workload a few
  // events before it applies the event (replay/sim/routed_batch.h, PrefetchAhead).
  void Prefetch(std::string_view key) const;
  void Insert(std::string_view key, WorkloadId id);
  void Erase(std::string_view key);
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t hash = 0;
    WorkloadId id = kInvalidId<WorkloadId>;  // invalid = empty slot
  };
  static_assert(sizeof(Slot) == 8);

  static uint32_t Hash(std::string_view key);
  size_t Home(uint32_t hash) const { return static_cast<size_t>(hash) & (slots_.size() - 1); }
  // The slot holding `key`, or the empty slot ending its probe run.
  size_t Probe(std::string_view key, uint32_t hash) const;
  void Grow();

  const std::vector<std::unique_ptr<StoredWorkload>>& workloads_;
  std::vector<Slot> slots_;  // power-of-two size
  size_t size_ = 0;
};

}  // namespace engine
