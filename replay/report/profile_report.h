// File: replay/report/profile_report.h
//
// `tally replay --profile` (issue 21; docs/replay.md, "Where the time goes"): turns the phase
// counters of engine/base/phase_profile.h and the replay's counts into a ProfileReport, and
// prints it as the table on stderr and the "profile" object of report.json.
//
//   ProfileClock clock;                       // at the start of the run, after Enable()
//   ... replay ...
//   report.profile = BuildProfileReport(engine::PhaseProfile::Collect(), clock, report);
//   std::fputs(FormatProfileTable(*report.profile).c_str(), stderr);
#pragma once

#include <chrono>
#include <string>

#include "engine/base/phase_profile.h"
#include "replay/io/json_writer.h"
#include "replay/sim/replay_report.h"

namespace replay {

// The process's CPU time (user + system) and the wall clock, from construction.
class ProfileClock {
 public:
  ProfileClock();
  double CpuSeconds() const;
  double WallSeconds() const;

 private:
  double cpu_start_ = 0;
  std::chrono::steady_clock::time_point wall_start_;
};

ProfileReport BuildProfileReport(const engine::PhaseTotals& totals, const ProfileClock& clock,
                                 const ReplayReport& report);

// Phases with calls, CPU seconds and share; then the per-admission figures.
std::string FormatProfileTable(const ProfileReport& profile);

void WriteProfileJson(JsonWriter& w, const ProfileReport& profile);

}  // namespace replay
