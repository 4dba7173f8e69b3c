// File: replay/sim/flavor_series.h
//
// Nominal quota over time per (flavor, resource), split into own, borrowed, lent and idle
// (FlavorSeries in replay/sim/replay_report.h): the sampling half of report.html's "Quota
// utilisation by flavor".
//
// Cheap at every sample: ReplayStats keeps the sums up to date as ClusterQueues' usage and quota
// change (Count, by the shard's dense FrSlot index: no lookup by name), and a sample only records
// which snapshot of the sums holds; a new snapshot is taken at the first sample after a change.
// Names are resolved once, at the end.
//
//   FlavorSeriesRecorder rec;
//   rec.Count(slot, usage, nominal, -1);   // a ClusterQueue's old figures leave the sums...
//   rec.Count(slot, usage, nominal, +1);   // ...and its new ones enter
//   rec.Sample();                          // per sample, in step with the other series
//   report.flavor_series = rec.Finish(cluster, sample_times.size());
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/base/ids.h"
#include "engine/cluster.h"
#include "replay/sim/replay_report.h"

namespace replay {

class FlavorSeriesRecorder {
 public:
  // One ClusterQueue's usage and nominal quota of `slot` enter (sign 1) or leave (sign -1) the
  // sums: what it declares, while it exists.
  void Count(engine::FrSlot slot, int64_t usage, int64_t nominal, int sign) {
    Add(SumsOf(slot), Part(usage, nominal), sign);
  }
  // Count(slot, usage, nominal, -1) then Count(slot, new_usage, new_nominal, 1), in one step:
  // every admission and release moves a ClusterQueue's figures (inline: it was two calls into
  // another file per changed slot, 1.3 % of the 16-tree trace's instructions).
  void Move(engine::FrSlot slot, int64_t usage, int64_t nominal, int64_t new_usage,
            int64_t new_nominal) {
    Sums& s = SumsOf(slot);
    Add(s, Part(usage, nominal), -1);
    Add(s, Part(new_usage, new_nominal), 1);
  }
  // Records the next sample: the sums as they are.
  void Sample();
  // Keeps every other sample (the first, third...), as ReplayStats does with its other series.
  void Halve();
  // The series of the slots some ClusterQueue declared at a sample, named and sorted by (flavor,
  // resource), `samples` long (0 before the first ClusterQueue declared it).
  std::vector<FlavorSeries> Finish(const engine::Cluster& cluster, size_t samples) const;

 private:
  struct Sums {
    int64_t nominal = 0;
    int64_t own = 0;
    int64_t borrowed = 0;
    int64_t unused = 0;    // Σ max(0, nominal − usage)
    int64_t declared = 0;  // ClusterQueues counted
  };
  struct Figures {
    float nominal = 0;
    float own = 0;
    float borrowed = 0;
    float lent = 0;
    float idle = 0;
    bool operator==(const Figures&) const = default;
  };
  using Snapshot = std::vector<Figures>;  // by FrSlot; slots beyond its size: all 0

  void TakeSnapshot();
  // One ClusterQueue's part of a slot's sums.
  static Sums Part(int64_t usage, int64_t nominal) {
    return {nominal, std::min(usage, nominal), std::max<int64_t>(0, usage - nominal),
            std::max<int64_t>(0, nominal - usage), 1};
  }
  Sums& SumsOf(engine::FrSlot slot) {
    const size_t k = engine::Index(slot);
    if (k >= sums_.size()) [[unlikely]] {
      sums_.resize(k + 1);
    }
    return sums_[k];
  }
  void Add(Sums& s, const Sums& part, int sign) {
    s.nominal += sign * part.nominal;
    s.own += sign * part.own;
    s.borrowed += sign * part.borrowed;
    s.unused += sign * part.unused;
    s.declared += sign * part.declared;
    dirty_ = true;
  }

  std::vector<Sums> sums_;           // by FrSlot, now
  std::vector<bool> started_;        // by FrSlot: declared at some sample
  std::vector<Snapshot> snapshots_;  // referenced by samples (and the current one)
  std::vector<uint32_t> at_sample_;  // the snapshot of each sample
  uint32_t current_ = 0;             // the snapshot of the sums now, unless dirty_
  bool dirty_ = true;
};

// Adds `part`'s series to `out`'s, sample by sample (a missing sample counts as 0); both sorted
// by (flavor, resource), and `out` stays so. Shards' lent figures add up: quota is only lent
// within a Cohort tree, and a tree is in one shard.
void MergeFlavorSeries(const std::vector<FlavorSeries>& part, std::vector<FlavorSeries>& out);

}  // namespace replay
