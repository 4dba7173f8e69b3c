// Google Benchmark (issue 21): the preemption target search and the nomination on a
// ClusterQueue holding 10,000 admitted workloads, and a full scheduling cycle on a 1,000-CQ,
// 5-level cohort tree, each with the bound that rejects hopeless searches on and off
// (Preemptor::SetBoundCheck, SchedulerOptions::preemption_bound; the `bound` argument: 1 = kOn,
// 0 = kOff). The bound is O(depth) in the tree plus one pass over the preemptor's ClusterQueue's
// admitted workloads (Preemptor::OwnPreemptible): 10,000 of them here.
//
// The 10,000-workload fixture: cohort `org` -> `team` -> ClusterQueues `big` and `sib-0..3`, one
// flavor, cpu only, no lending or borrowing limits.
//   big      nominal 12,000 cores; 10,000 admitted 1-core workloads, priorities 0-9;
//            withinClusterQueue LowerPriority, reclaimWithinCohort Any, borrowWithinCohort Never
//   sib-k    nominal 100 cores; 150 admitted 4-core workloads (600 cores: 500 borrowed from big's
//            unused quota), priorities 0-9
// The cohort is full (12,400 of 12,400 cores used). Pending preemptors in `big`, priority 5, so
// that the own workloads of priority 0-4 (`own` cores, ~5,000) and the siblings' 2,000 borrowed
// cores may go:
//   Found_Reclaim   40 cores: 10 sibling workloads reclaimed (InCohortReclamation)
//   Found_Mixed     2,100 cores: 500 sibling workloads + 100 own (InClusterQueue)
//   Hopeless        own + 3,000 cores: no target set; the bound rejects it
//   BoundMisses     own + 2,008 cores: no target set, but the bound (own + 2,016: it allows each
//                   sibling its largest charge, 4 cores, below its quota) cannot prove it
// Every case is checked once, before any timing (Fixture::Check): the bound's value, the expected
// targets and reasons, bound on / off / kVerify giving the same targets with no unsound rejection,
// the oracle and Scheduler::Evaluate agreeing, the tree left as it was. A failed check makes every
// benchmark of the fixture an error instead of a number.
//
//   build/release/bench/preemption_bench --benchmark_min_time=0.2
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/cohort_tree_fixture.h"
#include "engine/base/ids.h"
#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/flavor_assigner.h"
#include "engine/pod_requests.h"
#include "engine/preemption.h"
#include "engine/queue_manager.h"
#include "engine/resource_tree.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

constexpr int64_t kMilli = 1000;  // cpu is counted in milli-units
constexpr TimeMicros kNow = 1'000'000'000;
constexpr int kOwnWorkloads = 10'000;
constexpr int64_t kBigNominal = 12'000;
constexpr int kSiblings = 4;
constexpr int64_t kSiblingNominal = 100;
constexpr int kSiblingWorkloads = 150;
constexpr int64_t kSiblingWorkloadCores = 4;
constexpr int32_t kPreemptorPriority = 5;
// What the siblings borrow: exactly big's unused nominal quota, so the cohort is full.
constexpr int64_t kBorrowed =
    kSiblings * (kSiblingWorkloads * kSiblingWorkloadCores - kSiblingNominal);
static_assert(kBorrowed == kBigNominal - kOwnWorkloads);

enum Scenario : size_t { kFoundReclaim, kFoundMixed, kHopeless, kBoundMisses, kNumScenarios };

PreemptionBoundCheck BoundArg(const benchmark::State& state) {
  return state.range(0) != 0 ? PreemptionBoundCheck::kOn : PreemptionBoundCheck::kOff;
}

// Per-iteration averages of what the searches did, and items = one search / nomination / head.
void ReportSearches(benchmark::State& state, const PreemptionSearchStats& s) {
  using C = benchmark::Counter;
  state.counters["searches"] = C(static_cast<double>(s.searches), C::kAvgIterations);
  state.counters["candidates"] = C(static_cast<double>(s.candidates), C::kAvgIterations);
  state.counters["found"] = C(static_cast<double>(s.found), C::kAvgIterations);
  state.counters["rejected_by_bound"] =
      C(static_cast<double>(s.rejected_by_bound), C::kAvgIterations);
}

PreemptionSearchStats Minus(const PreemptionSearchStats& a, const PreemptionSearchStats& b) {
  return {a.searches - b.searches, a.rejected_by_bound - b.rejected_by_bound,
          a.candidates - b.candidates, a.found - b.found, a.bound_unsound - b.bound_unsound};
}

// ------------------------------------------------------------ 10,000 admitted workloads

class Fixture {
 public:
  struct Case {
    const char* name = "";
    WorkloadId preemptor{};
    Assignment assignment;  // AssignFlavors' (mode kPreempt), computed with the bound off
    size_t want_targets = 0;
    size_t want_own = 0;  // of which InClusterQueue
  };

  Fixture() : store_(cluster_) {
    Build();
    error_ = Check();
  }

  Cluster& cluster() { return cluster_; }
  WorkloadStore& store() { return store_; }
  CqId big() const { return big_; }
  FrSlot slot() const { return slot_; }
  const Case& Get(Scenario s) const { return cases_[s]; }
  const std::string& error() const { return error_; }

  std::unique_ptr<Preemptor> MakePreemptor(PreemptionBoundCheck mode) {
    auto p = std::make_unique<Preemptor>(cluster_, cluster_.mutable_tree(), store_, kNow);
    p->SetEvicting(store_.Evicting());
    p->SetBoundCheck(mode);
    return p;
  }

 private:
  static void AddCq(ClusterSpec& spec, const std::string& name, int64_t cores,
                    PreemptionSpec preemption) {
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = name;
    cq.cohort = "team";
    cq.preemption = preemption;
    cq.namespace_selector.is_null = false;  // {}: every namespace
    ResourceGroupSpec& g = cq.resource_groups.emplace_back();
    g.covered_resources = {"cpu"};
    FlavorQuotasSpec& f = g.flavors.emplace_back();
    f.flavor = "default";
    ResourceQuotaSpec& q = f.resources.emplace_back();
    q.resource = "cpu";
    q.nominal = Quantity(cores * kMilli);
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = name;
    lq.cluster_queue = name;
  }

  static WorkloadSpec Pending(const std::string& name, const std::string& cq, int64_t cores,
                              int32_t priority, TimeMicros created) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = name;
    w.creation_time = created;
    w.queue_name = cq;
    w.priority = priority;
    PodSetSpec& ps = w.pod_sets.emplace_back();
    ps.name = "main";
    ps.count = 1;
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity(std::to_string(cores)));
    return w;
  }

  static WorkloadSpec Admitted(const std::string& name, const std::string& cq, int64_t cores,
                               int32_t priority, TimeMicros reserved_at) {
    WorkloadSpec w = Pending(name, cq, cores, priority, reserved_at - 1'000);
    AdmissionSpec& a = w.admission.emplace();
    a.cluster_queue = cq;
    PodSetAssignmentSpec& psa = a.pod_set_assignments.emplace_back();
    psa.name = "main";
    psa.count = 1;
    psa.flavors["cpu"] = "default";
    psa.resource_usage["cpu"] = Quantity(cores * kMilli);
    w.conditions.Mutable().push_back({"QuotaReserved", true, "QuotaReserved", reserved_at});
    return w;
  }

  WorkloadId Add(WorkloadSpec w) {
    StatusOr<WorkloadId> id = store_.Add(std::move(w));
    if (!id.ok()) {
      error_ = "fixture workload rejected";
      return {};
    }
    return *id;
  }

  void Build() {
    ClusterSpec spec;
    spec.flavors.emplace_back().name = "default";
    spec.cohorts.emplace_back().name = "org";
    CohortSpec& team = spec.cohorts.emplace_back();
    team.name = "team";
    team.parent = "org";
    PreemptionSpec big;
    big.within_cluster_queue = PreemptionPolicy::kLowerPriority;
    big.reclaim_within_cohort = PreemptionPolicy::kAny;
    AddCq(spec, "big", kBigNominal, big);
    for (int k = 0; k < kSiblings; ++k) {
      AddCq(spec, fmt::format("sib-{}", k), kSiblingNominal, {});
    }
    cluster_.Apply(spec);

    std::mt19937_64 rng(21);
    int64_t& own = own_;
    for (int i = 0; i < kOwnWorkloads; ++i) {
      const auto priority = static_cast<int32_t>(rng() % 10);
      own += priority < kPreemptorPriority ? 1 : 0;
      Add(Admitted(fmt::format("big-{}", i), "big", 1, priority, 1'000'000 + i * 10));
    }
    for (int k = 0; k < kSiblings; ++k) {
      for (int i = 0; i < kSiblingWorkloads; ++i) {
        Add(Admitted(fmt::format("sib-{}-{}", k, i), fmt::format("sib-{}", k),
                     kSiblingWorkloadCores, static_cast<int32_t>(rng() % 10),
                     1'000'005 + (k * kSiblingWorkloads + i) * 10));
      }
    }
    cluster_.Refresh();
    big_ = *cluster_.FindClusterQueue("big");
    slot_ = *cluster_.FindSlot("default", "cpu");

    const std::array<int64_t, kNumScenarios> cores = {40, kBorrowed + 100, own + kBorrowed + 3'000,
                                                      own + kBorrowed + 8};
    const std::array<const char*, kNumScenarios> names = {"Found_Reclaim", "Found_Mixed",
                                                          "Hopeless", "BoundMisses"};
    // Sibling workloads are reclaimed first (other ClusterQueues before the own one), then own
    // ones of the lowest priority; each sibling gives up its borrowed 500 cores exactly.
    cases_[kFoundReclaim].want_targets = 40 / kSiblingWorkloadCores;
    cases_[kFoundMixed].want_targets = kBorrowed / kSiblingWorkloadCores + 100;
    cases_[kFoundMixed].want_own = 100;
    std::unique_ptr<Preemptor> oracle = MakePreemptor(PreemptionBoundCheck::kOff);
    for (size_t s = 0; s < kNumScenarios; ++s) {
      Case& c = cases_[s];
      c.name = names[s];
      c.preemptor = Add(Pending(fmt::format("preemptor-{}", s), "big", cores[s], kPreemptorPriority,
                                kNow - 1'000 + static_cast<TimeMicros>(s)));
      AssignRequest req;
      req.workload = &store_.Get(c.preemptor);
      req.cq = big_;
      req.cluster = &cluster_;
      req.tree = &cluster_.tree();
      c.assignment = AssignFlavors(req, oracle.get());
    }
  }

  static std::string Describe(const std::vector<PreemptionTarget>& t) {
    return fmt::format("{} targets", t.size());
  }

  // Empty when every case gives what the fixture was built for.
  std::string Check() {
    if (!error_.empty()) {
      return error_;
    }
    const NodeId node = cluster_.ClusterQueueNode(big_);
    const Quantity usage_before = cluster_.tree().Usage(node, slot_);
    if (cluster_.tree().Available(node, slot_) != Quantity::Zero()) {
      return "the cohort is not full";
    }
    const Quantity bound = cluster_.tree().AvailableAfterReclaim(
        node, slot_, Quantity(own_ * kMilli), ResourceTree::ReclaimScope::kCohortOneSlot);
    const int64_t want_bound = own_ + kBorrowed + kSiblings * kSiblingWorkloadCores;
    if (bound != Quantity(want_bound * kMilli)) {
      return fmt::format("the bound is {} milli-cores, want {} cores", bound.value(), want_bound);
    }
    for (size_t s = 0; s < kNumScenarios; ++s) {
      const Case& c = cases_[s];
      const Workload& w = store_.Get(c.preemptor);
      if (c.assignment.Mode() != AssignmentMode::kPreempt) {
        return fmt::format("{}: assignment mode {}, want Preempt", c.name,
                           ToString(c.assignment.Mode()));
      }
      std::array<std::vector<PreemptionTarget>, 3> targets;
      std::array<PreemptionSearchStats, 3> stats;
      const std::array<PreemptionBoundCheck, 3> modes = {
          PreemptionBoundCheck::kOn, PreemptionBoundCheck::kOff, PreemptionBoundCheck::kVerify};
      for (size_t m = 0; m < modes.size(); ++m) {
        std::unique_ptr<Preemptor> p = MakePreemptor(modes[m]);
        targets[m] = p->GetTargets(w, big_, c.assignment);
        stats[m] = p->stats();
      }
      for (size_t m = 1; m < modes.size(); ++m) {
        bool same = targets[m].size() == targets[0].size();
        for (size_t i = 0; same && i < targets[m].size(); ++i) {
          same = targets[m][i].workload == targets[0][i].workload
                 && targets[m][i].reason == targets[0][i].reason;
        }
        if (!same) {
          return fmt::format("{}: bound on and {} give different targets ({} vs {})", c.name,
                             m == 1 ? "off" : "verify", Describe(targets[0]), Describe(targets[m]));
        }
      }
      if (stats[2].bound_unsound != 0) {
        return fmt::format("{}: the bound rejected a search that finds targets", c.name);
      }
      size_t own = 0;
      for (const PreemptionTarget& t : targets[0]) {
        own += t.reason == PreemptionReason::kInClusterQueue ? 1 : 0;
      }
      if (targets[0].size() != c.want_targets || own != c.want_own) {
        return fmt::format("{}: {} targets ({} InClusterQueue), want {} ({})", c.name,
                           targets[0].size(), own, c.want_targets, c.want_own);
      }
      const bool want_rejected = s == kHopeless;
      if ((stats[0].rejected_by_bound == 1) != want_rejected || stats[1].candidates == 0) {
        return fmt::format("{}: rejected_by_bound {} with the bound on, candidates {} off", c.name,
                           stats[0].rejected_by_bound, stats[1].candidates);
      }
      // The oracle (one slot, the whole request) agrees with both settings.
      const Quantity amount = c.assignment.usage.front().amount;
      OracleResult on =
          MakePreemptor(PreemptionBoundCheck::kOn)->SimulatePreemption(w, big_, slot_, amount);
      OracleResult off =
          MakePreemptor(PreemptionBoundCheck::kOff)->SimulatePreemption(w, big_, slot_, amount);
      const bool found = c.want_targets > 0;
      if (on.mode != off.mode || on.borrow != off.borrow
          || (on.mode != PreemptionMode::kNoCandidates) != found) {
        return fmt::format("{}: oracle says {} with the bound on, {} off", c.name,
                           ToString(on.mode), ToString(off.mode));
      }
      // Scheduler::Evaluate: same entry whatever the bound.
      std::array<CycleEntry, 2> entries;
      for (size_t m = 0; m < 2; ++m) {
        SchedulerOptions o;
        o.preemption_bound = modes[m];
        QueueManager queues(cluster_, store_);
        Scheduler scheduler(cluster_, store_, queues, o);
        entries[m] = scheduler.Evaluate(c.preemptor, kNow);
      }
      if (entries[0].targets.size() != c.want_targets || entries[1].targets.size() != c.want_targets
          || entries[0].message != entries[1].message
          || entries[0].assignment.Mode() != entries[1].assignment.Mode()) {
        return fmt::format("{}: Evaluate gives {} / {} targets with the bound on / off", c.name,
                           entries[0].targets.size(), entries[1].targets.size());
      }
    }
    if (cluster_.tree().Usage(node, slot_) != usage_before) {
      return "a search left usage behind";
    }
    return "";
  }

  Cluster cluster_;
  WorkloadStore store_;
  CqId big_{};
  FrSlot slot_{};
  int64_t own_ = 0;  // cores of big's workloads below the preemptors' priority
  std::array<Case, kNumScenarios> cases_;
  std::string error_;
};

Fixture& TheFixture() {
  static Fixture f;
  return f;
}

// Timed: Preemptor::GetTargets for the case's preemptor and assignment, one search per iteration,
// on a Preemptor made once (its scratch vectors stay warm, as within a scheduling cycle).
void RunGetTargets(benchmark::State& state, Scenario s) {
  Fixture& f = TheFixture();
  if (!f.error().empty()) {
    state.SkipWithError(f.error().c_str());
    return;
  }
  const Fixture::Case& c = f.Get(s);
  const Workload& w = f.store().Get(c.preemptor);
  std::unique_ptr<Preemptor> p = f.MakePreemptor(BoundArg(state));
  size_t targets = 0;
  for (auto _ : state) {
    std::vector<PreemptionTarget> t = p->GetTargets(w, f.big(), c.assignment);
    targets = t.size();
    benchmark::DoNotOptimize(t.data());
  }
  if (targets != c.want_targets) {
    state.SkipWithError("unexpected number of targets");
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["targets"] = static_cast<double>(targets);
  ReportSearches(state, p->stats());
}

void BM_Preemption_Search_Found_Reclaim(benchmark::State& state) {
  RunGetTargets(state, kFoundReclaim);
}
void BM_Preemption_Search_Found_Mixed(benchmark::State& state) {
  RunGetTargets(state, kFoundMixed);
}
void BM_Preemption_Search_Hopeless_GetTargets(benchmark::State& state) {
  RunGetTargets(state, kHopeless);
}
void BM_Preemption_Search_BoundMisses(benchmark::State& state) {
  RunGetTargets(state, kBoundMisses);
}

// Timed: Preemptor::SimulatePreemption (the flavor assigner's oracle) for the hopeless request.
void BM_Preemption_Search_Hopeless_Oracle(benchmark::State& state) {
  Fixture& f = TheFixture();
  if (!f.error().empty()) {
    state.SkipWithError(f.error().c_str());
    return;
  }
  const Fixture::Case& c = f.Get(kHopeless);
  const Workload& w = f.store().Get(c.preemptor);
  const Quantity amount = c.assignment.usage.front().amount;
  std::unique_ptr<Preemptor> p = f.MakePreemptor(BoundArg(state));
  OracleResult r;
  for (auto _ : state) {
    r = p->SimulatePreemption(w, f.big(), f.slot(), amount);
    benchmark::DoNotOptimize(r);
  }
  if (r.mode != PreemptionMode::kNoCandidates) {
    state.SkipWithError("the hopeless request found candidates");
  }
  state.SetItemsProcessed(state.iterations());
  ReportSearches(state, p->stats());
}

// Timed: Scheduler::Evaluate of the case's preemptor (flavor assignment with its oracle what-if,
// then GetTargets: two searches per nomination), no side effects on the fixture.
void RunNomination(benchmark::State& state, Scenario s) {
  Fixture& f = TheFixture();
  if (!f.error().empty()) {
    state.SkipWithError(f.error().c_str());
    return;
  }
  const Fixture::Case& c = f.Get(s);
  SchedulerOptions o;
  o.preemption_bound = BoundArg(state);
  QueueManager queues(f.cluster(), f.store());
  Scheduler scheduler(f.cluster(), f.store(), queues, o);
  size_t targets = 0;
  for (auto _ : state) {
    CycleEntry e = scheduler.Evaluate(c.preemptor, kNow);
    targets = e.targets.size();
    benchmark::DoNotOptimize(e);
  }
  if (targets != c.want_targets) {
    state.SkipWithError("unexpected number of targets");
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["targets"] = static_cast<double>(targets);
  ReportSearches(state, scheduler.preemption_stats());
}

void BM_Nomination_Found_Reclaim(benchmark::State& state) {
  RunNomination(state, kFoundReclaim);
}
void BM_Nomination_Hopeless(benchmark::State& state) {
  RunNomination(state, kHopeless);
}

// ------------------------------------------------------------ 1,000 ClusterQueues, 5 levels

const ClusterSpec& TreeSpec() {
  static const ClusterSpec spec = tally_bench::MakeCohortTreeCluster(10, 42);
  return spec;
}

// The decisions of a cycle, hashed (FNV-1a): entries in processing order with outcome, reason,
// mode, borrowing and targets, then the evictions.
uint64_t Digest(const CycleResult& r) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](uint64_t v) {
    h ^= v;
    h *= 1099511628211ULL;
  };
  for (const CycleEntry& e : r.entries) {
    mix(Index(e.workload));
    mix(static_cast<uint64_t>(e.outcome));
    mix(static_cast<uint64_t>(e.reason));
    mix(static_cast<uint64_t>(e.assignment.Mode()));
    mix(static_cast<uint64_t>(e.assignment.borrowing));
    for (const PreemptionTarget& t : e.targets) {
      mix(Index(t.workload));
      mix(static_cast<uint64_t>(t.reason));
    }
  }
  for (const Eviction& e : r.evictions) {
    mix(Index(e.victim));
    mix(Index(e.preemptor));
  }
  return h;
}

constexpr int kWarmCycles = 3;  // quota partly used afterwards: borrowing and preemption paths

struct CycleReference {
  uint64_t digest = 0;  // of the timed (4th) cycle, the same with the bound on and off
  std::string error;
};

// Runs the first 4 cycles with the bound on and off, once: every cycle must decide the same, and
// the 4th must have heads and preemption searches.
const CycleReference& Reference() {
  static const CycleReference ref = [] {
    CycleReference r;
    std::array<std::vector<uint64_t>, 2> digests;
    PreemptionSearchStats last_on;
    for (size_t m = 0; m < 2; ++m) {
      SchedulerOptions o;
      o.preemption_bound = m == 0 ? PreemptionBoundCheck::kOn : PreemptionBoundCheck::kOff;
      tally_bench::CohortTreeEngine e(TreeSpec(), SIZE_MAX, o);
      for (int cycle = 0; cycle <= kWarmCycles; ++cycle) {
        const PreemptionSearchStats before = e.scheduler.preemption_stats();
        CycleResult result = e.scheduler.RunCycle(0);
        digests[m].push_back(Digest(result));
        if (cycle == kWarmCycles && result.entries.empty()) {
          r.error = "the timed cycle has no heads";
        }
        if (m == 0) {
          last_on = Minus(e.scheduler.preemption_stats(), before);
        }
      }
    }
    if (digests[0] != digests[1]) {
      r.error = "cycles decide differently with the bound on and off";
    }
    if (last_on.searches == 0) {
      r.error = "the timed cycle makes no preemption search";
    }
    r.digest = digests[0].back();
    return r;
  }();
  return ref;
}

// Timed: one Scheduler::RunCycle, the 4th cycle of a freshly built engine (1,000 heads nominated
// with their preemption what-ifs, ordered, processed, requeued). Not timed (PauseTiming): building
// the engine (Apply, 10,000 workloads, queue pushes), the 3 warm-up cycles, comparing the cycle's
// decisions with the reference and destroying the engine. A cycle admits and evicts, so the state
// cannot be reused.
void BM_Cycle_1000Cqs_5Levels(benchmark::State& state) {
  const CycleReference& ref = Reference();
  if (!ref.error.empty()) {
    state.SkipWithError(ref.error.c_str());
    return;
  }
  SchedulerOptions o;
  o.preemption_bound = BoundArg(state);
  PreemptionSearchStats stats;
  int64_t entries = 0;
  bool same = true;
  for (auto _ : state) {
    state.PauseTiming();
    auto e = std::make_unique<tally_bench::CohortTreeEngine>(TreeSpec(), SIZE_MAX, o);
    for (int warm = 0; warm < kWarmCycles; ++warm) {
      e->scheduler.RunCycle(0);
    }
    const PreemptionSearchStats before = e->scheduler.preemption_stats();
    state.ResumeTiming();
    CycleResult r = e->scheduler.RunCycle(0);
    state.PauseTiming();
    stats += Minus(e->scheduler.preemption_stats(), before);
    entries += static_cast<int64_t>(r.entries.size());
    same = same && Digest(r) == ref.digest;
    e.reset();
    state.ResumeTiming();
  }
  if (!same) {
    state.SkipWithError("a timed cycle decided differently from the reference");
  }
  state.SetItemsProcessed(entries);  // heads nominated and processed
  state.counters["heads"] =
      benchmark::Counter(static_cast<double>(entries), benchmark::Counter::kAvgIterations);
  ReportSearches(state, stats);
}

// A benchmark's own MinTime wins over --benchmark_min_time: the whole binary takes ~10 s, fixtures
// and checks included.
BENCHMARK(BM_Preemption_Search_Found_Reclaim)->ArgName("bound")->Arg(1)->Arg(0)->MinTime(0.2);
BENCHMARK(BM_Preemption_Search_Found_Mixed)->ArgName("bound")->Arg(1)->Arg(0)->MinTime(0.2);
BENCHMARK(BM_Preemption_Search_Hopeless_GetTargets)->ArgName("bound")->Arg(1)->Arg(0)->MinTime(0.2);
BENCHMARK(BM_Preemption_Search_Hopeless_Oracle)->ArgName("bound")->Arg(1)->Arg(0)->MinTime(0.2);
BENCHMARK(BM_Preemption_Search_BoundMisses)->ArgName("bound")->Arg(1)->Arg(0)->MinTime(0.2);
BENCHMARK(BM_Nomination_Found_Reclaim)->ArgName("bound")->Arg(1)->Arg(0)->MinTime(0.2);
BENCHMARK(BM_Nomination_Hopeless)->ArgName("bound")->Arg(1)->Arg(0)->MinTime(0.2);
BENCHMARK(BM_Cycle_1000Cqs_5Levels)
    ->ArgName("bound")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(8);  // each iteration rebuilds the engine and runs 3 cycles (untimed)

}  // namespace
}  // namespace engine
