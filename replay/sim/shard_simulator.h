// File: replay/sim/shard_simulator.h
//
// The discrete-event replay of one shard (engine/shard/shard_plan.h): its own engine (cluster,
// workload store, queues, scheduler), its own virtual clock, timers, decision lines and
// measurements. replay/sim/simulator.h drives one per shard, in parallel, and merges what they
// produce.
//
// Between trace events the shard runs what Kueue would run at each instant: scheduling cycles
// back to back while they make progress, completions after a workload's `runtime`, evictions of
// preempted workloads and their requeue, the inadmissible requeue 1 s after capacity is freed
// (Kueue's batch period), WaitForPodsReady timeouts with requeue backoff, and admission checks.
// Idle time is skipped: the clock jumps to the next thing that happens.
//
// Order at one instant: internal events due (in the order they were scheduled), then the trace
// events of that instant (in file order), then scheduling cycles until one makes no progress.
//
// Thread safety: none. A ShardSimulator is used by one thread at a time (the driver holds the
// shard's lock around every call); different ShardSimulators share nothing mutable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "replay/io/event_reader.h"
#include "replay/sim/cluster_state.h"
#include "replay/sim/latency_histogram.h"
#include "replay/sim/replay_report.h"
#include "replay/sim/replay_stats.h"
#include "replay/sim/shard_log.h"

namespace replay {

struct SimulatorOptions;

class ShardSimulator {
 public:
  // `state` holds the shard's part of the manifests; it must have been built with
  // scheduler.defer_victim_release set (ReplaySchedulerOptions). `log_decisions`: write lines.
  ShardSimulator(ClusterState state, const SimulatorOptions& options, bool log_decisions);
  ~ShardSimulator();
  ShardSimulator(const ShardSimulator&) = delete;
  ShardSimulator& operator=(const ShardSimulator&) = delete;
  ShardSimulator(ShardSimulator&&) = delete;
  ShardSimulator& operator=(ShardSimulator&&) = delete;

  // Starts the clock at `t` (the first event of the trace) and adopts the manifests' workloads.
  void Start(int64_t t);
  // Runs what is due up to `event.time` (AdvanceTo), then applies the event at that instant.
  // False, with `error` (no file or line), when the event is rejected.
  bool Apply(TraceEvent& event, EventError& error);
  // Runs timers due at or before `t` and cycles due before `t`, in time order (timers first at an
  // equal instant). Calling it with increasing `t` gives the same result as one call with the
  // last `t`: the driver advances every shard to a batch's last event time.
  void AdvanceTo(int64_t t);
  // AdvanceTo(t), but it pauses once the shard's log holds `max_lines` lines, between two steps
  // (a timer or a cycle), and returns false; true when it got to `t`. A later AdvanceTo goes on
  // where it paused, with the same result. Lines before now() are then final. A log that already
  // holds `max_lines` lines (an event applied since the step began wrote them) pauses at once: a
  // caller makes progress by giving each step a limit above the log's size at its start.
  bool AdvanceWithin(int64_t t, size_t max_lines);
  // Moves the clock to `t` (>= now) without running anything (--until).
  void SetNow(int64_t t);
  // Cycles with at least `min_heads` heads nominate them through `loop` (nullptr or 0: never).
  // The loop must stay valid until it is replaced.
  void SetNominationLoop(engine::ParallelLoop* loop, size_t min_heads);

  int64_t now() const;
  // When AdvanceTo would next do something (a timer or a cycle); INT64_MAX when nothing is left.
  int64_t next_due() const;
  // The last instant at which something changed (the report ends there).
  int64_t last_change() const;
  // The latest timestamp of the shard's manifests (the start when there are no events).
  int64_t manifests_time() const;
  ShardLog& log();
  int64_t live_workloads() const;
  // Fetches into the cache what applying an event of the workload `key` ("namespace/name") looks
  // up first: for the loops that apply a batch's events one by one (PrefetchAhead).
  void PrefetchWorkload(std::string_view key) const;

  // Completes the measurements at virtual time `end` (the same for every shard): the figures of
  // this shard in `part` and its raw time-to-admission samples in `waits`.
  // `sample_until`: ReplayStats::Finish (the latest next_sample_time() of all shards).
  void Finish(int64_t end, int64_t sample_until, ReplayReport& part, RawWaits& waits);
  int64_t next_sample_time() const;
  // Engine cost: nominated entries and their latency (wall ns per entry; the simulator merges
  // the shards' histograms).
  int64_t decisions() const;
  const LatencyHistogram& decision_latency() const;
  const engine::SchedulerOptions& scheduler_options() const;
  // CPU time spent in this shard's steps, with --profile (replay/sim/shard_cpu.h).
  void AddCpuNanos(int64_t nanos) { cpu_nanos_ += nanos; }
  int64_t cpu_nanos() const { return cpu_nanos_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int64_t cpu_nanos_ = 0;
};

}  // namespace replay
