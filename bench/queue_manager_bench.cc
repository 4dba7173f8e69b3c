// Queue manager microbenchmarks (engine/queue_manager.h) on one realistic fixture: 1,000
// BestEffortFIFO ClusterQueues (each with its LocalQueue) and 100,000 pending workloads, 100 per
// CQ, priorities 0-9, distinct creation times and mostly distinct scheduling hashes.
//
//   BM_QueueManager_Push                  100,000 pushes into empty queues (per push)
//   BM_QueueManager_PopRequeue_Immediate  PopHeads + Requeue(FailedAfterNomination) of every head
//                                         (per head: one pop + one requeue)
//   BM_QueueManager_PopRequeue_NoFit      PopHeads + Requeue(NoFit) of every head: each goes to
//                                         the inadmissible set with a hash bulk move; when every
//                                         heap is empty, QueueAllInadmissible refills them (its
//                                         cost is amortised over the heads)
//   BM_QueueManager_RemovePush            Remove + Push of a random queued workload (per pair)
//   BM_QueueManager_EquivalentBulk        one CQ of 10,000 identical workloads (Kueue's perf
//                                         configs): pop the head, Requeue(NoFit) moves the other
//                                         9,999 to the inadmissible set, QueueAllInadmissible
//                                         brings all back (per moved workload; the heap is
//                                         rebuilt in one pass each way, engine/queue_heap.cc)
//
// "time_per_op" is the wall time per counted operation.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "engine/base/check.h"
#include "engine/cluster.h"
#include "engine/queue_manager.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

constexpr int kNumCqs = 1'000;
constexpr int kNumWorkloads = 100'000;
constexpr TimeMicros kNow = 1'000'000'000;

struct Fixture {
  Cluster cluster;
  std::unique_ptr<WorkloadStore> store;
  std::vector<WorkloadId> ids;

  Fixture() {
    ClusterSpec spec;
    ResourceFlavorSpec flavor;
    flavor.name = "default";
    spec.flavors.push_back(flavor);
    for (int i = 0; i < kNumCqs; ++i) {
      ClusterQueueSpec cq;
      cq.name = "cq-" + std::to_string(i);
      cq.cohort = "cohort-" + std::to_string(i / 10);  // 100 trees of 10 CQs
      ResourceQuotaSpec quota;
      quota.resource = "cpu";
      quota.nominal = Quantity(100'000);
      FlavorQuotasSpec fq;
      fq.flavor = "default";
      fq.resources.push_back(quota);
      ResourceGroupSpec group;
      group.covered_resources = {"cpu"};
      group.flavors.push_back(fq);
      cq.resource_groups.push_back(group);
      spec.cluster_queues.push_back(cq);
      LocalQueueSpec lq;
      lq.name_space = "ns-" + std::to_string(i);
      lq.name = "lq";
      lq.cluster_queue = cq.name;
      spec.local_queues.push_back(lq);
    }
    cluster.Apply(spec);
    store = std::make_unique<WorkloadStore>(cluster);
    std::mt19937_64 rng(42);
    for (int i = 0; i < kNumWorkloads; ++i) {
      WorkloadSpec w;
      w.name_space = "ns-" + std::to_string(i % kNumCqs);
      w.name = "w-" + std::to_string(i);
      w.uid = "uid-" + std::to_string(rng());
      w.creation_time = static_cast<TimeMicros>(rng() % 1'000'000'000);
      w.queue_name = "lq";
      w.priority = static_cast<int32_t>(rng() % 10);
      PodSetSpec ps;
      ps.count = 1 + static_cast<int32_t>(rng() % 8);
      ContainerResources c;
      c.requests = {{"cpu", ParseDecimalQuantity(std::to_string(1 + rng() % 64) + "00m").value()}};
      ps.resources.containers.push_back(c);
      w.pod_sets.push_back(ps);
      StatusOr<WorkloadId> id = store->Add(std::move(w));
      TALLY_CHECK(id.ok());
      ids.push_back(*id);
    }
    // Compute every scheduling hash once, outside any timed loop.
    QueueManager warm(cluster, *store);
    for (WorkloadId id : ids) {
      warm.Push(id, kNow);
    }
  }
};

Fixture& GetFixture() {
  static Fixture* fixture = new Fixture();  // built once, shared by all benchmarks
  return *fixture;
}

std::unique_ptr<QueueManager> Filled(Fixture& f) {
  auto queues = std::make_unique<QueueManager>(f.cluster, *f.store);
  for (WorkloadId id : f.ids) {
    queues->Push(id, kNow);
  }
  return queues;
}

void SetOps(benchmark::State& state, int64_t ops) {
  state.SetItemsProcessed(ops);
  state.counters["time_per_op"] = benchmark::Counter(
      static_cast<double>(ops), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_QueueManager_Push(benchmark::State& state) {
  Fixture& f = GetFixture();
  TALLY_CHECK(Filled(f)->PendingCount(MakeId<CqId>(0)) == kNumWorkloads / kNumCqs);
  int64_t ops = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    QueueManager queues(f.cluster, *f.store);
    for (WorkloadId id : f.ids) {
      queues.Push(id, kNow);
    }
    benchmark::DoNotOptimize(queues.HasActive());
    ops += kNumWorkloads;
  }
  SetOps(state, ops);
}
BENCHMARK(BM_QueueManager_Push)->Unit(benchmark::kMillisecond);

void BM_QueueManager_PopRequeue_Immediate(benchmark::State& state) {
  Fixture& f = GetFixture();
  std::unique_ptr<QueueManager> queues = Filled(f);
  int64_t cycle = 0;
  TALLY_CHECK(queues->PopHeads(++cycle).size() == kNumCqs);
  queues = Filled(f);
  int64_t ops = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    std::vector<WorkloadId> heads = queues->PopHeads(++cycle);
    for (WorkloadId h : heads) {
      queues->Requeue(h, RequeueReason::kFailedAfterNomination, kNow, cycle);
    }
    ops += static_cast<int64_t>(heads.size());
  }
  SetOps(state, ops);
}
BENCHMARK(BM_QueueManager_PopRequeue_Immediate)->Unit(benchmark::kMicrosecond);

void BM_QueueManager_PopRequeue_NoFit(benchmark::State& state) {
  Fixture& f = GetFixture();
  std::unique_ptr<QueueManager> queues = Filled(f);
  int64_t cycle = 0;
  int64_t ops = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    if (!queues->HasActive()) {
      queues->QueueAllInadmissible(kNow, cycle);
    }
    std::vector<WorkloadId> heads = queues->PopHeads(++cycle);
    for (WorkloadId h : heads) {
      queues->Requeue(h, RequeueReason::kNoFit, kNow, cycle);
    }
    ops += static_cast<int64_t>(heads.size());
  }
  SetOps(state, ops);
}
BENCHMARK(BM_QueueManager_PopRequeue_NoFit)->Unit(benchmark::kMicrosecond);

void BM_QueueManager_RemovePush(benchmark::State& state) {
  Fixture& f = GetFixture();
  std::unique_ptr<QueueManager> queues = Filled(f);
  std::mt19937 rng(1);
  std::vector<WorkloadId> order;
  order.reserve(1 << 16);
  for (int i = 0; i < 1 << 16; ++i) {
    order.push_back(f.ids[rng() % f.ids.size()]);
  }
  size_t next = 0;
  int64_t ops = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    WorkloadId id = order[next++ & (order.size() - 1)];
    queues->Remove(id);
    queues->Push(id, kNow);
    ops += 2;
  }
  TALLY_CHECK(queues->PendingCount(MakeId<CqId>(0)) == kNumWorkloads / kNumCqs);
  SetOps(state, ops);
}
BENCHMARK(BM_QueueManager_RemovePush);

// One ClusterQueue holding kEquivalent workloads with the same scheduling hash.
struct EquivalentFixture {
  static constexpr int kEquivalent = 10'000;
  Cluster cluster;
  std::unique_ptr<WorkloadStore> store;
  std::vector<WorkloadId> ids;

  EquivalentFixture() {
    ClusterSpec spec;
    ResourceFlavorSpec flavor;
    flavor.name = "default";
    spec.flavors.push_back(flavor);
    ClusterQueueSpec cq;
    cq.name = "cq";
    ResourceQuotaSpec quota;
    quota.resource = "cpu";
    quota.nominal = Quantity(1'000);
    FlavorQuotasSpec fq;
    fq.flavor = "default";
    fq.resources.push_back(quota);
    ResourceGroupSpec group;
    group.covered_resources = {"cpu"};
    group.flavors.push_back(fq);
    cq.resource_groups.push_back(group);
    spec.cluster_queues.push_back(cq);
    LocalQueueSpec lq;
    lq.name_space = "ns";
    lq.name = "lq";
    lq.cluster_queue = "cq";
    spec.local_queues.push_back(lq);
    cluster.Apply(spec);
    store = std::make_unique<WorkloadStore>(cluster);
    std::mt19937_64 rng(7);
    for (int i = 0; i < kEquivalent; ++i) {
      WorkloadSpec w;
      w.name_space = "ns";
      w.name = "w-" + std::to_string(i);
      w.uid = "uid-" + std::to_string(rng());
      w.creation_time = static_cast<TimeMicros>(rng() % 1'000'000);
      w.queue_name = "lq";
      PodSetSpec ps;
      ps.count = 1;
      ContainerResources c;
      c.requests = {{"cpu", ParseDecimalQuantity("2").value()}};
      ps.resources.containers.push_back(c);
      w.pod_sets.push_back(ps);
      StatusOr<WorkloadId> id = store->Add(std::move(w));
      TALLY_CHECK(id.ok());
      ids.push_back(*id);
    }
  }
};

void BM_QueueManager_EquivalentBulk(benchmark::State& state) {
  static EquivalentFixture* f = new EquivalentFixture();
  QueueManager queues(f->cluster, *f->store);
  for (WorkloadId id : f->ids) {
    queues.Push(id, kNow);
  }
  int64_t cycle = 0;
  int64_t ops = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    std::vector<WorkloadId> heads = queues.PopHeads(++cycle);
    TALLY_CHECK(heads.size() == 1);
    queues.Requeue(heads[0], RequeueReason::kNoFit, kNow, cycle);
    TALLY_CHECK(!queues.HasActive());
    queues.QueueAllInadmissible(kNow, cycle);
    ops += 2 * EquivalentFixture::kEquivalent;
  }
  SetOps(state, ops);
}
BENCHMARK(BM_QueueManager_EquivalentBulk)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engine
