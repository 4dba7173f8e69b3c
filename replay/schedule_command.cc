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
  std::vector<engine::CycleResult> cycles = RunCycles(state, options.cycles);
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
