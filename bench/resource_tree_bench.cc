// File: bench/resource_tree_bench.cc
//
// Microbenchmarks of the incremental quota tree (engine/resource_tree.h) against from-scratch
// recomputation.
//
// Fixtures (built once, outside every timed loop, cached): balanced cohort trees with all
// ClusterQueues at the same depth, 4 slots, random quotas with lending and borrowing limits, and
// usage filled to a realistic mix of lending and borrowing:
//   - depth 4 with 10, 100, 1,000, 10,000 and 100,000 ClusterQueues;
//   - 10,000 ClusterQueues at depth 1, 2, 4, 6 and 8.
// Each fixture is verified before timing: the incrementally maintained Available() and
// FitsOnPath() of a sample of ClusterQueues must equal the reference model's from-scratch values,
// and must be unchanged by a full recompute of the tree.
//
// Menu (one item = one operation on one slot of one ClusterQueue drawn from a pre-generated
// random sequence):
//   BM_ResourceTree_AddRemoveUsage_<Case>     AddUsage + RemoveUsage (net zero): the admission
//                                             and completion hot path, O(depth)
//   BM_ResourceTree_Available_<Case>          the admission check Available(cq, slot)
//   BM_ResourceTree_FitsOnPath_<Case>         the KEP-79 path check for one amount
//   BM_ResourceTree_RecomputeAndCheck_<Case>  baseline: mark the tree dirty (SetQuota on the root),
//                                             Refresh() it from scratch, then Available()
//   BM_ResourceTree_ReferenceAvailable_<Case> baseline: the oracle's available() recomputing
//                                             S, U, LQ of the slot from scratch
// <Case> is Cqs<N>_Depth<D>.
//
//   resource_tree_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "engine/base/ids.h"
#include "engine/quantity.h"
#include "engine/resource_tree.h"
#include "test/testing/reference_tree.h"

namespace engine {
namespace {

using reference::ReferenceTree;
using reference::RefKind;
using reference::RefQuota;

constexpr int kSlots = 4;
constexpr size_t kSequenceLength = size_t{1} << 14;  // power of two: index with a mask
constexpr int kVerifySamples = 64;
constexpr double kMinTimeSeconds = 0.1;  // keeps the whole binary well under 2 minutes

struct Op {
  NodeId cq;
  FrSlot slot;
  Quantity amount;
};

struct Fixture {
  Fixture() : ref(kSlots) {}

  ResourceTree tree{kSlots};
  ReferenceTree ref;
  NodeId root = kInvalidId<NodeId>;
  SlotQuota root_quota;
  std::vector<NodeId> cqs;
  std::vector<Op> ops;  // kSequenceLength random operations
  std::string error;    // non-empty: verification failed
};

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(engine_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }

 private:
  std::mt19937_64 engine_;
};

FrSlot Slot(int s) {
  return MakeId<FrSlot>(static_cast<uint32_t>(s));
}
int Int(NodeId id) {
  return static_cast<int>(Index(id));
}

// Level sizes of a balanced tree: 1 root cohort, growing geometrically to `cqs` leaves at `depth`.
std::vector<int64_t> LevelSizes(int64_t cqs, int depth) {
  std::vector<int64_t> sizes(static_cast<size_t>(depth) + 1);
  for (int k = 0; k <= depth; ++k) {
    double exact = std::pow(static_cast<double>(cqs), static_cast<double>(k) / depth);
    sizes[static_cast<size_t>(k)] =
        std::clamp<int64_t>(std::llround(std::ceil(exact - 1e-9)), 1, cqs);
  }
  sizes.front() = 1;
  sizes.back() = cqs;
  for (size_t k = 1; k < sizes.size(); ++k) {
    sizes[k] = std::max(sizes[k], sizes[k - 1]);  // every cohort gets at least one child
  }
  return sizes;
}

void Set(Fixture& f, NodeId node, int slot, const RefQuota& q) {
  f.tree.SetQuota(node, Slot(slot),
                  SlotQuota{q.nominal, q.borrowing_limit.value_or(kUnlimited),
                            q.lending_limit.value_or(kUnlimited)});
  f.ref.SetQuota(Int(node), slot, q);
}

void AddBoth(Fixture& f, NodeId cq, int slot, Quantity amount) {
  f.tree.AddUsage(cq, Slot(slot), amount);
  f.ref.AddUsage(Int(cq), slot, amount);
}

std::string Verify(Fixture& f, Rng& rng) {
  auto check = [&](const char* phase) -> std::string {
    for (int i = 0; i < kVerifySamples; ++i) {
      NodeId cq =
          f.cqs[static_cast<size_t>(rng.Uniform(0, static_cast<int64_t>(f.cqs.size()) - 1))];
      for (int s = 0; s < kSlots; ++s) {
        Quantity incremental = f.tree.Available(cq, Slot(s));
        Quantity scratch = Max(Quantity::Zero(), f.ref.AvailableFromScratch(Int(cq), s));
        if (incremental != scratch) {
          return fmt::format("{}: Available(cq {}, slot {}) = {} but from scratch {}", phase,
                             Int(cq), s, incremental.value(), scratch.value());
        }
        Quantity q(rng.Uniform(0, 12));
        if (f.tree.FitsOnPath(cq, Slot(s), q) != f.ref.FitsBySubtreeBalance(Int(cq), s, q)) {
          return fmt::format("{}: FitsOnPath(cq {}, slot {}, {}) differs from brute force", phase,
                             Int(cq), s, q.value());
        }
      }
    }
    return "";
  };
  std::string error = check("incremental");
  if (!error.empty()) {
    return error;
  }
  f.tree.SetQuota(f.root, Slot(0), f.root_quota);  // same quota: only forces a full recompute
  f.tree.Refresh();
  return check("after full recompute");
}

std::unique_ptr<Fixture> BuildFixture(int64_t num_cqs, int depth) {
  auto f = std::make_unique<Fixture>();
  Rng rng(0xB0A7'0000ULL + static_cast<uint64_t>(num_cqs) * 16 + static_cast<uint64_t>(depth));
  std::vector<int64_t> sizes = LevelSizes(num_cqs, depth);

  std::vector<NodeId> previous;
  for (size_t level = 0; level < sizes.size(); ++level) {
    bool leaves = level + 1 == sizes.size();
    std::vector<NodeId> current;
    current.reserve(static_cast<size_t>(sizes[level]));
    for (int64_t i = 0; i < sizes[level]; ++i) {
      NodeId node = f->tree.AddNode(leaves ? NodeKind::kClusterQueue : NodeKind::kCohort);
      int ref_node = f->ref.AddNode(leaves ? RefKind::kClusterQueue : RefKind::kCohort);
      (void)ref_node;  // same index as `node`: both number nodes in creation order
      if (!previous.empty()) {
        // Spread the children evenly over the cohorts of the previous level.
        auto parent_index =
            static_cast<size_t>(i * static_cast<int64_t>(previous.size()) / sizes[level]);
        f->tree.SetParent(node, previous[parent_index]);
        f->ref.SetParent(Int(node), Int(previous[parent_index]));
      }
      current.push_back(node);
    }
    previous = std::move(current);
  }
  f->root = MakeId<NodeId>(0);
  f->cqs = previous;

  for (uint32_t n = 0; n < f->tree.num_nodes(); ++n) {
    NodeId node = MakeId<NodeId>(n);
    bool cq = f->tree.Kind(node) == NodeKind::kClusterQueue;
    for (int s = 0; s < kSlots; ++s) {
      RefQuota q;
      if (n == 0) {
        Set(*f, node, s, q);  // root: no quota, no limits
        continue;
      }
      if (cq) {
        q.nominal = Quantity(rng.Uniform(0, 20));
        if (rng.Chance(30)) {
          q.lending_limit = Quantity(rng.Uniform(0, q.nominal.value()));
        }
        if (rng.Chance(30)) {
          q.borrowing_limit = Quantity(rng.Uniform(0, 10));
        }
      } else {
        q.nominal = Quantity(rng.Chance(70) ? 0 : rng.Uniform(0, 10));
        if (rng.Chance(20)) {
          q.lending_limit = Quantity(rng.Uniform(0, 50));
        }
        if (rng.Chance(20)) {
          q.borrowing_limit = Quantity(rng.Uniform(0, 50));
        }
      }
      Set(*f, node, s, q);
    }
  }
  f->root_quota = SlotQuota{};
  f->tree.Refresh();

  // Usage: every CQ uses part of its own quota; half of them then borrow what still fits.
  for (NodeId cq : f->cqs) {
    for (int s = 0; s < kSlots; ++s) {
      int64_t nominal = f->tree.Nominal(cq, Slot(s)).value();
      AddBoth(*f, cq, s, Quantity(rng.Uniform(0, nominal)));
    }
  }
  for (size_t i = 0; i < f->cqs.size() / 2; ++i) {
    NodeId cq =
        f->cqs[static_cast<size_t>(rng.Uniform(0, static_cast<int64_t>(f->cqs.size()) - 1))];
    int s = static_cast<int>(rng.Uniform(0, kSlots - 1));
    Quantity want(rng.Uniform(1, 10));
    if (want <= f->tree.Available(cq, Slot(s))) {
      AddBoth(*f, cq, s, want);
    }
  }

  f->ops.reserve(kSequenceLength);
  for (size_t i = 0; i < kSequenceLength; ++i) {
    NodeId cq =
        f->cqs[static_cast<size_t>(rng.Uniform(0, static_cast<int64_t>(f->cqs.size()) - 1))];
    f->ops.push_back(
        Op{cq, Slot(static_cast<int>(rng.Uniform(0, kSlots - 1))), Quantity(rng.Uniform(1, 8))});
  }
  f->error = Verify(*f, rng);
  return f;
}

Fixture& GetFixture(int64_t num_cqs, int depth) {
  static std::map<std::pair<int64_t, int>, std::unique_ptr<Fixture>> cache;
  std::unique_ptr<Fixture>& slot = cache[{num_cqs, depth}];
  if (slot == nullptr) {
    slot = BuildFixture(num_cqs, depth);
  }
  return *slot;
}

// Fetches the fixture (building it outside the timed loop); nullptr if it failed verification.
Fixture* Prepare(benchmark::State& state, int64_t num_cqs, int depth) {
  Fixture& f = GetFixture(num_cqs, depth);
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return nullptr;
  }
  state.counters["nodes"] = static_cast<double>(f.tree.num_nodes());
  return &f;
}

void BM_AddRemoveUsage(benchmark::State& state, int64_t num_cqs, int depth) {
  Fixture* f = Prepare(state, num_cqs, depth);
  if (f == nullptr) {
    return;
  }
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const Op& op = f->ops[i++ & (kSequenceLength - 1)];
    f->tree.AddUsage(op.cq, op.slot, op.amount);
    f->tree.RemoveUsage(op.cq, op.slot, op.amount);
  }
  benchmark::DoNotOptimize(f->tree.Usage(f->root, Slot(0)));
  state.SetItemsProcessed(state.iterations());
}

void BM_Available(benchmark::State& state, int64_t num_cqs, int depth) {
  Fixture* f = Prepare(state, num_cqs, depth);
  if (f == nullptr) {
    return;
  }
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const Op& op = f->ops[i++ & (kSequenceLength - 1)];
    benchmark::DoNotOptimize(f->tree.Available(op.cq, op.slot));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_FitsOnPath(benchmark::State& state, int64_t num_cqs, int depth) {
  Fixture* f = Prepare(state, num_cqs, depth);
  if (f == nullptr) {
    return;
  }
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const Op& op = f->ops[i++ & (kSequenceLength - 1)];
    benchmark::DoNotOptimize(f->tree.FitsOnPath(op.cq, op.slot, op.amount));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_RecomputeAndCheck(benchmark::State& state, int64_t num_cqs, int depth) {
  Fixture* f = Prepare(state, num_cqs, depth);
  if (f == nullptr) {
    return;
  }
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const Op& op = f->ops[i++ & (kSequenceLength - 1)];
    f->tree.SetQuota(f->root, Slot(0), f->root_quota);  // unchanged value: marks the tree dirty
    f->tree.Refresh();
    benchmark::DoNotOptimize(f->tree.Available(op.cq, op.slot));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ReferenceAvailable(benchmark::State& state, int64_t num_cqs, int depth) {
  Fixture* f = Prepare(state, num_cqs, depth);
  if (f == nullptr) {
    return;
  }
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const Op& op = f->ops[i++ & (kSequenceLength - 1)];
    benchmark::DoNotOptimize(
        f->ref.AvailableFromScratch(Int(op.cq), static_cast<int>(Index(op.slot))));
  }
  state.SetItemsProcessed(state.iterations());
}

// One registration per (operation, case); the name is BM_ResourceTree_<Op>_Cqs<N>_Depth<D>.
#define TALLY_TREE_BENCH(op, cqs, depth)                                   \
  BENCHMARK_CAPTURE(BM_##op, Cqs##cqs##_Depth##depth, int64_t{cqs}, depth) \
      ->Name("BM_ResourceTree_" #op "_Cqs" #cqs "_Depth" #depth)           \
      ->MinTime(kMinTimeSeconds)
// Depth 4 with 10 .. 100,000 ClusterQueues, then 10,000 ClusterQueues at depth 1 .. 8.
#define TALLY_TREE_BENCH_ALL_CASES(op) \
  TALLY_TREE_BENCH(op, 10, 4);         \
  TALLY_TREE_BENCH(op, 100, 4);        \
  TALLY_TREE_BENCH(op, 1000, 4);       \
  TALLY_TREE_BENCH(op, 10000, 4);      \
  TALLY_TREE_BENCH(op, 100000, 4);     \
  TALLY_TREE_BENCH(op, 10000, 1);      \
  TALLY_TREE_BENCH(op, 10000, 2);      \
  TALLY_TREE_BENCH(op, 10000, 6);      \
  TALLY_TREE_BENCH(op, 10000, 8)

TALLY_TREE_BENCH_ALL_CASES(AddRemoveUsage);
TALLY_TREE_BENCH_ALL_CASES(Available);
TALLY_TREE_BENCH_ALL_CASES(FitsOnPath);
TALLY_TREE_BENCH_ALL_CASES(RecomputeAndCheck);
TALLY_TREE_BENCH_ALL_CASES(ReferenceAvailable);

}  // namespace
}  // namespace engine
