// Scheduling cycles interleaved with random configuration edits (issue 20), against the invariants
// of engine/admission_invariants.h and the from-scratch oracle of test/testing/reference_tree.h:
//
//   - edits between cycles: ClusterQueue flavor lists shrinking, growing and reordering, quota
//     changes on ClusterQueues and Cohorts, ClusterQueues moving between cohorts (or out of any),
//     Cohorts moving under another parent; arrivals and completions;
//   - after every cycle: every admitted (or preempting) assignment has a flavor of the CQ's
//     current list for each requested resource and charges exactly what it assigned (invariant
//     1); no node ends the cycle below T >= -BL unless it already was, nor deeper (invariant 2,
//     on the tree's own S - U and again on the oracle's independent KEP-79 T); and the
//     incremental tree agrees with the oracle rebuilt from the configured quotas and the usage
//     of the workloads holding quota (S, U, LQ, T, available, Available) on every node and slot.
//
// Both scan-reset rules run (seed 003 default, --kueue-scan-reset). The figures are printed and
// recorded as test properties. TALLY_PROPERTY_CYCLES scales the run (default 2000 per seed).
//
// Also here: the deterministic reproducer of issue 20 part 1 (a flavor list shrinking under a
// saved scan position) at engine level.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "engine/admission_invariants.h"
#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "engine/queue_manager.h"
#include "engine/scheduler.h"
#include "engine/workload_store.h"
#include "test/testing/reference_tree.h"

namespace engine {
namespace {

using reference::ReferenceEvaluation;
using reference::ReferenceTree;
using reference::RefKind;
using reference::RefQuota;

constexpr int kFlavors = 4;
constexpr int kCohorts = 4;
constexpr int kQueues = 6;
constexpr std::array<const char*, 2> kResources = {"cpu", "example.com/gpu"};

struct Engine {
  explicit Engine(SchedulerOptions options)
      : store(cluster), queues(cluster, store), scheduler(cluster, store, queues, options) {}
  Cluster cluster;
  WorkloadStore store;
  QueueManager queues;
  Scheduler scheduler;
};

Quantity Amount(const char* resource, int64_t units) {
  return Quantity(std::string_view(resource) == "cpu" ? units * 1000 : units);
}

FlavorQuotasSpec FlavorQuotas(std::mt19937_64& rng, int flavor, bool limits) {
  std::uniform_int_distribution<int64_t> units(0, 4);
  std::bernoulli_distribution limited(0.3);
  FlavorQuotasSpec fq;
  fq.flavor = fmt::format("f{}", flavor);
  for (const char* r : kResources) {
    ResourceQuotaSpec q;
    q.resource = r;
    q.nominal = Amount(r, units(rng));
    if (limits && limited(rng)) {
      q.borrowing_limit = Amount(r, units(rng));
    }
    if (limits && limited(rng)) {
      q.lending_limit =
          Amount(r, std::uniform_int_distribution<int64_t>(
                        0, q.nominal.value() / (q.nominal.value() > 4 ? 1000 : 1))(rng));
    }
    fq.resources.push_back(q);
  }
  return fq;
}

// CQ limits only make sense (and are only valid) with a cohort.
void DropLimitsWithoutCohort(ClusterQueueSpec& cq) {
  if (!cq.cohort.empty()) {
    return;
  }
  for (ResourceGroupSpec& g : cq.resource_groups) {
    for (FlavorQuotasSpec& fq : g.flavors) {
      for (ResourceQuotaSpec& q : fq.resources) {
        q.borrowing_limit.reset();
        q.lending_limit.reset();
      }
    }
  }
}

ClusterSpec RandomCluster(std::mt19937_64& rng) {
  ClusterSpec spec;
  for (int f = 0; f < kFlavors; ++f) {
    spec.flavors.emplace_back().name = fmt::format("f{}", f);
  }
  std::bernoulli_distribution coin(0.5);
  for (int c = 0; c < kCohorts; ++c) {
    CohortSpec& cohort = spec.cohorts.emplace_back();
    cohort.name = fmt::format("c{}", c);
    if (c > 0 && coin(rng)) {
      cohort.parent = fmt::format("c{}", std::uniform_int_distribution<int>(0, c - 1)(rng));
    }
    if (coin(rng)) {
      ResourceGroupSpec& g = cohort.resource_groups.emplace_back();
      g.covered_resources = {kResources[0], kResources[1]};
      g.flavors.push_back(FlavorQuotas(rng, std::uniform_int_distribution<int>(0, 3)(rng), false));
    }
  }
  constexpr PreemptionPolicy kReclaim[] = {
      PreemptionPolicy::kNever, PreemptionPolicy::kLowerPriority, PreemptionPolicy::kAny};
  for (int q = 0; q < kQueues; ++q) {
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = fmt::format("q{}", q);
    if (std::bernoulli_distribution(0.85)(rng)) {
      cq.cohort = fmt::format("c{}", std::uniform_int_distribution<int>(0, kCohorts - 1)(rng));
    }
    cq.namespace_selector.is_null = false;
    cq.preemption.within_cluster_queue =
        coin(rng) ? PreemptionPolicy::kLowerPriority : PreemptionPolicy::kNever;
    cq.preemption.reclaim_within_cohort = kReclaim[std::uniform_int_distribution<int>(0, 2)(rng)];
    if (cq.preemption.reclaim_within_cohort != PreemptionPolicy::kNever && coin(rng)) {
      cq.preemption.borrow_within_cohort = PreemptionPolicy::kLowerPriority;
    }
    cq.flavor_fungibility.when_can_borrow =
        coin(rng) ? FungibilityPolicy::kTryNextFlavor : FungibilityPolicy::kMayStopSearch;
    ResourceGroupSpec& g = cq.resource_groups.emplace_back();
    g.covered_resources = {kResources[0], kResources[1]};
    std::vector<int> order = {0, 1, 2, 3};
    std::shuffle(order.begin(), order.end(), rng);
    int n = std::uniform_int_distribution<int>(1, kFlavors)(rng);
    for (int i = 0; i < n; ++i) {
      g.flavors.push_back(FlavorQuotas(rng, order[static_cast<size_t>(i)], true));
    }
    DropLimitsWithoutCohort(cq);
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = cq.name;
    lq.cluster_queue = cq.name;
  }
  return spec;
}

WorkloadSpec RandomWorkload(std::mt19937_64& rng, int index) {
  WorkloadSpec wl;
  wl.name_space = "ns";
  wl.name = fmt::format("w-{}", index);
  wl.queue_name = fmt::format("q{}", std::uniform_int_distribution<int>(0, kQueues - 1)(rng));
  wl.priority = std::uniform_int_distribution<int>(0, 3)(rng);
  wl.creation_time = index * 1'000LL;
  PodSetSpec& ps = wl.pod_sets.emplace_back();
  ps.count = std::uniform_int_distribution<int>(1, 3)(rng);
  if (ps.count > 1 && std::bernoulli_distribution(0.2)(rng)) {
    ps.min_count = 1;
  }
  ContainerResources& c = ps.resources.containers.emplace_back();
  AddTo(c.requests, "cpu",
        *ParseDecimalQuantity(std::to_string(std::uniform_int_distribution<int>(1, 3)(rng))));
  if (std::bernoulli_distribution(0.4)(rng)) {
    AddTo(c.requests, kResources[1], *ParseDecimalQuantity("1"));
  }
  return wl;
}

struct Figures {
  int64_t cycles = 0;
  int64_t edits_shrink = 0;
  int64_t edits_grow = 0;
  int64_t edits_reorder = 0;
  int64_t edits_quota = 0;
  int64_t edits_cq_move = 0;
  int64_t edits_cohort_move = 0;
  int64_t admissions_checked = 0;
  int64_t preemptions_checked = 0;
  int64_t node_slot_comparisons = 0;
  int64_t headroom_checks = 0;
  int64_t cycles_starting_in_debt = 0;
  int64_t invariant_violations = 0;
  int64_t oracle_mismatches = 0;
  int64_t control_plane_seeds = 0;  // victims keep their quota until a later cycle releases them
  int64_t deferred_releases = 0;
  // Control-plane seeds: cycles after which a node was below T >= -BL while counting the quota
  // victims still hold (it comes back when they release). Measured, not asserted: see the note
  // at HeadroomWithoutEvicting.
  int64_t cycles_below_floor_while_victims_stop = 0;
  // Issue 21: the preemption bound (ResourceTree R and A, kept incrementally) against a
  // from-scratch recomputation, and every search it rejected run in full anyway (kVerify).
  int64_t bound_comparisons = 0;
  int64_t bound_mismatches = 0;
  int64_t searches = 0;
  int64_t searches_rejected_by_bound = 0;
  int64_t searches_found = 0;
  int64_t bound_unsound = 0;
  int64_t memo_hits = 0;  // entries the memo would have reused, compared with a fresh one
  int64_t memo_mismatches = 0;

  int64_t edits() const {
    return edits_shrink + edits_grow + edits_reorder + edits_quota + edits_cq_move
           + edits_cohort_move;
  }
};

// The oracle: the engine tree's structure and configured quotas, with CQ usage recomputed from
// the workloads that hold quota; every derived value recomputed from scratch.
ReferenceEvaluation Oracle(const Engine& e) {
  const ResourceTree& tree = e.cluster.tree();
  ReferenceTree ref(static_cast<int>(tree.num_slots()));
  for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
    ref.AddNode(tree.Kind(MakeId<NodeId>(n)) == NodeKind::kClusterQueue ? RefKind::kClusterQueue
                                                                        : RefKind::kCohort);
  }
  for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
    NodeId node = MakeId<NodeId>(n);
    if (tree.HasParent(node)) {
      ref.SetParent(static_cast<int>(n), static_cast<int>(Index(tree.Parent(node))));
    }
    for (uint32_t s = 0; s < tree.num_slots(); ++s) {
      FrSlot slot = MakeId<FrSlot>(s);
      RefQuota q;
      q.nominal = tree.Nominal(node, slot);
      if (!tree.BorrowingLimit(node, slot).IsUnlimited()) {
        q.borrowing_limit = tree.BorrowingLimit(node, slot);
      }
      if (!tree.LendingLimit(node, slot).IsUnlimited()) {
        q.lending_limit = tree.LendingLimit(node, slot);
      }
      ref.SetQuota(static_cast<int>(n), static_cast<int>(s), q);
    }
  }
  for (uint32_t i = 0; i < e.store.size(); ++i) {
    if (!e.store.Contains(MakeId<WorkloadId>(i))) {
      continue;
    }
    const Workload& w = e.store.Get(MakeId<WorkloadId>(i));
    if (!w.quota_reserved) {
      continue;
    }
    int node = static_cast<int>(Index(e.cluster.ClusterQueueNode(w.cluster_queue)));
    for (const SlotAmount& u : w.usage) {
      ref.AddUsage(node, static_cast<int>(Index(u.slot)), u.amount);
    }
  }
  return ref.Evaluate();
}

// KEP-79 headroom T(x) + BL(x) on the oracle (BL(root) = 0; no BL: unbounded, skipped).
std::vector<std::optional<Quantity>> OracleHeadroom(const Engine& e,
                                                    const ReferenceEvaluation& eval) {
  const ResourceTree& tree = e.cluster.tree();
  std::vector<std::optional<Quantity>> out;
  for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
    NodeId node = MakeId<NodeId>(n);
    for (uint32_t s = 0; s < tree.num_slots(); ++s) {
      FrSlot slot = MakeId<FrSlot>(s);
      std::optional<Quantity> h = eval.KepBalance(static_cast<int>(n), static_cast<int>(s));
      if (tree.HasParent(node)) {
        if (tree.BorrowingLimit(node, slot).IsUnlimited()) {
          h.reset();
        } else {
          h = *h + tree.BorrowingLimit(node, slot);
        }
      }
      out.push_back(h);
    }
  }
  return out;
}

// BorrowingHeadroom with the usage of the victims still stopping removed: in the replay's deferred
// mode a cycle that issues preemptions counts its victims' quota as freed (engine/scheduler.cc,
// HeadroomWithoutEvicting, the engine's own debug check), while the victims hold it until they
// are released. Leaves the tree as it found it.
std::vector<Quantity> HeadroomWithoutEvicting(Engine& e) {
  ResourceTree& tree = e.cluster.mutable_tree();
  ResourceTree::GenerationFreeze freeze(tree);
  for (WorkloadId v : e.store.Evicting()) {
    const Workload& victim = e.store.Get(v);
    tree.RemoveUsage(e.cluster.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  std::vector<Quantity> headroom = BorrowingHeadroom(tree);
  for (WorkloadId v : e.store.Evicting()) {
    const Workload& victim = e.store.Get(v);
    tree.AddUsage(e.cluster.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  return headroom;
}

// CheckHeadroomKept on the tree with the usage of the victims still stopping removed.
std::string CheckKeptWithoutEvicting(Engine& e, const std::vector<Quantity>& before) {
  ResourceTree& tree = e.cluster.mutable_tree();
  ResourceTree::GenerationFreeze freeze(tree);
  for (WorkloadId v : e.store.Evicting()) {
    const Workload& victim = e.store.Get(v);
    tree.RemoveUsage(e.cluster.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  std::string error = CheckHeadroomKept(tree, before);
  for (WorkloadId v : e.store.Evicting()) {
    const Workload& victim = e.store.Get(v);
    tree.AddUsage(e.cluster.ClusterQueueNode(victim.cluster_queue), victim.usage);
  }
  return error;
}

void RunSeed(uint64_t seed, int64_t cycles, Figures& t) {
  std::mt19937_64 rng(seed * 1'000'003 + 17);
  SchedulerOptions options;
  options.cohort_generation_resets_scan = seed % 2 == 0;  // odd seeds: --kueue-scan-reset
  // Seeds 2, 3 mod 4: the control-plane timing of the replay (replay/sim): a victim keeps its
  // quota while its pods stop and is released 0-3 cycles later (--finish-to-release), its tree's
  // inadmissible workloads requeued then; the others release at the end of the evicting cycle, as
  // `tally schedule` does.
  const bool control_plane = seed % 4 >= 2;
  options.defer_victim_release = control_plane;
  // Seeds 0 mod 3 run every search the bound rejects in full (PreemptionBoundCheck::kVerify);
  // the others keep the bound and nominate every head afresh, comparing each entry the memo
  // would have reused (NominationMemoMode::kVerify; a full search stores nothing, hence apart).
  const bool verify_bound = seed % 3 == 0;
  options.preemption_bound =
      verify_bound ? PreemptionBoundCheck::kVerify : PreemptionBoundCheck::kOn;
  options.nomination_memo = verify_bound ? NominationMemoMode::kOn : NominationMemoMode::kVerify;
  Engine e(options);
  ResourceTree scratch;  // from-scratch R and A
  ClusterSpec spec = RandomCluster(rng);
  e.cluster.Apply(spec);
  Figures f;
  int next_workload = 0;
  std::vector<WorkloadId> live;
  std::map<WorkloadId, int64_t> release_at;  // victims still stopping -> the cycle they release
  f.control_plane_seeds = control_plane ? 1 : 0;
  auto fail = [&](const std::string& what) {
    ++f.invariant_violations;
    ADD_FAILURE() << "seed " << seed << " cycle " << f.cycles << ": " << what;
  };
  for (int64_t cycle = 0; cycle < cycles; ++cycle) {
    const TimeMicros now = cycle * 1'000'000LL;
    // Arrivals.
    int arrivals = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int i = 0; i < arrivals; ++i) {
      auto id = e.store.Add(RandomWorkload(rng, next_workload++));
      ASSERT_TRUE(id.ok());
      e.queues.Push(*id);
      live.push_back(*id);
    }
    // Configuration edits.
    bool edited = false;
    int edits =
        std::bernoulli_distribution(0.5)(rng) ? std::uniform_int_distribution<int>(1, 2)(rng) : 0;
    for (int k = 0; k < edits; ++k) {
      int kind = std::uniform_int_distribution<int>(0, 5)(rng);
      ClusterQueueSpec& cq = spec.cluster_queues[static_cast<size_t>(
          std::uniform_int_distribution<int>(0, kQueues - 1)(rng))];
      std::vector<FlavorQuotasSpec>& flavors = cq.resource_groups[0].flavors;
      if (kind == 0 && flavors.size() > 1) {  // shrink
        flavors.erase(flavors.begin()
                      + std::uniform_int_distribution<int64_t>(
                          0, static_cast<int64_t>(flavors.size()) - 1)(rng));
        ++f.edits_shrink;
      } else if (kind == 1 && flavors.size() < kFlavors) {  // grow
        std::vector<int> missing;
        for (int fl = 0; fl < kFlavors; ++fl) {
          std::string name = fmt::format("f{}", fl);
          if (std::none_of(flavors.begin(), flavors.end(),
                           [&](const FlavorQuotasSpec& q) { return q.flavor == name; })) {
            missing.push_back(fl);
          }
        }
        int fl = missing[static_cast<size_t>(std::uniform_int_distribution<int64_t>(
            0, static_cast<int64_t>(missing.size()) - 1)(rng))];
        auto at =
            flavors.begin()
            + std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(flavors.size()))(rng);
        flavors.insert(at, FlavorQuotas(rng, fl, !cq.cohort.empty()));
        ++f.edits_grow;
      } else if (kind == 2 && flavors.size() > 1) {  // reorder
        std::shuffle(flavors.begin(), flavors.end(), rng);
        ++f.edits_reorder;
      } else if (kind == 3) {  // quota change on a CQ or a cohort
        if (std::bernoulli_distribution(0.5)(rng)) {
          size_t i = static_cast<size_t>(std::uniform_int_distribution<int64_t>(
              0, static_cast<int64_t>(flavors.size()) - 1)(rng));
          flavors[i] = FlavorQuotas(rng, flavors[i].flavor.back() - '0', !cq.cohort.empty());
        } else {
          CohortSpec& cohort = spec.cohorts[static_cast<size_t>(
              std::uniform_int_distribution<int>(0, kCohorts - 1)(rng))];
          cohort.resource_groups.clear();
          ResourceGroupSpec& g = cohort.resource_groups.emplace_back();
          g.covered_resources = {kResources[0], kResources[1]};
          g.flavors.push_back(
              FlavorQuotas(rng, std::uniform_int_distribution<int>(0, 3)(rng), false));
          e.cluster.UpsertCohort(cohort);
        }
        ++f.edits_quota;
      } else if (kind == 4) {  // the CQ moves to another cohort, or out of any
        int to = std::uniform_int_distribution<int>(-1, kCohorts - 1)(rng);
        cq.cohort = to < 0 ? std::string() : fmt::format("c{}", to);
        ++f.edits_cq_move;
      } else {  // a cohort moves under another parent (lower index: never a cycle)
        int c = std::uniform_int_distribution<int>(1, kCohorts - 1)(rng);
        int to = std::uniform_int_distribution<int>(-1, c - 1)(rng);
        CohortSpec& cohort = spec.cohorts[static_cast<size_t>(c)];
        cohort.parent = to < 0 ? std::string() : fmt::format("c{}", to);
        e.cluster.UpsertCohort(cohort);
        ++f.edits_cohort_move;
      }
      DropLimitsWithoutCohort(cq);
      e.cluster.UpsertClusterQueue(cq);
      edited = true;
    }
    if (edited) {
      e.cluster.Refresh();
      e.queues.QueueAllInadmissible(now, e.scheduler.cycle());
    }

    // Victims whose pods have stopped give their quota back now.
    bool stopped = false;
    for (auto it = release_at.begin(); it != release_at.end();) {
      if (it->second <= cycle) {
        e.scheduler.FinishEviction(it->first, now);
        ++f.deferred_releases;
        stopped = true;
        it = release_at.erase(it);
      } else {
        ++it;
      }
    }
    if (stopped) {
      e.queues.QueueAllInadmissible(now, e.scheduler.cycle());
    }

    // Sometimes every inadmissible head comes back with nothing changed (as a batch requeue of
    // Kueue can): the nomination memo must reuse those nominations and reuse them rightly.
    if (std::bernoulli_distribution(0.3)(rng)) {
      e.queues.QueueAllInadmissible(now, e.scheduler.cycle());
    }
    const std::vector<Quantity> before =
        control_plane ? HeadroomWithoutEvicting(e) : BorrowingHeadroom(e.cluster.tree());
    const std::vector<Quantity> before_all = BorrowingHeadroom(e.cluster.tree());
    const std::vector<std::optional<Quantity>> oracle_before = OracleHeadroom(e, Oracle(e));
    f.cycles_starting_in_debt +=
        std::any_of(before.begin(), before.end(), [](Quantity h) { return h < Quantity::Zero(); })
            ? 1
            : 0;
    CycleResult result = e.scheduler.RunCycle(now);
    ++f.cycles;

    // Invariant 1 on every assignment that was charged or is waiting for its victims.
    for (const CycleEntry& entry : result.entries) {
      if (entry.outcome != EntryOutcome::kAdmitted && entry.outcome != EntryOutcome::kPreempting) {
        continue;
      }
      (entry.outcome == EntryOutcome::kAdmitted ? f.admissions_checked : f.preemptions_checked)++;
      if (entry.assignment.pod_sets.empty() || entry.assignment.usage.empty()) {
        fail(fmt::format("{} charged nothing", e.store.Get(entry.workload).key));
      }
      std::string error =
          CheckAdmission(e.cluster, entry.cq, entry.assignment, options.quota_check);
      if (!error.empty()) {
        fail(e.store.Get(entry.workload).key + ": " + error);
      }
      if (entry.outcome == EntryOutcome::kAdmitted) {
        const Workload& w = e.store.Get(entry.workload);
        bool same = w.usage.size() == entry.assignment.usage.size();
        for (size_t i = 0; same && i < w.usage.size(); ++i) {
          same = w.usage[i].slot == entry.assignment.usage[i].slot
                 && w.usage[i].amount == entry.assignment.usage[i].amount;
        }
        if (!same) {
          fail(w.key + ": reserved usage differs from its assignment");
        }
      }
    }
    // Invariant 2 on the tree's own balance.
    ++f.headroom_checks;
    if (control_plane) {
      if (std::string error = CheckKeptWithoutEvicting(e, before); !error.empty()) {
        fail(error);
      }
      f.cycles_below_floor_while_victims_stop +=
          CheckHeadroomKept(e.cluster.tree(), before_all).empty() ? 0 : 1;
    } else if (std::string error = CheckHeadroomKept(e.cluster.tree(), before); !error.empty()) {
      fail(error);
    }
    // The oracle: from-scratch values, and invariant 2 on the KEP-79 T.
    ReferenceEvaluation eval = Oracle(e);
    std::vector<std::optional<Quantity>> oracle_after = OracleHeadroom(e, eval);
    const ResourceTree& tree = e.cluster.tree();
    size_t i = 0;
    for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
      NodeId node = MakeId<NodeId>(n);
      for (uint32_t s = 0; s < tree.num_slots(); ++s, ++i) {
        FrSlot slot = MakeId<FrSlot>(s);
        const int rn = static_cast<int>(n);
        const int rs = static_cast<int>(s);
        ++f.node_slot_comparisons;
        bool same = eval.SubtreeQuota(rn, rs) == tree.SubtreeQuota(node, slot)
                    && eval.Usage(rn, rs) == tree.Usage(node, slot)
                    && eval.LocalQuota(rn, rs) == tree.LocalQuota(node, slot)
                    && eval.KepBalance(rn, rs) == tree.Balance(node, slot)
                    && eval.RawAvailable(rn, rs) == tree.RawAvailable(node, slot)
                    && eval.Available(rn, rs) == tree.Available(node, slot);
        if (!same) {
          ++f.oracle_mismatches;
          ADD_FAILURE() << "seed " << seed << " cycle " << f.cycles << ": node " << n << " slot "
                        << s << " differs from the oracle";
        }
        // The floor on the oracle's T: with victims still stopping the engine's own check above
        // (without their quota) is the one that holds; their held quota is measured, not asserted.
        if (!control_plane && oracle_after[i] && oracle_before[i]
            && *oracle_after[i] < Min(Quantity::Zero(), *oracle_before[i])) {
          fail(fmt::format("oracle: node {} slot {} T + BL = {} after, {} before", n, s,
                           oracle_after[i]->value(), oracle_before[i]->value()));
        }
      }
    }
    scratch.CopyFrom(tree);
    scratch.RecomputeAll();
    for (uint32_t n = 0; n < tree.num_nodes(); ++n) {
      NodeId node = MakeId<NodeId>(n);
      for (uint32_t s = 0; s < tree.num_slots(); ++s) {
        FrSlot slot = MakeId<FrSlot>(s);
        ++f.bound_comparisons;
        if (scratch.Reclaimable(node, slot) != tree.Reclaimable(node, slot)
            || scratch.ReclaimableAny(node, slot) != tree.ReclaimableAny(node, slot)) {
          ++f.bound_mismatches;
          ADD_FAILURE() << "seed " << seed << " cycle " << f.cycles << ": node " << n << " slot "
                        << s << ": preemption bound R " << tree.Reclaimable(node, slot).value()
                        << " A " << tree.ReclaimableAny(node, slot).value() << ", from scratch R "
                        << scratch.Reclaimable(node, slot).value() << " A "
                        << scratch.ReclaimableAny(node, slot).value();
        }
      }
    }
    if (f.invariant_violations + f.oracle_mismatches + f.bound_mismatches != 0) {
      break;  // the failures name the seed and cycle
    }

    for (const Eviction& ev : result.evictions) {
      if (control_plane) {
        release_at.emplace(ev.victim, cycle + std::uniform_int_distribution<int64_t>(0, 3)(rng));
      }
    }

    // Completions free capacity (a victim still stopping is released above, not here).
    std::bernoulli_distribution finishes(0.1);
    bool released = false;
    for (WorkloadId id : live) {
      Workload& w = e.store.Get(id);
      if (w.quota_reserved && !release_at.contains(id) && finishes(rng)) {
        e.store.Release(id);
        released = true;
      }
    }
    if (released) {
      e.queues.QueueAllInadmissible(now, e.scheduler.cycle());
    }
  }
  const PreemptionSearchStats& searches = e.scheduler.preemption_stats();
  f.searches = static_cast<int64_t>(searches.searches);
  f.searches_rejected_by_bound = static_cast<int64_t>(searches.rejected_by_bound);
  f.searches_found = static_cast<int64_t>(searches.found);
  f.bound_unsound = static_cast<int64_t>(searches.bound_unsound);
  EXPECT_EQ(f.bound_unsound, 0) << "seed " << seed
                                << ": the bound rejected searches that found targets";
  if (!verify_bound) {
    const NominationMemoStats& memo = e.scheduler.memo_stats();
    f.memo_hits = static_cast<int64_t>(memo.hits);
    f.memo_mismatches = static_cast<int64_t>(memo.mismatches);
    EXPECT_EQ(f.memo_mismatches, 0) << "seed " << seed << ": a memoised nomination differed";
  }
  t.memo_hits += f.memo_hits;
  t.memo_mismatches += f.memo_mismatches;
  t.bound_comparisons += f.bound_comparisons;
  t.bound_mismatches += f.bound_mismatches;
  t.searches += f.searches;
  t.searches_rejected_by_bound += f.searches_rejected_by_bound;
  t.searches_found += f.searches_found;
  t.bound_unsound += f.bound_unsound;
  t.cycles += f.cycles;
  t.edits_shrink += f.edits_shrink;
  t.edits_grow += f.edits_grow;
  t.edits_reorder += f.edits_reorder;
  t.edits_quota += f.edits_quota;
  t.edits_cq_move += f.edits_cq_move;
  t.edits_cohort_move += f.edits_cohort_move;
  t.admissions_checked += f.admissions_checked;
  t.preemptions_checked += f.preemptions_checked;
  t.node_slot_comparisons += f.node_slot_comparisons;
  t.headroom_checks += f.headroom_checks;
  t.cycles_starting_in_debt += f.cycles_starting_in_debt;
  t.invariant_violations += f.invariant_violations;
  t.oracle_mismatches += f.oracle_mismatches;
  t.control_plane_seeds += f.control_plane_seeds;
  t.deferred_releases += f.deferred_releases;
  t.cycles_below_floor_while_victims_stop += f.cycles_below_floor_while_victims_stop;
  // The run exercised what it is meant to.
  EXPECT_GT(f.admissions_checked, cycles / 10) << "seed " << seed;
  EXPECT_GT(f.edits_shrink + f.edits_grow + f.edits_reorder, cycles / 20) << "seed " << seed;
  EXPECT_GT(f.edits_cq_move + f.edits_cohort_move, cycles / 40) << "seed " << seed;
}

// 20 seeds x 2000 cycles by default (about 2 s in Release); TALLY_PROPERTY_CYCLES=<n> per seed,
// TALLY_PROPERTY_SEED=<s> for one seed (failures print it, with the cycle).
TEST(SchedulerPropertyTest, EditsInterleavedWithCyclesKeepInvariantsAndMatchOracle) {
  int64_t cycles = 2000;
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read once, before any thread exists
  if (const char* env = std::getenv("TALLY_PROPERTY_CYCLES")) {
    cycles = std::atoll(env);
  }
  uint64_t first = 1;
  uint64_t last = 20;
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read once, before any thread exists
  if (const char* env = std::getenv("TALLY_PROPERTY_SEED")) {
    first = last = std::strtoull(env, nullptr, 10);
  }
  Figures t;
  for (uint64_t seed = first; seed <= last; ++seed) {
    RunSeed(seed, cycles, t);
  }
  std::printf(
      "scheduler property figures: %lld cycles, %lld edits (flavor list shrink %lld, grow %lld, "
      "reorder %lld; quota %lld; ClusterQueue moves %lld; Cohort moves %lld), %lld admissions "
      "and %lld preempting assignments checked, %lld cycles starting with a node below its "
      "floor, %lld headroom checks, %lld node-slot oracle comparisons, %lld invariant "
      "violations, %lld oracle mismatches; %lld seeds with the control plane's deferred victim "
      "release (%lld releases; %lld cycles below a floor while victims stopped)\n",
      static_cast<long long>(t.cycles), static_cast<long long>(t.edits()),
      static_cast<long long>(t.edits_shrink), static_cast<long long>(t.edits_grow),
      static_cast<long long>(t.edits_reorder), static_cast<long long>(t.edits_quota),
      static_cast<long long>(t.edits_cq_move), static_cast<long long>(t.edits_cohort_move),
      static_cast<long long>(t.admissions_checked), static_cast<long long>(t.preemptions_checked),
      static_cast<long long>(t.cycles_starting_in_debt), static_cast<long long>(t.headroom_checks),
      static_cast<long long>(t.node_slot_comparisons),
      static_cast<long long>(t.invariant_violations), static_cast<long long>(t.oracle_mismatches),
      static_cast<long long>(t.control_plane_seeds), static_cast<long long>(t.deferred_releases),
      static_cast<long long>(t.cycles_below_floor_while_victims_stop));
  ::testing::Test::RecordProperty("cycles", std::to_string(t.cycles));
  ::testing::Test::RecordProperty("edits", std::to_string(t.edits()));
  ::testing::Test::RecordProperty("admissions_checked", std::to_string(t.admissions_checked));
  ::testing::Test::RecordProperty("oracle_comparisons", std::to_string(t.node_slot_comparisons));
  ::testing::Test::RecordProperty("mismatches",
                                  std::to_string(t.invariant_violations + t.oracle_mismatches));
  std::printf(
      "preemption bound: %lld searches, %lld rejected by the O(depth) bound (all run in full: "
      "%lld of those found targets), %lld found targets; %lld R/A comparisons with a "
      "from-scratch tree, %lld mismatches\n",
      static_cast<long long>(t.searches), static_cast<long long>(t.searches_rejected_by_bound),
      static_cast<long long>(t.bound_unsound), static_cast<long long>(t.searches_found),
      static_cast<long long>(t.bound_comparisons), static_cast<long long>(t.bound_mismatches));
  ::testing::Test::RecordProperty("searches_rejected_by_bound",
                                  std::to_string(t.searches_rejected_by_bound));
  EXPECT_EQ(t.invariant_violations, 0);
  EXPECT_EQ(t.oracle_mismatches, 0);
  EXPECT_EQ(t.bound_mismatches, 0);
  EXPECT_EQ(t.bound_unsound, 0);
  std::printf("nomination memo: %lld reuses compared with a fresh nomination, %lld differed\n",
              static_cast<long long>(t.memo_hits), static_cast<long long>(t.memo_mismatches));
  EXPECT_EQ(t.memo_mismatches, 0);
  if (first != last) {
    // The bound was exercised both ways: it rejected searches, and others ran and found targets.
    EXPECT_GT(t.searches_rejected_by_bound, t.searches / 20);
    EXPECT_GT(t.searches_found, 0);
    EXPECT_GT(t.memo_hits, t.cycles / 20);  // the memo was exercised
    EXPECT_GT(t.deferred_releases, 0) << "the control-plane seeds released no victim";
  }
}

// --- Issue 20 part 1, deterministic --------------------------------------------------------------

// Cohort pool {f1: 4 cpu} <- a [f1, f2] (nominal 0), b [f1] (nominal 0). Cycle 1: w2 (b,
// priority 100) and w (a) both fit on f1 by borrowing; w2 goes first, w no longer fits and is
// skipped, keeping "f1 tried, resume at f2". a's list then shrinks to [f1]. Before the fix the
// next cycle resumed at index 1 of a one-flavor list, tried nothing, and counted the pod set
// without reasons as Fit: w was admitted with no flavor and no usage.
ClusterSpec ShrinkSpec() {
  ClusterSpec spec;
  spec.flavors.emplace_back().name = "f1";
  spec.flavors.emplace_back().name = "f2";
  auto group = [](const std::vector<std::pair<std::string, int64_t>>& flavors) {
    ResourceGroupSpec g;
    g.covered_resources = {"cpu"};
    for (const auto& [name, cores] : flavors) {
      FlavorQuotasSpec& fq = g.flavors.emplace_back();
      fq.flavor = name;
      fq.resources.push_back({"cpu", Quantity(cores * 1000), std::nullopt, std::nullopt});
    }
    return g;
  };
  CohortSpec& pool = spec.cohorts.emplace_back();
  pool.name = "pool";
  pool.resource_groups.push_back(group({{"f1", 4}}));
  for (const char* name : {"a", "b"}) {
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = name;
    cq.cohort = "pool";
    cq.namespace_selector.is_null = false;
    cq.resource_groups.push_back(std::string_view(name) == "a" ? group({{"f1", 0}, {"f2", 0}})
                                                               : group({{"f1", 0}}));
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = std::string("q") + name;
    lq.cluster_queue = name;
  }
  for (const auto& [name, queue, priority] :
       {std::tuple{"w", "qa", 1}, std::tuple{"w2", "qb", 100}}) {
    WorkloadSpec& wl = spec.workloads.emplace_back();
    wl.name_space = "ns";
    wl.name = name;
    wl.queue_name = queue;
    wl.priority = priority;
    PodSetSpec& ps = wl.pod_sets.emplace_back();
    ps.name = "main";
    ps.count = 1;
    AddTo(ps.resources.containers.emplace_back().requests, "cpu", *ParseDecimalQuantity("4"));
  }
  return spec;
}

class FlavorListShrinkTest : public ::testing::TestWithParam<bool> {};

TEST_P(FlavorListShrinkTest, SavedScanPositionIsDiscardedAndNothingIsAdmittedForFree) {
  SchedulerOptions options;
  options.cohort_generation_resets_scan = GetParam();  // false: --kueue-scan-reset
  Engine e(options);
  ClusterSpec spec = ShrinkSpec();
  e.cluster.Apply(spec);
  std::vector<WorkloadId> ids;
  for (const WorkloadSpec& w : spec.workloads) {
    ids.push_back(*e.store.Add(w));
    e.queues.Push(ids.back());
  }
  const WorkloadId w = ids[0];
  const WorkloadId w2 = ids[1];
  CycleResult first = e.scheduler.RunCycle(0);
  ASSERT_TRUE(e.store.Get(w2).quota_reserved);
  ASSERT_FALSE(e.store.Get(w).quota_reserved);
  ASSERT_TRUE(e.store.Get(w).scan->HasPendingFlavors()) << "w should resume at f2";

  ClusterQueueSpec a = spec.cluster_queues[0];
  a.resource_groups[0].flavors.pop_back();  // [f1, f2] -> [f1]
  e.cluster.UpsertClusterQueue(a);
  e.cluster.Refresh();
  e.queues.QueueAllInadmissible(5'000, e.scheduler.cycle());

  for (int cycle = 0; cycle < 5; ++cycle) {
    CycleResult r = e.scheduler.RunCycle(TimeMicros{10'000} * (cycle + 1));
    for (const CycleEntry& entry : r.entries) {
      EXPECT_NE(entry.outcome, EntryOutcome::kAdmitted)
          << e.store.Get(entry.workload).key << " admitted with " << entry.assignment.usage.size()
          << " charged slot(s)";
      if (entry.workload == w) {
        EXPECT_EQ(entry.assignment.Mode(), AssignmentMode::kNoFit);
        EXPECT_EQ(entry.reason, RequeueReason::kNoFit);
      }
    }
  }
  EXPECT_FALSE(e.store.Get(w).quota_reserved);
  // When w2 finishes, w is admitted on f1 with its 4 cpu charged.
  e.store.Release(w2);
  e.queues.QueueAllInadmissible(1'000'000, e.scheduler.cycle());
  e.scheduler.RunCycle(2'000'000);
  ASSERT_TRUE(e.store.Get(w).quota_reserved);
  ASSERT_EQ(e.store.Get(w).usage.size(), 1u);
  EXPECT_EQ(e.store.Get(w).usage[0].amount, Quantity(4000));
  EXPECT_EQ(e.cluster.Name(e.store.Get(w).admitted[0].flavors[0].second), "f1");
}

INSTANTIATE_TEST_SUITE_P(ScanResetRules, FlavorListShrinkTest, ::testing::Values(true, false));

// The assigner on its own: a saved index past the end of the list starts from the first flavor,
// and a resource group with no flavor to try is never Fit.
TEST(FlavorScanIndexTest, OutOfRangeResumeIndexStartsFromTheFirstFlavor) {
  Engine e(SchedulerOptions{});
  ClusterSpec spec = ShrinkSpec();
  spec.cohorts.clear();
  spec.cluster_queues[0].cohort.clear();
  spec.cluster_queues[0].resource_groups[0].flavors[0].resources[0].nominal = Quantity(8000);
  e.cluster.Apply(spec);
  WorkloadId w = *e.store.Add(spec.workloads[0]);
  FlavorScanState stale;
  stale.valid = true;
  stale.last_tried = {{{*e.cluster.FindResource("cpu"), 6}}};  // resume at index 7 of 2
  AssignRequest req;
  req.workload = &e.store.Get(w);
  req.cq = e.store.Get(w).cluster_queue;
  req.cluster = &e.cluster;
  req.tree = &e.cluster.tree();
  req.resume = &stale;
  Assignment a = AssignFlavors(req, nullptr);
  ASSERT_EQ(a.Mode(), AssignmentMode::kFit);
  ASSERT_EQ(a.pod_sets[0].flavors.size(), 1u);
  EXPECT_EQ(e.cluster.Name(a.pod_sets[0].flavors[0].flavor), "f1");
  EXPECT_TRUE(CheckAdmission(e.cluster, req.cq, a, QuotaCheckStrategy::kBlockUndeclared).empty());

  // A pod set that got no flavor for a requested resource is never Fit, reasons or not.
  PodSetAssignment incomplete = a.pod_sets[0];
  incomplete.flavors.clear();
  incomplete.reasons.clear();
  incomplete.missing_flavor = true;
  EXPECT_EQ(incomplete.Mode(), AssignmentMode::kNoFit);
  Assignment broken = a;
  broken.pod_sets[0].flavors.clear();
  EXPECT_FALSE(
      CheckAdmission(e.cluster, req.cq, broken, QuotaCheckStrategy::kBlockUndeclared).empty());
}

}  // namespace
}  // namespace engine
