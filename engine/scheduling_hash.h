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
// requests). The value is deterministic across runs and platforms (resource names are hashed,
// never ids). It never returns 0, which Workload::scheduling_hash uses for "not computed".
//
// Thread safety: pure function.
#pragma once

#include <cstdint>

namespace engine {

class Cluster;
struct Workload;

inline constexpr uint64_t kSchedulingHashUnknown = 0;

// REQUIRES: the workload's requests were built (WorkloadStore::Add). Cost: linear in the size of
// the workload's pod sets; run once per workload (and again after a change of priority/requests).
uint64_t ComputeSchedulingHash(const Workload& workload, const Cluster& cluster);

}  // namespace engine
