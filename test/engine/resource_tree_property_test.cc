// File: test/engine/resource_tree_property_test.cc
//
// Randomized equivalence of the incremental engine::ResourceTree with the from-scratch oracle
// test/testing/reference_tree.h (kueue-semantics.md §4, §6.3; KEP-79).
//
// Random cohort forests (several roots, depth up to 6, up to 1,000 nodes, small quotas so that
// borrowing and lending happen, some Unlimited nominal quotas) go through random sequences of
// admissions (only when they fit, as the scheduler would; sometimes forced, to create debt),
// removals, quota edits and re-parenting. After EVERY step, every node and slot is compared with
// the oracle, and random admission checks are compared with the brute-force KEP-79 test. The
// generation contract is checked on every step too. Each kind of comparison is counted and the
// counts must be substantial, so the test cannot pass vacuously.
//
// Environment:
//   TALLY_PROPERTY_STEPS=<n>   total random steps of the main test (default 100000; 10^7 soak)
//   TALLY_PROPERTY_SEED=<n>    run only this seed index (the failure message prints it)
//
// Seeds are fixed (std::mt19937_64, own range reduction: identical sequences everywhere).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/base/ids.h"
#include "engine/quantity.h"
#include "engine/resource_tree.h"
#include "test/testing/reference_tree.h"

namespace engine {

void PrintTo(const Quantity& q, std::ostream* os) {
  if (q.IsUnlimited()) {
    *os << "Unlimited";
  } else {
    *os << q.value();
  }
}

namespace {

using reference::kNoNode;
using reference::RefBorrowingLevel;
using reference::ReferenceEvaluation;
using reference::ReferenceTree;
using reference::RefKind;
using reference::RefQuota;

constexpr int64_t kDefaultSteps = 100'000;
constexpr uint64_t kSeedBase = 0x7A11'E000'0000'0000ULL;
constexpr int kMaxReportedFailures = 20;

std::string Str(Quantity q) {
  return q.IsUnlimited() ? "Unl" : std::to_string(q.value());
}
std::string Str(const std::optional<Quantity>& q) {
  return q.has_value() ? Str(*q) : "-";
}

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read before threads
  if (text == nullptr || *text == '\0') {
    return fallback;
  }
  return std::strtoll(text, nullptr, 10);
}

NodeId Id(int node) {
  return node == kNoNode ? kInvalidId<NodeId> : MakeId<NodeId>(node);
}
FrSlot Slot(int slot) {
  return MakeId<FrSlot>(static_cast<uint32_t>(slot));
}
int Int(NodeId id) {
  return IsValid(id) ? static_cast<int>(Index(id)) : kNoNode;
}

SlotQuota ToSlotQuota(const RefQuota& q) {
  return SlotQuota{q.nominal, q.borrowing_limit.value_or(kUnlimited),
                   q.lending_limit.value_or(kUnlimited)};
}

// How many comparisons of each kind ran (summed over seeds).
struct Counts {
  int64_t steps = 0;
  int64_t node_slot_states = 0;   // S, U, LQ, LocalAvailable of one (node, slot)
  int64_t balance_exact = 0;      // Balance == independent KEP T
  int64_t balance_corner = 0;     // Unlimited-lender corner: Balance == S - U <= T
  int64_t balance_divergent = 0;  //   ... of which Balance != T
  int64_t available = 0;          // Available and RawAvailable vs §4.1
  int64_t potential = 0;          // PotentialAvailable vs §4.1
  int64_t borrowing_level = 0;    // FindBorrowingLevel vs §6.3
  int64_t borrowing_level_positive = 0;
  int64_t structure = 0;        // InCycle, Root, Depth, Height
  int64_t fits_vs_subtree = 0;  // FitsOnPath == brute force on S - U (always)
  int64_t fits_vs_kep = 0;      // FitsOnPath == brute force on KEP T
  int64_t fits_true = 0;
  int64_t fits_false = 0;
  int64_t available_vs_kep = 0;  // (q <= Available) == brute force, no pre-existing debt
  int64_t available_vs_subtree = 0;
  int64_t queries_with_debt = 0;     // skipped by the conditional comparison
  int64_t generation_refresh = 0;    // node generations checked after Refresh
  int64_t generation_remove = 0;     // node generations checked after RemoveUsage
  int64_t generation_unchanged = 0;  // after AddUsage / no-op steps
  int64_t admitted = 0;
  int64_t forced = 0;
  int64_t rejected = 0;
  int64_t removed = 0;
  int64_t quota_edits = 0;
  int64_t reparents = 0;
  int64_t cycles_created = 0;
  int64_t cycles_broken = 0;
  int64_t in_cycle_usage = 0;  // CQ usage kept while in a cycle
  int64_t steps_with_cycle = 0;
  int64_t full_checks_after_break = 0;

  void Print(const char* title) const {
    fmt::print(
        "[{}]\n  steps {}; per-(node,slot) states {}, available {}, potential {}, structure {}\n"
        "  balance==T exact {}, corner {} (divergent {})\n"
        "  borrowing level {} (level>0: {})\n"
        "  FitsOnPath==brute(S-U) {}, ==brute(KEP T) {} (true {} / false {})\n"
        "  (q<=Available)==brute: KEP {}, S-U {} (skipped for debt {})\n"
        "  generations: refresh {}, remove {}, unchanged {}\n"
        "  ops: admitted {}, forced {}, rejected {}, removed {}, quota edits {}, reparents {}\n"
        "  cycles created {}, broken {}, steps with a cycle {}, in-cycle usage checks {}, full "
        "checks right after a break {}\n",
        title, steps, node_slot_states, available, potential, structure, balance_exact,
        balance_corner, balance_divergent, borrowing_level, borrowing_level_positive,
        fits_vs_subtree, fits_vs_kep, fits_true, fits_false, available_vs_kep, available_vs_subtree,
        queries_with_debt, generation_refresh, generation_remove, generation_unchanged, admitted,
        forced, rejected, removed, quota_edits, reparents, cycles_created, cycles_broken,
        steps_with_cycle, in_cycle_usage, full_checks_after_break);
    std::fflush(stdout);
  }
};

struct ForestOptions {
  int min_nodes = 3;
  int max_nodes = 60;
  int max_depth = 6;       // of the generated forest (re-parenting may go deeper)
  bool unlimited = false;  // some nominal quotas are Unlimited
  bool cycles = false;     // the op mix creates and breaks cycles
};

class Harness {
 public:
  Harness(uint64_t seed_index, const ForestOptions& options, Counts& counts)
      : seed_index_(seed_index),
        rng_(kSeedBase + seed_index),
        options_(options),
        counts_(counts),
        tree_(0),
        ref_(1) {
    Build();
  }

  // One random step followed by all comparisons. Returns false after the first failing step.
  bool Step(int64_t step) {
    step_ = step;
    std::vector<uint64_t> generations_before = Generations();
    ReferenceEvaluation before = eval_;
    dirty_.clear();
    op_ = "query";
    Op op = RandomStep();
    eval_ = ref_.Evaluate();
    ++counts_.steps;
    if (HasCycle()) {
      ++counts_.steps_with_cycle;
    }
    CheckAllNodes();
    CheckRandomAdmissions();
    CheckGenerations(op, before, generations_before);
    return Ok();
  }

  bool Ok() {
    if (failures_ == 0) {
      return true;
    }
    ADD_FAILURE() << "reproduce with TALLY_PROPERTY_SEED=" << seed_index_ << " (seed 0x" << std::hex
                  << kSeedBase + seed_index_ << std::dec << "), failing at step " << step_
                  << " after op: " << op_ << "\n"
                  << Describe();
    return false;
  }

  bool HasCycle() const {
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      if (eval_.InCycle(x)) {
        return true;
      }
    }
    return false;
  }

  // Removes every cycle (re-parenting one node of each to no parent) and refreshes.
  bool BreakAllCycles() {
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      if (eval_.InCycle(x) && OnCycle(x)) {
        SetParent(x, kNoNode);
        ++counts_.cycles_broken;
        eval_ = ref_.Evaluate();
      }
    }
    tree_.Refresh();
    eval_ = ref_.Evaluate();
    CheckAllNodes();
    ++counts_.full_checks_after_break;
    return Ok();
  }

 private:
  enum class Op : uint8_t { kQuery, kAdd, kRemove, kRefresh };

  // --- Random numbers (own range reduction: the same sequence with every standard library) ----
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(Uniform(0, static_cast<int64_t>(items.size()) - 1))];
  }

  // --- Mirrored mutations ---------------------------------------------------------------------
  int AddNode(RefKind kind) {
    NodeId id =
        tree_.AddNode(kind == RefKind::kCohort ? NodeKind::kCohort : NodeKind::kClusterQueue);
    int node = ref_.AddNode(kind);
    EXPECT_EQ(Int(id), node);
    return node;
  }
  void SetParent(int node, int parent) {
    int old_parent = ref_.Parent(node);
    if (old_parent == parent) {
      return;
    }
    tree_.SetParent(Id(node), Id(parent));
    ref_.SetParent(node, parent);
    dirty_.push_back(node);
    if (old_parent != kNoNode) {
      dirty_.push_back(old_parent);
    }
  }
  void SetQuota(int node, int slot, const RefQuota& quota) {
    tree_.SetQuota(Id(node), Slot(slot), ToSlotQuota(quota));
    ref_.SetQuota(node, slot, quota);
    dirty_.push_back(node);
  }
  void ClearQuotas(int node) {
    tree_.ClearQuotas(Id(node));
    for (int s = 0; s < ref_.num_slots(); ++s) {
      ref_.SetQuota(node, s, RefQuota{});
    }
    dirty_.push_back(node);
  }

  RefQuota RandomQuota(RefKind kind, bool root) {
    RefQuota q;
    bool cohort = kind == RefKind::kCohort;
    if (options_.unlimited && Chance(4)) {
      q.nominal = kUnlimited;
    } else if (cohort) {
      q.nominal = Quantity(Chance(50) ? 0 : Uniform(0, 6));
    } else {
      q.nominal = Quantity(Uniform(0, 10));
    }
    if (root) {
      return q;  // limits only on non-root nodes
    }
    if (Chance(45)) {
      q.borrowing_limit = Chance(4) ? kUnlimited : Quantity(Uniform(0, 6));
    }
    if (Chance(40)) {
      if (cohort) {
        q.lending_limit = Chance(4) ? kUnlimited : Quantity(Uniform(0, 15));
      } else if (q.nominal.IsUnlimited()) {
        q.lending_limit = Chance(25) ? kUnlimited : Quantity(Uniform(0, 10));
      } else {
        q.lending_limit = Quantity(Uniform(0, q.nominal.value()));  // Kueue: LL <= nominal
      }
    }
    return q;
  }

  void Build() {
    int num_slots = static_cast<int>(Uniform(1, 4));
    tree_ = ResourceTree(static_cast<uint32_t>(num_slots));
    ref_ = ReferenceTree(num_slots);
    int target = static_cast<int>(Uniform(options_.min_nodes, options_.max_nodes));
    int roots = static_cast<int>(Uniform(1, std::max(1, std::min(4, target / 4))));
    int max_depth = static_cast<int>(Uniform(1, options_.max_depth));
    std::vector<int> depth;
    std::vector<int> cohorts;
    for (int r = 0; r < roots; ++r) {
      cohorts.push_back(AddNode(RefKind::kCohort));
      depth.push_back(0);
    }
    while (ref_.num_nodes() < target) {
      if (Chance(3)) {  // a parentless ClusterQueue
        AddNode(RefKind::kClusterQueue);
        depth.push_back(0);
        continue;
      }
      int parent = Pick(cohorts);
      int d = depth[static_cast<size_t>(parent)] + 1;
      bool cohort = d < max_depth && Chance(30);
      int node = AddNode(cohort ? RefKind::kCohort : RefKind::kClusterQueue);
      SetParent(node, parent);
      depth.push_back(d);
      if (cohort) {
        cohorts.push_back(node);
      }
    }
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      for (int s = 0; s < num_slots; ++s) {
        SetQuota(x, s, RandomQuota(ref_.Kind(x), ref_.Parent(x) == kNoNode));
      }
    }
    tree_.Refresh();
    eval_ = ref_.Evaluate();
    // Warm up with usage so that the first steps already see borrowing.
    for (int i = 0; i < ref_.num_nodes(); ++i) {
      TryAdd(/*force_percent=*/0);
    }
    eval_ = ref_.Evaluate();
  }

  // --- Steps ----------------------------------------------------------------------------------
  std::vector<int> Nodes(bool cohorts_only, bool cqs_only, bool acyclic_only) const {
    std::vector<int> out;
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      bool cohort = ref_.Kind(x) == RefKind::kCohort;
      if ((cohorts_only && !cohort) || (cqs_only && cohort) || (acyclic_only && eval_.InCycle(x))) {
        continue;
      }
      out.push_back(x);
    }
    return out;
  }

  // An amount near the interesting boundaries.
  Quantity RandomAmount(Quantity available) {
    if (!available.IsUnlimited() && Chance(50)) {
      int64_t a = available.value() + Uniform(-1, 1);
      return Quantity(std::max<int64_t>(0, a));
    }
    return Quantity(Uniform(0, 12));
  }

  Op TryAdd(int force_percent) {
    std::vector<int> cqs = Nodes(false, true, !options_.cycles || Chance(80));
    if (cqs.empty()) {
      return Op::kQuery;
    }
    int cq = Pick(cqs);
    int slot = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
    if (eval_.InCycle(cq)) {
      // Frozen tree: only the CQ's own usage changes (as for an already admitted workload).
      Quantity q(Uniform(1, 4));
      tree_.AddUsage(Id(cq), Slot(slot), q);
      ref_.AddUsage(cq, slot, q);
      op_ = fmt::format("AddUsage(in-cycle cq {}, slot {}, {})", cq, slot, Str(q));
      return Op::kAdd;
    }
    Quantity available = tree_.Available(Id(cq), Slot(slot));
    Quantity q = Chance(30) && !available.IsUnlimited() && available > Quantity::Zero()
                     ? available
                     : Quantity(Uniform(1, 6));
    bool fits = q <= available;
    if (!fits && !Chance(force_percent)) {
      ++counts_.rejected;
      op_ = fmt::format("rejected {} at cq {} slot {} (Available {})", Str(q), cq, slot,
                        Str(available));
      return Op::kQuery;
    }
    tree_.AddUsage(Id(cq), Slot(slot), q);
    ref_.AddUsage(cq, slot, q);
    ++(fits ? counts_.admitted : counts_.forced);
    op_ = fmt::format("AddUsage(cq {}, slot {}, {}){}", cq, slot, Str(q), fits ? "" : " forced");
    return Op::kAdd;
  }

  Op TryRemove() {
    std::vector<int> cqs = Nodes(false, true, false);
    for (int attempt = 0; attempt < 8 && !cqs.empty(); ++attempt) {
      int cq = Pick(cqs);
      int slot = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
      Quantity usage = ref_.CqUsage(cq, slot);
      if (usage <= Quantity::Zero()) {
        continue;
      }
      Quantity q(Uniform(1, usage.value()));
      tree_.RemoveUsage(Id(cq), Slot(slot), q);
      ref_.RemoveUsage(cq, slot, q);
      ++counts_.removed;
      removed_cq_ = cq;
      removed_slots_ = {slot};
      op_ = fmt::format("RemoveUsage(cq {}, slot {}, {})", cq, slot, Str(q));
      return Op::kRemove;
    }
    return Op::kQuery;
  }

  // A workload over several slots, admitted through the span API when every slot fits.
  Op TryAddWorkload() {
    std::vector<int> cqs = Nodes(false, true, true);
    if (cqs.empty()) {
      return Op::kQuery;
    }
    int cq = Pick(cqs);
    std::vector<SlotAmount> usage;
    bool fits = true;
    for (int s = 0; s < ref_.num_slots(); ++s) {
      if (Chance(60)) {
        Quantity q(Uniform(1, 4));
        fits = fits && q <= tree_.Available(Id(cq), Slot(s));
        usage.push_back(SlotAmount{Slot(s), q});
      }
    }
    if (usage.empty() || !fits) {
      ++counts_.rejected;
      op_ = fmt::format("rejected a {}-slot workload at cq {}", usage.size(), cq);
      return Op::kQuery;
    }
    tree_.AddUsage(Id(cq), usage);
    op_ = fmt::format("AddUsage(cq {}, span of", cq);
    for (const SlotAmount& u : usage) {
      ref_.AddUsage(cq, static_cast<int>(Index(u.slot)), u.amount);
      op_ += fmt::format(" s{}:{}", Index(u.slot), Str(u.amount));
    }
    op_ += ")";
    ++counts_.admitted;
    return Op::kAdd;
  }

  // Removes part of the usage of several slots of one CQ through the span API.
  Op TryRemoveWorkload() {
    std::vector<int> cqs = Nodes(false, true, false);
    if (cqs.empty()) {
      return Op::kQuery;
    }
    int cq = Pick(cqs);
    std::vector<SlotAmount> usage;
    removed_slots_.clear();
    for (int s = 0; s < ref_.num_slots(); ++s) {
      Quantity have = ref_.CqUsage(cq, s);
      if (have > Quantity::Zero() && Chance(70)) {
        usage.push_back(SlotAmount{Slot(s), Quantity(Uniform(1, have.value()))});
        removed_slots_.push_back(s);
      }
    }
    if (usage.empty()) {
      return Op::kQuery;
    }
    tree_.RemoveUsage(Id(cq), usage);
    op_ = fmt::format("RemoveUsage(cq {}, span of", cq);
    for (const SlotAmount& u : usage) {
      ref_.RemoveUsage(cq, static_cast<int>(Index(u.slot)), u.amount);
      op_ += fmt::format(" s{}:{}", Index(u.slot), Str(u.amount));
    }
    op_ += ")";
    ++counts_.removed;
    removed_cq_ = cq;
    return Op::kRemove;
  }

  // Adds one slot column to every node (the new slot has zero quota until an edit sets one).
  Op AddSlot() {
    int slots = ref_.num_slots() + 1;
    tree_.ResizeSlots(static_cast<uint32_t>(slots));
    ref_.ResizeSlots(slots);
    op_ = fmt::format("ResizeSlots({})", slots);
    return Op::kQuery;  // no generation changes
  }

  Op EditQuotas() {
    int edits = static_cast<int>(Uniform(1, 3));
    op_ = "edit";
    for (int e = 0; e < edits; ++e) {
      int node = static_cast<int>(Uniform(0, ref_.num_nodes() - 1));
      if (Chance(5)) {
        ClearQuotas(node);
        op_ += fmt::format(" ClearQuotas({})", node);
      } else {
        int slot = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
        RefQuota q = RandomQuota(ref_.Kind(node), false);
        SetQuota(node, slot, q);
        op_ += fmt::format(" SetQuota({}, slot {}, N={} BL={} LL={})", node, slot, Str(q.nominal),
                           Str(q.borrowing_limit), Str(q.lending_limit));
      }
      ++counts_.quota_edits;
    }
    tree_.Refresh();
    return Op::kRefresh;
  }

  bool InSubtree(int node, int root) const {  // node is root or below it (acyclic chains only)
    for (int x = node; x != kNoNode; x = ref_.Parent(x)) {
      if (x == root) {
        return true;
      }
      if (eval_.InCycle(x)) {
        return false;
      }
    }
    return false;
  }

  // x lies on a cycle (not merely below one).
  bool OnCycle(int x) const {
    int y = ref_.Parent(x);
    for (int i = 0; i <= ref_.num_nodes() && y != kNoNode; ++i, y = ref_.Parent(y)) {
      if (y == x) {
        return true;
      }
    }
    return false;
  }

  Op Reparent() {
    int node = static_cast<int>(Uniform(0, ref_.num_nodes() - 1));
    bool node_in_cycle = eval_.InCycle(node);
    std::vector<int> candidates;
    for (int c : Nodes(true, false, false)) {
      if (eval_.InCycle(c)) {
        // Hanging an acyclic node below a cycle puts it in the cycle's component (no new cycle).
        if (options_.cycles && !node_in_cycle) {
          candidates.push_back(c);
        }
        continue;
      }
      // An acyclic c can never be below a node in a cycle, so this test only matters otherwise.
      if (ref_.Kind(node) == RefKind::kClusterQueue || !InSubtree(c, node)) {
        candidates.push_back(c);
      }
    }
    int parent = candidates.empty() || Chance(10) ? kNoNode : Pick(candidates);
    if (eval_.InCycle(node) && OnCycle(node)) {
      ++counts_.cycles_broken;
    }
    SetParent(node, parent);
    ++counts_.reparents;
    op_ = fmt::format("SetParent({}, {})", node, parent);
    tree_.Refresh();
    return Op::kRefresh;
  }

  Op CreateCycle() {
    std::vector<int> cohorts = Nodes(true, false, true);
    if (cohorts.empty()) {
      return Op::kQuery;
    }
    int node = Pick(cohorts);
    std::vector<int> below;
    for (int c : cohorts) {
      if (InSubtree(c, node)) {
        below.push_back(c);  // includes node itself: a self-loop
      }
    }
    int parent = Pick(below);
    SetParent(node, parent);
    ++counts_.cycles_created;
    op_ = fmt::format("SetParent({}, {}) creating a cycle", node, parent);
    tree_.Refresh();
    return Op::kRefresh;
  }

  Op RandomStep() {
    int dice = static_cast<int>(Uniform(0, 99));
    if (options_.cycles) {
      if (dice < 6) {
        return CreateCycle();
      }
      dice -= 6;
    }
    if (dice < 38) {
      return TryAdd(/*force_percent=*/8);
    }
    if (dice < 45) {
      return TryAddWorkload();
    }
    if (dice < 69) {
      return TryRemove();
    }
    if (dice < 75) {
      return TryRemoveWorkload();
    }
    if (dice < 86) {
      return EditQuotas();
    }
    if (dice < 94) {
      return Reparent();
    }
    if (dice == 99 && ref_.num_slots() < 6 && Chance(20)) {
      return AddSlot();
    }
    return Op::kQuery;
  }

  // --- Comparisons ----------------------------------------------------------------------------
  template <typename A, typename B>
  void Expect(const A& actual, const B& expected, const char* what, int node, int slot) {
    if (actual == expected) [[likely]] {
      return;
    }
    Fail(fmt::format("{} of node {} slot {}: tree {} != reference {}", what, node, slot,
                     Show(actual), Show(expected)));
  }
  void ExpectTrue(bool condition, const std::string& what) {
    if (!condition) [[unlikely]] {
      Fail(what);
    }
  }
  void Fail(const std::string& message) {
    if (++failures_ <= kMaxReportedFailures) {
      ADD_FAILURE() << "seed index " << seed_index_ << ", step " << step_ << ": " << message;
    }
  }
  static std::string Show(Quantity q) { return Str(q); }
  static std::string Show(bool b) { return b ? "true" : "false"; }
  static std::string Show(int v) { return std::to_string(v); }
  static std::string Show(uint64_t v) { return std::to_string(v); }

  void CheckAllNodes() {
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      NodeId id = Id(x);
      Expect(tree_.InCycle(id), eval_.InCycle(x), "InCycle", x, -1);
      Expect(Int(tree_.Parent(id)), ref_.Parent(x), "Parent", x, -1);
      ++counts_.structure;
      if (eval_.InCycle(x)) {
        // Frozen: only the ClusterQueue's own usage (admitted workloads) is meaningful.
        if (ref_.Kind(x) == RefKind::kClusterQueue) {
          for (int s = 0; s < ref_.num_slots(); ++s) {
            Expect(tree_.Usage(id, Slot(s)), ref_.CqUsage(x, s), "in-cycle CQ usage", x, s);
            ++counts_.in_cycle_usage;
          }
        }
        continue;
      }
      Expect(Int(tree_.Root(id)), eval_.Root(x), "Root", x, -1);
      Expect(tree_.Depth(id), eval_.Depth(x), "Depth", x, -1);
      Expect(tree_.Height(id), eval_.Height(x), "Height", x, -1);
      for (int s = 0; s < ref_.num_slots(); ++s) {
        CheckNodeSlot(x, s);
      }
    }
  }

  void CheckNodeSlot(int x, int s) {
    NodeId id = Id(x);
    FrSlot slot = Slot(s);
    Expect(tree_.SubtreeQuota(id, slot), eval_.SubtreeQuota(x, s), "S", x, s);
    Expect(tree_.Usage(id, slot), eval_.Usage(x, s), "U", x, s);
    Expect(tree_.LocalQuota(id, slot), eval_.LocalQuota(x, s), "LQ", x, s);
    Expect(tree_.LocalAvailable(id, slot), eval_.LocalAvailable(x, s), "LocalAvailable", x, s);
    ++counts_.node_slot_states;

    Quantity balance = tree_.Balance(id, slot);
    Quantity kep = eval_.KepBalance(x, s);
    if (!eval_.HasUnboundedLenderBelow(x, s)) {
      Expect(balance, kep, "Balance vs KEP-79 T", x, s);
      ++counts_.balance_exact;
    } else {
      // Kueue's §4.1 bookkeeping lends 0 from an Unlimited subtree with a bounded lending limit,
      // KEP-79 lends LL: the balance follows §4.1 and can only be below T.
      Expect(balance, eval_.SubtreeQuota(x, s) - eval_.Usage(x, s), "Balance vs S-U", x, s);
      ExpectTrue(balance <= kep, fmt::format("corner balance {} above KEP T {} at node {} slot {}",
                                             Str(balance), Str(kep), x, s));
      ++counts_.balance_corner;
      if (balance != kep) {
        ++counts_.balance_divergent;
      }
    }

    Expect(tree_.RawAvailable(id, slot), eval_.RawAvailable(x, s), "RawAvailable", x, s);
    Expect(tree_.Available(id, slot), eval_.Available(x, s), "Available", x, s);
    ++counts_.available;
    Expect(tree_.PotentialAvailable(id, slot), eval_.PotentialAvailable(x, s), "PotentialAvailable",
           x, s);
    ++counts_.potential;

    Quantity amount = RandomAmount(eval_.Available(x, s));
    Expect(tree_.WouldBorrow(id, slot, amount), eval_.WouldBorrow(x, s, amount), "WouldBorrow", x,
           s);
    if (ref_.Kind(x) == RefKind::kClusterQueue) {
      BorrowingLevel level = tree_.FindBorrowingLevel(id, slot, amount);
      RefBorrowingLevel expected = eval_.FindHeightOfLowestSubtreeThatFits(x, s, amount);
      Expect(level.level, expected.level, "FindBorrowingLevel.level", x, s);
      Expect(level.may_reclaim, expected.may_reclaim, "FindBorrowingLevel.may_reclaim", x, s);
      ++counts_.borrowing_level;
      if (expected.level > 0) {
        ++counts_.borrowing_level_positive;
      }
    }
  }

  void CheckRandomAdmissions() {
    std::vector<int> cqs = Nodes(false, true, true);
    if (cqs.empty()) {
      return;
    }
    for (int i = 0; i < 4; ++i) {
      int cq = Pick(cqs);
      int s = static_cast<int>(Uniform(0, ref_.num_slots() - 1));
      Quantity available = tree_.Available(Id(cq), Slot(s));
      Quantity q = RandomAmount(available);
      bool fits = tree_.FitsOnPath(Id(cq), Slot(s), q);
      bool by_subtree = ref_.FitsBySubtreeBalance(cq, s, q);
      bool by_kep = ref_.FitsByKepBalance(cq, s, q);
      std::string where =
          fmt::format("cq {} slot {} q {} (Available {})", cq, s, Str(q), Str(available));
      ExpectTrue(fits == by_subtree, fmt::format("FitsOnPath {} != brute force on S-U {} at {}",
                                                 fits, by_subtree, where));
      ++counts_.fits_vs_subtree;
      ++(fits ? counts_.fits_true : counts_.fits_false);
      bool corner = eval_.PathHasUnboundedLender(cq, s);
      if (!corner) {
        ExpectTrue(fits == by_kep, fmt::format("FitsOnPath {} != KEP-79 brute force {} at {}", fits,
                                               by_kep, where));
        ++counts_.fits_vs_kep;
      } else {
        ExpectTrue(!fits || by_kep, "FitsOnPath admits what KEP-79 rejects at " + where);
      }
      bool within = q <= available;
      // FitsOnPath implies no debt on the path, and then the two agree (docs/quota-tree.md §7).
      ExpectTrue(!fits || within, "FitsOnPath admits more than Available at " + where);
      if (!eval_.PathHasDebt(cq, s, /*kep=*/false)) {
        ExpectTrue(within == by_subtree,
                   fmt::format("(q <= Available) {} != brute force on S-U {} at {} (no debt)",
                               within, by_subtree, where));
        ++counts_.available_vs_subtree;
      } else {
        ++counts_.queries_with_debt;
      }
      if (!corner && !eval_.PathHasDebt(cq, s, /*kep=*/true)) {
        ExpectTrue(within == by_kep,
                   fmt::format("(q <= Available) {} != KEP-79 brute force {} at {} (no debt)",
                               within, by_kep, where));
        ++counts_.available_vs_kep;
      }
    }
  }

  std::vector<uint64_t> Generations() const {
    std::vector<uint64_t> out(static_cast<size_t>(ref_.num_nodes()));
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      out[static_cast<size_t>(x)] = tree_.Generation(Id(x));
    }
    return out;
  }

  // The tree (its root) or, for a chain that enters a cycle, the smallest node on that cycle.
  int ComponentKey(const ReferenceEvaluation& eval, int x) const {
    if (!eval.InCycle(x)) {
      return eval.Root(x);
    }
    int y = x;
    for (int i = 0; i < ref_.num_nodes(); ++i) {
      y = ref_.Parent(y);  // after num_nodes steps y is on the cycle
    }
    int key = y;
    for (int z = ref_.Parent(y); z != y; z = ref_.Parent(z)) {
      key = std::min(key, z);
    }
    return key;
  }

  void CheckGenerations(Op op, const ReferenceEvaluation& before,
                        const std::vector<uint64_t>& generations_before) {
    std::vector<uint64_t> after = Generations();
    const size_t n = after.size();
    switch (op) {
      case Op::kQuery:
      case Op::kAdd:
        for (size_t i = 0; i < n; ++i) {
          Expect(after[i], generations_before[i], "Generation (unchanged)", static_cast<int>(i),
                 -1);
        }
        counts_.generation_unchanged += static_cast<int64_t>(n);
        return;
      case Op::kRemove: {
        // Per removed slot: the CQ, and exactly the cohorts whose usage decreased in that slot,
        // are bumped once.
        for (size_t i = 0; i < n; ++i) {
          int x = static_cast<int>(i);
          uint64_t expected = generations_before[i];
          for (int s : removed_slots_) {
            bool decreased = !eval_.InCycle(x) && ref_.Kind(x) == RefKind::kCohort
                             && eval_.Usage(x, s) < before.Usage(x, s);
            expected += (x == removed_cq_ || decreased) ? 1 : 0;
          }
          Expect(after[i], expected, "Generation after RemoveUsage", x, -1);
        }
        counts_.generation_remove += static_cast<int64_t>(n);
        return;
      }
      case Op::kRefresh: {
        // Trees (or cycle components) holding a dirty node are touched; every node of a touched
        // acyclic tree, and every node newly in a cycle, gets a strictly larger generation;
        // untouched components keep theirs.
        std::vector<int> touched;
        for (int d : dirty_) {
          touched.push_back(ComponentKey(eval_, d));
        }
        for (size_t i = 0; i < n; ++i) {
          int x = static_cast<int>(i);
          bool is_touched =
              std::find(touched.begin(), touched.end(), ComponentKey(eval_, x)) != touched.end();
          bool newly_in_cycle = eval_.InCycle(x) && !before.InCycle(x);
          if ((is_touched && !eval_.InCycle(x)) || newly_in_cycle) {
            ExpectTrue(after[i] > generations_before[i],
                       fmt::format("Generation of node {} not bumped by Refresh ({} -> {})", x,
                                   generations_before[i], after[i]));
          } else if (!is_touched) {
            Expect(after[i], generations_before[i], "Generation of an untouched tree", x, -1);
          }
        }
        counts_.generation_refresh += static_cast<int64_t>(n);
        return;
      }
    }
  }

  std::string Describe() const {
    if (ref_.num_nodes() > 80) {
      return fmt::format("({} nodes, {} slots: too large to print)", ref_.num_nodes(),
                         ref_.num_slots());
    }
    std::string out;
    for (int x = 0; x < ref_.num_nodes(); ++x) {
      out += fmt::format("  node {} {} parent {}:", x,
                         ref_.Kind(x) == RefKind::kCohort ? "cohort" : "cq", ref_.Parent(x));
      for (int s = 0; s < ref_.num_slots(); ++s) {
        const RefQuota& q = ref_.Quota(x, s);
        out += fmt::format(" [s{} N={} BL={} LL={}", s, Str(q.nominal), Str(q.borrowing_limit),
                           Str(q.lending_limit));
        if (ref_.Kind(x) == RefKind::kClusterQueue) {
          out += fmt::format(" usage={}", Str(ref_.CqUsage(x, s)));
        }
        out += "]";
      }
      out += "\n";
    }
    return out;
  }

  uint64_t seed_index_;
  std::mt19937_64 rng_;
  ForestOptions options_;
  Counts& counts_;
  ResourceTree tree_;
  ReferenceTree ref_;
  ReferenceEvaluation eval_;
  std::vector<int> dirty_;  // nodes the last Refresh had to look at (SetQuota/SetParent targets)
  int removed_cq_ = kNoNode;
  std::vector<int> removed_slots_;
  int64_t step_ = -1;
  int failures_ = 0;
  std::string op_;
};

// Most seeds use small forests (fast, many steps); every 25th seed a forest of up to 1,000 nodes.
ForestOptions OptionsForSeed(uint64_t seed_index) {
  ForestOptions options;
  if (seed_index % 25 == 7) {
    options.min_nodes = 300;
    options.max_nodes = 1000;
  } else if (seed_index % 5 == 3) {
    options.min_nodes = 40;
    options.max_nodes = 160;
  }
  options.unlimited = seed_index % 3 == 1;
  return options;
}

int64_t StepsForSeed(uint64_t seed_index) {
  return seed_index % 25 == 7 ? 100 : 500;
}

TEST(ResourceTreePropertyTest, RandomForestsMatchReferenceModel) {
  const int64_t total_steps = EnvInt("TALLY_PROPERTY_STEPS", kDefaultSteps);
  const int64_t only_seed = EnvInt("TALLY_PROPERTY_SEED", -1);
  Counts counts;
  for (uint64_t seed = 0; counts.steps < total_steps; ++seed) {
    if (only_seed >= 0 && seed != static_cast<uint64_t>(only_seed)) {
      if (seed > static_cast<uint64_t>(only_seed)) {
        break;
      }
      continue;
    }
    Harness harness(seed, OptionsForSeed(seed), counts);
    ASSERT_TRUE(harness.Ok());
    for (int64_t step = 0; step < StepsForSeed(seed) && counts.steps < total_steps; ++step) {
      ASSERT_TRUE(harness.Step(step));
    }
  }
  counts.Print("RandomForestsMatchReferenceModel");
  if (only_seed >= 0) {
    return;
  }
  // Not vacuous: every kind of comparison ran many times, and both admission outcomes occurred.
  // The minimums are per 100,000 steps (about a third to a half of what the default run sees).
  const double ratio = static_cast<double>(total_steps) / static_cast<double>(kDefaultSteps);
  auto scale = [ratio](int64_t per_default_run) {
    return static_cast<int64_t>(static_cast<double>(per_default_run) * ratio);
  };
  EXPECT_GE(counts.steps, total_steps);
  EXPECT_GE(counts.node_slot_states, scale(1'000'000));
  EXPECT_GE(counts.balance_exact, scale(1'000'000));
  EXPECT_GE(counts.balance_corner, scale(1'000));
  EXPECT_GE(counts.borrowing_level_positive, scale(100'000));
  EXPECT_GE(counts.fits_vs_kep, scale(200'000));
  EXPECT_GE(counts.fits_true, scale(50'000));
  EXPECT_GE(counts.fits_false, scale(50'000));
  EXPECT_GE(counts.available_vs_kep, scale(100'000));
  EXPECT_GE(counts.available_vs_subtree, scale(100'000));
  EXPECT_GE(counts.generation_refresh, scale(100'000));
  EXPECT_GE(counts.generation_remove, scale(100'000));
  EXPECT_GE(counts.admitted, scale(10'000));
  EXPECT_GE(counts.forced, scale(500));
  EXPECT_GE(counts.removed, scale(10'000));
  EXPECT_GE(counts.quota_edits, scale(10'000));
  EXPECT_GE(counts.reparents, scale(5'000));
}

TEST(ResourceTreePropertyTest, CyclesFreezeUsageAndRecoverWhenBroken) {
  const int64_t only_seed = EnvInt("TALLY_PROPERTY_SEED", -1);
  Counts counts;
  constexpr uint64_t kCycleSeedOffset = 1'000'000;
  for (uint64_t i = 0; i < 60; ++i) {
    uint64_t seed = kCycleSeedOffset + i;
    if (only_seed >= 0 && seed != static_cast<uint64_t>(only_seed)) {
      continue;
    }
    ForestOptions options;
    options.min_nodes = 4;
    options.max_nodes = 40;
    options.unlimited = i % 3 == 1;
    options.cycles = true;
    Harness harness(seed, options, counts);
    ASSERT_TRUE(harness.Ok());
    for (int64_t step = 0; step < 300; ++step) {
      ASSERT_TRUE(harness.Step(step));
      // Now and then break every cycle and require full equality with the oracle at once.
      if (step % 50 == 49 && harness.HasCycle()) {
        ASSERT_TRUE(harness.BreakAllCycles());
        ASSERT_FALSE(harness.HasCycle());
      }
    }
  }
  counts.Print("CyclesFreezeUsageAndRecoverWhenBroken");
  if (only_seed >= 0) {
    return;
  }
  EXPECT_GE(counts.cycles_created, 500);
  EXPECT_GE(counts.cycles_broken, 200);
  EXPECT_GE(counts.steps_with_cycle, 2'000);
  EXPECT_GE(counts.in_cycle_usage, 10'000);
  EXPECT_GE(counts.full_checks_after_break, 50);
  EXPECT_GE(counts.fits_vs_kep, 10'000);
  EXPECT_GE(counts.available_vs_kep, 5'000);
}

// The one place where Kueue's §4.1 bookkeeping and the KEP-79 balance disagree (pinned here so
// that a change on either side is noticed): a subtree whose quota is Unlimited but whose lending
// limit is bounded. §4.1: LQ = max(0, Unlimited - LL) = Unlimited, S - LQ = Unlimited - Unlimited
// = 0 (Kueue's Amount.Sub), so it lends nothing. KEP-79: min(LL, T) = LL.
TEST(ResourceTreePropertyTest, UnlimitedSubtreeWithLendingLimitLendsNothingUnlikeKep79) {
  ResourceTree tree(1);
  NodeId cohort = tree.AddNode(NodeKind::kCohort);
  NodeId a = tree.AddNode(NodeKind::kClusterQueue);
  NodeId b = tree.AddNode(NodeKind::kClusterQueue);
  tree.SetParent(a, cohort);
  tree.SetParent(b, cohort);
  tree.SetQuota(a, Slot(0), SlotQuota{kUnlimited, kUnlimited, Quantity(5)});
  tree.Refresh();

  ReferenceTree ref(1);
  int rc = ref.AddNode(RefKind::kCohort);
  int ra = ref.AddNode(RefKind::kClusterQueue);
  int rb = ref.AddNode(RefKind::kClusterQueue);
  ref.SetParent(ra, rc);
  ref.SetParent(rb, rc);
  ref.SetQuota(ra, 0, RefQuota{kUnlimited, std::nullopt, Quantity(5)});
  ReferenceEvaluation eval = ref.Evaluate();

  EXPECT_EQ(tree.SubtreeQuota(cohort, Slot(0)), Quantity(0));
  EXPECT_EQ(eval.SubtreeQuota(rc, 0), Quantity(0));
  EXPECT_EQ(eval.KepBalance(rc, 0), Quantity(5));
  EXPECT_TRUE(eval.HasUnboundedLenderBelow(rc, 0));
  EXPECT_EQ(tree.Available(b, Slot(0)), Quantity(0));
  EXPECT_FALSE(tree.FitsOnPath(b, Slot(0), Quantity(3)));
  EXPECT_FALSE(ref.FitsBySubtreeBalance(rb, 0, Quantity(3)));
  EXPECT_TRUE(ref.FitsByKepBalance(rb, 0, Quantity(3)));
}

// Disabled: documents a divergence from Kueue found while writing this test (engine/quantity.h,
// not the tree). Kueue's Amount.Add saturates a *bounded* overflow to MaxInt64 - 1
// (boundedAmount), so a sum of bounded quotas never becomes the Unlimited sentinel. Quantity
// saturates to MaxInt64 == Unlimited: eight ClusterQueues with 1Ei of memory each give their
// cohort S = Unlimited, LQ = max(0, Unlimited - LL) = Unlimited, and the cohort lends 0 instead of
// its lending limit. Enable once Quantity keeps bounded sums below the sentinel.
TEST(ResourceTreePropertyTest, BoundedOverflowStaysBelowUnlimitedAsInKueue) {
  const Quantity one_ei(int64_t{1} << 60);
  ResourceTree tree(1);
  NodeId root = tree.AddNode(NodeKind::kCohort);
  NodeId lender = tree.AddNode(NodeKind::kCohort);
  NodeId borrower = tree.AddNode(NodeKind::kClusterQueue);
  tree.SetParent(lender, root);
  tree.SetParent(borrower, root);
  tree.SetQuota(lender, Slot(0), SlotQuota{Quantity::Zero(), kUnlimited, Quantity(10)});
  for (int i = 0; i < 8; ++i) {
    NodeId cq = tree.AddNode(NodeKind::kClusterQueue);
    tree.SetParent(cq, lender);
    tree.SetQuota(cq, Slot(0), SlotQuota{one_ei, kUnlimited, kUnlimited});
  }
  tree.Refresh();
  EXPECT_FALSE(tree.SubtreeQuota(lender, Slot(0)).IsUnlimited());  // Kueue: MaxInt64 - 1
  EXPECT_EQ(tree.Available(borrower, Slot(0)), Quantity(10));
}

// §4.4 worked examples through both models.
TEST(ResourceTreePropertyTest, WorkedExamplesOfSection44) {
  {
    // Lending limit: C (no quota) <- a {N=10, LL=4}, b {N=0}; a uses 8.
    ReferenceTree ref(1);
    int c = ref.AddNode(RefKind::kCohort);
    int a = ref.AddNode(RefKind::kClusterQueue);
    int b = ref.AddNode(RefKind::kClusterQueue);
    ref.SetParent(a, c);
    ref.SetParent(b, c);
    ref.SetQuota(a, 0, RefQuota{Quantity(10), std::nullopt, Quantity(4)});
    ReferenceEvaluation eval = ref.Evaluate();
    EXPECT_EQ(eval.LocalQuota(a, 0), Quantity(6));
    EXPECT_EQ(eval.SubtreeQuota(c, 0), Quantity(4));
    EXPECT_EQ(eval.PotentialAvailable(b, 0), Quantity(4));
    ref.AddUsage(a, 0, Quantity(8));
    eval = ref.Evaluate();
    EXPECT_EQ(eval.Usage(c, 0), Quantity(2));
    EXPECT_EQ(eval.Available(b, 0), Quantity(2));
    EXPECT_EQ(eval.Available(a, 0), Quantity(2));
    EXPECT_EQ(eval.KepBalance(a, 0), Quantity(2));
    EXPECT_EQ(eval.KepBalance(c, 0), Quantity(2));
  }
  {
    // Borrowing limit in the middle: R(N=0) <- {P(N=0, BL=2) <- x(N=4)}, y(N=10).
    ReferenceTree ref(1);
    int r = ref.AddNode(RefKind::kCohort);
    int p = ref.AddNode(RefKind::kCohort);
    int x = ref.AddNode(RefKind::kClusterQueue);
    int y = ref.AddNode(RefKind::kClusterQueue);
    ref.SetParent(p, r);
    ref.SetParent(x, p);
    ref.SetParent(y, r);
    ref.SetQuota(p, 0, RefQuota{Quantity(0), Quantity(2), std::nullopt});
    ref.SetQuota(x, 0, RefQuota{Quantity(4), std::nullopt, std::nullopt});
    ref.SetQuota(y, 0, RefQuota{Quantity(10), std::nullopt, std::nullopt});
    ReferenceEvaluation eval = ref.Evaluate();
    EXPECT_EQ(eval.SubtreeQuota(p, 0), Quantity(4));
    EXPECT_EQ(eval.SubtreeQuota(r, 0), Quantity(14));
    EXPECT_EQ(eval.Available(x, 0), Quantity(6));
    EXPECT_EQ(eval.PotentialAvailable(x, 0), Quantity(6));
    EXPECT_TRUE(ref.FitsByKepBalance(x, 0, Quantity(6)));
    EXPECT_FALSE(ref.FitsByKepBalance(x, 0, Quantity(7)));
    EXPECT_EQ(eval.Height(r), 2);
    EXPECT_EQ(eval.Height(p), 1);
    // 5 > N(x) = 4; P (S=4) cannot hold it, R (S=14) can: height(R) = 2, R has no parent.
    EXPECT_EQ((eval.FindHeightOfLowestSubtreeThatFits(x, 0, Quantity(5))),
              (RefBorrowingLevel{2, false}));
    EXPECT_EQ((eval.FindHeightOfLowestSubtreeThatFits(x, 0, Quantity(4))),
              (RefBorrowingLevel{0, true}));
  }
}

}  // namespace
}  // namespace engine
