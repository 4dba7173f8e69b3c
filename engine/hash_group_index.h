// File: engine/hash_group_index.h
//
// The QueueManager's map (ClusterQueue, scheduling hash) -> group of queued workloads
// (engine/queue_heap.cc). Every push of a workload whose hash has no group yet, and every pop that
// empties one, goes through it: with mostly distinct hashes that is every push and pop, where a
// node-based std::unordered_map cost an allocation and a free each (bench/queue_manager_bench).
//
//   HashGroupIndex index;
//   index.Insert(cq, hash, group);    // REQUIRES: absent
//   index.Update(cq, hash, group);    // REQUIRES: present
//   index.Find(cq, hash);             // the group, or kNone
//   index.Erase(cq, hash);            // REQUIRES: present
//
// Layout: open addressing with linear probing and backward-shift deletion, load <= 1/2; never
// allocates once grown to size.
//
// Thread safety: none; owned by the QueueManager.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/base/ids.h"

namespace engine {

class HashGroupIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  uint32_t Find(CqId cq, uint64_t hash) const {
    return slots_.empty() ? kNone : slots_[Probe(cq, hash)].group;
  }
  void Insert(CqId cq, uint64_t hash, uint32_t group);
  // REQUIRES: present.
  void Update(CqId cq, uint64_t hash, uint32_t group) {
    Slot& slot = slots_[Probe(cq, hash)];
    slot.group = group;
  }
  void Erase(CqId cq, uint64_t hash);
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    CqId cq{};
    uint32_t group = kNone;  // kNone = empty slot
  };

  size_t Home(CqId cq, uint64_t hash) const;
  // The slot holding (cq, hash), or the empty slot ending its probe run.
  size_t Probe(CqId cq, uint64_t hash) const;
  void Grow();

  std::vector<Slot> slots_;  // power-of-two size
  size_t size_ = 0;
};

}  // namespace engine
