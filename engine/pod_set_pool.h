// File: engine/pod_set_pool.h
//
// One WorkloadStore's distinct pod-set lists (WorkloadSpec::pod_sets), each kept once and shared
// by every stored Workload whose list is equal to it (PodSetSpec::operator==: names, counts,
// containers and their quantities as written, selectors, affinity, tolerations).
//
// Why: a live Workload's pod sets were about 450 of its 1,800 bytes (a PodSetSpec of 296 bytes,
// its container list and each container's request list; docs/replay.md, the memory model), and
// a trace repeats a few lists over and over: 3 distinct lists in the 50,000 Workloads of Kueue's
// large-scale perf config, 5 in the 100,000 of the 16-tree synthetic trace. A stored Workload
// now holds a reference (16 bytes) to the pooled list, and Workload::pod_sets[i].spec points
// into it. Pooled lists are never written to: the store does not change a stored spec's pod sets.
//
// What the list alone decides is worked out once per list: whether a request exceeds its limit
// (ValidateResources, Kueue's Misconfigured), and, while the cluster's configuration stays the
// same, each pod set's canonical per-pod requests (the store's §3 pipeline; WorkloadStore::Add)
// and the requests of a Workload without reclaimable pods (Workload::pod_sets, shared by them).
//
// Memory: a list stays pooled while a stored spec shares it. Lists nobody else holds are taken
// out when the pool has doubled since its last sweep, and kept as spares, their storage whole: a
// miss hands the caller a spare list to write its next spec into, in place of the one the pool
// took (a trace whose Workloads' lists all differ then allocates no pod sets in a steady state).
// Pooled lists and spares together stay within twice the lists in use, plus kMinSweep.
//
// Thread safety: none; owned by one WorkloadStore.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/pod_requests.h"
#include "engine/workload.h"
#include "engine/workload_spec.h"

namespace engine {

class PodSetPool {
 public:
  struct Entry {
    PodSetList list;
    bool invalid_resources = false;  // !ValidateResources(a spec with this list).empty()
    // PerPodCanonical of each pod set, computed by the store under the cluster's
    // Cluster::config_version() `canonical_version` (the resources configuration may change).
    std::vector<std::vector<CanonicalAmount>> canonical;
    uint64_t canonical_version = kNoVersion;
    // The requests of a Workload with this list and no reclaimable pods, built by the store under
    // `canonical_version` and shared by such Workloads (Workload::pod_sets). Only meaningful while
    // `requests_built`, which the store clears whenever it works `canonical` out (a new
    // configuration, or a recycled entry: Intern leaves its canonical_version matching none); a
    // recycled entry keeps the storage of an earlier list's requests.
    PodSetRequestList requests;
    bool requests_built = false;
  };
  static constexpr uint64_t kNoVersion = ~uint64_t{0};

  // The pooled entry whose list is equal to `list` (one whose buffer `list` shares, found without
  // reading either, or one found by HashPodSets and operator==). On a hit `list` is left as it was,
  // for its owner to reuse. On a miss `list` itself is pooled, and `list` is left holding a spare
  // list (an earlier Workload's values, for its owner to reset with ResetForReuse and write over)
  // or, with no spare, empty; but a `list` whose buffer another owner shares is copied into the
  // pool and left as it was (the pool's buffers are referenced by its thread alone). An empty list
  // gets an entry of its own that is never pooled. The reference is valid until the next Intern.
  Entry& Intern(PodSetList& list);

  size_t size() const { return lists_.size(); }
  size_t spares() const { return spares_.size(); }
  static constexpr size_t kMinSweep = 64;

 private:
  using Lists = std::unordered_multimap<uint64_t, Entry>;  // by HashPodSets
  // Takes out the lists only the pool holds, keeping as many as spares as the pool may grow by
  // before its next sweep.
  void Sweep();

  // Remembers that `list`'s buffer holds `entry`'s content, for the next Intern of a list that
  // shares it.
  void Alias(const PodSetList& list, Entry& entry);

  // Buffers recently interned, each with the entry equal to it: a list that shares one (a parser's
  // memo hands out the same buffer line after line; replay/io/pod_sets_by_text.h) is found by
  // its pointer, without reading the list. Each alias holds a reference, so that its buffer
  // cannot be freed and another list allocated at the same address while it is remembered.
  struct BufferAlias {
    PodSetList list;
    Entry* entry = nullptr;
  };
  static constexpr size_t kAliases = 8;
  std::array<BufferAlias, kAliases> aliases_;
  size_t next_alias_ = 0;

  Lists lists_;
  std::vector<Lists::node_type> spares_;  // each Entry's list held by nothing else
  size_t sweep_at_ = kMinSweep;
  Entry no_pod_sets_;
};

// A hash of some of what PodSetSpec::operator== compares (counts and quantities; not the names):
// equal lists hash equal.
uint64_t HashPodSets(const std::vector<PodSetSpec>& pod_sets);

}  // namespace engine
