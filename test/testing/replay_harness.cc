#include "test/testing/replay_harness.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"
#include "replay/sim/cluster_state.h"

namespace replay::testing {

namespace fs = std::filesystem;

std::string At(double seconds) {
  return FormatRfc3339(kT0 + static_cast<int64_t>(seconds * 1e6));
}

std::string TimeField(double t) {
  return fmt::format(R"("time":"{}")", At(t));
}

std::string Manifests(const std::string& cpu, const std::string& extra, const std::string& more) {
  return fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: default}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "{0}"}}
{1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
{2}
)",
                     cpu, extra, more);
}

std::string WorkloadJson(const std::string& name, const std::string& cpu, int priority,
                         const std::string& queue, bool active) {
  return fmt::format(
      R"({{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{{"name":"{0}","namespace":"ns"}},"spec":{{"active":{4},"queueName":"{3}","priority":{2},"podSets":[{{"name":"main","count":1,"template":{{"spec":{{"containers":[{{"name":"c","resources":{{"requests":{{"cpu":"{1}"}}}}}}]}}}}}}]}}}})",
      name, cpu, priority, queue, active ? "true" : "false");
}

std::string Added(double t, const std::string& object, const std::string& runtime,
                  const std::string& extra) {
  std::string hints = runtime.empty() ? "" : fmt::format(R"(,"runtime":"{}")", runtime);
  return fmt::format(R"({{"type":"ADDED","time":"{}"{}{},"object":{}}})", At(t), hints, extra,
                     object);
}

std::string Event(const std::string& type, double t, const std::string& object) {
  return fmt::format(R"({{"type":"{}","time":"{}","object":{}}})", type, At(t), object);
}

std::vector<std::string> Outcome::Find(std::initializer_list<std::string> needles) const {
  std::vector<std::string> out;
  for (const std::string& d : decisions) {
    bool all = true;
    for (const std::string& n : needles) {
      all = all && d.find(n) != std::string::npos;
    }
    if (all) {
      out.push_back(d);
    }
  }
  return out;
}

ReplayHarness::ReplayHarness() {
  static std::atomic<int> counter{0};
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = fs::temp_directory_path()
         / fmt::format("tally-replay-{}-{}-{}", ::getpid(), info == nullptr ? "" : info->name(),
                       counter++);
  fs::create_directories(dir_);
}

ReplayHarness::~ReplayHarness() {
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

std::string ReplayHarness::Write(const std::string& name, const std::string& text) {
  fs::path p = dir_ / name;
  std::ofstream(p) << text;
  return p.string();
}

Outcome ReplayHarness::Replay(const std::string& manifests, const std::vector<std::string>& lines,
                              SimulatorOptions options, const std::string& events_name) {
  std::string events;
  for (const std::string& l : lines) {
    events += l + "\n";
  }
  std::string events_path = Write(events_name, events);
  return ReplayFiles(Write("manifests.yaml", manifests), events_path, options);
}

Outcome ReplayHarness::ReplayFiles(const std::string& manifests_path,
                                   const std::string& events_path, SimulatorOptions options) {
  Outcome out;
  options.scheduler = ReplaySchedulerOptions(options.scheduler);
  options.timings = false;
  LoadResult load = LoadManifestFiles({manifests_path});
  EXPECT_TRUE(load.ok()) << (load.errors.empty() ? "" : load.errors[0].message);
  if (!load.ok()) {
    return out;
  }
  // A file, as `tally replay` writes: a replay planned from the manifests may start it again.
  std::FILE* file = std::tmpfile();
  EXPECT_NE(file, nullptr);
  {
    DecisionLog log(file);
    Simulator sim(load, options, &log);
    engine::StatusOr<bool> run = sim.Run(events_path, out.report);
    EXPECT_TRUE(run.ok()) << run.status().message();
    out.completed = run.ok() && *run;
    out.live_workloads = static_cast<uint32_t>(sim.live_workloads());
    out.replayed_twice = sim.replayed_twice();
  }
  std::string text;
  std::rewind(file);
  char chunk[65536];
  for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), file)) > 0;) {
    text.append(chunk, n);
  }
  std::fclose(file);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    out.decisions.push_back(line);
  }
  return out;
}

}  // namespace replay::testing
