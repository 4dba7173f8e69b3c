// File: replay/sim/replay_stats.h
//
// The replay's measurements, accumulated as the simulator goes (replay/sim/simulator.h) and turned
// into a ReplayReport at the end: time-to-admission per ClusterQueue, LocalQueue, priority and
// class (exact percentiles over every admission), time-weighted usage and borrowing per
// (ClusterQueue, flavor, resource), outcome counters, and per-ClusterQueue and per-flavor
// (flavor_series.h) series sampled on the virtual clock. The sampling interval starts at one second
// and doubles whenever more than kMaxSamples are held (every other sample is dropped), so memory
// stays bounded on traces of any length and the plots always span the whole replay.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/ids.h"
#include "engine/base/string_map.h"
#include "engine/workload.h"
#include "replay/sim/cluster_state.h"
#include "replay/sim/flavor_series.h"
#include "replay/sim/replay_report.h"
#include "replay/sim/wait_samples.h"

namespace replay {

// Time-to-admission samples by group, as recorded: what merging shards needs (percentiles of a
// union cannot be computed from the parts' percentiles). Bounded per group (wait_samples.h).
struct RawWaits {
  WaitSamples overall;
  std::map<std::string, WaitSamples> by_local_queue;
  std::map<std::string, WaitSamples> by_class;
  std::map<int32_t, WaitSamples> by_priority;
  WaitSamples holds;   // quota hold times of finished workloads
  WaitSamples starts;  // creation to first PodsReady (ReplayReport::Fallbacks::time_to_start)
};

// Count, mean, nearest-rank percentiles and Prometheus buckets of `waits` (µs).
WaitStats SummarizeWaits(std::vector<engine::TimeMicros> waits);

// Fills the measured part of `out` (everything ReplayStats::Finish fills) from the shards'
// parts, all finished at the same end: counters summed, per-ClusterQueue lists joined in name
// order, per-flavor series added sample by sample, time-to-admission groups summarised over the
// union of the shards' samples (replay_stats_merge.cc).
void MergeShardReports(std::vector<ReplayReport>& parts, std::vector<RawWaits>& waits,
                       ReplayReport& out);

class ReplayStats {
 public:
  static constexpr size_t kMaxSamples = 1024;

  explicit ReplayStats(ClusterState& state) : state_(state) {}

  void Start(engine::TimeMicros t);
  uint32_t InternLocalQueue(std::string_view key) { return Intern(local_queues_, key); }
  uint32_t InternClass(std::string_view name) { return Intern(classes_, name); }

  void OnCreated() { ++report_.workloads_created; }
  void OnInitiallyAdmitted() { ++report_.workloads_initially_admitted; }
  // An admission (Admitted=True) after waiting `wait` since creation; `first` for the
  // workload's first admission (only those enter the time-to-admission figures).
  void OnAdmitted(const engine::Workload& w, uint32_t local_queue, uint32_t workload_class,
                  engine::TimeMicros wait, bool first, engine::TimeMicros now);
  void OnPreempted(engine::CqId cq);
  void OnEvicted(const std::string& reason, engine::CqId cq);
  void OnRequeued() { ++report_.requeues; }
  void OnDeactivated() { ++report_.deactivated; }
  // A workload finished; `cq` and `hold` (QuotaReserved until the quota was released) when it
  // held quota, else an invalid id.
  void OnFinished(engine::CqId cq = engine::kInvalidId<engine::CqId>, engine::TimeMicros hold = 0);
  void OnDeleted() { ++report_.deleted; }
  void OnCycle() { ++report_.cycles; }
  void OnCycleLimit() { ++report_.cycle_limit_hits; }
  ReplayReport::Fallbacks& fallbacks() { return report_.fallbacks; }
  // A workload's first PodsReady, `wait` after its creation (Fallbacks::time_to_start). Kept even
  // while no fallback is configured: one may come mid-trace.
  void OnFirstStart(engine::TimeMicros wait) { starts_.Record(wait); }
  // Seed 001: a workload quota would have admitted was held back by devices.
  void OnDevicesShort(const std::string& key) {
    report_.resource_classes.devices_short.insert(key);
  }
  // Resource classes or nodes changed: the section is reported from now on.
  void OnDevicesChanged() { report_.resource_classes.enabled = true; }
  // The usage of `cq` may have changed at `now` (admission, release): integrates the previous
  // value up to `now` and reads the new one from the quota tree.
  void OnUsageChanged(engine::CqId cq, engine::TimeMicros now);
  // Configuration changed (nominal quotas, new ClusterQueues): re-reads every ClusterQueue.
  void OnConfigChanged(engine::TimeMicros now);
  // Records the samples due up to and including `t`, with the state as it is (before `t`).
  void SampleUntil(engine::TimeMicros t);

  // The next sample's time: every sample before it has been recorded.
  engine::TimeMicros next_sample() const { return next_sample_; }
  // Completes `report` (everything but input counters and engine cost) at virtual time `end`,
  // after recording the samples due before `sample_until` too (at least those up to `end`).
  // Shards merged into one report must share their sample times: the caller passes every shard
  // the same `sample_until`, the latest next_sample() among them (a shard that advanced further
  // than the others, to its last timer, has sampled further).
  void Finish(engine::TimeMicros end, engine::TimeMicros sample_until, ReplayReport& report);
  // After Finish: hands over the raw samples (the stats keep none).
  RawWaits TakeWaits();

 private:
  struct Accum {
    engine::FrSlot slot{};
    engine::TimeMicros last = 0;
    int64_t usage = 0;
    int64_t nominal = 0;
    // usage x µs and max(0, usage - nominal) x µs up to `last`, exact: an integral is brought up
    // to date only when its slot's usage or nominal changes (SyncSlots) and at the end, and
    // exact sums do not depend on how the time was cut.
    __int128 integral = 0;
    __int128 borrow_integral = 0;
    int64_t peak = 0;
  };
  struct CqAccum {
    WaitSamples waits;  // first: cache-line aligned, no padding before them
    WaitSamples holds;
    std::vector<Accum> slots;  // the ClusterQueue's declared (flavor, resource) slots
    int64_t admitted = 0;
    int64_t preempted = 0;
    double window_wait_sum = 0;  // seconds, admissions since the last sample
    int64_t window_waits = 0;
    bool counted = false;  // its slots' figures are in flavors_' sums
    // The largest usage / nominal over its slots (0 without usage) at the last sample, walked
    // again only when a slot changed since (`utilisation_stale`, set by SyncSlots). A
    // ClusterQueue of the moderate 50,000-workload trace is sampled about 5,600 times and its
    // slots change a few hundred times; Kueue's large-scale config changes them more often than
    // it samples, hence at the sample rather than at the change.
    double utilisation = 0;
    bool utilisation_stale = false;
    // The cluster's configuration version `slots` were last checked against DeclaredSlots at.
    uint64_t slots_version = ~uint64_t{0};
  };

  static uint32_t Intern(engine::StringMap<uint32_t>& table, std::string_view key);
  CqAccum& Cq(engine::CqId cq);
  void SyncSlots(engine::CqId cq, CqAccum& acc, engine::TimeMicros now);
  // Adds (sign 1) or removes (-1) the ClusterQueue's slots' figures to or from flavors_.
  void Count(CqAccum& acc, int sign);
  void Integrate(Accum& a, engine::TimeMicros now);
  void RecordSample();
  // One ClusterQueue's values at one sample, kept together: a sample appends one of these per
  // ClusterQueue (four separate series were four cache misses each, 6 % of a congested 200-CQ
  // replay's time). Finish splits them into the report's CqSeries.
  struct SamplePoint {
    float pending;
    float running;
    float utilisation;
    float mean_wait;
  };
  // Fills `s` up to `samples` points with NaN (samples taken while its ClusterQueue did not
  // exist in this shard).
  static void PadSeries(std::vector<SamplePoint>& s, size_t samples);
  void RecordDeviceSample(size_t index);

  // First: a WaitSamples is aligned to a cache line (replay/sim/wait_samples.h), and here it
  // needs no padding before it.
  WaitSamples waits_;  // filled in Finish: the union of the ClusterQueues' groups
  WaitSamples holds_;  // likewise
  WaitSamples starts_;
  ClusterState& state_;
  ReplayReport report_;
  engine::TimeMicros start_ = 0;
  std::vector<CqAccum> cqs_;
  engine::StringMap<uint32_t> local_queues_;
  engine::StringMap<uint32_t> classes_;
  std::vector<WaitSamples> waits_by_local_queue_;
  std::vector<WaitSamples> waits_by_class_;
  std::map<int32_t, WaitSamples> waits_by_priority_;

  // Series.
  engine::TimeMicros sample_interval_ = 1'000'000;
  engine::TimeMicros next_sample_ = 0;
  std::vector<double> sample_times_;
  std::vector<std::vector<SamplePoint>> series_;  // by CqId
  // The ClusterQueues a sample records, in id order: those that exist in this shard. Rebuilt
  // when the cluster's configuration version moves.
  std::vector<uint32_t> sampled_;
  uint64_t sampled_config_version_ = ~uint64_t{0};
  FlavorSeriesRecorder flavors_;
  std::map<std::string, ReplayReport::ResourceClassFigures> class_series_;
};

}  // namespace replay
