#include "replay/schedule_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "replay/cluster_state.h"
#include "replay/decision_output.h"
#include "replay/json_writer.h"
#include "replay/time_parse.h"

namespace replay {

int RunSchedule(const ScheduleOptions& options) {
  ClusterStateOptions state_options;
  state_options.files = options.files;
  state_options.scheduler.cohort_generation_resets_scan = !options.kueue_scan_reset;
  if (options.now) {
    engine::StatusOr<engine::TimeMicros> t = ParseRfc3339(*options.now);
    if (!t.ok()) {
      std::fprintf(stderr, "error: --now: %s\n", t.status().message().c_str());
      return 2;
    }
    state_options.now = *t;
  }
  ClusterState state = BuildClusterState(state_options);
  if (!state.ok()) {
    PrintLoadErrors(state);
    return 1;
  }
  std::vector<engine::CycleResult> cycles;
  int limit = options.cycles > 0 ? options.cycles : kMaxCycles;
  std::vector<engine::WorkloadId> previous_heads;
  for (int i = 0; i < limit; ++i) {
    engine::CycleResult r = state.scheduler->RunCycle(state.now);
    std::vector<engine::WorkloadId> heads;
    for (const engine::CycleEntry& e : r.entries) {
      heads.push_back(e.workload);
    }
    // Another cycle can still do something while a decision was made, a scan has flavors left,
    // or the heaps hold workloads not yet seen; a StrictFIFO head blocking its queue shows up as
    // the same heads twice with nothing changed.
    bool progressed = r.changed || CycleHasPendingScans(state, r)
                      || (state.queues->HasActive() && heads != previous_heads);
    bool empty = r.entries.empty();
    if (!empty || options.cycles > 0) {
      cycles.push_back(std::move(r));
    }
    if (options.cycles == 0 && (!progressed || empty)) {
      break;
    }
    previous_heads = std::move(heads);
  }
  if (options.output == "json") {
    JsonWriter out;
    WriteScheduleJson(state, cycles, out);
    std::fputs(out.str().c_str(), stdout);
    std::fputc('\n', stdout);
  } else {
    std::fputs(FormatScheduleText(state, cycles).c_str(), stdout);
  }
  return 0;
}

}  // namespace replay
