// File: replay/sim/simulator.h
//
// The replay (docs/replay.md): trace events (replay/io/event_reader.h) drive the engine on a
// virtual clock, shard by shard (engine/shard/shard_plan.h, replay/sim/shard_simulator.h), in
// parallel.
//
// The shards are planned first (which Cohort trees are ever tied together): by a first pass over
// the trace (replay/sim/trace_ties.h, possibly while the manifests load), or, for a trace file up
// to SimulatorOptions::plan_from_manifests_max_bytes, from the manifests alone, checked at the end
// against what the replay read (and replayed again in the rare case it was wrong). Each pass reads
// batches of lines and parses them (replay/io/parallel_reader.h). Each batch's events are routed to
// their shards; each shard replays each batch — its events, then what is due up to the batch's last
// instant — on any free thread and without waiting for the others (replay/sim/shard_pipeline.h),
// under its own lock (engine/shard/sharded_engine.h). Once every shard has replayed a batch, its
// decision lines older than that instant are written out merged by (time, shard, order within the
// shard). At the end the shards' measurements are merged into one report.
//
// Determinism: a shard's replay depends only on its own events, and everything is merged in a
// fixed order, so the same input gives the same decisions and report, byte for byte, whatever
// the number of threads (only the wall-clock section of the report differs).
//
// Without a control-plane model the figures are "policy-only": admission, pod start, eviction
// and quota release are instantaneous, cycles take no time. ControlPlaneModel adds latencies.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/scheduler.h"
#include "replay/io/manifest_loader.h"
#include "replay/sim/decision_log.h"
#include "replay/sim/replay_report.h"
#include "replay/sim/trace_ties.h"

namespace replay {

// Latencies of a real Kueue deployment the policy alone does not have. All microseconds.
struct ControlPlaneModel {
  bool enabled = false;
  int64_t admit_to_running = 0;   // Admitted → pods running (job unsuspended, pods scheduled)
  int64_t finish_to_release = 0;  // pods finished or evicted → quota released
  double max_admissions_per_second = 0;  // 0 = no cap; else cycles are spaced to respect it
  int64_t cycle_duration = 0;            // virtual time one scheduling cycle takes
};

struct SimulatorOptions {
  engine::SchedulerOptions scheduler;
  ControlPlaneModel control_plane;
  int64_t pods_ready_delay = 0;       // default `podsReadyAfter` of a workload
  int64_t admission_check_delay = 0;  // time for all admission checks of a workload to be Ready
  std::optional<int64_t> until;       // stop the clock here (events after it are not read)
  // Set (by a signal handler) to stop: the replay ends after the batch it is replaying, without
  // running the time after it, and the report says interrupted. Null: never.
  const std::atomic<bool>* stop = nullptr;
  bool strict = false;    // stop at the first rejected event
  bool timings = true;    // measure wall-clock engine cost
  bool progress = false;  // progress on stderr
  // A terminal: a bar redrawn every 0.5 s. Otherwise (a log, CI) one plain line every 10 s.
  bool progress_tty = true;
  int threads = 0;  // worker threads; 0 = one per core
  // Lines read and parsed per batch. Small enough that a batch's parsed events (about 1.3 KiB
  // each) are still in cache when the shard applies them: 8,192 cost 14 % more CPU on one
  // thread (the first touch of each parsed Workload missed the cache) and 5 % on two.
  size_t batch_lines = 2048;
  // With one batch in flight (one thread), the lines a shard writes in one slice of virtual time
  // before it pauses and the lines before the pause are written: what the shards hold between
  // two writes stays bounded whatever the trace does within one slice (a preemption storm).
  // Decisions do not depend on it; tests make it small.
  size_t slice_lines_per_shard = 8192;
  // A shard's timer heap is compacted (its cancelled timers taken out) once it holds this many,
  // then whenever it has doubled since (replay/sim/shard_simulator_impl.h, CompactTimers).
  // Decisions do not depend on it; tests make it small.
  size_t min_timers_to_compact = size_t{1} << 14;
  // Trace lines read ahead of the slowest shard at most (whole batches, at least one): shards
  // run free within this window (replay/sim/shard_pipeline.h). --events-in-flight.
  size_t events_in_flight = 16384;
  // Longer trace lines are rejected unread (EventReader::kDefaultMaxLineBytes, --max-line-bytes).
  size_t max_line_bytes = size_t{64} << 20;
  // A trace file up to this size is read once: its shards are planned from the manifests alone,
  // and the plan is checked at the end against the one the trace's lines give, read during the
  // replay; if a line tied trees the manifests do not (a configuration edit joining two, a
  // Workload moving between them: rare), the replay runs again with the trace's plan
  // (Simulator::replayed_twice). Larger traces, and --until and --strict runs, which do not read
  // every line, have a first pass over the trace instead (replay/sim/trace_ties.h): the
  // planner's 8 bytes per Workload name are then freed before the replay instead of held during
  // it. 0 = always a first pass.
  uint64_t plan_from_manifests_max_bytes = uint64_t{1} << 30;
  // A cycle with at least this many heads nominates them in parallel (engine/scheduler.h);
  // 0 = never. Decisions do not depend on it.
  size_t parallel_nomination_min_heads = engine::Scheduler::kDefaultMinParallelHeads;
};

// Whether a replay of the trace file at `path` plans its shards from the manifests and reads the
// trace once (SimulatorOptions::plan_from_manifests_max_bytes): a regular file of at most that
// size, a run that reads every line (no --until, no --strict). Otherwise the trace has a first
// pass (replay/sim/trace_ties.h), which RunReplay makes while the manifests load.
bool PlansFromManifests(const SimulatorOptions& options, const std::string& path);

// Whether a model ties every Cohort tree to every other, so that the replay must be one shard:
// the control plane's cycle duration and admission rate are shared by all trees, and
// WaitForPodsReady's blockAdmission stops admission everywhere while any workload is not ready.
bool ModelCouplesShards(const SimulatorOptions& options, const engine::ClusterSpec& manifests);

class Simulator {
 public:
  // `manifests` loaded without errors; options.scheduler must have defer_victim_release set
  // (ReplaySchedulerOptions). `log` may be null (no decision lines).
  Simulator(const LoadResult& manifests, const SimulatorOptions& options, DecisionLog* log);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  Simulator(Simulator&&) = delete;
  Simulator& operator=(Simulator&&) = delete;

  // Replays every event of the trace at `events_path` ("-": standard input, spooled to a
  // temporary file since it is read twice) and then everything that follows (until `until` or
  // until nothing is left to happen). Returns false when --strict stopped at an error (`report`
  // still describes what was replayed); an error status when the trace cannot be opened.
  engine::StatusOr<bool> Run(const std::string& events_path, ReplayReport& report);

  // The first pass over the trace, made already (replay/sim/trace_ties.h): Run uses it instead of
  // reading the trace twice when it read the same path (not standard input) and the shards are
  // not coupled (ModelCouplesShards); its error, if any, is Run's when it is used.
  void UseTraceTies(TraceTies ties);

  // After Run: the shards and the workloads still held (memory follows these, not the trace).
  int num_shards() const;
  int64_t live_workloads() const;
  // After Run: the most decision lines held and written at once (one flush). With one thread
  // the batches are replayed in slices of virtual time, which bound it (docs/replay.md).
  size_t largest_flush() const;
  // After Run: the plan made from the manifests alone proved wrong, and the trace was replayed
  // a second time with its own (SimulatorOptions::plan_from_manifests_max_bytes).
  bool replayed_twice() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The scheduler options a replay needs on top of the user's.
engine::SchedulerOptions ReplaySchedulerOptions(engine::SchedulerOptions options);

}  // namespace replay
