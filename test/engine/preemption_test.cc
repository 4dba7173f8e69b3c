// Classical preemption (kueue-semantics.md §7.1-§7.5): candidates, ordering, the minimal target
// set with fill-back, reasons and the oracle the flavor assigner consults. Clusters are built with
// Cluster::Apply, reserved workloads through WorkloadStore::Add with status.admission, and the
// preemptor's assignment with AssignFlavors using the Preemptor as its oracle.
#include "engine/preemption.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/flavor_assigner.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

constexpr int64_t kMilli = 1000;  // cpu is counted in milli-units
constexpr TimeMicros kNow = 1'000'000;

ResourceQuotaSpec Cpu(int64_t cores, std::optional<int64_t> borrowing_limit = std::nullopt,
                      std::optional<int64_t> lending_limit = std::nullopt) {
  ResourceQuotaSpec q;
  q.resource = "cpu";
  q.nominal = Quantity(cores * kMilli);
  if (borrowing_limit) {
    q.borrowing_limit = Quantity(*borrowing_limit * kMilli);
  }
  if (lending_limit) {
    q.lending_limit = Quantity(*lending_limit * kMilli);
  }
  return q;
}

PreemptionSpec Policy(PreemptionPolicy within, PreemptionPolicy reclaim = PreemptionPolicy::kNever,
                      PreemptionPolicy borrow = PreemptionPolicy::kNever,
                      std::optional<int32_t> threshold = std::nullopt) {
  PreemptionSpec p;
  p.within_cluster_queue = within;
  p.reclaim_within_cohort = reclaim;
  p.borrow_within_cohort = borrow;
  p.max_priority_threshold = threshold;
  return p;
}

struct AdmitOptions {
  std::string flavor = "default";
  std::optional<TimeMicros> reserved_at = 100;  // nullopt: no QuotaReserved condition
  TimeMicros created = 10;
  std::string uid;  // empty: the store uses "ns/<name>"

  AdmitOptions& Flavor(std::string f) {
    flavor = std::move(f);
    return *this;
  }
  AdmitOptions& ReservedAt(std::optional<TimeMicros> t) {
    reserved_at = t;
    return *this;
  }
  AdmitOptions& Created(TimeMicros t) {
    created = t;
    return *this;
  }
  AdmitOptions& Uid(std::string u) {
    uid = std::move(u);
    return *this;
  }
};
AdmitOptions Opt() {
  return {};
}

// One cluster, its workloads and a Preemptor over the cluster's own tree.
class World {
 public:
  World() : store_(cluster_) {}

  void AddFlavor(const std::string& name) { spec_.flavors.emplace_back().name = name; }

  // A CQ with one resource group covering cpu, one entry per flavor (in preference order).
  void AddCq(const std::string& name, const std::string& cohort,
             const std::vector<std::pair<std::string, ResourceQuotaSpec>>& flavors,
             PreemptionSpec preemption = {}) {
    ClusterQueueSpec& cq = spec_.cluster_queues.emplace_back();
    cq.name = name;
    cq.cohort = cohort;
    cq.preemption = preemption;
    cq.namespace_selector.is_null = false;
    ResourceGroupSpec& g = cq.resource_groups.emplace_back();
    g.covered_resources = {"cpu"};
    for (const auto& [flavor, quota] : flavors) {
      FlavorQuotasSpec& f = g.flavors.emplace_back();
      f.flavor = flavor;
      f.resources.push_back(quota);
    }
    LocalQueueSpec& lq = spec_.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = "lq-" + name;
    lq.cluster_queue = name;
  }
  void AddCq(const std::string& name, const std::string& cohort, ResourceQuotaSpec quota,
             PreemptionSpec preemption = {}) {
    AddCq(name, cohort, {{"default", quota}}, preemption);
  }
  void AddCohort(const std::string& name, const std::string& parent) {
    CohortSpec& c = spec_.cohorts.emplace_back();
    c.name = name;
    c.parent = parent;
  }
  ClusterQueueSpec& CqSpec(const std::string& name) {
    for (ClusterQueueSpec& cq : spec_.cluster_queues) {
      if (cq.name == name) {
        return cq;
      }
    }
    ADD_FAILURE() << "no CQ " << name;
    return spec_.cluster_queues.front();
  }

  void Build() {
    if (spec_.flavors.empty()) {
      AddFlavor("default");
    }
    cluster_.Apply(spec_);
  }

  // A workload holding a reservation of `cores` cpu in `cq`.
  WorkloadId Admit(const std::string& name, const std::string& cq, int64_t cores, int32_t priority,
                   const AdmitOptions& o = {}) {
    WorkloadSpec w = Base(name, cq, cores, priority, o.created);
    w.uid = o.uid;
    AdmissionSpec& a = w.admission.emplace();
    a.cluster_queue = cq;
    PodSetAssignmentSpec& psa = a.pod_set_assignments.emplace_back();
    psa.name = "main";
    psa.count = 1;
    psa.flavors["cpu"] = o.flavor;
    psa.resource_usage["cpu"] = Quantity(cores * kMilli);
    w.conditions.push_back({"QuotaReserved", true, "QuotaReserved", 0});
    if (o.reserved_at) {
      w.conditions.back().last_transition = *o.reserved_at;
    } else {
      w.conditions.clear();
    }
    return Add(std::move(w));
  }

  // A pending workload queued to `cq`.
  WorkloadId Pending(const std::string& name, const std::string& cq, int64_t cores,
                     int32_t priority, TimeMicros created = 500) {
    return Add(Base(name, cq, cores, priority, created));
  }

  Preemptor& preemptor() {
    if (!preemptor_) {
      preemptor_ = std::make_unique<Preemptor>(cluster_, cluster_.mutable_tree(), store_, kNow);
    }
    return *preemptor_;
  }

  Assignment Assign(WorkloadId id) {
    AssignRequest req;
    req.workload = &store_.Get(id);
    req.cq = store_.Get(id).cluster_queue;
    req.cluster = &cluster_;
    req.tree = &cluster_.tree();
    return AssignFlavors(req, &preemptor());
  }

  // Targets for `id` with the assignment AssignFlavors makes, as sorted "name:Reason".
  std::vector<std::string> Targets(WorkloadId id) {
    Assignment a = Assign(id);
    EXPECT_EQ(a.Mode(), AssignmentMode::kPreempt) << a.Message();
    return Names(preemptor().GetTargets(store_.Get(id), store_.Get(id).cluster_queue, a));
  }
  std::vector<std::string> Names(const std::vector<PreemptionTarget>& targets) const {
    std::vector<std::string> out;
    out.reserve(targets.size());
    for (const PreemptionTarget& t : targets) {
      out.push_back(store_.Get(t.workload).spec->name + ":" + ToString(t.reason));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // The candidate list of the preemptor's last search, in iteration order.
  std::vector<std::string> Candidates() {
    std::vector<std::string> out;
    for (const internal::Candidate& c : preemptor().last_candidates().ordered) {
      out.push_back(store_.Get(c.workload).spec->name);
    }
    return out;
  }

  OracleResult Oracle(WorkloadId id, int64_t cores, const std::string& flavor = "default") {
    const Workload& w = store_.Get(id);
    return preemptor().SimulatePreemption(w, w.cluster_queue, Slot(flavor),
                                          Quantity(cores * kMilli));
  }

  FrSlot Slot(const std::string& flavor) const { return *cluster_.FindSlot(flavor, "cpu"); }
  CqId Cq(const std::string& name) const { return *cluster_.FindClusterQueue(name); }
  const Workload& Get(WorkloadId id) const { return store_.Get(id); }
  Cluster& cluster() { return cluster_; }

 private:
  static WorkloadSpec Base(const std::string& name, const std::string& cq, int64_t cores,
                           int32_t priority, TimeMicros created) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = name;
    w.creation_time = created;
    w.queue_name = "lq-" + cq;
    w.priority = priority;
    PodSetSpec& ps = w.pod_sets.emplace_back();
    ps.name = "main";
    ps.count = 1;
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity(std::to_string(cores)));
    return w;
  }
  WorkloadId Add(WorkloadSpec w) {
    StatusOr<WorkloadId> id = store_.Add(std::move(w));
    EXPECT_TRUE(id.ok());
    return *id;
  }

  ClusterSpec spec_;
  Cluster cluster_;
  WorkloadStore store_;
  std::unique_ptr<Preemptor> preemptor_;
};

using Names = std::vector<std::string>;
using P = PreemptionPolicy;

TEST(PreemptionReasonTest, ToString) {
  EXPECT_STREQ(ToString(PreemptionReason::kInClusterQueue), "InClusterQueue");
  EXPECT_STREQ(ToString(PreemptionReason::kInCohortReclamation), "InCohortReclamation");
  EXPECT_STREQ(ToString(PreemptionReason::kInCohortReclaimWhileBorrowing),
               "InCohortReclaimWhileBorrowing");
}

// §7.3 worked example. Cohort <- A{N=10, reclaim=Any, within=LowerPriority}, B{N=10}. A runs
// a1(2, p0); B runs b1(8, p5), b2(6, p1), so B borrows 4. a2(6, p3) arrives: Available(A) = 4.
TEST(PreemptionTest, WorkedExampleReclaimsTheLowerPriorityBorrower) {
  World w;
  w.AddCq("A", "C", Cpu(10), Policy(P::kLowerPriority, P::kAny));
  w.AddCq("B", "C", Cpu(10));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  // b1 reserved more recently than b2: only priority puts b2 first.
  w.Admit("b1", "B", 8, 5, Opt().ReservedAt(200));
  w.Admit("b2", "B", 6, 1, Opt().ReservedAt(100));
  WorkloadId a2 = w.Pending("a2", "A", 6, 3);

  Assignment a = w.Assign(a2);
  ASSERT_EQ(a.Mode(), AssignmentMode::kPreempt);
  ASSERT_EQ(a.pod_sets[0].flavors.size(), 1u);
  EXPECT_EQ(a.pod_sets[0].flavors[0].granular, PreemptionMode::kReclaim);
  EXPECT_EQ(a.pod_sets[0].flavors[0].borrow, 0);

  EXPECT_EQ(w.Targets(a2), (Names{"b2:InCohortReclamation"}));
  // Candidates b2, b1 (HierarchicalReclaim, lower priority first), then a1 (WithinCQ).
  EXPECT_EQ(w.Candidates(), (Names{"b2", "b1", "a1"}));

  OracleResult r = w.Oracle(a2, 6);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  EXPECT_EQ(r.borrow, 0);
}

// withinClusterQueue: LowerPriority needs a strictly lower priority; LowerOrNewerEqualPriority
// also takes an equal-priority candidate that queued strictly after the preemptor.
TEST(PreemptionTest, WithinClusterQueuePolicies) {
  struct Case {
    TimeMicros preemptor_created;
    int32_t candidate_priority;
    PreemptionPolicy within;
    bool preempts;
  };
  const Case cases[] = {
      {50, 3, P::kLowerPriority, false},               // equal priority: never
      {50, 2, P::kLowerPriority, true},                // lower priority
      {50, 3, P::kLowerOrNewerEqualPriority, true},    // preemptor queued strictly first
      {100, 3, P::kLowerOrNewerEqualPriority, false},  // same timestamp: not strictly before
      {200, 3, P::kLowerOrNewerEqualPriority, false},  // preemptor is the newer one
      {50, 4, P::kLowerOrNewerEqualPriority, false},   // higher priority: never
      {50, 2, P::kNever, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(ToString(c.within)) + " p=" + std::to_string(c.candidate_priority)
                 + " t=" + std::to_string(c.preemptor_created));
    World w;
    w.AddCq("A", "", Cpu(10), Policy(c.within));
    w.Build();
    w.Admit("a1", "A", 10, c.candidate_priority, Opt().Created(100));
    WorkloadId in = w.Pending("in", "A", 1, 3, c.preemptor_created);
    if (c.preempts) {
      EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue"}));
      EXPECT_EQ(w.Oracle(in, 1).mode, PreemptionMode::kPreempt);
    } else {
      EXPECT_EQ(w.Targets(in), Names{});
      EXPECT_EQ(w.Oracle(in, 1).mode, PreemptionMode::kNoCandidates);
    }
  }
}

// reclaimWithinCohort: Any reclaims a higher-priority borrower, LowerPriority does not.
TEST(PreemptionTest, ReclaimWithinCohortAnyVersusLowerPriority) {
  for (PreemptionPolicy reclaim : {P::kAny, P::kLowerPriority}) {
    SCOPED_TRACE(ToString(reclaim));
    World w;
    w.AddCq("A", "C", Cpu(10), Policy(P::kNever, reclaim));
    w.AddCq("B", "C", Cpu(10));
    w.Build();
    w.Admit("b1", "B", 16, 5);  // B borrows 6
    WorkloadId in = w.Pending("in", "A", 8, 1);
    if (reclaim == P::kAny) {
      EXPECT_EQ(w.Targets(in), (Names{"b1:InCohortReclamation"}));
      EXPECT_EQ(w.Oracle(in, 8).mode, PreemptionMode::kReclaim);
    } else {
      EXPECT_EQ(w.Targets(in), Names{});
      OracleResult r = w.Oracle(in, 8);
      EXPECT_EQ(r.mode, PreemptionMode::kNoCandidates);
      EXPECT_EQ(r.borrow, 0);  // 8 fits in A's nominal: level 0
    }
  }
}

// borrowWithinCohort LowerPriority: without hierarchical advantage, a lower-priority borrower may
// be reclaimed while the preemptor borrows, unless its priority is above maxPriorityThreshold
// (then only without borrowing, which cannot work here). C <- A{N=4}, B{N=2}; B runs b1(6, p1)
// and b2(6, p2); A asks 6 (it must borrow 2), so both victims are needed.
TEST(PreemptionTest, BorrowWithinCohortMaxPriorityThreshold) {
  for (std::optional<int32_t> threshold :
       {std::optional<int32_t>(1), std::optional<int32_t>(2), std::optional<int32_t>()}) {
    SCOPED_TRACE(threshold ? std::to_string(*threshold) : "unset");
    World w;
    w.AddCq("A", "C", Cpu(4), Policy(P::kNever, P::kLowerPriority, P::kLowerPriority, threshold));
    w.AddCq("B", "C", Cpu(2));
    w.Build();
    w.Admit("b1", "B", 6, 1);
    w.Admit("b2", "B", 6, 2);
    WorkloadId in = w.Pending("in", "A", 6, 10);
    if (threshold == 1) {
      // b2 (p2 > 1) is ReclaimWithoutBorrowing: skipped while borrowing; without borrowing A
      // cannot fit 6 in N=4.
      EXPECT_EQ(w.Targets(in), Names{});
      EXPECT_EQ(w.Oracle(in, 6).mode, PreemptionMode::kNoCandidates);
    } else {
      EXPECT_EQ(w.Targets(in),
                (Names{"b1:InCohortReclaimWhileBorrowing", "b2:InCohortReclaimWhileBorrowing"}));
      OracleResult r = w.Oracle(in, 6);
      EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
      EXPECT_EQ(r.borrow, 1);  // still borrowing from the cohort afterwards
    }
  }
}

// borrowWithinCohort never lets a borrowing preemptor take a candidate of its own or higher
// priority, even with reclaimWithinCohort=Any: b2 (p20) is ReclaimWithoutBorrowing.
TEST(PreemptionTest, BorrowWithinCohortSparesEqualOrHigherPriority) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kNever, P::kAny, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(2));
  w.Build();
  w.Admit("b1", "B", 6, 1);
  w.Admit("b2", "B", 6, 20);
  WorkloadId in = w.Pending("in", "A", 6, 10);
  EXPECT_EQ(w.Targets(in), Names{});
  EXPECT_EQ(w.Candidates(), (Names{"b1", "b2"}));
}

// Attempt list, default order [borrow, no-borrow]: the first attempt that fits wins.
// R <- P{A{N=4}, B{N=4}}, Q{C{N=4}}. A runs a1(2) and asks 4 more; 4 fits in P's quota, so c1
// (C borrows 4) is a hierarchical candidate. Borrowing allowed, reclaiming c1 suffices; the
// no-borrow attempt would have preempted a1 instead.
TEST(PreemptionTest, BorrowingAttemptComesFirstByDefault) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("P", "R");
  w.AddCohort("Q", "R");
  w.AddCq("A", "P", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "P", Cpu(4));
  w.AddCq("C", "Q", Cpu(4));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  w.Admit("c1", "C", 8, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), (Names{"c1:InCohortReclamation"}));
  EXPECT_EQ(w.Candidates(), (Names{"c1", "a1"}));
}

// Attempt list: borrowWithinCohort forbidden, the preemptor under nominal and no hierarchical
// candidate -> [no-borrow, borrow]. C <- A{N=4}, B{N=4}, D{N=2}; A runs a1(1, p0), a2(2, p1);
// B borrows with b1. A asks 3. Borrowing, removing a1 would do (A then borrows 1 from D's free
// quota); the no-borrow attempt runs first and must bring A within N=4: a2 goes, a1 and b1 are
// filled back.
TEST(PreemptionTest, NoBorrowAttemptFirstWhenOnlyPriorityCandidates) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(4));
  w.AddCq("D", "C", Cpu(2));
  w.Build();
  w.Admit("a1", "A", 1, 0);
  w.Admit("a2", "A", 2, 1);
  w.Admit("b1", "B", 5, 1);
  WorkloadId in = w.Pending("in", "A", 3, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a2:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"b1", "a1", "a2"}));
}

// Attempt list: borrowWithinCohort forbidden and the preemptor's CQ not strictly under nominal
// on the needed slot -> [borrow] only. Same cohort as above, but A uses all of N=4 with a1(1, p0)
// and a2(3, p1) and asks 2: a1 goes, and A borrows. (A no-borrow attempt would have taken a2.)
TEST(PreemptionTest, OnlyBorrowingAttemptWhenPreemptorAtNominal) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(4));
  w.AddCq("D", "C", Cpu(2));
  w.Build();
  w.Admit("a1", "A", 1, 0);
  w.Admit("a2", "A", 3, 1);
  w.Admit("b1", "B", 5, 1);
  WorkloadId in = w.Pending("in", "A", 2, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue"}));
}

// Attempt list: when borrowing fails, the no-borrow attempt runs. With maxPriorityThreshold=0,
// b1 (p1) is ReclaimWithoutBorrowing; A{N=4} runs a1(2) and asks 4: borrowing, a1 alone frees
// too little; without borrowing, b1 and a1 both go.
TEST(PreemptionTest, NoBorrowAttemptAfterBorrowingFails) {
  World w;
  w.AddCq("A", "C", Cpu(4),
          Policy(P::kLowerPriority, P::kLowerPriority, P::kLowerPriority, /*threshold=*/0));
  w.AddCq("B", "C", Cpu(10));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  w.Admit("b1", "B", 12, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue", "b1:InCohortReclamation"}));
}

// Fill-back: a1 is removed first (lowest priority) but turns out unnecessary once a2 is gone.
TEST(PreemptionTest, FillBackSparesAnUnnecessaryVictim) {
  World w;
  w.AddCq("A", "", Cpu(10), Policy(P::kLowerPriority));
  w.Build();
  w.Admit("a1", "A", 2, 1);
  w.Admit("a2", "A", 7, 2);
  WorkloadId in = w.Pending("in", "A", 6, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a2:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"a1", "a2"}));
  EXPECT_EQ(w.Oracle(in, 6).mode, PreemptionMode::kPreempt);
}

// Fill-back keeps a target whose re-admission would not fit, and the last one always.
TEST(PreemptionTest, FillBackKeepsNecessaryVictims) {
  World w;
  w.AddCq("A", "", Cpu(6), Policy(P::kLowerPriority));
  w.Build();
  w.Admit("low", "A", 2, -1);
  w.Admit("mid", "A", 2, 0);
  w.Admit("high", "A", 2, 1);
  WorkloadId in = w.Pending("in", "A", 3, 1);
  EXPECT_EQ(w.Targets(in), (Names{"low:InClusterQueue", "mid:InClusterQueue"}));
}

// Candidates must use a slot needing preemption through their admitted flavors: the preemptor
// is assigned flavor f1, so a lower-priority workload on f2 is no candidate.
TEST(PreemptionTest, CandidatesNotUsingTheNeededFlavorAreIgnored) {
  World w;
  w.AddFlavor("f1");
  w.AddFlavor("f2");
  w.AddCq("A", "", {{"f1", Cpu(4)}, {"f2", Cpu(4)}}, Policy(P::kLowerPriority));
  w.Build();
  w.Admit("on-f2", "A", 4, 1, Opt().Flavor("f2"));
  w.Admit("on-f1", "A", 4, 2, Opt().Flavor("f1"));
  WorkloadId in = w.Pending("in", "A", 4, 5);
  Assignment a = w.Assign(in);
  ASSERT_EQ(a.pod_sets[0].flavors.size(), 1u);
  EXPECT_EQ(w.cluster().Name(a.pod_sets[0].flavors[0].flavor), "f1");
  std::vector<PreemptionTarget> t = w.preemptor().GetTargets(w.Get(in), w.Cq("A"), a);
  EXPECT_EQ(w.Names(t), (Names{"on-f1:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"on-f1"}));
  // The oracle on f2 sees only the f2 workload.
  EXPECT_EQ(w.Oracle(in, 4, "f2").mode, PreemptionMode::kPreempt);
  EXPECT_EQ(w.Candidates(), (Names{"on-f2"}));
}

// Lending limits (Kueue's preemption_test "reclaim quota from lender"): lend1{N=6, LL=4},
// lend2{N=6, LL=2}; only lend2-mid is reclaimable (lend2-high has the preemptor's priority).
TEST(PreemptionTest, ReclaimQuotaFromLender) {
  World w;
  w.AddCq("lend1", "cohort-lend", Cpu(6, std::nullopt, 4),
          Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("lend2", "cohort-lend", Cpu(6, std::nullopt, 2),
          Policy(P::kLowerPriority, P::kLowerPriority));
  w.Build();
  w.Admit("lend1-low", "lend1", 3, -1);
  w.Admit("lend2-mid", "lend2", 3, 0);
  w.Admit("lend2-high", "lend2", 4, 1);
  WorkloadId in = w.Pending("in", "lend1", 3, 1);
  EXPECT_EQ(w.Targets(in), (Names{"lend2-mid:InCohortReclamation"}));
  EXPECT_EQ(w.Candidates(), (Names{"lend2-mid", "lend1-low"}));
}

// Lending limits cap what reclaiming can free (Kueue's lending-limit preemption case):
// lend1{N=5, LL=2}, lend2{N=3, LL=1}; lend2 borrows with lend2-low(5, p0). lend1 asks 7 with
// borrowWithinCohort: with the lending limits the cohort offers lend1 at most 3 + 3 = 6, so
// even reclaiming everything cannot fit 7; without lending limits (S(cohort) = 8) it can.
TEST(PreemptionTest, LendingLimitsBoundWhatReclaimFrees) {
  for (bool limits : {true, false}) {
    SCOPED_TRACE(limits ? "with lending limits" : "without");
    World w;
    w.AddCq("lend1", "cohort-lend", limits ? Cpu(5, std::nullopt, 2) : Cpu(5),
            Policy(P::kLowerPriority, P::kLowerPriority, P::kLowerPriority));
    w.AddCq("lend2", "cohort-lend", limits ? Cpu(3, std::nullopt, 1) : Cpu(3),
            Policy(P::kLowerPriority, P::kLowerPriority));
    w.Build();
    w.Admit("lend2-low", "lend2", 5, 0);
    WorkloadId in = w.Pending("in", "lend1", 7, 5);
    OracleResult r = w.Oracle(in, 7);
    EXPECT_EQ(w.Candidates(), (Names{"lend2-low"}));
    if (limits) {
      EXPECT_EQ(r.mode, PreemptionMode::kNoCandidates);
    } else {
      EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
      EXPECT_EQ(r.borrow, 1);
    }
  }
}

// Three levels: R <- P1{A, B}, P2{C, D}, P3{E, F}, all CQs N=4. C borrows 8 (P2 above its quota,
// D within its own); E borrows 2 from its sibling F (E above nominal, but P3 within quota). From
// A, reclaiming searches only P2's subtree and there only C: d1 and e1 are no candidates
// although they are as low and newer.
TEST(PreemptionTest, ThreeLevelsSearchOnlySubtreesAboveQuota) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("P1", "R");
  w.AddCohort("P2", "R");
  w.AddCohort("P3", "R");
  w.AddCq("A", "P1", Cpu(4), Policy(P::kNever, P::kAny));
  w.AddCq("B", "P1", Cpu(4));
  w.AddCq("C", "P2", Cpu(4));
  w.AddCq("D", "P2", Cpu(4));
  w.AddCq("E", "P3", Cpu(4));
  w.AddCq("F", "P3", Cpu(4));
  w.Build();
  w.Admit("c1", "C", 12, 0, Opt().ReservedAt(100));
  w.Admit("d1", "D", 2, 0, Opt().ReservedAt(300));  // D is within its quota: not searched
  w.Admit("e1", "E", 6, 0, Opt().ReservedAt(200));
  WorkloadId in = w.Pending("in", "A", 6, 5);
  // A asks 6 > N=4, but 6 fits in P1's quota: hierarchical advantage at R's level.
  EXPECT_EQ(w.Targets(in), (Names{"c1:InCohortReclamation"}));
  EXPECT_EQ(w.Candidates(), (Names{"c1"}));
  OracleResult r = w.Oracle(in, 6);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  EXPECT_EQ(r.borrow, 1);  // fits within P1 (height 1)
}

// The preemptor's non-lendable quota counts towards hierarchical advantage: R <- P{A{N=4, LL=2},
// B{N=4}}, Q{C{N=4}, D{N=4}}. A asks 6: 2 come from its local quota, the remaining 4 fit in
// P's quota (S(P) = 2 + 4 = 6, B uses 2), so c1 in Q is reclaimable by hierarchy even though A
// borrows. Without the advantage c1 would be ReclaimWithoutBorrowing, out of reach for a
// borrowing preemptor.
TEST(PreemptionTest, LocalQuotaCountsTowardsHierarchicalAdvantage) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("P", "R");
  w.AddCohort("Q", "R");
  w.AddCq("A", "P", Cpu(4, std::nullopt, 2), Policy(P::kNever, P::kAny));
  w.AddCq("B", "P", Cpu(4));
  w.AddCq("C", "Q", Cpu(4));
  w.AddCq("D", "Q", Cpu(4));
  w.Build();
  w.Admit("b0", "B", 2, 9);
  w.Admit("c1", "C", 10, 0);
  WorkloadId in = w.Pending("in", "A", 6, 5);
  EXPECT_EQ(w.Targets(in), (Names{"c1:InCohortReclamation"}));
  OracleResult r = w.Oracle(in, 6);
  EXPECT_EQ(r.mode, PreemptionMode::kReclaim);
  EXPECT_EQ(r.borrow, 1);
}

// Validity also re-checks the candidate's ancestors below the LCA: R <- A{N=6}, Q{C{N=2},
// D{N=6}}, E{N=2}. C borrows inside Q with c1(3) and c2(3); d1, e1 and a0 are out of reach
// (priority 9). After c1 is removed C is still above its quota but Q no longer is, so c2 is not
// reclaimable, and c1 alone frees too little (E's borrowing still weighs on R).
TEST(PreemptionTest, CandidateInvalidatedWhenAnAncestorFallsWithinQuota) {
  World w;
  w.AddCohort("R", "");
  w.AddCohort("Q", "R");
  w.AddCq("A", "R", Cpu(6), Policy(P::kNever, P::kLowerPriority));
  w.AddCq("C", "Q", Cpu(2));
  w.AddCq("D", "Q", Cpu(6));
  w.AddCq("E", "R", Cpu(2));
  w.Build();
  w.Admit("a0", "A", 4, 9);
  w.Admit("c1", "C", 3, 0);
  w.Admit("c2", "C", 3, 1);
  w.Admit("d1", "D", 4, 9);
  w.Admit("e1", "E", 4, 9);
  WorkloadId in = w.Pending("in", "A", 2, 5);
  EXPECT_EQ(w.Targets(in), Names{});
  EXPECT_EQ(w.Candidates(), (Names{"c1", "c2"}));
}

// A candidate becomes invalid when earlier removals bring its CQ back within quota (§7.3).
// C <- A{N=10}, B{N=4}, D{N=4}. D borrows 2 with d1, which A may not reclaim (higher priority);
// B borrows 2 with b1(3) and b2(3). Once b1 is gone B is within quota, so b2 cannot be
// reclaimed, and b1 alone frees too little: no targets (removing b2 too would have fitted).
TEST(PreemptionTest, CandidateInvalidatedBySimulatedRemovals) {
  World w;
  w.AddCq("A", "C", Cpu(10), Policy(P::kNever, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(4));
  w.AddCq("D", "C", Cpu(4));
  w.Build();
  w.Admit("a0", "A", 6, 9);
  w.Admit("d1", "D", 6, 9);
  w.Admit("b1", "B", 3, 0);
  w.Admit("b2", "B", 3, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), Names{});
  EXPECT_EQ(w.Candidates(), (Names{"b1", "b2"}));
}

// Attempt list: borrowWithinCohort forbidden, the preemptor under nominal and only priority
// (non-hierarchical) candidates -> [no-borrow, borrow]. b1 is ReclaimWithoutBorrowing: valid only
// in the no-borrow attempt, where A must also give up a1 to stay within N=4.
TEST(PreemptionTest, NoBorrowAttemptReclaimsWithoutBorrowingCandidates) {
  World w;
  w.AddCq("A", "C", Cpu(4), Policy(P::kLowerPriority, P::kLowerPriority));
  w.AddCq("B", "C", Cpu(10));
  w.Build();
  w.Admit("a1", "A", 2, 0);
  w.Admit("b1", "B", 12, 1);
  WorkloadId in = w.Pending("in", "A", 4, 5);
  EXPECT_EQ(w.Targets(in), (Names{"a1:InClusterQueue", "b1:InCohortReclamation"}));
  OracleResult r = w.Oracle(in, 4);
  EXPECT_EQ(r.mode, PreemptionMode::kPreempt);
  EXPECT_EQ(r.borrow, 0);
}

// CandidatesOrdering: evicting first; other CQs before the own CQ; lower priority first; more
// recent reservation first (missing = now); uid.
TEST(PreemptionTest, CandidatesOrdering) {
  World w;
  w.AddCq("self", "C", Cpu(10), Policy(P::kLowerPriority, P::kAny));
  w.AddCq("other", "C", Cpu(1));
  w.Build();
  w.Admit("high", "self", 1, 10, Opt().ReservedAt(100));
  WorkloadId ev = w.Admit("ev", "self", 1, 10, Opt().ReservedAt(100));
  w.Admit("old", "self", 1, 0, Opt().ReservedAt(50).Uid("z-old"));
  w.Admit("tie", "self", 1, 0, Opt().ReservedAt(50).Uid("a-tie"));
  w.Admit("current", "self", 1, 0, Opt().ReservedAt(150));
  w.Admit("nocond", "self", 1, 0, Opt().ReservedAt(std::nullopt));
  w.Admit("low", "self", 1, -10, Opt().ReservedAt(100));
  w.Admit("other-wl", "other", 2, 10, Opt().ReservedAt(100));
  WorkloadId in = w.Pending("in", "self", 10, 100);
  std::vector<WorkloadId> evicting = {ev};
  w.preemptor().SetEvicting(evicting);
  w.Targets(in);
  EXPECT_EQ(w.Candidates(),
            (Names{"ev", "other-wl", "low", "nocond", "current", "tie", "old", "high"}));
}

// Equal priority and reservation time: the smaller uid goes first, whatever the insertion order
// or the name.
TEST(PreemptionTest, OrderingTiesBrokenByUid) {
  World w;
  w.AddCq("A", "", Cpu(2), Policy(P::kLowerPriority));
  w.Build();
  w.Admit("x", "A", 1, 0, Opt().Uid("uid-b"));
  w.Admit("y", "A", 1, 0, Opt().Uid("uid-a"));
  WorkloadId in = w.Pending("in", "A", 1, 5);
  EXPECT_EQ(w.Targets(in), (Names{"y:InClusterQueue"}));
  EXPECT_EQ(w.Candidates(), (Names{"y", "x"}));
}

// Inactive ClusterQueues are absent from Kueue's snapshot: their workloads are no candidates,
// though their usage still counts.
TEST(PreemptionTest, InactiveClusterQueueWorkloadsAreNoCandidates) {
  for (bool stopped : {false, true}) {
    SCOPED_TRACE(stopped ? "stopped" : "active");
    World w;
    w.AddCq("A", "C", Cpu(10), Policy(P::kNever, P::kAny));
    w.AddCq("B", "C", Cpu(10));
    if (stopped) {
      w.CqSpec("B").stop_policy = StopPolicy::kHold;
    }
    w.Build();
    w.Admit("b1", "B", 16, 0);
    WorkloadId in = w.Pending("in", "A", 8, 5);
    EXPECT_EQ(w.Targets(in), stopped ? Names{} : (Names{"b1:InCohortReclamation"}));
  }
}

// Simulations edit the tree in place: afterwards every node's usage (and generation) is exactly
// what it was, after the assigner's oracle calls, GetTargets and direct oracle calls, whether
// targets were found or not.
TEST(PreemptionTest, TreeRestoredExactly) {
  World w;
  w.AddFlavor("f1");
  w.AddFlavor("f2");
  w.AddCohort("R", "");
  w.AddCohort("P1", "R");
  w.AddCohort("P2", "R");
  w.AddCq("A", "P1", {{"f1", Cpu(4, 2, 1)}, {"f2", Cpu(4, std::nullopt, 2)}},
          Policy(P::kLowerPriority, P::kAny, P::kLowerPriority));
  w.AddCq("B", "P1", {{"f1", Cpu(4, std::nullopt, 3)}, {"f2", Cpu(4)}});
  w.AddCq("C", "P2", {{"f1", Cpu(6)}, {"f2", Cpu(2, std::nullopt, 1)}});
  w.Build();
  w.Admit("a1", "A", 3, 0, Opt().Flavor("f1"));
  w.Admit("a2", "A", 2, 1, Opt().Flavor("f2"));
  w.Admit("b1", "B", 6, 0, Opt().Flavor("f1"));
  w.Admit("b2", "B", 3, 2, Opt().Flavor("f2"));
  w.Admit("c1", "C", 5, 0, Opt().Flavor("f2"));
  w.Admit("c2", "C", 8, 1, Opt().Flavor("f1"));
  WorkloadId in = w.Pending("in", "A", 5, 3);

  const ResourceTree& tree = w.cluster().tree();
  auto state = [&] {
    std::vector<int64_t> s;
    for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
      NodeId node = MakeId<NodeId>(n);
      s.push_back(static_cast<int64_t>(tree.Generation(node)));
      for (uint32_t i = 0; i < tree.num_slots(); ++i) {
        s.push_back(tree.Usage(node, MakeId<FrSlot>(i)).value());
      }
    }
    return s;
  };
  const std::vector<int64_t> before = state();
  Assignment a = w.Assign(in);
  EXPECT_EQ(state(), before);
  std::vector<PreemptionTarget> targets = w.preemptor().GetTargets(w.Get(in), w.Cq("A"), a);
  EXPECT_FALSE(targets.empty());
  EXPECT_EQ(state(), before);
  for (const char* flavor : {"f1", "f2"}) {
    for (int64_t cores : {1, 5, 9, 40}) {
      w.Oracle(in, cores, flavor);
      EXPECT_EQ(state(), before) << flavor << " " << cores;
    }
  }
}

// The comparator alone (§7.2 CandidatesOrdering), key by key.
TEST(PreemptionOrderingTest, CandidateBefore) {
  using internal::Candidate;
  using internal::CandidateBefore;
  const std::string uid_a = "a";
  const std::string uid_b = "b";
  Candidate base;
  base.uid = &uid_b;
  base.priority = 5;
  base.reserved_at = 100;
  base.own_cq = true;
  auto with = [&](auto f) {
    Candidate c = base;
    f(c);
    c.SetOrderKey();  // as the collector does once the fields are set
    return c;
  };
  // Extremes of each packed field must not spill into the next one.
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) {
                                c.own_cq = false;
                                c.priority = INT32_MAX;
                              }),
                              with([](Candidate& c) {
                                c.own_cq = true;
                                c.priority = INT32_MIN;
                              })));
  EXPECT_FALSE(CandidateBefore(with([](Candidate& c) {
                                 c.priority = INT32_MAX;
                                 c.own_cq = false;
                               }),
                               with([](Candidate& c) {
                                 c.own_cq = false;
                                 c.priority = INT32_MIN;
                               })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) {
                                c.priority = -1;
                                c.reserved_at = 0;
                              }),
                              with([](Candidate& c) {
                                c.priority = 0;
                                c.reserved_at = INT64_MAX;
                              })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.reserved_at = INT64_MAX; }),
                              with([](Candidate& c) { c.reserved_at = -1; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.evicting = true; }),
                              with([](Candidate& c) { c.priority = -100; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.own_cq = false; }),
                              with([](Candidate& c) { c.priority = -100; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.priority = 4; }),
                              with([](Candidate& c) { c.reserved_at = 900; })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) { c.reserved_at = 101; }),
                              with([&](Candidate& c) { c.uid = &uid_a; })));
  EXPECT_TRUE(CandidateBefore(with([&](Candidate& c) { c.uid = &uid_a; }),
                              with([](Candidate& c) { c.workload = MakeId<WorkloadId>(0); })));
  EXPECT_TRUE(CandidateBefore(with([](Candidate& c) {
                                c.evicting = true;
                                c.own_cq = true;
                              }),
                              with([](Candidate& c) {
                                c.own_cq = false;
                                c.priority = INT32_MIN;
                              })));
  Candidate first = with([](Candidate& c) { c.workload = MakeId<WorkloadId>(1); });
  Candidate second = with([](Candidate& c) { c.workload = MakeId<WorkloadId>(2); });
  EXPECT_TRUE(CandidateBefore(first, second));
  EXPECT_FALSE(CandidateBefore(second, first));
  EXPECT_FALSE(CandidateBefore(first, first));
}

TEST(PreemptionPolicyTest, SatisfiesPreemptionPolicy) {
  using internal::SatisfiesPreemptionPolicy;
  EXPECT_FALSE(SatisfiesPreemptionPolicy(P::kNever, 5, 0, 1, 10));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kAny, 1, 10, 5, 0));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kLowerPriority, 5, 10, 4, 0));
  EXPECT_FALSE(SatisfiesPreemptionPolicy(P::kLowerPriority, 5, 0, 5, 10));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kLowerOrNewerEqualPriority, 5, 0, 5, 10));
  EXPECT_FALSE(SatisfiesPreemptionPolicy(P::kLowerOrNewerEqualPriority, 5, 10, 5, 10));
  EXPECT_TRUE(SatisfiesPreemptionPolicy(P::kLowerOrNewerEqualPriority, 5, 20, 4, 10));
}

}  // namespace
}  // namespace engine
