// Issue 20: reclaimable pods of a reserved workload, and the feature gates the engine models
// (engine/feature_gates.h). The charging rule is Kueue's pkg/workload/workload.go
// (totalRequestsFromAdmission): the admission's resourceUsage, scaled down only when the spec count
// minus the reclaimable pods is below the admission count, and then to that count.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/feature_gates.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

constexpr int64_t kMilli = 1000;
constexpr TimeMicros kNow = 1'000'000'000;

// One ClusterQueue `cq` (flavor f, cpu nominal `nominal` cores, namespace ns, LocalQueue lq).
class World {
 public:
  explicit World(int64_t nominal, FeatureGates gates = {},
                 QuotaCheckStrategy quota_check = QuotaCheckStrategy::kBlockUndeclared)
      : store_(cluster_), queues_(cluster_, store_) {
    ClusterSpec spec;
    spec.flavors.emplace_back().name = "f";
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = "cq";
    cq.namespace_selector.is_null = false;
    ResourceGroupSpec& g = cq.resource_groups.emplace_back();
    g.covered_resources = {"cpu"};
    FlavorQuotasSpec& f = g.flavors.emplace_back();
    f.flavor = "f";
    f.resources.push_back({"cpu", Quantity(nominal * kMilli), std::nullopt, std::nullopt});
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = "lq";
    lq.cluster_queue = "cq";
    spec.configuration.present = true;
    spec.configuration.feature_gates = std::move(gates);
    spec.configuration.resources.quota_check_strategy = quota_check;
    cluster_.Apply(spec);
    scheduler_ = std::make_unique<Scheduler>(cluster_, store_, queues_, SchedulerOptions{});
  }

  static WorkloadSpec Spec(const std::string& name, int32_t count, int64_t cores_per_pod,
                           std::optional<int32_t> min_count = std::nullopt) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = name;
    w.queue_name = "lq";
    w.creation_time = 100;
    PodSetSpec& ps = w.pod_sets.emplace_back();
    ps.name = "main";
    ps.count = count;
    ps.min_count = min_count;
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity(std::to_string(cores_per_pod)));
    return w;
  }

  // The default/partial: 5 pods x 1 cpu (minCount 2), admitted with 3 (3 cpu),
  // `reclaimable` of them reclaimable.
  WorkloadId AddPartial(int32_t reclaimable) {
    WorkloadSpec w = Spec("partial", 5, 1, 2);
    AdmissionSpec& a = w.admission.emplace();
    a.cluster_queue = "cq";
    PodSetAssignmentSpec& psa = a.pod_set_assignments.emplace_back();
    psa.name = "main";
    psa.count = 3;
    psa.flavors["cpu"] = "f";
    psa.resource_usage["cpu"] = Quantity(3 * kMilli);
    w.conditions.Mutable().push_back({"QuotaReserved", true, "QuotaReserved", 50});
    if (reclaimable > 0) {
      w.reclaimable_pods.Mutable()["main"] = reclaimable;
    }
    return Add(std::move(w));
  }
  WorkloadId AddPending(WorkloadSpec w) {
    WorkloadId id = Add(std::move(w));
    queues_.Push(id);
    return id;
  }
  WorkloadId Add(WorkloadSpec w) {
    StatusOr<WorkloadId> id = store_.Add(std::move(w));
    EXPECT_TRUE(id.ok()) << id.status().message();
    cluster_.Refresh();
    return *id;
  }

  // cpu used in cq, in millicores.
  int64_t Used() const {
    return cluster_.tree()
        .Usage(cluster_.ClusterQueueNode(*cluster_.FindClusterQueue("cq")),
               *cluster_.FindSlot("f", "cpu"))
        .value();
  }
  // The outcome of `id` in one cycle.
  std::optional<CycleEntry> Cycle(WorkloadId id) {
    CycleResult r = scheduler_->RunCycle(kNow);
    for (const CycleEntry& e : r.entries) {
      if (e.workload == id) {
        return e;
      }
    }
    return std::nullopt;
  }

  WorkloadStore& store() { return store_; }

 private:
  Cluster cluster_;
  WorkloadStore store_;
  QueueManager queues_;
  std::unique_ptr<Scheduler> scheduler_;
};

FeatureGates Gates(const char* name, bool value) {
  FeatureGates g;
  EXPECT_TRUE(g.Set(name, value, false).ok());
  return g;
}

TEST(ReclaimablePodsTest, PartialAdmissionKeepsItsAdmissionCount) {
  // 5 - 2 = 3 is not below the admission count 3: charged 3 pods (the bug charged 3 - 2 = 1).
  World world(3);
  WorkloadId partial = world.AddPartial(2);
  EXPECT_EQ(world.Used(), 3 * kMilli);
  const Workload& w = world.store().Get(partial);
  ASSERT_EQ(w.admitted.size(), 1u);
  EXPECT_EQ(world.store().ChargedCount(w, w.admitted[0]), 3);
  // The next workload (2 cpu) is not over-admitted.
  WorkloadId pending = world.AddPending(World::Spec("pending", 1, 2));
  std::optional<CycleEntry> e = world.Cycle(pending);
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(e->outcome, EntryOutcome::kAdmitted) << e->message;
  EXPECT_EQ(world.Used(), 3 * kMilli);
}

TEST(ReclaimablePodsTest, ScaledDownToSpecCountMinusReclaimable) {
  // 5 - 3 = 2 is below 3: charged 2 pods (the bug charged 0).
  World world(3);
  WorkloadId partial = world.AddPartial(3);
  EXPECT_EQ(world.Used(), 2 * kMilli);
  const Workload& w = world.store().Get(partial);
  EXPECT_EQ(world.store().ChargedCount(w, w.admitted[0]), 2);
  WorkloadId pending = world.AddPending(World::Spec("pending", 1, 2));
  std::optional<CycleEntry> e = world.Cycle(pending);
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(e->outcome, EntryOutcome::kAdmitted);
  WorkloadId small = world.AddPending(World::Spec("small", 1, 1));
  e = world.Cycle(small);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->outcome, EntryOutcome::kAdmitted);
}

TEST(ReclaimablePodsTest, AllReclaimableChargesNothing) {
  World world(3);
  world.AddPartial(5);
  EXPECT_EQ(world.Used(), 0);
}

TEST(ReclaimablePodsTest, GateOffIgnoresReclaimablePods) {
  World world(3, Gates("ReclaimablePods", false));
  WorkloadId partial = world.AddPartial(3);
  EXPECT_EQ(world.Used(), 3 * kMilli);
  // A pending workload's requests ignore them too.
  WorkloadSpec s = World::Spec("pending", 4, 1);
  s.reclaimable_pods.Mutable()["main"] = 3;
  WorkloadId pending = world.Add(std::move(s));
  EXPECT_EQ(world.store().Get(pending).pod_sets[0].count, 4);
  (void)partial;
}

TEST(ReclaimablePodsTest, PendingRequestsSubtractReclaimable) {
  World world(3);
  WorkloadSpec s = World::Spec("pending", 4, 1);
  s.reclaimable_pods.Mutable()["main"] = 3;
  WorkloadId pending = world.Add(std::move(s));
  EXPECT_EQ(world.store().Get(pending).pod_sets[0].count, 1);
}

TEST(ReclaimablePodsTest, SetReclaimablePodsRechargesAReservation) {
  // The replay's MODIFIED event: the same rule as at ingest, both ways.
  World world(3);
  WorkloadId partial = world.AddPartial(2);
  EXPECT_EQ(world.Used(), 3 * kMilli);
  EXPECT_TRUE(world.store().SetReclaimablePods(partial, {{"main", 3}}));
  EXPECT_EQ(world.Used(), 2 * kMilli);
  EXPECT_TRUE(world.store().SetReclaimablePods(partial, {{"main", 4}}));
  EXPECT_EQ(world.Used(), 1 * kMilli);
  EXPECT_FALSE(world.store().SetReclaimablePods(partial, {{"main", 4}}));
  EXPECT_TRUE(world.store().SetReclaimablePods(partial, {}));
  EXPECT_EQ(world.Used(), 3 * kMilli);
  world.store().Release(partial);
  EXPECT_EQ(world.Used(), 0);
}

TEST(ReclaimablePodsTest, MissingAdmissionCountIsTheSpecCount) {
  // Kueue: podSetAssignments[].count defaults to the spec count (5 here, 5 cpu).
  World world(10);
  WorkloadSpec w = World::Spec("full", 5, 1);
  AdmissionSpec& a = w.admission.emplace();
  a.cluster_queue = "cq";
  PodSetAssignmentSpec& psa = a.pod_set_assignments.emplace_back();
  psa.name = "main";
  psa.flavors["cpu"] = "f";
  psa.resource_usage["cpu"] = Quantity(5 * kMilli);
  w.reclaimable_pods.Mutable()["main"] = 1;
  world.Add(std::move(w));
  EXPECT_EQ(world.Used(), 4 * kMilli);
}

TEST(FeatureGateTest, PartialAdmissionGate) {
  for (bool on : {true, false}) {
    World world(3, Gates("PartialAdmission", on));
    WorkloadId id = world.AddPending(World::Spec("wide", 5, 1, 2));
    std::optional<CycleEntry> e = world.Cycle(id);
    ASSERT_TRUE(e.has_value());
    if (on) {
      EXPECT_EQ(e->outcome, EntryOutcome::kAdmitted);
      EXPECT_TRUE(e->partial);
      EXPECT_EQ(world.Used(), 3 * kMilli);
    } else {
      EXPECT_NE(e->outcome, EntryOutcome::kAdmitted);
      EXPECT_EQ(world.Used(), 0);
    }
  }
}

TEST(FeatureGateTest, QuotaCheckStrategyReachesTheScheduler) {
  // The Configuration's IgnoreUndeclared admits a request for a resource cq does not cover
  // (memory), while gate QuotaCheckStrategy is on; BlockUndeclared (or the gate off) does not.
  struct Case {
    QuotaCheckStrategy strategy;
    bool gate;
    bool admitted;
  };
  for (const Case& c : {Case{QuotaCheckStrategy::kIgnoreUndeclared, true, true},
                        Case{QuotaCheckStrategy::kIgnoreUndeclared, false, false},
                        Case{QuotaCheckStrategy::kBlockUndeclared, true, false}}) {
    World world(3, Gates("QuotaCheckStrategy", c.gate), c.strategy);
    WorkloadSpec s = World::Spec("mem", 1, 1);
    AddTo(s.pod_sets[0].resources.containers[0].requests, "memory", *ParseDecimalQuantity("1Gi"));
    WorkloadId id = world.AddPending(std::move(s));
    std::optional<CycleEntry> e = world.Cycle(id);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->outcome == EntryOutcome::kAdmitted, c.admitted)
        << static_cast<int>(c.strategy) << " gate " << c.gate << ": " << e->message;
  }
}

TEST(FeatureGateTest, KnownGatesAreSortedWithKueueDefaults) {
  std::span<const FeatureGateInfo> gates = KnownFeatureGates();
  EXPECT_EQ(gates.size(), 80u);  // Kueue ff69552e's defaultVersionedFeatureGates
  for (size_t i = 1; i < gates.size(); ++i) {
    EXPECT_LT(gates[i - 1].name, gates[i].name);
  }
  ASSERT_NE(FindFeatureGate("ReclaimablePods"), nullptr);
  EXPECT_TRUE(FindFeatureGate("ReclaimablePods")->kueue_default);
  EXPECT_EQ(FindFeatureGate("ReclaimablePods")->support, GateSupport::kModelled);
  EXPECT_FALSE(FindFeatureGate("DisableWaitForPodsReady")->kueue_default);
  EXPECT_FALSE(FindFeatureGate("PrioritizePreemptorWorkloads")->kueue_default);
  EXPECT_EQ(FindFeatureGate("reclaimablePods"), nullptr);  // names are case-sensitive
}

TEST(FeatureGateTest, SetAndEnabled) {
  FeatureGates g;
  EXPECT_TRUE(g.reclaimable_pods());
  EXPECT_TRUE(g.Enabled("TopologyAwareScheduling"));
  EXPECT_FALSE(g.Enabled("ConcurrentAdmission"));
  EXPECT_TRUE(g.Set("ReclaimablePods", false, false).ok());
  EXPECT_FALSE(g.reclaimable_pods());
  EXPECT_FALSE(g.Enabled("ReclaimablePods"));
  EXPECT_TRUE(g.Set("ReclaimablePods", true, true).ok());  // the flag overrides
  EXPECT_TRUE(g.reclaimable_pods());
  EXPECT_TRUE(g.settings().at("ReclaimablePods").from_flag);
  Status bad = g.Set("NoSuchGate", true, false);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("unrecognized feature gate: NoSuchGate"), std::string::npos);
}

TEST(FeatureGateTest, ParseList) {
  StatusOr<std::vector<std::pair<std::string, bool>>> ok =
      ParseFeatureGateList("ReclaimablePods=false, PartialAdmission=T,MultiKueue=0");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->size(), 3u);
  EXPECT_EQ((*ok)[0], std::make_pair(std::string("ReclaimablePods"), false));
  EXPECT_EQ((*ok)[1], std::make_pair(std::string("PartialAdmission"), true));
  EXPECT_EQ((*ok)[2], std::make_pair(std::string("MultiKueue"), false));
  EXPECT_FALSE(ParseFeatureGateList("ReclaimablePods").ok());
  EXPECT_FALSE(ParseFeatureGateList("ReclaimablePods=maybe").ok());
  EXPECT_FALSE(ParseFeatureGateList("Bogus=true").ok());
  EXPECT_TRUE(ParseFeatureGateList("").ok());
}

TEST(FeatureGateTest, WarningsForGatesNotModelled) {
  EXPECT_FALSE(GateWarning("ReclaimablePods", false).has_value());         // modelled
  EXPECT_FALSE(GateWarning("TopologyAwareScheduling", true).has_value());  // the default
  std::optional<std::string> w = GateWarning("TopologyAwareScheduling", false);
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("TopologyAwareScheduling=false is not modelled"), std::string::npos);
  ASSERT_TRUE(GateWarning("MultiKueue", false).has_value());
  EXPECT_NE(GateWarning("MultiKueue", false)->find("changes no admission decision"),
            std::string::npos);
}

}  // namespace
}  // namespace engine
