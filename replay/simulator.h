// File: replay/simulator.h
//
// The discrete-event replay (docs/replay.md): trace events (replay/event_reader.h) drive the
// engine on a virtual clock. Between trace events the simulator runs what Kueue would run at
// each instant: scheduling cycles back to back while they make progress, completions after a
// workload's `runtime`, evictions of preempted workloads and their requeue, the inadmissible
// requeue 1 s after capacity is freed (Kueue's batch period), WaitForPodsReady timeouts with
// requeue backoff, and admission checks. Idle time is skipped: the clock jumps to the next
// thing that happens.
//
// Order at one instant: internal events due (in the order they were scheduled), then the trace
// events of that instant (in file order), then scheduling cycles until one makes no progress.
// Everything is single-threaded and keyed by dense ids, names only break ties: the same input
// gives the same decisions, byte for byte.
//
// Without a control-plane model the figures are "policy-only": admission, pod start, eviction
// and quota release are instantaneous, cycles take no time. ControlPlaneModel adds latencies.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/scheduler.h"
#include "replay/cluster_state.h"
#include "replay/event_reader.h"
#include "replay/replay_report.h"

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
  bool strict = false;                // stop at the first rejected event
  bool timings = true;                // measure wall-clock engine cost
  bool progress = false;              // progress bar on stderr
};

// Writes decisions.jsonl (docs/replay.md): one JSON object per line, keys sorted.
class DecisionLog {
 public:
  explicit DecisionLog(std::FILE* out) : out_(out) {}
  ~DecisionLog() { Flush(); }
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;

  void Write(std::string_view line);  // without newline
  void Flush();
  int64_t lines() const { return lines_; }

 private:
  std::FILE* out_;
  std::string buffer_;
  int64_t lines_ = 0;
};

class Simulator {
 public:
  // `state` holds the configuration (and workloads) of the manifests; it must have been built
  // with scheduler.defer_victim_release set (BuildClusterState with SimulatorOptions).
  Simulator(ClusterState& state, const SimulatorOptions& options, DecisionLog* log);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Replays every event of `reader` and then everything that follows (until `until` or until
  // nothing is left to happen). Returns false when --strict stopped at an error (`report`
  // still describes what was replayed).
  bool Run(EventReader& reader, ReplayReport& report);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The scheduler options a replay needs on top of the user's.
engine::SchedulerOptions ReplaySchedulerOptions(engine::SchedulerOptions options);

}  // namespace replay
