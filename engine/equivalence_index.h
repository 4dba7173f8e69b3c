// File: engine/equivalence_index.h
//
// The workloads of each ClusterQueue grouped by scheduling hash (kueue-semantics.md §9.6), so
// that a NoFit head can park its equivalent workloads in O(k) for k of them instead of scanning
// the whole heap as Kueue does. Used by the QueueManager for the members of its active heaps.
//
//   EquivalenceIndex index;
//   index.Link(cq, hash, id);                 // on heap push
//   index.Unlink(cq, hash, id);               // on heap pop / erase
//   index.Collect(cq, hash, ids);             // all heap members of cq with that hash
//
// Layout: an open-addressing table (cq, hash) -> most recently linked member (linear probing,
// backward-shift deletion, load <= 1/2), and a doubly-linked list through per-workload links
// indexed by WorkloadId. Link and Unlink are O(1) expected and never allocate once the arrays
// have grown to size.
//
// Thread safety: none; owned by the QueueManager.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/base/ids.h"

namespace engine {

class EquivalenceIndex {
 public:
  EquivalenceIndex() = default;
  ~EquivalenceIndex() = default;
  EquivalenceIndex(const EquivalenceIndex&) = delete;
  EquivalenceIndex& operator=(const EquivalenceIndex&) = delete;
  EquivalenceIndex(EquivalenceIndex&&) noexcept = default;
  EquivalenceIndex& operator=(EquivalenceIndex&&) noexcept = default;

  // REQUIRES: `id` is not linked.
  void Link(CqId cq, uint64_t hash, WorkloadId id);
  // REQUIRES: `id` is linked under (cq, hash).
  void Unlink(CqId cq, uint64_t hash, WorkloadId id);
  // Appends the members linked under (cq, hash) to `out`, most recently linked first.
  void Collect(CqId cq, uint64_t hash, std::vector<WorkloadId>& out) const;
  // Number of distinct (cq, hash) keys.
  size_t num_keys() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    CqId cq{};
    WorkloadId head = kInvalidId<WorkloadId>;  // invalid = empty slot
  };
  struct Links {
    WorkloadId prev = kInvalidId<WorkloadId>;
    WorkloadId next = kInvalidId<WorkloadId>;
  };

  size_t Home(CqId cq, uint64_t hash) const;
  // The slot holding (cq, hash), or the empty slot ending its probe run.
  size_t Probe(CqId cq, uint64_t hash) const;
  WorkloadId Head(CqId cq, uint64_t hash) const;
  // Sets the head of (cq, hash); an invalid `head` erases the key.
  void SetHead(CqId cq, uint64_t hash, WorkloadId head);
  void EraseSlot(size_t i);
  void Grow();

  std::vector<Slot> slots_;  // power-of-two size
  size_t size_ = 0;
  std::vector<Links> links_;  // by WorkloadId
};

}  // namespace engine
