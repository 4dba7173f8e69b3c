#include "replay/report/schedule.h"

#include <fmt/format.h>

#include <cstdio>

#include "replay/io/json_to_yaml.h"
#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"
#include "replay/sim/cluster_state.h"
#include "replay/sim/decision_output.h"

namespace replay {

int RunSchedule(const ScheduleOptions& options) {
  ClusterState state;
  if (int status = LoadStateForCommand(options.files, options.now, options.kueue_scan_reset,
                                       options.feature_gates, state);
      status != 0) {
    return status;
  }
  std::vector<engine::CycleResult> cycles = RunCycles(state, options.cycles);
  if (options.output != "text") {
    JsonWriter out;
    WriteScheduleJson(state, cycles, out);
    std::fputs(ToOutputFormat(out.str() + "\n", options.output).c_str(), stdout);
  } else {
    std::fputs(FormatScheduleText(state, cycles).c_str(), stdout);
  }
  return 0;
}

}  // namespace replay
