// The scheduling cycle end to end (kueue-semantics.md §5, §6.8, §7): small clusters written as the
// YAML a user would dump, run through the same path as `tally schedule`.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "replay/io/json_writer.h"
#include "replay/sim/cluster_state.h"
#include "replay/sim/decision_output.h"

namespace replay {
namespace {

using engine::EntryOutcome;

constexpr const char* kFlavor = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
)";

// A ClusterQueue with one flavor "default" covering cpu; `extra` is appended to spec.
std::string Cq(const std::string& name, const std::string& cohort, const std::string& cpu,
               const std::string& extra = "") {
  return fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {0}}}
spec:
  {1}
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: "{2}"}}
{3}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: {0}, namespace: ns}}
spec: {{clusterQueue: {0}}}
)",
                     name, cohort.empty() ? "" : "cohortName: " + cohort, cpu, extra);
}

// A pending workload in LocalQueue `queue` (namespace ns), `count` pods of `cpu` each.
std::string Wl(const std::string& name, const std::string& queue, const std::string& cpu,
               int priority = 0, const std::string& created = "2026-01-01T00:00:00Z", int count = 1,
               const std::string& pod_set_extra = "") {
  return fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {0}, namespace: ns, creationTimestamp: "{4}"}}
spec:
  queueName: {1}
  priority: {3}
  podSets:
  - name: main
    count: {5}
{6}
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: "{2}"}}}}
)",
                     name, queue, cpu, priority, created, count, pod_set_extra);
}

// An admitted workload: charged `cpu` x count on flavor default in `cq`.
std::string Admitted(const std::string& name, const std::string& cq, const std::string& cpu,
                     int priority = 0, const std::string& reserved = "2026-01-01T00:00:00Z") {
  return Wl(name, cq, cpu, priority, reserved)
         + fmt::format(R"(status:
  conditions:
  - {{type: QuotaReserved, status: "True", lastTransitionTime: "{2}"}}
  admission:
    clusterQueue: {0}
    podSetAssignments:
    - name: main
      count: 1
      flavors: {{cpu: default}}
      resourceUsage: {{cpu: "{1}"}}
)",
                       cq, cpu, reserved);
}

std::string ReadRobustnessFile(const std::string& name) {
  std::ifstream in(std::string(TALLY_SOURCE_DIR) + "/test/robustness/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Docs(std::initializer_list<std::string> docs) {
  std::string out;
  for (const std::string& d : docs) {
    out += "---\n" + d + "\n";
  }
  return out;
}

struct ScheduleRun {
  ClusterState state;
  std::vector<engine::CycleResult> cycles;

  // Outcome of `workload` in cycle `cycle` (1-based), or nullopt if it was not a head there.
  std::optional<EntryOutcome> Outcome(int cycle, const std::string& workload) const {
    for (const engine::CycleResult& c : cycles) {
      if (c.cycle != cycle) {
        continue;
      }
      for (const engine::CycleEntry& e : c.entries) {
        if (state.store->Get(e.workload).key == "ns/" + workload) {
          return e.outcome;
        }
      }
    }
    return std::nullopt;
  }
  const engine::CycleEntry* Entry(int cycle, const std::string& workload) const {
    for (const engine::CycleResult& c : cycles) {
      for (const engine::CycleEntry& e : c.entries) {
        if (c.cycle == cycle && state.store->Get(e.workload).key == "ns/" + workload) {
          return &e;
        }
      }
    }
    return nullptr;
  }
  bool Reserved(const std::string& workload) const {
    return state.store->Get(*state.store->Find("ns/" + workload)).quota_reserved;
  }
  std::string Json() const {
    JsonWriter out;
    WriteScheduleJson(state, cycles, out);
    return out.Take();
  }
};

ScheduleRun Schedule(const std::string& yaml, int cycles = 0, bool kueue_scan_reset = false) {
  ClusterStateOptions options;
  options.scheduler.cohort_generation_resets_scan = !kueue_scan_reset;
  ScheduleRun run{BuildClusterState(LoadManifestString(yaml, "test.yaml"), options), {}};
  for (const LoadError& e : run.state.load.errors) {
    ADD_FAILURE() << e.ToString();
  }
  for (const std::string& e : run.state.workload_errors) {
    ADD_FAILURE() << e;
  }
  if (run.state.ok()) {
    run.cycles = RunCycles(run.state, cycles);
  }
  return run;
}

// §5.5 over-admission guard: a1 (A, 12) and b1 (B, 10) are nominated on the same state; b1 goes
// first (no borrowing), after which a1 no longer fits and is skipped.
TEST(SchedulerTest, OverAdmissionGuardSkipsTheBorrowerNominatedOnStaleState) {
  ScheduleRun run = Schedule(Docs({kFlavor, Cq("a", "c", "10"), Cq("b", "c", "10"),
                                   Wl("a1", "a", "12"), Wl("b1", "b", "10")}),
                             1);
  EXPECT_EQ(run.Outcome(1, "b1"), EntryOutcome::kAdmitted);
  EXPECT_EQ(run.Outcome(1, "a1"), EntryOutcome::kSkipped);
  EXPECT_EQ(run.Entry(1, "a1")->message,
            "Workload no longer fits after processing another workload");
  EXPECT_EQ(run.Entry(1, "a1")->assignment.borrowing, 1);
  EXPECT_EQ(run.state.cluster->tree().Usage(
                run.state.cluster->CohortNode(*run.state.cluster->FindCohort("c")),
                *run.state.cluster->FindSlot("default", "cpu")),
            engine::Quantity(10000));
}

TEST(SchedulerTest, EntriesAreOrderedByBorrowingThenPriorityThenTimestamp) {
  // Three CQs in one cohort; total 30. x borrows (level 1) although it has the top priority.
  ScheduleRun run =
      Schedule(Docs({kFlavor, Cq("x", "c", "5"), Cq("y", "c", "10"), Cq("z", "c", "15"),
                     Wl("x1", "x", "8", 100), Wl("y1", "y", "10", 1, "2026-01-01T00:00:02Z"),
                     Wl("z1", "z", "10", 1, "2026-01-01T00:00:01Z")}),
               1);
  ASSERT_EQ(run.cycles.size(), 1u);
  std::vector<std::string> order;
  for (const engine::CycleEntry& e : run.cycles[0].entries) {
    order.push_back(run.state.store->Get(e.workload).key);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"ns/z1", "ns/y1", "ns/x1"}));
  EXPECT_TRUE(run.Reserved("x1"));  // 8 still fits in the cohort's remaining 10
}

TEST(SchedulerTest, PreemptionEvictsThenAdmitsInTheNextCycle) {
  ScheduleRun run = Schedule(
      Docs({kFlavor, Cq("a", "", "10", "  preemption: {withinClusterQueue: LowerPriority}"),
            Admitted("low", "a", "8", 1), Wl("high", "a", "6", 10)}));
  EXPECT_EQ(run.Outcome(1, "high"), EntryOutcome::kPreempting);
  ASSERT_EQ(run.cycles[0].evictions.size(), 1u);
  EXPECT_EQ(run.state.store->Get(run.cycles[0].evictions[0].victim).key, "ns/low");
  EXPECT_EQ(run.cycles[0].evictions[0].reason, engine::PreemptionReason::kInClusterQueue);
  EXPECT_EQ(run.Outcome(2, "high"), EntryOutcome::kAdmitted);
  EXPECT_TRUE(run.Reserved("high"));
  EXPECT_FALSE(run.Reserved("low"));  // evicted, requeued, and now does not fit
}

TEST(SchedulerTest, NoPreemptionWithoutPolicy) {
  ScheduleRun run = Schedule(
      Docs({kFlavor, Cq("a", "", "10"), Admitted("low", "a", "8", 1), Wl("high", "a", "6", 10)}));
  EXPECT_EQ(run.Outcome(1, "high"), EntryOutcome::kInadmissible);
  EXPECT_EQ(run.Entry(1, "high")->reason, engine::RequeueReason::kPreemptionNoCandidates);
  EXPECT_TRUE(run.Reserved("low"));
}

TEST(SchedulerTest, StrictFifoBlocksBehindItsHeadBestEffortMovesOn) {
  for (const char* strategy : {"StrictFIFO", "BestEffortFIFO"}) {
    ScheduleRun run =
        Schedule(Docs({kFlavor, Cq("a", "", "10", fmt::format("  queueingStrategy: {}", strategy)),
                       Wl("big", "a", "20", 5), Wl("small", "a", "2", 1)}));
    bool small_admitted = run.Reserved("small");
    EXPECT_EQ(small_admitted, std::string(strategy) == "BestEffortFIFO") << strategy;
  }
}

TEST(SchedulerTest, NamespaceSelectorNullSelectsNothing) {
  std::string cq = Cq("a", "", "10");
  cq.replace(cq.find("  namespaceSelector: {}\n"), 24, "");
  ScheduleRun run = Schedule(Docs({kFlavor, cq, Wl("w", "a", "1")}));
  EXPECT_EQ(run.Outcome(1, "w"), EntryOutcome::kNotNominated);
  EXPECT_EQ(run.Entry(1, "w")->reason, engine::RequeueReason::kNamespaceMismatch);
}

TEST(SchedulerTest, NamespaceSelectorMatchesNamespaceLabels) {
  std::string cq = Cq("a", "", "10");
  cq.replace(cq.find("  namespaceSelector: {}\n"), 24,
             "  namespaceSelector: {matchLabels: {team: blue}}\n");
  std::string ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns, labels: {team: blue}}\n";
  EXPECT_TRUE(Schedule(Docs({kFlavor, cq, ns, Wl("w", "a", "1")})).Reserved("w"));
  std::string other =
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns, labels: {team: red}}\n";
  EXPECT_FALSE(Schedule(Docs({kFlavor, cq, other, Wl("w", "a", "1")})).Reserved("w"));
}

// §6.8: count 10, minCount 4 (D = 6) with room for 8 pods: probes 7 pods, then 9, then 8 -> 8.
TEST(SchedulerTest, PartialAdmissionFindsTheLargestCountThatFits) {
  ScheduleRun run =
      Schedule(Docs({kFlavor, Cq("a", "", "8"),
                     Wl("w", "a", "1", 0, "2026-01-01T00:00:00Z", 10, "    minCount: 4")}));
  EXPECT_EQ(run.Outcome(1, "w"), EntryOutcome::kAdmitted);
  const engine::CycleEntry* e = run.Entry(1, "w");
  EXPECT_TRUE(e->partial);
  EXPECT_EQ(e->assignment.pod_sets[0].count, 8);
  // Without minCount the same workload does not fit at all.
  ScheduleRun whole =
      Schedule(Docs({kFlavor, Cq("a", "", "8"), Wl("w", "a", "1", 0, "2026-01-01T00:00:00Z", 10)}));
  EXPECT_FALSE(whole.Reserved("w"));
}

TEST(SchedulerTest, AdmissionChecksLeaveTheWorkloadQuotaReservedOnly) {
  ScheduleRun run = Schedule(
      Docs({kFlavor,
            Cq("a", "", "10", "  admissionChecksStrategy:\n    admissionChecks:\n    - name: prov"),
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: "
            "{name: prov}\nspec: {controllerName: example.com/prov}\n",
            Wl("w", "a", "1")}));
  ASSERT_NE(run.Entry(1, "w"), nullptr);
  EXPECT_EQ(run.Outcome(1, "w"), EntryOutcome::kAdmitted);
  EXPECT_TRUE(run.Entry(1, "w")->checks_pending);
}

TEST(SchedulerTest, ClusterQueueWithAMissingAdmissionCheckIsInactive) {
  ScheduleRun run = Schedule(
      Docs({kFlavor,
            Cq("a", "", "10", "  admissionChecksStrategy:\n    admissionChecks:\n    - name: gone"),
            Wl("w", "a", "1")}));
  EXPECT_EQ(run.Entry(1, "w"), nullptr);  // never popped
  EXPECT_FALSE(run.Reserved("w"));
  engine::CqId a = *run.state.cluster->FindClusterQueue("a");
  EXPECT_EQ(run.state.cluster->Inactive(a), engine::InactiveReason::kAdmissionCheckNotFound);
}

TEST(SchedulerTest, WorkloadWithoutALocalQueueIsReportedNotScheduled) {
  ScheduleRun run = Schedule(Docs({kFlavor, Cq("a", "", "10"), Wl("lost", "nowhere", "1")}));
  EXPECT_EQ(run.state.unroutable, std::vector<std::string>{"ns/lost"});
  EXPECT_FALSE(run.Reserved("lost"));
  EXPECT_NE(run.Json().find(R"("unroutable":["ns/lost"])"), std::string::npos);
}

TEST(SchedulerTest, StoppedClusterQueueAdmitsNothing) {
  ScheduleRun run =
      Schedule(Docs({kFlavor, Cq("a", "", "10", "  stopPolicy: Hold"), Wl("w", "a", "1")}));
  EXPECT_FALSE(run.Reserved("w"));
}

TEST(SchedulerTest, CohortReclaimEvictsTheBorrower) {
  ScheduleRun run =
      Schedule(Docs({kFlavor, Cq("a", "c", "10", "  preemption: {reclaimWithinCohort: Any}"),
                     Cq("b", "c", "10"), Admitted("b1", "b", "16", 5), Wl("a1", "a", "8", 0)}));
  EXPECT_EQ(run.Outcome(1, "a1"), EntryOutcome::kPreempting);
  ASSERT_NE(run.Entry(1, "a1"), nullptr);
  EXPECT_EQ(run.Entry(1, "a1")->message, "Pending the preemption of 1 workload(s)");  // Kueue's
  ASSERT_EQ(run.cycles[0].evictions.size(), 1u);
  EXPECT_EQ(run.cycles[0].evictions[0].reason, engine::PreemptionReason::kInCohortReclamation);
  EXPECT_TRUE(run.Reserved("a1"));
}

// A preemptor's usage counts for the rest of its cycle (step 4), but is put in the tree only
// when a later entry of the cycle reads the tree: a lone preemptor's charge is never applied, so
// never undone. With the victims' release deferred, nothing else changes the tree in that cycle,
// and its version must not move (the charge and its undo had moved it); a later entry that reads
// the tree sees the charge (OverAdmissionGuard above, kueue sched-skip-wasteful-preemption).
TEST(SchedulerTest, ALonePreemptorsCycleChargeIsNeverAppliedToTheTree) {
  ClusterStateOptions options;
  options.scheduler.defer_victim_release = true;
  ClusterState state = BuildClusterState(
      LoadManifestString(
          Docs({kFlavor, Cq("a", "c", "10", "  preemption: {reclaimWithinCohort: Any}"),
                Cq("b", "c", "10"), Admitted("b1", "b", "16", 5), Wl("a1", "a", "8", 0)}),
          "test.yaml"),
      options);
  ASSERT_TRUE(state.ok());
  const uint64_t before = state.cluster->tree().state_version();
  std::vector<engine::CycleResult> cycles = RunCycles(state, 1);
  ASSERT_EQ(cycles.size(), 1u);
  ASSERT_EQ(cycles[0].entries.size(), 1u);
  EXPECT_EQ(cycles[0].entries[0].outcome, EntryOutcome::kPreempting);
  ASSERT_EQ(cycles[0].evictions.size(), 1u);
  EXPECT_EQ(state.cluster->tree().state_version(), before);
  const engine::FrSlot slot = *state.cluster->FindSlot("default", "cpu");
  EXPECT_EQ(state.cluster->tree().Usage(
                state.cluster->ClusterQueueNode(*state.cluster->FindClusterQueue("a")), slot),
            engine::Quantity(0));
}

// §5.6: b1's only target is the victim a1 already claimed. Recomputed without that victim, b1
// fits: DeferredFit — it waits for the preemption (PendingPreemption) instead of being skipped,
// and holds its usage for the rest of the cycle.
TEST(SchedulerTest, OverlappingTargetsAreRecomputedIntoDeferredFit) {
  std::string reclaim = "  preemption: {reclaimWithinCohort: Any}";
  ScheduleRun run = Schedule(
      Docs({kFlavor, Cq("a", "c", "4", reclaim), Cq("b", "c", "4", reclaim), Cq("v", "c", "0"),
            Admitted("victim", "v", "8", 0), Wl("a1", "a", "4", 0), Wl("b1", "b", "4", 0)}));
  EXPECT_EQ(run.Outcome(1, "a1"), EntryOutcome::kPreempting);
  const engine::CycleEntry* b1 = run.Entry(1, "b1");
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(b1->outcome, EntryOutcome::kPreempting);
  EXPECT_EQ(b1->reason, engine::RequeueReason::kPendingPreemption);
  EXPECT_TRUE(b1->targets.empty()) << "DeferredFit evicts nothing more";
  ASSERT_EQ(run.cycles[0].evictions.size(), 1u);
  // Once the victim is gone both are admitted.
  EXPECT_TRUE(run.Reserved("a1"));
  EXPECT_TRUE(run.Reserved("b1"));
}

// §5.6, the other outcome: recomputed without the claimed victim, b1 still needs preemption and
// finds a disjoint target of its own, which it evicts in the same cycle.
TEST(SchedulerTest, OverlappingTargetsAreRecomputedIntoDisjointTargets) {
  std::string reclaim = "  preemption: {reclaimWithinCohort: Any}";
  ScheduleRun run =
      Schedule(Docs({kFlavor, Cq("a", "c", "4", reclaim), Cq("b", "c", "4", reclaim),
                     Cq("v", "c", "0"), Admitted("big", "v", "4", 0, "2026-01-01T00:00:00Z"),
                     Admitted("small", "v", "4", 0, "2026-01-01T00:00:01Z"), Wl("a1", "a", "4", 0),
                     Wl("b1", "b", "4", 0)}),
               1);
  // Both nominate the most recently admitted victim, `small`; a1 (CQ name order) claims it.
  const engine::CycleEntry* b1 = run.Entry(1, "b1");
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(b1->outcome, EntryOutcome::kPreempting);
  ASSERT_EQ(b1->targets.size(), 1u);
  EXPECT_EQ(run.state.store->Get(b1->targets[0].workload).key, "ns/big");
  ASSERT_EQ(run.cycles[0].evictions.size(), 2u);
  EXPECT_NE(run.cycles[0].evictions[0].victim, run.cycles[0].evictions[1].victim);
}

// Determinism: the order of objects in the input never changes the decisions.
TEST(SchedulerTest, ShufflingTheInputDoesNotChangeTheOutput) {
  std::vector<std::string> docs = {kFlavor,
                                   Cq("a", "c", "10", "  preemption: {reclaimWithinCohort: Any}"),
                                   Cq("b", "c", "6"),
                                   Admitted("b1", "b", "9", 5),
                                   Wl("a1", "a", "7", 3, "2026-01-01T00:00:01Z"),
                                   Wl("a2", "a", "2", 3, "2026-01-01T00:00:01Z"),
                                   Wl("b2", "b", "3", 1, "2026-01-01T00:00:02Z"),
                                   Wl("b3", "b", "20", 9)};
  auto render = [&](const std::vector<std::string>& order) {
    std::string yaml;
    for (const std::string& d : order) {
      yaml += "---\n" + d + "\n";
    }
    return Schedule(yaml).Json();
  };
  std::string expected = render(docs);
  std::mt19937 rng(7);
  for (int i = 0; i < 6; ++i) {
    std::vector<std::string> shuffled = docs;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_EQ(render(shuffled), expected) << "permutation " << i;
  }
}

}  // namespace
}  // namespace replay

namespace replay {
namespace {

// Issue 20: --feature-gates over the Configuration's featureGates (ApplyFeatureGates).
TEST(FeatureGatesFlagTest, OverridesTheConfigurationAndWarns) {
  LoadResult load = LoadManifestString(R"(
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {ReclaimablePods: false}
waitForPodsReady: {blockAdmission: true}
)",
                                       "c.yaml");
  ASSERT_TRUE(load.ok());
  EXPECT_FALSE(load.spec.configuration.feature_gates.reclaimable_pods());
  ApplyFeatureGates({{"ReclaimablePods", true},
                     {"DisableWaitForPodsReady", true},
                     {"PrioritizePreemptorWorkloads", true}},
                    load);
  ASSERT_TRUE(load.ok());
  const engine::ConfigurationSpec& c = load.spec.configuration;
  EXPECT_TRUE(c.feature_gates.reclaimable_pods());  // the flag wins
  EXPECT_TRUE(c.feature_gates.settings().at("ReclaimablePods").from_flag);
  // Kueue pkg/util/waitforpodsready: the gate turns waitForPodsReady off.
  EXPECT_FALSE(c.wait_for_pods_ready.enable);
  EXPECT_FALSE(c.wait_for_pods_ready.block_admission);
  // Only the gate tally does not model, set away from its default, is a warning.
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_EQ(load.warnings[0].file, "--feature-gates");
  EXPECT_NE(load.warnings[0].ToString().find("PrioritizePreemptorWorkloads=true is not modelled"),
            std::string::npos);
  // Idempotent: the per-shard states apply it again with no flags.
  ApplyFeatureGates({}, load);
  EXPECT_EQ(load.warnings.size(), 1u);
}

// Issue 23, finding 15 (test/robustness/15-...): a Workload admitted to a ClusterQueue that is not
// defined was a warning for `validate` and an error ("does not exist", "nothing scheduled") for
// schedule, explain and replay. One verdict now, a warning: Kueue's cache keeps such a workload
// out of every ClusterQueue, so it charges no quota and is never queued.
TEST(SchedulerTest, AnAdmissionToAnUndefinedClusterQueueIsAWarningNotAnError) {
  const std::string yaml =
      ReadRobustnessFile("15-admission-clusterqueue-undefined-validate-vs-schedule.yaml");
  LoadResult load = LoadManifestString(yaml, "15.yaml");
  ASSERT_TRUE(load.ok());
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_EQ(load.warnings[0].line, 38);  // the field, not the object
  EXPECT_NE(load.warnings[0].message.find("not charged anywhere"), std::string::npos);
  ClusterState state = BuildClusterState(std::move(load), ClusterStateOptions{});
  ASSERT_TRUE(state.ok()) << (state.workload_errors.empty() ? "" : state.workload_errors[0]);
  EXPECT_EQ(state.admitted_to_undefined, std::vector<std::string>{"default/w"});
  EXPECT_EQ(state.workloads_reserved, 0);
  EXPECT_EQ(state.workloads_queued, 0);
  EXPECT_FALSE(state.store->Find("default/w").has_value());
  const engine::CqId cq = *state.cluster->FindClusterQueue("cq");
  const engine::NodeId node = state.cluster->ClusterQueueNode(cq);
  EXPECT_EQ(state.cluster->tree().Usage(node, engine::MakeId<engine::FrSlot>(0)),
            engine::Quantity::Zero());
}

TEST(FeatureGatesFlagTest, GatesWithoutAConfigurationReachTheCluster) {
  LoadResult load = LoadManifestString(kFlavor, "f.yaml");
  ASSERT_TRUE(load.ok());
  ClusterStateOptions options;
  options.feature_gates = {{"ReclaimablePods", false}};
  ClusterState state = BuildClusterState(std::move(load), options);
  ASSERT_TRUE(state.ok());
  EXPECT_FALSE(state.cluster->configuration().feature_gates.reclaimable_pods());
}

}  // namespace
}  // namespace replay
