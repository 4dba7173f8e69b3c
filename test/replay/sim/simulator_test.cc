// The replay simulator end to end (docs/replay.md, kueue-semantics.md §5.2, §9.1, §9.2): small
// manifests and traces written as a user would, replayed on the virtual clock; assertions on the
// decisions log and the report. Bad input: every error kind names file, line and field, and the
// counters reconcile.
#include "replay/sim/simulator.h"

#include <fmt/format.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/io/event_reader.h"
#include "replay/io/input_limits.h"
#include "replay/io/time_parse.h"
#include "replay/report/replay_outputs.h"
#include "replay/report/report_writers.h"
#include "replay/sim/cluster_state.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

namespace fs = std::filesystem;
using testing::Added;
using testing::At;
using testing::Event;
using testing::kT0;
using testing::Manifests;
using testing::Outcome;
using testing::TimeField;
using testing::WorkloadJson;

class SimulatorTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    return harness_.Write(name, text);
  }
  Outcome Replay(const std::string& manifests, const std::vector<std::string>& lines,
                 SimulatorOptions options = {}, const std::string& events_name = "events.jsonl") {
    return harness_.Replay(manifests, lines, options, events_name);
  }
  Outcome ReplayFiles(const std::string& manifests_path, const std::string& events_path,
                      SimulatorOptions options) {
    return harness_.ReplayFiles(manifests_path, events_path, options);
  }

  testing::ReplayHarness harness_;
  const fs::path& dir_ = harness_.dir();
};

// A ClusterQueue `name` covering cpu with `cpu` nominal in the default flavor: a document to
// append to Manifests(...).
std::string ClusterQueueDocument(const std::string& name, const std::string& cpu) {
  return fmt::format(R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {}}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "{}"}}
)",
                     name, cpu);
}

// --- Lifecycle -------------------------------------------------------------------------------

// The overall time-to-admission and quota-hold figures are the union of the ClusterQueues' (each
// admission and finish is recorded in its ClusterQueue's group, and the overall groups are merged
// from them at the end): a ClusterQueue deleted after its workloads finished still counts.
TEST_F(SimulatorTest, OverallWaitsAndHoldsCountEveryClusterQueueEvenADeletedOne) {
  const std::string second = ClusterQueueDocument("gone", "2") + R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq2, namespace: ns}
spec: {clusterQueue: gone}
)";
  const std::string deleted =
      R"({"type":"DELETED","time":")" + At(40)
      + R"(","object":{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"gone"}}})";
  Outcome o =
      Replay(Manifests("4", "", second), {
                                             Added(0, WorkloadJson("a", "1"), "10s"),
                                             Added(0, WorkloadJson("b1", "2", 0, "lq2"), "5s"),
                                             Added(1, WorkloadJson("b2", "2", 0, "lq2"), "20s"),
                                             deleted,
                                         });
  ASSERT_TRUE(o.completed);
  // b2 waits for b1's quota: admitted at 6 s (the finish at 5 s, then Kueue's 1 s requeue).
  ASSERT_TRUE(o.Has({R"("type":"Admitted")", "ns/b2", TimeField(6)}));
  EXPECT_EQ(o.report.wait_overall.count, 3);
  EXPECT_EQ(o.report.wait_overall.max, 5.0);
  EXPECT_DOUBLE_EQ(o.report.wait_overall.sum, 5.0);
  EXPECT_EQ(o.report.hold_overall.count, 3);
  EXPECT_EQ(o.report.hold_overall.max, 20.0);
  ASSERT_EQ(o.report.wait_by_cluster_queue.size(), 1u) << "the deleted one is not listed";
  EXPECT_EQ(o.report.wait_by_cluster_queue[0].stats.count, 1);
}

// An arrival's LocalQueue is found through a memo of the queues found before (ShardSimulator's
// FindLocalQueue), emptied whenever the configuration moves: after 40 LocalQueues are added (the
// cluster's list of them reallocated) and the first one is pointed at another ClusterQueue, a
// workload in it is admitted by that ClusterQueue, as the cluster's own lookup says.
TEST_F(SimulatorTest, ALocalQueueFoundBeforeIsFoundAgainAfterTheQueuesChange) {
  const std::string other = ClusterQueueDocument("other", "4");
  const auto local_queue = [](const std::string& name, const std::string& cq) {
    return fmt::format(
        R"({{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue",)"
        R"("metadata":{{"name":"{}","namespace":"ns"}},"spec":{{"clusterQueue":"{}"}}}})",
        name, cq);
  };
  std::vector<std::string> lines = {Added(0, WorkloadJson("first", "1"), "100s")};
  for (int i = 0; i < 40; ++i) {
    lines.push_back(Added(1, local_queue(fmt::format("more-{}", i), "cq")));
  }
  lines.push_back(Event("MODIFIED", 2, local_queue("lq", "other")));
  lines.push_back(Added(3, WorkloadJson("second", "1"), "100s"));
  Outcome o = Replay(Manifests("4", "", other), lines);
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/first", R"("clusterQueue":"cq")"}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/second", R"("clusterQueue":"other")"}));
}

TEST_F(SimulatorTest, CompletionFreesQuotaAndInadmissibleRequeueWaitsOneSecond) {
  Outcome o = Replay(Manifests("4"), {
                                         Added(0, WorkloadJson("first", "4"), "10s"),
                                         Added(1, WorkloadJson("second", "4"), "5s"),
                                     });
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/first", TimeField(0)}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/first", TimeField(10)}));
  // NoFit put `second` in the inadmissible set; the finish at 10 s requeues it after Kueue's
  // 1 s batch period.
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/second", TimeField(11)}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/second", TimeField(16)}));
  EXPECT_EQ(o.report.workloads_admitted, 2);
  EXPECT_EQ(o.report.finished, 2);
  EXPECT_EQ(o.report.wait_overall.max, 10.0);
  EXPECT_EQ(o.report.end_time, kT0 + 16'000'000);
  EXPECT_EQ(o.live_workloads, 0u) << "finished workloads are forgotten (bounded memory)";
}

// Kueue's ValidateResources (pkg/workload/resources.go): requests above limits are loaded, never
// admitted, and leave one `Pending` line with reason Misconfigured (written again only if the
// message changed), however often the workload is retried.
TEST_F(SimulatorTest, RequestsAboveLimitsStayPendingMisconfigured) {
  std::string bad = WorkloadJson("bad", "2");
  const std::string requests = R"("requests":{"cpu":"2"})";
  bad.replace(bad.find(requests), requests.size(),
              R"("requests":{"cpu":"2"},"limits":{"cpu":"1"})");
  Outcome o = Replay(Manifests("4"), {
                                         Added(0, bad, "10s"),
                                         Added(1, WorkloadJson("good", "1"), "10s"),
                                         Added(20, WorkloadJson("later", "1"), "10s"),
                                     });
  ASSERT_TRUE(o.completed);
  EXPECT_FALSE(o.Has({R"("type":"Admitted")", "ns/bad"}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/good"}));
  std::vector<std::string> pending = o.Find({R"("type":"Pending")", "ns/bad"});
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_NE(pending[0].find(R"("reason":"Misconfigured")"), std::string::npos) << pending[0];
  EXPECT_NE(pending[0].find(
                R"("message":"resources validation failed: spec.podSets[0].template.spec.)"
                R"(containers[0]: Invalid value: [\"cpu\"]: requests must not exceed its limits")"),
            std::string::npos)
      << pending[0];
}

// The last Misconfigured message written is kept per workload index, beside the tracks
// (replay/sim/shard_simulator_impl.h): a workload added after a misconfigured one was deleted
// takes its index, and must still get its own `Pending` line for the same message.
TEST_F(SimulatorTest, AMisconfiguredWorkloadInADeletedOnesPlaceGetsItsOwnPendingLine) {
  auto misconfigured = [](const std::string& name) {
    std::string json = WorkloadJson(name, "2");
    const std::string requests = R"("requests":{"cpu":"2"})";
    json.replace(json.find(requests), requests.size(),
                 R"("requests":{"cpu":"2"},"limits":{"cpu":"1"})");
    return json;
  };
  const std::string deleted =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"first","namespace":"ns"}})";
  Outcome o = Replay(Manifests("4"), {
                                         Added(0, misconfigured("first"), "10s"),
                                         Event("DELETED", 5, deleted),
                                         Added(10, misconfigured("second"), "10s"),
                                     });
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.Find({R"("type":"Pending")", "ns/first", R"("reason":"Misconfigured")"}).size(), 1u);
  EXPECT_EQ(o.Find({R"("type":"Pending")", "ns/second", R"("reason":"Misconfigured")"}).size(), 1u);
  EXPECT_EQ(o.report.deleted, 1);
}

TEST_F(SimulatorTest, WorkloadWithoutRuntimeRunsUntilFinishedByModified) {
  std::string finished =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"nb","namespace":"ns"},"spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"4"}}}]}}}]},"status":{"conditions":[{"type":"Finished","status":"True","reason":"Succeeded","message":"done","lastTransitionTime":"2026-01-01T01:00:00Z"}]}})";
  Outcome o = Replay(Manifests("4"), {
                                         Added(0, WorkloadJson("nb", "4")),
                                         Added(5, WorkloadJson("next", "4"), "1m"),
                                         Event("MODIFIED", 3600, finished),
                                     });
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/nb", TimeField(3600)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/next", TimeField(3601)}));
  EXPECT_EQ(o.report.finished, 2);
}

TEST_F(SimulatorTest, DeletingARunningWorkloadFreesItsQuota) {
  std::string deleted =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"a","namespace":"ns"}})";
  Outcome o = Replay(Manifests("4"), {
                                         Added(0, WorkloadJson("a", "4"), "1h"),
                                         Added(1, WorkloadJson("b", "4"), "1m"),
                                         Event("DELETED", 30, deleted),
                                     });
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Deleted")", "ns/a", TimeField(30)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/b", TimeField(31)}));
  EXPECT_FALSE(o.Has({R"("type":"Finished")", "ns/a"}));
  EXPECT_EQ(o.report.deleted, 1);
}

TEST_F(SimulatorTest, DeactivationEvictsAndReactivationRequeues) {
  Outcome o = Replay(Manifests("4"), {
                                         Added(0, WorkloadJson("a", "4"), "1m"),
                                         Event("MODIFIED", 10,
                                               WorkloadJson("a", "4", 0, "lq",
                                                            /*active=*/false)),
                                         Event("MODIFIED", 20, WorkloadJson("a", "4")),
                                     });
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Deactivated")", "ns/a", TimeField(10)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/a", TimeField(20)}));
  // Runs its whole runtime again from the re-admission.
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/a", TimeField(80)}));
  EXPECT_EQ(o.report.admissions, 2);
  EXPECT_EQ(o.report.workloads_admitted, 1);
  EXPECT_EQ(o.report.deactivated, 1);
}

// --- Preemption -------------------------------------------------------------------------------

TEST_F(SimulatorTest, PreemptedWorkloadIsRequeuedAndRunsAgainInFull) {
  std::string preemption = "  preemption: {withinClusterQueue: LowerPriority}";
  Outcome o =
      Replay(Manifests("4", preemption), {
                                             Added(0, WorkloadJson("low", "4", 0), "100s"),
                                             Added(5, WorkloadJson("high", "4", 100), "10s"),
                                         });
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Preempted")", "ns/low", R"("preemptor":"ns/high")",
                     "InClusterQueue", TimeField(5)}));
  EXPECT_TRUE(o.Has({R"("type":"Requeued")", "ns/low", TimeField(5)}));
  // Policy-only: the victim's quota is released at once; the preemptor is admitted in the next
  // cycle at the same instant.
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/high", TimeField(5)}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/high", TimeField(15)}));
  // `low` was NoFit behind `high`: re-admitted 1 s after `high` finished, runs 100 s again.
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/low", TimeField(16)}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/low", TimeField(116)}));
  EXPECT_EQ(o.report.preemptions, 1);
  EXPECT_EQ(o.report.evictions_by_reason.at("Preempted"), 1);
  EXPECT_EQ(o.report.admissions, 3);
}

TEST_F(SimulatorTest, ControlPlaneLatenciesDelayStartAndRelease) {
  SimulatorOptions options;
  options.control_plane.enabled = true;
  options.control_plane.admit_to_running = 2'000'000;
  options.control_plane.finish_to_release = 3'000'000;
  Outcome o = Replay(Manifests("4"),
                     {
                         Added(0, WorkloadJson("a", "4"), "10s"),
                         Added(1, WorkloadJson("b", "4"), "10s"),
                     },
                     options);
  ASSERT_TRUE(o.completed);
  // Runs from 2 s to 12 s, quota released at 15 s, b requeued after the 1 s batch: 16 s.
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/a", TimeField(15)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/b", TimeField(16)}));
  EXPECT_EQ(o.report.mode, "control-plane");
}

TEST_F(SimulatorTest, CycleDurationSpacesCycles) {
  SimulatorOptions options;
  options.control_plane.enabled = true;
  options.control_plane.cycle_duration = 500'000;
  // Two ClusterQueues are not needed: one head per CQ per cycle, so the second workload of the
  // same CQ is admitted one cycle (0.5 s) later.
  Outcome o = Replay(Manifests("8"),
                     {
                         Added(0, WorkloadJson("a", "4"), "10s"),
                         Added(0, WorkloadJson("b", "4"), "10s"),
                     },
                     options);
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/a", TimeField(0)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/b", TimeField(0.5)}));
}

// Issue 20 part 1, the reproducer as reported: ClusterQueue a [f1, f2] and b [f1], both nominal 0,
// borrow the 4 cpu of cohort pool on f1. w2 (b, priority 100) is admitted; w (a) is skipped
// with "resume at f2" saved; 5 ms later a's list shrinks to [f1]. Before the fix the next cycle
// resumed past the end of the list and admitted w with "flavors":{} and nothing charged while w2
// held all 4 cpu. Now w waits (NoFit) until w2 finishes, then is admitted on f1. Both scan-reset
// rules: a change of the CQ's own flavor list always discards the saved position.
TEST_F(SimulatorTest, ShrunkFlavorListDiscardsSavedScanPositionNoFreeAdmission) {
  const std::string manifests = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: pool}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f1
      resources: [{name: cpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  cohortName: pool
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f1
      resources: [{name: cpu, nominalQuota: 0}]
    - name: f2
      resources: [{name: cpu, nominalQuota: 0}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: b}
spec:
  cohortName: pool
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f1
      resources: [{name: cpu, nominalQuota: 0}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: qa, namespace: ns}
spec: {clusterQueue: a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: qb, namespace: ns}
spec: {clusterQueue: b}
)";
  const std::string shrunk =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"a"},"spec":{"cohortName":"pool","namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"f1","resources":[{"name":"cpu","nominalQuota":"0"}]}]}]}})";
  for (bool kueue_scan_reset : {false, true}) {
    SCOPED_TRACE(kueue_scan_reset ? "--kueue-scan-reset" : "seed 003 scan reset");
    SimulatorOptions options;
    options.control_plane.enabled = true;
    options.control_plane.cycle_duration = 10'000;
    options.scheduler.cohort_generation_resets_scan = !kueue_scan_reset;
    Outcome o = Replay(manifests,
                       {
                           Added(0, WorkloadJson("w", "4", 1, "qa"), "1h"),
                           Added(0, WorkloadJson("w2", "4", 100, "qb"), "1h"),
                           Event("MODIFIED", 0.005, shrunk),
                       },
                       options);
    ASSERT_TRUE(o.completed);
    EXPECT_TRUE(o.Has({R"("type":"Admitted")", R"("ns/w2")", TimeField(0)}));
    std::vector<std::string> admitted = o.Find({R"("type":"Admitted")", R"("ns/w")"});
    ASSERT_EQ(admitted.size(), 1u) << fmt::format("{}", fmt::join(o.decisions, "\n"));
    EXPECT_EQ(admitted[0].find(R"("flavors":{})"), std::string::npos) << admitted[0];
    EXPECT_NE(admitted[0].find(R"("cpu":"f1")"), std::string::npos) << admitted[0];
    // Not before w2 released its 4 cpu (admitted at 0 with a 1 h runtime).
    EXPECT_EQ(admitted[0].find(TimeField(0)), std::string::npos) << admitted[0];
  }
}

// --- WaitForPodsReady and admission checks ------------------------------------------------------

TEST_F(SimulatorTest, PodsReadyTimeoutEvictsWithBackoffThenDeactivatesAtTheLimit) {
  std::string config = R"(
---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 1m
  requeuingStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 60}
)";
  Outcome o = Replay(Manifests("4", "", config),
                     {Added(0, WorkloadJson("slow", "4"), "10s", R"(,"podsReadyAfter":"2m")")});
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Evicted")", "ns/slow", "PodsReadyTimeout", TimeField(60)}));
  EXPECT_TRUE(o.Has({R"("type":"Requeued")", "ns/slow", At(120)}));
  // Backoff of 60 s (base x 2^0): back in the queue and admitted at 120 s.
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/slow", TimeField(120)}));
  // Second timeout exceeds backoffLimitCount 1: deactivated.
  EXPECT_TRUE(o.Has({R"("type":"Deactivated")", "ns/slow", TimeField(180)}));
  EXPECT_EQ(o.report.evictions_by_reason.at("PodsReadyTimeout"), 2);
  EXPECT_EQ(o.report.deactivated, 1);
}

TEST_F(SimulatorTest, AdmissionChecksHoldQuotaUntilReady) {
  std::string checks = "  admissionChecksStrategy: {admissionChecks: [{name: prov}]}";
  std::string check = R"(
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec: {controllerName: example.com/provisioning}
)";
  SimulatorOptions options;
  options.admission_check_delay = 30'000'000;
  Outcome o =
      Replay(Manifests("4", checks, check), {Added(0, WorkloadJson("a", "4"), "10s")}, options);
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"QuotaReserved")", "ns/a", TimeField(0)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/a", TimeField(30)}));
  EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/a", TimeField(40)}));
  EXPECT_EQ(o.report.wait_overall.max, 30.0);
}

// --- Configuration changes ----------------------------------------------------------------------

TEST_F(SimulatorTest, QuotaEditMidTraceAdmitsWhatNowFits) {
  std::string bigger =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq"},"spec":{"namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":"8"}]}]}]}})";
  Outcome o = Replay(Manifests("2"), {
                                         Added(0, WorkloadJson("big", "8"), "1m"),
                                         Event("MODIFIED", 100, bigger),
                                     });
  ASSERT_TRUE(o.completed);
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/big", TimeField(100)}));
  EXPECT_EQ(o.report.events_applied, 2);
  ASSERT_EQ(o.report.usage.size(), 1u);
  EXPECT_EQ(o.report.usage[0].nominal, 8000);
}

// Namespace events edit the labels a namespaceSelector sees (the scheduler keeps the only copy a
// shard holds): labels added admit what was pending on them, a namespace deleted keeps only its
// name label, so the next workload of that namespace stays pending.
TEST_F(SimulatorTest, NamespaceEventsChangeWhatTheNamespaceSelectorAdmits) {
  const std::string manifests = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {matchLabels: {team: a}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: "4"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
)";
  const std::string labelled =
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns","labels":{"team":"a"}}})";
  const std::string plain = R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"}})";
  Outcome o = Replay(manifests, {
                                    Added(0, WorkloadJson("first", "1"), "10s"),
                                    Event("MODIFIED", 100, labelled),
                                    Event("DELETED", 200, plain),
                                    Added(300, WorkloadJson("second", "1"), "10s"),
                                });
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_applied, 4);
  EXPECT_FALSE(o.Has({R"("type":"Admitted")", "ns/first", TimeField(0)}));
  EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/first", TimeField(100)}));
  EXPECT_FALSE(o.Has({R"("type":"Admitted")", "ns/second"}));
}

// Two trees, so two shards, which share one table of the namespaces' labels: a Namespace event
// reaches both, and each shard copies the table before writing it. Each ClusterQueue selects a
// different label of the one namespace; the edits must be seen by exactly the shard whose selector
// they change, on 1 and 2 threads alike.
TEST_F(SimulatorTest, NamespaceEventsReachEveryShardOfASharedTable) {
  const std::string cq = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {0}}}
spec:
  namespaceSelector: {{matchLabels: {{{1}}}}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "4"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq-{0}, namespace: ns}}
spec: {{clusterQueue: {0}}}
---
)";
  const std::string manifests =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n---\n"
      + fmt::format(fmt::runtime(cq), "a", "team: a")
      + fmt::format(fmt::runtime(cq), "b", "tier: gold")
      + "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns, labels: {team: a}}\n";
  auto ns = [](const std::string& labels) {
    return fmt::format(
        R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"ns","labels":{{{}}}}}}})",
        labels);
  };
  const std::vector<std::string> lines = {
      Added(0, WorkloadJson("a1", "1", 0, "lq-a"), "1000s"),
      Added(0, WorkloadJson("b1", "1", 0, "lq-b"), "1000s"),
      Event("MODIFIED", 100, ns(R"("team":"a","tier":"gold")")),
      Event("MODIFIED", 200, ns(R"("tier":"gold")")),
      Added(300, WorkloadJson("a2", "1", 0, "lq-a"), "1000s"),
      Added(300, WorkloadJson("b2", "1", 0, "lq-b"), "1000s"),
  };
  std::vector<std::string> decisions_one_thread;
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    SimulatorOptions options;
    options.threads = threads;
    Outcome o = Replay(manifests, lines, options);
    ASSERT_TRUE(o.completed);
    EXPECT_EQ(o.report.shards, 2);
    EXPECT_EQ(o.report.events_applied, 6);
    EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/a1", TimeField(0)}));
    EXPECT_FALSE(o.Has({R"("type":"Admitted")", "ns/b1", TimeField(0)}));
    EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/b1", TimeField(100)}));
    EXPECT_FALSE(o.Has({R"("type":"Admitted")", "ns/a2"}));
    EXPECT_TRUE(o.Has({R"("type":"Admitted")", "ns/b2", TimeField(300)}));
    if (threads == 1) {
      decisions_one_thread = o.decisions;
    } else {
      EXPECT_EQ(o.decisions, decisions_one_thread);
    }
  }
}

// --- Bad input ---------------------------------------------------------------------------------

// Issue 23, finding 06: "time": 1e14 is rejected as too large, not wrapped to the year 248073
// (which made every later event go backwards in time).
TEST_F(SimulatorTest, ATimeBeyondInt64IsRejectedAndTheNextEventsApply) {
  std::ifstream in("test/robustness/06-event-time-exponent-overflow.jsonl");
  ASSERT_TRUE(in.good());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 2u);
  Outcome o = Replay(Manifests("4"), lines);
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_read, 2);
  EXPECT_EQ(o.report.events_applied, 1);
  ASSERT_EQ(o.report.errors.size(), 1u);
  EXPECT_NE(o.report.errors[0].find("events.jsonl:1: time: \"1e14\" is not a number of seconds"),
            std::string::npos)
      << o.report.errors[0];
}

TEST_F(SimulatorTest, EveryKindOfBadLineIsRejectedWithFileLineAndField) {
  std::vector<std::string> lines = {
      Added(0, WorkloadJson("ok", "1"), "1m"),                        // 1: applied
      R"({"type":"ADDED","time":)",                                   // 2: malformed
      Added(1, WorkloadJson("lost", "1", 0, "no-such-queue"), "1m"),  // 3: unknown queue
      Added(2, WorkloadJson("bad-cpu", "5Qi"), "1m"),                 // 4: bad quantity
      Event("MODIFIED", 3, WorkloadJson("ghost", "1")),               // 5: unknown workload
      Added(1, WorkloadJson("late", "1"), "1m"),                      // 6: time backwards
      R"({"type":"ADDED","time":"2026-01-01T00:00:05Z","runtme":"1m","object":{}})",  // 7
      R"({"type":"UPDATED","time":"2026-01-01T00:00:05Z","object":{}})",              // 8: bad type
      R"({"type":"ADDED","object":{}})",                                              // 9: no time
      Added(6, WorkloadJson("ok", "1"), "1m"),    // 10: duplicate
      "",                                         // blank: not counted
      Added(7, WorkloadJson("fine", "1"), "1m"),  // 12: applied
  };
  // One thread replays in slices; two and eight through the pipeline, where each shard keeps
  // its rejected lines' errors apart from their outcomes (replay/sim/routed_batch.h).
  for (int threads : {1, 2, 8}) {
    SCOPED_TRACE(threads);
    SimulatorOptions options;
    options.threads = threads;
    Outcome o = Replay(Manifests("4"), lines, options);
    ASSERT_TRUE(o.completed);
    const ReplayReport& r = o.report;
    EXPECT_EQ(r.events_read, 11);
    EXPECT_EQ(r.events_applied, 2);
    EXPECT_EQ(r.events_rejected, 9);
    EXPECT_EQ(r.events_read, r.events_applied + r.events_rejected);
    ASSERT_EQ(r.errors.size(), 9u);
    auto expect_error = [&](size_t i, int line, const std::string& field, const std::string& text) {
      SCOPED_TRACE(r.errors[i]);
      EXPECT_NE(r.errors[i].find(fmt::format("events.jsonl:{}: {}", line, field)),
                std::string::npos);
      EXPECT_NE(r.errors[i].find(text), std::string::npos);
    };
    expect_error(0, 2, "", "not a JSON object");
    expect_error(1, 3, "object.spec.queueName", "LocalQueue ns/no-such-queue does not exist");
    expect_error(2, 4, "object.spec.podSets[0]", "5Qi");
    expect_error(3, 5, "object.metadata.name", "unknown Workload ns/ghost");
    expect_error(4, 6, "time", "time goes backwards");
    expect_error(5, 7, "runtme", "unknown field");
    expect_error(6, 8, "type", "UPDATED");
    expect_error(7, 9, "time", "Required value");
    expect_error(8, 10, "object.metadata.name", "already exists");
    EXPECT_EQ(r.rejected_by_reason.at("malformedJson"), 1);
    EXPECT_EQ(r.rejected_by_reason.at("unknownQueue"), 1);
    EXPECT_EQ(r.rejected_by_reason.at("badObject"), 1);
    EXPECT_EQ(r.rejected_by_reason.at("unknownWorkload"), 2);
    EXPECT_EQ(r.rejected_by_reason.at("timeBackwards"), 1);
    EXPECT_EQ(r.rejected_by_reason.at("badField"), 3);
    EXPECT_TRUE(o.Has({R"("type":"Finished")", "ns/fine"}));
  }
}

TEST_F(SimulatorTest, StrictStopsAtTheFirstRejectedEvent) {
  SimulatorOptions options;
  options.strict = true;
  Outcome o = Replay(Manifests("4"),
                     {
                         Added(0, WorkloadJson("a", "1"), "1m"),
                         Added(1, WorkloadJson("b", "1", 0, "missing"), "1m"),
                         Added(2, WorkloadJson("c", "1"), "1m"),
                     },
                     options);
  EXPECT_FALSE(o.completed);
  EXPECT_EQ(o.report.events_read, 2);
  EXPECT_EQ(o.report.events_applied, 1);
  EXPECT_EQ(o.report.events_rejected, 1);
  EXPECT_FALSE(o.Has({"ns/c"}));
}

// Issue 23, finding 08b: an unknown header is that line's error; the events after it are read.
TEST_F(SimulatorTest, AnUnknownHeaderIsRejectedAndTheEventsAfterItAreRead) {
  Outcome o = Replay(Manifests("4"), {R"({"format":"tally.events","version":7})",
                                      Added(0, WorkloadJson("a", "1"), "1m")});
  EXPECT_EQ(o.report.events_read, 2);
  EXPECT_EQ(o.report.events_applied, 1);
  EXPECT_EQ(o.report.events_rejected, 1);
  ASSERT_EQ(o.report.errors.size(), 1u);
  EXPECT_NE(o.report.errors[0].find("events.jsonl:1: format: unsupported trace header"),
            std::string::npos)
      << o.report.errors[0];
}

// Issue 23, findings 02 and 09: an event's object must be JSON. YAML syntax there (unquoted
// strings, tags, an anchor whose alias refers to itself) is rejected as "object: not JSON"; it
// was accepted through the YAML manifest parsers, and the self-alias crashed the replay.
TEST_F(SimulatorTest, AnEventObjectThatIsNotJsonIsRejected) {
  for (const char* file :
       {"02-event-self-alias-stack-overflow.jsonl", "09-event-object-not-json-accepted.jsonl"}) {
    SCOPED_TRACE(file);
    Outcome o = ReplayFiles("data/replay/gpu-day/manifests.yaml",
                            std::string("test/robustness/") + file, SimulatorOptions{});
    EXPECT_GE(o.report.events_read, 1);
    EXPECT_EQ(o.report.events_applied, 0);
    EXPECT_EQ(o.report.events_rejected, o.report.events_read);
    ASSERT_FALSE(o.report.errors.empty());
    for (const std::string& e : o.report.errors) {
      EXPECT_NE(e.find(": object: not JSON"), std::string::npos) << e;
    }
  }
}

// Issue 23, interrupted runs: a stop request (SIGINT/SIGTERM in `tally replay`) ends the replay
// after the batch it is replaying; the report says so ("complete": false), and tally diff and
// gate refuse such a report. Stopping before the first batch: one batch of 2 lines is replayed.
TEST_F(SimulatorTest, AStopRequestEndsTheReplayAfterTheCurrentBatch) {
  std::vector<std::string> lines;
  lines.reserve(6);
  for (int i = 0; i < 6; ++i) {
    lines.push_back(Added(i, WorkloadJson(fmt::format("w{}", i), "1"), "1h"));
  }
  std::atomic<bool> stop{true};
  SimulatorOptions options;
  options.stop = &stop;
  options.batch_lines = 2;
  Outcome o = Replay(Manifests("4"), lines, options);
  EXPECT_TRUE(o.completed);  // not a --strict stop
  EXPECT_TRUE(o.report.interrupted);
  EXPECT_EQ(o.report.events_read, 2);
  const std::string json = FormatReportJson(o.report);
  EXPECT_NE(json.find(R"("complete":false)"), std::string::npos);
  engine::StatusOr<ReportFigures> figures = ParseReportFigures(json, "report.json");
  ASSERT_FALSE(figures.ok());
  EXPECT_NE(figures.status().message().find("the replay was interrupted"), std::string::npos);
  // Without a request the same trace is replayed whole, and the report has no "complete" key.
  stop = false;
  Outcome whole = Replay(Manifests("4"), lines, options);
  EXPECT_FALSE(whole.report.interrupted);
  EXPECT_EQ(whole.report.events_read, 6);
  EXPECT_EQ(FormatReportJson(whole.report).find(R"("complete")"), std::string::npos);
}

// Issue 23, finding 20 (test/robustness/20-... writes one such line, 69 MB): a Workload with more
// pod sets than Kueue allows was refused only after the manifest parsers (about 100 bytes of
// memory per byte) had built it: 5.7 GB and 51 s for 800,000 pod sets. It is refused from the
// validated JSON, with the loader's message; so is any object too big for those parsers.
TEST_F(SimulatorTest, OversizedObjectsAreRefusedBeforeTheManifestParsers) {
  std::string pod_sets;
  for (int i = 0; i < 20'000; ++i) {
    pod_sets +=
        fmt::format(R"({}{{"name":"p{}","template":{{"spec":{{"containers":[{{"name":"c"}}]}}}}}})",
                    i == 0 ? "" : ",", i);
  }
  const std::string many =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"many","namespace":"ns"},"spec":{"queueName":"lq","podSets":[)"
      + pod_sets + "]}}";
  // Not a Workload the fast path reads (an unknown kind), 5 MB of it.
  const std::string big =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"x":")"
      + std::string(5 << 20, 'y') + R"("}})";
  Outcome o =
      Replay(Manifests("4"),
             {Added(0, many, "1m"), Added(1, big, ""), Added(2, WorkloadJson("fine", "1"), "1m")},
             SimulatorOptions{});
  EXPECT_EQ(o.report.events_read, 3);
  EXPECT_EQ(o.report.events_applied, 1);
  ASSERT_EQ(o.report.errors.size(), 2u);
  EXPECT_NE(o.report.errors[0].find(":1: object.spec.podSets: Workload/ns/many: Too many: 20000: "
                                    "must have at most 18 items"),
            std::string::npos)
      << o.report.errors[0];
  EXPECT_NE(o.report.errors[1].find(":2: object: 5242960 bytes: larger than 4194304 bytes"),
            std::string::npos)
      << o.report.errors[1];

  // --max-object-bytes moves the limit (here down, to refuse a small object).
  InputLimits low;
  low.max_object_bytes = 64;
  SetInputLimits(low);
  const std::string small =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small"},"data":{"x":"0123456789"}})";
  Outcome lowered = Replay(Manifests("4"), {Added(0, small, "")}, SimulatorOptions{});
  SetInputLimits(InputLimits{});
  ASSERT_EQ(lowered.report.errors.size(), 1u);
  EXPECT_NE(lowered.report.errors[0].find("bytes: larger than 64 bytes"), std::string::npos)
      << lowered.report.errors[0];
}

// Issue 23, finding 19: a line above --max-line-bytes is one lineTooLong error, read without
// keeping it (the line buffer used to double without limit on a gzip bomb); the lines around it
// are read as usual, with their own line numbers. Both readers: batches and one line at a time.
TEST_F(SimulatorTest, ALineAboveTheLimitIsRejectedUnreadAndTheRestIsRead) {
  std::vector<std::string> lines = {
      Added(0, WorkloadJson("a", "1"), "1m"),
      std::string(300'000, 'x'),  // no newline for 300 KB: spans several reads of a small limit
      Added(1, WorkloadJson("b", "1"), "1m"),
      R"({"type":"ADDED","time":"2026-01-01T00:00:02Z","object":{"pad":")" + std::string(5000, 'y')
          + R"("}})",
  };
  for (size_t batch : {size_t{8192}, size_t{1}}) {
    SimulatorOptions options;
    options.max_line_bytes = 4096;
    options.batch_lines = batch;
    Outcome o = Replay(Manifests("4"), lines, options);
    ASSERT_TRUE(o.completed);
    EXPECT_EQ(o.report.events_read, 4);
    EXPECT_EQ(o.report.events_applied, 2);
    EXPECT_EQ(o.report.rejected_by_reason.at("lineTooLong"), 2);
    ASSERT_EQ(o.report.errors.size(), 2u);
    EXPECT_NE(o.report.errors[0].find("events.jsonl:2: line longer than 4096 bytes"),
              std::string::npos)
        << o.report.errors[0];
    EXPECT_NE(o.report.errors[1].find("events.jsonl:4: line longer"), std::string::npos)
        << o.report.errors[1];
  }
  // The default limit lets such lines through (the 300 KB one is then not JSON).
  Outcome o = Replay(Manifests("4"), lines);
  EXPECT_EQ(o.report.rejected_by_reason.count("lineTooLong"), 0u);
}

// Issue 23, findings 08, 08b, 08c: none of these first lines may drop the rest of the trace.
TEST_F(SimulatorTest, AFirstLineNeverDropsTheTrace) {
  struct Case {
    const char* file;
    int64_t read, applied;
    std::string first_error;  // "" = none
  };
  const Case cases[] = {
      {"08-first-line-without-type-drops-whole-trace.jsonl", 3, 2, ":1: type: Required value"},
      {"08b-bad-header-drops-whole-trace.jsonl", 3, 2, ":1: format: unsupported trace header"},
      {"08c-utf8-bom-before-header-drops-whole-trace.jsonl", 2, 2, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    // The reproducers name gpu-day's queues.
    Outcome o = ReplayFiles("data/replay/gpu-day/manifests.yaml",
                            std::string("test/robustness/") + c.file, SimulatorOptions{});
    EXPECT_EQ(o.report.events_read, c.read);
    EXPECT_EQ(o.report.events_applied, c.applied);
    EXPECT_EQ(o.report.events_read, o.report.events_applied + o.report.events_rejected);
    if (c.first_error.empty()) {
      EXPECT_TRUE(o.report.errors.empty());
    } else {
      ASSERT_FALSE(o.report.errors.empty());
      EXPECT_NE(o.report.errors[0].find(c.first_error), std::string::npos) << o.report.errors[0];
    }
  }
}

TEST_F(SimulatorTest, TruncatedGzipIsReportedNotSilentlyShortened) {
  std::string text;
  for (int i = 0; i < 400; ++i) {
    text += Added(i, WorkloadJson(fmt::format("w{}", i), "1"), "1s") + "\n";
  }
  std::string full_path = (dir_ / "full.jsonl.gz").string();
  gzFile gz = gzopen(full_path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  // Keep the first half of the compressed bytes: the stream ends mid-way, without its trailer.
  std::ifstream in(full_path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string cut = Write("cut.jsonl.gz", bytes.substr(0, bytes.size() / 2));
  Outcome o = ReplayFiles(Write("manifests.yaml", Manifests("4")), cut, {});
  const ReplayReport& r = o.report;
  EXPECT_GT(r.events_applied, 0);
  EXPECT_LT(r.events_applied, 400);
  EXPECT_EQ(r.events_read, r.events_applied + r.events_rejected);
  ASSERT_EQ(r.rejected_by_reason.count("readError"), 1u);
  EXPECT_EQ(r.rejected_by_reason.at("readError"), 1);
  bool named = false;
  for (const std::string& e : r.errors) {
    named = named
            || (e.find("cut.jsonl.gz:") != std::string::npos
                && e.find("the rest of the file is lost") != std::string::npos);
  }
  EXPECT_TRUE(named);
}

// --- Inputs and determinism ---------------------------------------------------------------------

TEST_F(SimulatorTest, NumericTimesAndGzipGiveTheSameReplay) {
  std::vector<std::string> lines = {
      Added(0, WorkloadJson("a", "4"), "10s"),
      Added(1, WorkloadJson("b", "4"), "10s"),
  };
  Outcome plain = Replay(Manifests("4"), lines);
  // The same trace with numeric seconds, gzip-compressed.
  std::string numeric;
  numeric += fmt::format(R"({{"type":"ADDED","time":{}.0,"runtime":10,"object":{}}})",
                         kT0 / 1'000'000, WorkloadJson("a", "4"))
             + "\n";
  numeric += fmt::format(R"({{"type":"ADDED","time":{}.000001e0,"runtime":"10s","object":{}}})",
                         kT0 / 1'000'000 + 1, WorkloadJson("b", "4"))
             + "\n";
  std::string gz_path = (dir_ / "events.jsonl.gz").string();
  gzFile gz = gzopen(gz_path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, numeric.data(), static_cast<unsigned>(numeric.size()));
  gzclose(gz);
  Outcome compressed = ReplayFiles((dir_ / "manifests.yaml").string(), gz_path, {});
  EXPECT_EQ(compressed.report.events_applied, 2);
  // 1.000001 s vs 1 s: only the second arrival's time differs; decisions otherwise identical.
  ASSERT_EQ(plain.decisions.size(), compressed.decisions.size());
  EXPECT_EQ(plain.decisions[0], compressed.decisions[0]);
}

TEST_F(SimulatorTest, SameInputGivesByteIdenticalDecisionsAndReports) {
  std::string preemption = "  preemption: {withinClusterQueue: LowerPriority}";
  constexpr int kWorkloads = 60;
  std::vector<std::string> lines;
  lines.reserve(kWorkloads);
  for (int i = 0; i < kWorkloads; ++i) {
    lines.push_back(Added(i * 0.5,
                          WorkloadJson(fmt::format("w{}", i), i % 3 == 0 ? "3" : "1", i % 4 * 10),
                          fmt::format("{}s", 5 + i % 7)));
  }
  Outcome a = Replay(Manifests("4", preemption), lines);
  Outcome b = Replay(Manifests("4", preemption), lines);
  ASSERT_TRUE(a.completed);
  EXPECT_GT(a.report.preemptions, 0);
  EXPECT_EQ(a.decisions, b.decisions);
  EXPECT_EQ(FormatReportJson(a.report), FormatReportJson(b.report));
  EXPECT_EQ(a.report.finished, kWorkloads);
}

// A reclaiming preemptor and its victim trading the same quota back and forth at one instant
// (test/scenarios/replay/pingpong/README.md): without the limit of cycles per instant the replay
// never leaves that instant.
TEST_F(SimulatorTest, PreemptionPingPongAtOneInstantIsCut) {
  const std::string dir = "test/scenarios/replay/pingpong/";
  Outcome o = ReplayFiles(dir + "manifests.yaml", dir + "events.jsonl.gz", {});
  EXPECT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_read, 564);
  EXPECT_EQ(o.report.events_applied, 564);
  EXPECT_GT(o.report.cycle_limit_hits, 0);
  // Every instant cut ran its 1,000 cycles, no more.
  EXPECT_LE(o.report.cycles, o.report.cycle_limit_hits * 1000 + 100000);
  EXPECT_EQ(o.report.pending_at_end, 0);
}

// The mechanism behind that ping-pong, reduced to four workloads in a flat cohort (Kueue with
// its default gates loops the same way, one round per eviction):
//   a (N=10) runs a0 (6); b (N=10) runs b0 (6) and v (8), borrowing 4; the cohort is full.
//   p (5 pods of 1 cpu, minCount 4) arrives in a. Whole, it would borrow, so it may not reclaim;
//   partially admitted (4 pods) it stays within a's nominal and reclaims v.
//   Next cycle v is released and both are pending: p whole now fits by borrowing (level 1), and
//   so does v (level 1). Same level and priority: v, created first, is processed first and takes
//   its quota back; p no longer fits; and the next cycle reclaims v again.
// With p at a higher priority the order puts p first and there is no loop.
std::string CohortManifests() {
  std::string cq = R"(---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {0}}}
spec:
  cohortName: c
  namespaceSelector: {{}}
  preemption: {{reclaimWithinCohort: Any}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "10"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq-{0}, namespace: ns}}
spec: {{clusterQueue: {0}}}
)";
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
         + fmt::format(fmt::runtime(cq), "a") + fmt::format(fmt::runtime(cq), "b");
}

// `count` pods of 1 cpu; minCount only when below count (partial admission allowed).
std::string GangJson(const std::string& name, const std::string& queue, int count, int min_count,
                     int priority) {
  std::string min = min_count < count ? fmt::format(R"(,"minCount":{})", min_count) : "";
  return fmt::format(
      R"({{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{{"name":"{0}","namespace":"ns"}},"spec":{{"queueName":"{1}","priority":{4},"podSets":[{{"name":"main","count":{2}{3},"template":{{"spec":{{"containers":[{{"name":"c","resources":{{"requests":{{"cpu":"1"}}}}}}]}}}}}}]}}}})",
      name, queue, count, min, priority);
}

TEST_F(SimulatorTest, PartialReclaimThenWholeBorrowingLosesToTheOlderVictimEveryCycle) {
  auto trace = [](int preemptor_priority) {
    return std::vector<std::string>{
        Added(0, GangJson("a0", "lq-a", 6, 6, 0), "20s"),
        Added(0, GangJson("b0", "lq-b", 6, 6, 0), "20s"),
        Added(1, GangJson("v", "lq-b", 8, 8, 0), "1h"),
        Added(10, GangJson("p", "lq-a", 5, 4, preemptor_priority), "1h"),
    };
  };
  Outcome loop = Replay(CohortManifests(), trace(0));
  ASSERT_TRUE(loop.completed);
  // Cut at 10 s, and again at each second after (the requeue 1 s after freed capacity starts
  // it over) until a0 and b0 finish at 20 s: p then fits whole within a's nominal (level 0).
  EXPECT_EQ(loop.report.cycle_limit_hits, 10);
  std::vector<std::string> reclaims =
      loop.Find({R"("type":"Preempted")", "ns/v", R"("preemptor":"ns/p")", "InCohortReclamation",
                 TimeField(10)});
  EXPECT_GT(reclaims.size(), 100u) << "v is reclaimed again in every other cycle";
  EXPECT_FALSE(loop.Has({R"("type":"Admitted")", "ns/p", TimeField(10)}));
  EXPECT_TRUE(loop.Has({R"("type":"Admitted")", "ns/p", R"("count":5)", TimeField(20)}));

  Outcome ordered = Replay(CohortManifests(), trace(1));
  ASSERT_TRUE(ordered.completed);
  EXPECT_EQ(ordered.report.cycle_limit_hits, 0);
  EXPECT_EQ(ordered.Find({R"("type":"Preempted")", "ns/v", TimeField(10)}).size(), 1u);
  // Admitted whole (5 pods) in the cycle after the reclaim: it sorts before v.
  EXPECT_TRUE(ordered.Has({R"("type":"Admitted")", "ns/p", R"("count":5)", TimeField(10)}));
  EXPECT_FALSE(ordered.Has({R"("type":"Admitted")", "ns/v", TimeField(10)}));
}

}  // namespace
}  // namespace replay
