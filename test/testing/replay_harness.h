// File: test/testing/replay_harness.h
//
// Replays small scenarios written inline in a test, as a user would write them: manifests as
// YAML, trace lines as JSON, times in seconds after kT0. The decision lines and the report come
// back for assertions. Used by the simulator and fallback tests.
//
//   ReplayHarness h;
//   Outcome o = h.Replay(Manifests("4"), {Added(0, WorkloadJson("a", "4"), "10s")});
//   EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/a", TimeField(0)}));
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include "replay/sim/replay_report.h"
#include "replay/sim/simulator.h"

namespace replay::testing {

constexpr int64_t kT0 = 1767225600LL * 1'000'000;  // 2026-01-01T00:00:00Z

// RFC 3339 of kT0 + seconds.
std::string At(double seconds);
// `"time":"<At(t)>"`, to find a decision line by its time.
std::string TimeField(double t);

// One flavor, one ClusterQueue "cq" covering cpu with `cpu` nominal, LocalQueue ns/lq; `extra`
// lines are appended to the ClusterQueue's spec; `more` documents are appended.
std::string Manifests(const std::string& cpu, const std::string& extra = "",
                      const std::string& more = "");
// A one-pod Workload ns/<name> requesting `cpu`.
std::string WorkloadJson(const std::string& name, const std::string& cpu, int priority = 0,
                         const std::string& queue = "lq", bool active = true);
// An ADDED line at t with optional `runtime` hint and extra top-level fields (",\"k\":v").
std::string Added(double t, const std::string& object, const std::string& runtime = "",
                  const std::string& extra = "");
std::string Event(const std::string& type, double t, const std::string& object);

struct Outcome {
  bool completed = false;
  ReplayReport report;
  std::vector<std::string> decisions;  // lines of decisions.jsonl
  uint32_t live_workloads = 0;
  bool replayed_twice = false;  // Simulator::replayed_twice

  // The decision lines containing every needle.
  std::vector<std::string> Find(std::initializer_list<std::string> needles) const;
  bool Has(std::initializer_list<std::string> needles) const { return !Find(needles).empty(); }
};

// Owns a temporary directory for the scenario files; removed on destruction.
class ReplayHarness {
 public:
  ReplayHarness();
  ~ReplayHarness();
  ReplayHarness(const ReplayHarness&) = delete;
  ReplayHarness& operator=(const ReplayHarness&) = delete;
  ReplayHarness(ReplayHarness&&) = delete;
  ReplayHarness& operator=(ReplayHarness&&) = delete;

  std::string Write(const std::string& name, const std::string& text);
  Outcome Replay(const std::string& manifests, const std::vector<std::string>& lines,
                 SimulatorOptions options = {}, const std::string& events_name = "events.jsonl");
  Outcome ReplayFiles(const std::string& manifests_path, const std::string& events_path,
                      SimulatorOptions options);
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace replay::testing
