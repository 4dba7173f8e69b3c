// Parallel nomination (engine/scheduler.h) against the sequential scheduler as its oracle: two
// engines built from the same random cluster and workloads run the same cycles, one nominating
// every cycle's heads on several threads, the other one by one; every cycle's entries (outcome,
// reason, message, flavors, usage, targets) and evictions must be identical, over cycles that
// admit, borrow, preempt, partially admit and finish workloads.
#include <fmt/format.h>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/base/parallel_loop.h"
#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

// Plain threads (no TBB), so the test runs under ThreadSanitizer with real concurrency.
class ThreadLoop final : public ParallelLoop {
 public:
  explicit ThreadLoop(size_t threads) : threads_(threads) {}
  size_t slots() const override { return threads_; }
  void Run(size_t n, const std::function<void(size_t slot, size_t i)>& fn) override {
    ++runs_;
    std::atomic<size_t> next{0};
    auto work = [&](size_t slot) {
      for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
        fn(slot, i);
      }
    };
    std::vector<std::thread> helpers;
    for (size_t slot = 1; slot < threads_; ++slot) {
      helpers.emplace_back(work, slot);
    }
    work(0);
    for (std::thread& t : helpers) {
      t.join();
    }
  }
  int runs() const { return runs_; }

 private:
  size_t threads_;
  int runs_ = 0;
};

ResourceGroupSpec Group(std::mt19937_64& rng, bool cohort) {
  ResourceGroupSpec g;
  g.covered_resources = {"cpu", "nvidia.com/gpu"};
  std::uniform_int_distribution<int64_t> units(cohort ? 0 : 1, cohort ? 2 : 5);
  std::bernoulli_distribution limited(0.3);
  for (const char* flavor : {"on-demand", "spot"}) {
    FlavorQuotasSpec& fq = g.flavors.emplace_back();
    fq.flavor = flavor;
    for (const char* r : {"cpu", "nvidia.com/gpu"}) {
      ResourceQuotaSpec q;
      q.resource = r;
      q.nominal = Quantity(units(rng) * (std::string_view(r) == "cpu" ? 1000 : 1));
      if (!cohort && limited(rng)) {
        q.borrowing_limit = Quantity(std::string_view(r) == "cpu" ? 2000 : 1);
      }
      fq.resources.push_back(q);
    }
  }
  return g;
}

ClusterSpec RandomCluster(uint64_t seed) {
  std::mt19937_64 rng(seed);
  ClusterSpec spec;
  spec.flavors.emplace_back().name = "on-demand";
  spec.flavors.emplace_back().name = "spot";
  spec.cohorts.emplace_back().name = "root";
  for (int m = 0; m < 3; ++m) {
    CohortSpec& c = spec.cohorts.emplace_back();
    c.name = fmt::format("mid-{}", m);
    c.parent = "root";
    c.resource_groups.push_back(Group(rng, true));
  }
  constexpr PreemptionPolicy kReclaim[] = {
      PreemptionPolicy::kNever, PreemptionPolicy::kLowerPriority, PreemptionPolicy::kAny};
  std::uniform_int_distribution<int> pick(0, 2);
  std::bernoulli_distribution coin(0.5);
  for (int q = 0; q < 24; ++q) {
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = fmt::format("cq-{}", q);
    cq.cohort = fmt::format("mid-{}", q % 3);
    cq.namespace_selector.is_null = false;
    cq.preemption.within_cluster_queue = PreemptionPolicy::kLowerPriority;
    cq.preemption.reclaim_within_cohort = kReclaim[pick(rng)];
    if (coin(rng)) {
      cq.preemption.borrow_within_cohort = PreemptionPolicy::kLowerPriority;
    }
    cq.flavor_fungibility.when_can_borrow =
        coin(rng) ? FungibilityPolicy::kTryNextFlavor : FungibilityPolicy::kMayStopSearch;
    cq.resource_groups.push_back(Group(rng, false));
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = cq.name;
    lq.cluster_queue = cq.name;
  }
  std::uniform_int_distribution<int> cq_of(0, 23);
  std::uniform_int_distribution<int> pods(1, 3);
  std::uniform_int_distribution<int> priority(0, 3);
  std::bernoulli_distribution partial(0.2);
  std::bernoulli_distribution gpu(0.4);
  for (int w = 0; w < 400; ++w) {
    WorkloadSpec& wl = spec.workloads.emplace_back();
    wl.name_space = "ns";
    wl.name = fmt::format("w-{}", w);
    wl.queue_name = fmt::format("cq-{}", cq_of(rng));
    wl.priority = priority(rng);
    wl.creation_time = w * 1'000'000LL;
    PodSetSpec& ps = wl.pod_sets.emplace_back();
    ps.count = pods(rng);
    if (ps.count > 1 && partial(rng)) {
      ps.min_count = 1;
    }
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity("1"));
    if (gpu(rng)) {
      AddTo(c.requests, "nvidia.com/gpu", *ParseDecimalQuantity("1"));
    }
  }
  return spec;
}

struct Engine {
  explicit Engine(const ClusterSpec& spec)
      : store(cluster), queues(cluster, store), scheduler(cluster, store, queues) {
    cluster.Apply(spec);
    for (const WorkloadSpec& w : spec.workloads) {
      ids.push_back(*store.Add(w));
    }
    cluster.Refresh();
  }
  Cluster cluster;
  WorkloadStore store;
  QueueManager queues;
  Scheduler scheduler;
  std::vector<WorkloadId> ids;
};

std::string Describe(const Cluster& cluster, const WorkloadStore& store, const CycleEntry& e) {
  std::string s =
      fmt::format("{} in {}: {} ({}) {:?} partial={} borrowing={}",
                  store.Get(e.workload).spec->name, cluster.Name(e.cq), ToString(e.outcome),
                  static_cast<int>(e.reason), e.message, e.partial, e.assignment.borrowing);
  for (const PodSetAssignment& ps : e.assignment.pod_sets) {
    s += fmt::format(" [{} x{}", ps.name, ps.count);
    for (const FlavorChoice& c : ps.flavors) {
      s += fmt::format(" {}", cluster.Name(c.flavor));
    }
    s += "]";
  }
  for (const SlotAmount& u : e.assignment.usage) {
    s += fmt::format(" {}={}", Index(u.slot), u.amount.value());
  }
  for (const PreemptionTarget& t : e.targets) {
    s += fmt::format(" victim {} ({})", store.Get(t.workload).spec->name, ToString(t.reason));
  }
  return s;
}

std::vector<std::string> Describe(const Engine& e, const CycleResult& r) {
  std::vector<std::string> lines;
  for (const CycleEntry& entry : r.entries) {
    lines.push_back(Describe(e.cluster, e.store, entry));
  }
  for (const Eviction& ev : r.evictions) {
    lines.push_back(fmt::format("evict {} for {}", e.store.Get(ev.victim).spec->name,
                                e.store.Get(ev.preemptor).spec->name));
  }
  return lines;
}

// Arrivals in batches of 40 (the same workloads in both engines), so that queues build up and
// later cycles have many heads.
void ArriveBatch(Engine& a, Engine& b, size_t& arrived) {
  for (size_t end = std::min(arrived + 40, a.ids.size()); arrived < end; ++arrived) {
    a.queues.Push(a.ids[arrived]);
    b.queues.Push(b.ids[arrived]);
  }
}

// Some admitted workloads finish (the same ones in both engines): capacity frees up.
void FinishSome(Engine& a, Engine& b, size_t arrived, TimeMicros now, std::mt19937_64& rng) {
  std::bernoulli_distribution finishes(0.08);
  for (size_t i = 0; i < arrived; ++i) {
    if (a.store.Get(a.ids[i]).quota_reserved && finishes(rng)) {
      a.store.Release(a.ids[i]);
      b.store.Release(b.ids[i]);
      a.queues.QueueAllInadmissible(now, a.scheduler.cycle());
      b.queues.QueueAllInadmissible(now, b.scheduler.cycle());
    }
  }
}

class ParallelNominationTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(ParallelNominationTest, SameCyclesAsSequentialNomination) {
  const ClusterSpec spec = RandomCluster(GetParam());
  Engine sequential(spec);
  Engine parallel(spec);
  ThreadLoop loop(3);
  parallel.scheduler.SetParallelLoop(&loop, /*min_heads=*/2);
  std::mt19937_64 rng(GetParam() * 7 + 1);
  size_t arrived = 0;
  int64_t preempting = 0;
  int64_t admitted = 0;
  for (int cycle = 0; cycle < 60; ++cycle) {
    ArriveBatch(sequential, parallel, arrived);
    const TimeMicros now = cycle * 1'000'000LL;
    CycleResult a = sequential.scheduler.RunCycle(now);
    CycleResult b = parallel.scheduler.RunCycle(now);
    ASSERT_EQ(Describe(sequential, a), Describe(parallel, b)) << "cycle " << cycle;
    for (const CycleEntry& entry : a.entries) {
      preempting += entry.outcome == EntryOutcome::kPreempting ? 1 : 0;
      admitted += entry.outcome == EntryOutcome::kAdmitted ? 1 : 0;
    }
    FinishSome(sequential, parallel, arrived, now, rng);
  }
  // The scenario exercised what it is meant to: admissions, preemptions, parallel cycles.
  EXPECT_GT(admitted, 50);
  EXPECT_GT(preempting, 0);
  EXPECT_GT(loop.runs(), 10);
}

// Scheduler::Recycle hands a cycle's entries back, and later cycles nominate into them (fresh
// nominations reuse their vectors, partial admission swaps its trials, memo hits copy over
// them): whatever an entry held before must not leak into the next decision. An engine that
// recycles every result against one that never does, on the same cycles. (These clusters give
// no memo hits: a head's scan moves on between its nominations; the replay tests and the
// congested trace's byte-identical decisions cover hits.)
TEST_P(ParallelNominationTest, RecycledEntriesDecideAsFreshOnes) {
  const ClusterSpec spec = RandomCluster(GetParam());
  Engine fresh(spec);
  Engine recycling(spec);
  std::mt19937_64 rng(GetParam() * 11 + 3);
  size_t arrived = 0;
  int64_t entries = 0;
  for (int cycle = 0; cycle < 60; ++cycle) {
    ArriveBatch(fresh, recycling, arrived);
    const TimeMicros now = cycle * 1'000'000LL;
    // Three cycles at the same instant, every inadmissible head back between them: heads of
    // every kind (fit, preempting, inadmissible, partial) land in entries used before.
    for (int again = 0; again < 3; ++again) {
      CycleResult a = fresh.scheduler.RunCycle(now);
      CycleResult b = recycling.scheduler.RunCycle(now);
      ASSERT_EQ(Describe(fresh, a), Describe(recycling, b)) << "cycle " << cycle << "." << again;
      entries += static_cast<int64_t>(a.entries.size());
      recycling.scheduler.Recycle(std::move(b));
      fresh.queues.QueueAllInadmissible(now, fresh.scheduler.cycle());
      recycling.queues.QueueAllInadmissible(now, recycling.scheduler.cycle());
    }
    FinishSome(fresh, recycling, arrived, now, rng);
  }
  EXPECT_GT(entries, 1000);  // many entries, so most nominations land in a used one
}

// A cycle without heads returns at once (Scheduler::RunCycle): no entry, no eviction, and none of
// the per-cycle resets (the preemptor's, the tree key's flush) that a cycle with heads makes. An
// engine that runs such a cycle before and after every cycle of another must decide every later
// cycle as that one does. The heads are drained first (cycles until none is left), so that the
// extra cycles follow admissions, preemptions and releases of every kind.
TEST_P(ParallelNominationTest, CyclesWithoutHeadsChangeNothing) {
  const ClusterSpec spec = RandomCluster(GetParam());
  Engine plain(spec);
  Engine extra(spec);
  std::mt19937_64 rng(GetParam() * 13 + 5);
  size_t arrived = 0;
  int64_t empty_cycles = 0;
  int64_t decided = 0;
  auto run_empty = [&](TimeMicros now) {
    if (extra.queues.HasActive()) {
      return;
    }
    CycleResult r = extra.scheduler.RunCycle(now);
    ASSERT_TRUE(r.entries.empty());
    ASSERT_TRUE(r.evictions.empty());
    ++empty_cycles;
    extra.scheduler.Recycle(std::move(r));
  };
  for (int cycle = 0; cycle < 60; ++cycle) {
    ArriveBatch(plain, extra, arrived);
    const TimeMicros now = cycle * 1'000'000LL;
    for (int drain = 0; drain < 8 && plain.queues.HasActive(); ++drain) {
      ASSERT_EQ(plain.queues.HasActive(), extra.queues.HasActive());
      run_empty(now);
      CycleResult a = plain.scheduler.RunCycle(now);
      CycleResult b = extra.scheduler.RunCycle(now);
      ASSERT_EQ(Describe(plain, a), Describe(extra, b)) << "cycle " << cycle << "." << drain;
      decided += static_cast<int64_t>(a.entries.size());
      extra.scheduler.Recycle(std::move(b));
      run_empty(now);
    }
    FinishSome(plain, extra, arrived, now, rng);
    run_empty(now);
  }
  EXPECT_GT(decided, 200);
  EXPECT_GE(empty_cycles, 5);  // the extra cycles did run, between decisions
}

// Seed 2 was replaced by 6 with issue 20: once any generation bump restarts a flavor scan (seed
// 003, whatever the scan's age), seed 2's cycles no longer reach a preemption, so it stopped
// covering what this test is for (sequential == parallel still holds for it).
INSTANTIATE_TEST_SUITE_P(Seeds, ParallelNominationTest, ::testing::Values(1, 3, 4, 5, 6));

}  // namespace
}  // namespace engine
