// File: engine/scheduling_hash.h
//
// Scheduling equivalence hashing (KEP-9694, kueue-semantics.md §9.6). Two workloads with the same
// hash ask the scheduler the same question: same effective priority and, per pod set, the same
// name, effective count, minCount, effective per-pod requests and pod-spec shape. When one of
// them is found NoFit (or PreemptionNoCandidates) in a BestEffortFIFO ClusterQueue, the queue
// manager parks the others too (engine/queue_manager.h).
//
//   w.scheduling_hash = ComputeSchedulingHash(w, cluster);
//
// Kueue hashes a JSON document with SHA-256 and keeps 16 hex digits; only equality matters, so
// tally uses a 64-bit word-at-a-time mix (splitmix64's finaliser, chained) over a length-prefixed,
// tagged stream of the same fields (as far as our specs carry them: node selector, required node
// affinity, tolerations, priority class name, container / init-container / overhead / pod-level
// requests), in two parts: the pod sets' stream, then the priority with that stream's value (so
// that the pod-set part can be remembered per shared request list: SchedulingHasher below). The
// value is deterministic across runs and platforms (resource names are hashed, never ids). It
// never returns 0, which Workload::scheduling_hash uses for "not computed".
//
// Thread safety: the functions are pure; SchedulingHasher is not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "engine/workload.h"

namespace engine {

class Cluster;

inline constexpr uint64_t kSchedulingHashUnknown = 0;

// REQUIRES: the workload's requests were built (WorkloadStore::Add). Cost: linear in the size of
// the workload's pod sets; run once per workload (and again after a change of priority/requests).
uint64_t ComputeSchedulingHash(const Workload& workload, const Cluster& cluster);

// The hash of the pod sets alone (everything but the priority), and the whole hash from it.
uint64_t PodSetsSchedulingHash(const PodSetRequestList& pod_sets, const Cluster& cluster);
uint64_t CombineSchedulingHash(int32_t priority, uint64_t pod_sets_hash);

// ComputeSchedulingHash, with the pod-set part remembered for the last few request lists by their
// buffer: Workloads of a pooled pod-set list share one request list (engine/pod_set_pool.h), so
// a replay hashed the same few lists for every arriving Workload (perf: 3 % of the moderate
// trace). Each slot holds a reference to its list, which keeps that buffer from being written
// (a CowVector is written only by a sole owner) or freed and reused for another list. The
// cluster's resource names, which the hash reads by id, never change for an id.
// Thread safety: none; one per QueueManager, for its Cluster only.
class SchedulingHasher {
 public:
  uint64_t Compute(const Workload& workload, const Cluster& cluster);

 private:
  struct Slot {
    PodSetRequestList pod_sets;
    uint64_t hash = 0;
  };
  static constexpr size_t kSlots = 4;
  std::array<Slot, kSlots> slots_;
  size_t next_ = 0;
};

}  // namespace engine
