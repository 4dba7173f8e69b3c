// File: bench/perf_gate_driver.cc
//
// perf_gate_driver CASE: runs one hot path a FIXED number of times on a fixed, seeded fixture, so
// that its instruction count under callgrind is the same on every run (scripts/perf-gate compares
// it with bench/baseline.json). Google Benchmark picks its iteration count from wall time, which
// makes its instruction counts vary; this driver never looks at a clock to decide how much to do.
//
// The fixture is built outside the measured region. Only the function
// `tally_perf_gate_measured` (and what it calls) is counted: scripts/perf-gate runs
//
//   valgrind --tool=callgrind --toggle-collect=tally_perf_gate_measured perf_gate_driver CASE
//
// Cases (modelled on the Google Benchmark fixtures in bench/*_bench.cc, smaller):
//   resource_tree_add_remove  200,000 x AddUsage + RemoveUsage (net zero) on a random slot of a
//                             random ClusterQueue: 1,000 ClusterQueues at depth 4, 4 slots
//   resource_tree_available   200,000 x Available(cq, slot) on the same forest
//   queue_manager_push_pop    20,000 pushes into 200 BestEffortFIFO queues, 50 cycles of
//                             PopHeads + Requeue(FailedAfterNomination), 50 of PopHeads +
//                             Requeue(NoFit) with QueueAllInadmissible when the heaps run dry
//   scheduler_cycle           the 4th scheduling cycle (quota partly used: borrowing, preemption)
//                             of 1,000 ClusterQueues in a 5-level cohort tree, 8 flavors x 4
//                             resources, 10,000 pending workloads
//   workload_json_parse       the Workload JSON fast path over 1,000 synthetic objects, 5 passes
//
// Each case checks its result (a failed check exits 1) and prints one line: the case, a checksum
// of the result and the wall time of the measured region (for people; the gate ignores it).
//
//   perf_gate_driver --list
//   perf_gate_driver resource_tree_add_remove
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "bench/cohort_tree_fixture.h"
#include "engine/base/ids.h"
#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/quantity.h"
#include "engine/queue_manager.h"
#include "engine/resource_tree.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"
#include "replay/generate/synthetic_generator.h"
#include "replay/io/workload_json.h"

// The measured region: callgrind counts this call and its callees only. A plain C name keeps the
// --toggle-collect pattern simple; noinline keeps the call (and the symbol) in a Release build.
extern "C" __attribute__((noinline)) uint64_t tally_perf_gate_measured(
    const std::function<uint64_t()>& body) {
  return body();
}

namespace engine {
namespace {

// A prepared case: Run() is the measured body; it returns a checksum, which Check() validates.
class Case {
 public:
  virtual ~Case() = default;
  virtual uint64_t Run() = 0;
  // Empty when the result is right; otherwise what is wrong.
  virtual std::string Check(uint64_t checksum) = 0;
};

// ---------------------------------------------------------------- resource tree

constexpr uint32_t kTreeSlots = 4;
constexpr int kTreeCqs = 1'000;
constexpr int kTreeDepth = 4;
constexpr int kTreeOps = 200'000;

FrSlot Slot(uint32_t s) {
  return MakeId<FrSlot>(s);
}

struct TreeOp {
  NodeId cq;
  FrSlot slot;
  Quantity amount;
};

// A balanced forest like resource_tree_bench's: level k has ceil(cqs^(k/depth)) nodes, children
// spread evenly over the previous level; random quotas with some lending and borrowing limits;
// every ClusterQueue uses part of its nominal quota.
class TreeCase : public Case {
 public:
  explicit TreeCase(bool add_remove) : add_remove_(add_remove) {
    std::mt19937_64 rng(0x7A11'0001);
    auto uniform = [&rng](int64_t lo, int64_t hi) {
      return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
    };
    std::vector<int> sizes = {1, 6, 32, 178, kTreeCqs};  // ~1000^(k/4), depth 4
    std::vector<NodeId> previous;
    for (size_t level = 0; level < sizes.size(); ++level) {
      bool leaves = level + 1 == sizes.size();
      std::vector<NodeId> current;
      for (int i = 0; i < sizes[level]; ++i) {
        NodeId node = tree_.AddNode(leaves ? NodeKind::kClusterQueue : NodeKind::kCohort);
        if (!previous.empty()) {
          size_t parent =
              static_cast<size_t>(i) * previous.size() / static_cast<size_t>(sizes[level]);
          tree_.SetParent(node, previous[parent]);
        }
        current.push_back(node);
      }
      previous = std::move(current);
    }
    cqs_ = previous;
    for (uint32_t n = 1; n < tree_.num_nodes(); ++n) {
      NodeId node = MakeId<NodeId>(n);
      bool cq = tree_.Kind(node) == NodeKind::kClusterQueue;
      for (uint32_t s = 0; s < kTreeSlots; ++s) {
        SlotQuota q;
        q.nominal = Quantity(cq ? uniform(0, 20) : (uniform(0, 99) < 70 ? 0 : uniform(0, 10)));
        if (uniform(0, 99) < 30) {
          q.lending_limit = Quantity(uniform(0, q.nominal.value()));
        }
        if (uniform(0, 99) < 30) {
          q.borrowing_limit = Quantity(uniform(0, 10));
        }
        tree_.SetQuota(node, Slot(s), q);
      }
    }
    tree_.Refresh();
    for (NodeId cq : cqs_) {
      for (uint32_t s = 0; s < kTreeSlots; ++s) {
        tree_.AddUsage(cq, Slot(s), Quantity(uniform(0, tree_.Nominal(cq, Slot(s)).value())));
      }
    }
    ops_.reserve(kTreeOps);
    for (int i = 0; i < kTreeOps; ++i) {
      ops_.push_back(TreeOp{cqs_[static_cast<size_t>(uniform(0, kTreeCqs - 1))],
                            Slot(static_cast<uint32_t>(uniform(0, kTreeSlots - 1))),
                            Quantity(uniform(1, 8))});
    }
    root_usage_ = tree_.Usage(MakeId<NodeId>(0), Slot(0));
  }

  uint64_t Run() override {
    uint64_t sum = 0;
    if (add_remove_) {
      for (const TreeOp& op : ops_) {
        tree_.AddUsage(op.cq, op.slot, op.amount);
        tree_.RemoveUsage(op.cq, op.slot, op.amount);
      }
      sum = static_cast<uint64_t>(tree_.Usage(MakeId<NodeId>(0), Slot(0)).value());
    } else {
      for (const TreeOp& op : ops_) {
        sum += static_cast<uint64_t>(tree_.Available(op.cq, op.slot).value());
      }
    }
    return sum;
  }

  std::string Check(uint64_t checksum) override {
    if (add_remove_ && checksum != static_cast<uint64_t>(root_usage_.value())) {
      return fmt::format("root usage {} after net-zero add/remove, was {}", checksum,
                         root_usage_.value());
    }
    if (!add_remove_ && checksum == 0) {
      return "nothing available anywhere";
    }
    return "";
  }

 private:
  bool add_remove_;
  ResourceTree tree_{kTreeSlots};
  std::vector<NodeId> cqs_;
  std::vector<TreeOp> ops_;
  Quantity root_usage_;
};

// ---------------------------------------------------------------- queue manager

constexpr int kQueueCqs = 200;
constexpr int kQueueWorkloads = 20'000;
constexpr int kQueueCycles = 50;
constexpr TimeMicros kNow = 1'000'000'000;

// As queue_manager_bench's fixture: one flavor, one cpu quota per ClusterQueue, cohorts of 10,
// one LocalQueue per ClusterQueue, 100 workloads per queue with priorities 0-9.
class QueueCase : public Case {
 public:
  QueueCase() {
    ClusterSpec spec;
    spec.flavors.emplace_back().name = "default";
    for (int i = 0; i < kQueueCqs; ++i) {
      ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
      cq.name = fmt::format("cq-{}", i);
      cq.cohort = fmt::format("cohort-{}", i / 10);
      ResourceGroupSpec& group = cq.resource_groups.emplace_back();
      group.covered_resources = {"cpu"};
      FlavorQuotasSpec& fq = group.flavors.emplace_back();
      fq.flavor = "default";
      ResourceQuotaSpec& quota = fq.resources.emplace_back();
      quota.resource = "cpu";
      quota.nominal = Quantity(100'000);
      LocalQueueSpec& lq = spec.local_queues.emplace_back();
      lq.name_space = fmt::format("ns-{}", i);
      lq.name = "lq";
      lq.cluster_queue = cq.name;
    }
    cluster_.Apply(spec);
    store_ = std::make_unique<WorkloadStore>(cluster_);
    std::mt19937_64 rng(42);
    for (int i = 0; i < kQueueWorkloads; ++i) {
      WorkloadSpec w;
      w.name_space = fmt::format("ns-{}", i % kQueueCqs);
      w.name = fmt::format("w-{}", i);
      w.uid = fmt::format("uid-{}", rng());
      w.creation_time = static_cast<TimeMicros>(rng() % 1'000'000'000);
      w.queue_name = "lq";
      w.priority = static_cast<int32_t>(rng() % 10);
      PodSetSpec& ps = w.pod_sets.emplace_back();
      ps.count = 1 + static_cast<int32_t>(rng() % 8);
      ContainerResources& c = ps.resources.containers.emplace_back();
      c.requests = {{"cpu", ParseDecimalQuantity(fmt::format("{}00m", 1 + rng() % 64)).value()}};
      StatusOr<WorkloadId> id = store_->Add(std::move(w));
      if (!id.ok()) {
        std::fprintf(stderr, "perf_gate_driver: fixture workload rejected\n");
        std::exit(1);
      }
      ids_.push_back(*id);
    }
    // Compute every scheduling hash once, outside the measured region.
    QueueManager warm(cluster_, *store_);
    for (WorkloadId id : ids_) {
      warm.Push(id, kNow);
    }
  }

  uint64_t Run() override {
    QueueManager queues(cluster_, *store_);
    for (WorkloadId id : ids_) {
      queues.Push(id, kNow);
    }
    uint64_t ops = 0;
    int64_t cycle = 0;
    for (int i = 0; i < kQueueCycles; ++i) {
      std::vector<WorkloadId> heads = queues.PopHeads(++cycle);
      for (WorkloadId h : heads) {
        queues.Requeue(h, RequeueReason::kFailedAfterNomination, kNow, cycle);
      }
      ops += heads.size();
    }
    for (int i = 0; i < kQueueCycles; ++i) {
      if (!queues.HasActive()) {
        queues.QueueAllInadmissible(kNow, cycle);
      }
      std::vector<WorkloadId> heads = queues.PopHeads(++cycle);
      for (WorkloadId h : heads) {
        queues.Requeue(h, RequeueReason::kNoFit, kNow, cycle);
      }
      ops += heads.size();
    }
    return ops * 1'000'000 + queues.ActiveCount();
  }

  std::string Check(uint64_t checksum) override {
    // Every cycle pops one head per ClusterQueue: no queue runs dry within 100 cycles.
    uint64_t want_ops = uint64_t{2} * kQueueCycles * kQueueCqs;
    if (checksum / 1'000'000 != want_ops) {
      return fmt::format("{} pops and requeues, want {}", checksum / 1'000'000, want_ops);
    }
    return "";
  }

 private:
  Cluster cluster_;
  std::unique_ptr<WorkloadStore> store_;
  std::vector<WorkloadId> ids_;
};

// ---------------------------------------------------------------- scheduler

// scheduler_bench's cluster (bench/cohort_tree_fixture.h): root -> 5 -> 5 -> 5 -> 4 cohorts,
// 2 ClusterQueues under each of the 500 leaves, tight quotas, 10 pending workloads per
// ClusterQueue, seed 42.
ClusterSpec SchedulerCluster() {
  return tally_bench::MakeCohortTreeCluster(/*pending_per_cq=*/10, /*seed=*/42);
}

class SchedulerCase : public Case {
 public:
  SchedulerCase()
      : store_(cluster_), queues_(cluster_, store_), scheduler_(cluster_, store_, queues_) {
    ClusterSpec spec = SchedulerCluster();
    cluster_.Apply(spec);
    std::vector<WorkloadId> ids;
    for (const WorkloadSpec& w : spec.workloads) {
      ids.push_back(*store_.Add(w));
    }
    cluster_.Refresh();
    for (WorkloadId id : ids) {
      queues_.Push(id);
    }
    for (int warm = 0; warm < 3; ++warm) {  // quota partly used: borrowing and preemption paths
      scheduler_.RunCycle(0);
    }
  }

  uint64_t Run() override {
    CycleResult r = scheduler_.RunCycle(0);
    uint64_t admitted = 0;
    for (const CycleEntry& entry : r.entries) {
      admitted += entry.outcome == EntryOutcome::kAdmitted ? 1 : 0;
    }
    return static_cast<uint64_t>(r.entries.size()) * 1'000'000 + admitted;
  }

  std::string Check(uint64_t checksum) override {
    if (checksum / 1'000'000 == 0) {
      return "the cycle had no entries";
    }
    return "";
  }

 private:
  Cluster cluster_;
  WorkloadStore store_;
  QueueManager queues_;
  Scheduler scheduler_;
};

// ---------------------------------------------------------------- workload JSON

constexpr int kJsonObjects = 1'000;
constexpr int kJsonPasses = 5;
constexpr std::string_view kJsonFile = "perf-gate.jsonl";

// The `object` of each event line of a synthetic trace (as workload_json_bench).
class JsonCase : public Case {
 public:
  JsonCase() {
    replay::SyntheticOptions o;
    o.workloads = kJsonObjects;
    o.resources = 4;
    std::string manifests;
    std::string events;
    replay::GenerateSynthetic(o, &manifests, [&events](std::string_view c) { events.append(c); });
    simdjson::ondemand::parser parser;
    size_t pos = 0;
    while (pos < events.size()) {
      size_t nl = events.find('\n', pos);
      if (nl == std::string::npos) {
        nl = events.size();
      }
      simdjson::padded_string line(std::string_view(events).substr(pos, nl - pos));
      pos = nl + 1;
      simdjson::ondemand::document doc;
      simdjson::ondemand::object object;
      std::string_view raw;
      if (parser.iterate(line).get(doc) == simdjson::SUCCESS
          && doc["object"].get_object().get(object) == simdjson::SUCCESS
          && object.raw_json().get(raw) == simdjson::SUCCESS) {
        objects_.emplace_back(raw);
      }
    }
  }

  uint64_t Run() override {
    uint64_t parsed = 0;
    for (int pass = 0; pass < kJsonPasses; ++pass) {
      for (const simdjson::padded_string& json : objects_) {
        WorkloadSpec wl;
        if (replay::ParseWorkloadJsonFast(parser_, json, kJsonFile, wl)
            == replay::FastParse::kParsed) {
          parsed += 1 + wl.pod_sets.size();
        }
      }
    }
    return parsed;
  }

  std::string Check(uint64_t checksum) override {
    if (objects_.size() != kJsonObjects) {
      return fmt::format("{} objects in the synthetic trace, want {}", objects_.size(),
                         kJsonObjects);
    }
    if (checksum < uint64_t{2} * kJsonObjects * kJsonPasses) {
      return "some objects did not take the fast path";
    }
    return "";
  }

 private:
  std::vector<simdjson::padded_string> objects_;
  simdjson::ondemand::parser parser_;
};

// ---------------------------------------------------------------- main

struct Registration {
  const char* name;
  std::function<std::unique_ptr<Case>()> make;
};

const std::vector<Registration>& Cases() {
  static const std::vector<Registration> cases = {
      {"resource_tree_add_remove", [] { return std::make_unique<TreeCase>(true); }},
      {"resource_tree_available", [] { return std::make_unique<TreeCase>(false); }},
      {"queue_manager_push_pop", [] { return std::make_unique<QueueCase>(); }},
      {"scheduler_cycle", [] { return std::make_unique<SchedulerCase>(); }},
      {"workload_json_parse", [] { return std::make_unique<JsonCase>(); }},
  };
  return cases;
}

int Main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: perf_gate_driver CASE | --list\n");
    return 2;
  }
  std::string_view arg = argv[1];
  if (arg == "--list") {
    for (const Registration& r : Cases()) {
      std::printf("%s\n", r.name);
    }
    return 0;
  }
  for (const Registration& r : Cases()) {
    if (arg != r.name) {
      continue;
    }
    std::unique_ptr<Case> c = r.make();
    auto start = std::chrono::steady_clock::now();
    uint64_t checksum = tally_perf_gate_measured([&c] { return c->Run(); });
    auto end = std::chrono::steady_clock::now();
    std::string error = c->Check(checksum);
    if (!error.empty()) {
      std::fprintf(stderr, "perf_gate_driver: %s: %s\n", r.name, error.c_str());
      return 1;
    }
    std::printf("%s", fmt::format("{}: checksum {}, {:.3f} ms\n", r.name, checksum,
                                  std::chrono::duration<double, std::milli>(end - start).count())
                          .c_str());
    return 0;
  }
  std::fprintf(stderr, "perf_gate_driver: unknown case '%s' (--list shows them)\n", argv[1]);
  return 2;
}

}  // namespace
}  // namespace engine

int main(int argc, char** argv) {
  return engine::Main(argc, argv);
}
