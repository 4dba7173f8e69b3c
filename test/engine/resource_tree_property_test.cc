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
#include <gtest/gtest.h>

#include "test/engine/resource_tree_property_harness.h"

namespace engine {
namespace {

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
