// Tests for engine/config_validation.h: one test per rule, each on a spec that is valid except
// for the one thing the rule rejects, so that the test fails if the rule is removed.
#include "engine/config_validation.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

// gtest only (the test helpers do not link gmock).
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

ResourceQuotaSpec Quota(std::string resource, int64_t nominal) {
  return ResourceQuotaSpec{std::move(resource), Quantity(nominal), std::nullopt, std::nullopt};
}

// One group covering cpu and memory with one flavor.
ResourceGroupSpec CpuMemoryGroup(std::string flavor, int64_t cpu_milli, int64_t memory) {
  ResourceGroupSpec rg;
  rg.covered_resources = {"cpu", "memory"};
  rg.flavors.push_back(
      FlavorQuotasSpec{std::move(flavor), {Quota("cpu", cpu_milli), Quota("memory", memory)}});
  return rg;
}

SourceRef Source(int document) {
  return SourceRef{"test.yaml", document, 1 + 10 * document};
}

ResourceFlavorSpec Flavor(std::string name, int document = -1) {
  ResourceFlavorSpec rf;
  rf.name = std::move(name);
  rf.source = document >= 0 ? Source(document) : SourceRef{};
  return rf;
}

CohortSpec Cohort(std::string name, std::string parent, int document = -1) {
  CohortSpec cohort;
  cohort.name = std::move(name);
  cohort.parent = std::move(parent);
  cohort.source = document >= 0 ? Source(document) : SourceRef{};
  return cohort;
}

ClusterQueueSpec Queue(std::string name, std::string cohort, int document) {
  ClusterQueueSpec cq;
  cq.name = std::move(name);
  cq.cohort = std::move(cohort);
  cq.source = Source(document);
  return cq;
}

LocalQueueSpec Local(std::string name_space, std::string name, std::string cq, int document) {
  LocalQueueSpec lq;
  lq.name_space = std::move(name_space);
  lq.name = std::move(name);
  lq.cluster_queue = std::move(cq);
  lq.source = Source(document);
  return lq;
}

// A small valid cluster: two flavors, a root cohort with a child, two queues, a LocalQueue,
// a priority class and a Configuration with a transformation.
ClusterSpec ValidSpec() {
  ClusterSpec spec;
  spec.flavors.push_back(Flavor("default", 0));
  spec.flavors.push_back(Flavor("spot", 1));
  spec.cohorts.push_back(Cohort("root", "", 2));
  CohortSpec team = Cohort("team", "root", 3);
  team.resource_groups.push_back(CpuMemoryGroup("default", 4000, 1 << 30));
  team.resource_groups[0].flavors[0].resources[0].lending_limit = Quantity(8000);  // > nominal
  spec.cohorts.push_back(team);
  ClusterQueueSpec a = Queue("team-a", "team", 4);
  a.resource_groups.push_back(CpuMemoryGroup("default", 8000, 1 << 30));
  a.resource_groups[0].flavors.push_back(
      FlavorQuotasSpec{"spot", {Quota("cpu", 2000), Quota("memory", 1 << 20)}});
  a.resource_groups[0].flavors[0].resources[0].borrowing_limit = Quantity(1000);
  a.resource_groups[0].flavors[0].resources[0].lending_limit = Quantity(8000);  // == nominal
  a.namespace_selector.is_null = false;
  a.namespace_selector.match_expressions.push_back({"team", "In", {"a", "b"}});
  a.namespace_selector.match_expressions.push_back({"kubernetes.io/metadata.name", "Exists", {}});
  a.preemption.reclaim_within_cohort = PreemptionPolicy::kAny;
  a.preemption.borrow_within_cohort = PreemptionPolicy::kLowerPriority;
  a.preemption.within_cluster_queue = PreemptionPolicy::kLowerOrNewerEqualPriority;
  a.fair_sharing_weight = 0.0;  // 0 is allowed
  spec.cluster_queues.push_back(a);
  ClusterQueueSpec b = Queue("team-b", "", 5);
  b.resource_groups.push_back(CpuMemoryGroup("default", 1000, 1000));
  b.flavor_fungibility = {FungibilityPolicy::kTryNextFlavor, FungibilityPolicy::kTryNextFlavor,
                          FungibilityPreference::kPreemptionOverBorrowing, std::nullopt};
  b.fair_sharing_weight = 2.5;
  spec.cluster_queues.push_back(b);
  spec.local_queues.push_back(Local("ns-a", "queue", "team-a", 6));
  spec.local_queues.push_back(Local("ns-b", "queue", "team-b", 7));
  PriorityClassSpec high;
  high.name = "high";
  high.value = 1000;
  spec.priority_classes.push_back(high);
  spec.configuration.present = true;
  spec.configuration.resources.exclude_resource_prefixes = {"networking.example.com/"};
  ResourceTransformationSpec t;
  t.input = "nvidia.com/mig-1g.5gb";
  t.strategy = TransformationStrategy::kReplace;
  t.outputs.emplace_back("example.com/accelerator-memory", *ParseDecimalQuantity("5Gi"));
  spec.configuration.resources.transformations.push_back(t);
  return spec;
}

std::vector<ValidationIssue> Errors(const std::vector<ValidationIssue>& issues) {
  std::vector<ValidationIssue> out;
  for (const ValidationIssue& issue : issues) {
    if (!issue.is_warning) {
      out.push_back(issue);
    }
  }
  return out;
}

std::string Dump(const std::vector<ValidationIssue>& issues) {
  std::string out;
  for (const ValidationIssue& issue : issues) {
    out += issue.ToString() + "\n";
  }
  return out;
}

// Expects exactly one issue, of the given severity, at `path`, whose message contains `text`.
void ExpectSingleIssue(const ClusterSpec& spec, const std::string& path, const std::string& text,
                       bool warning = false) {
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 1u) << Dump(issues);
  EXPECT_EQ(issues[0].field_path, path) << Dump(issues);
  EXPECT_TRUE(Contains(issues[0].message, text));
  EXPECT_EQ(issues[0].is_warning, warning);
}

// Expects at least one error at `path` whose message contains `text`.
void ExpectError(const ClusterSpec& spec, const std::string& path, const std::string& text) {
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  for (const ValidationIssue& issue : Errors(issues)) {
    if (issue.field_path == path && issue.message.find(text) != std::string::npos) {
      return;
    }
  }
  ADD_FAILURE() << "no error at " << path << " containing \"" << text << "\" in:\n" << Dump(issues);
}

ClusterQueueSpec& TeamA(ClusterSpec& spec) {
  return spec.cluster_queues[0];
}
ClusterQueueSpec& TeamB(ClusterSpec& spec) {
  return spec.cluster_queues[1];
}

TEST(ConfigValidationTest, ValidSpecHasNoIssues) {
  std::vector<ValidationIssue> issues = ValidateClusterSpec(ValidSpec());
  EXPECT_TRUE(issues.empty()) << Dump(issues);
}

TEST(ConfigValidationTest, EmptySpecHasNoIssues) {
  EXPECT_TRUE(ValidateClusterSpec(ClusterSpec{}).empty());
}

// --- resourceGroups shape -------------------------------------------------------------------

TEST(ConfigValidationTest, AtMostSixteenResourceGroups) {
  ClusterSpec spec = ValidSpec();
  ClusterQueueSpec& cq = TeamB(spec);
  cq.resource_groups.clear();
  for (int i = 0; i < 17; ++i) {
    ResourceGroupSpec rg;
    rg.covered_resources = {fmt::format("example.com/r{}", i)};
    rg.flavors.push_back({"default", {Quota(rg.covered_resources[0], 1)}});
    rg.flavors[0].flavor = i == 0 ? "default" : "spot";
    cq.resource_groups.push_back(rg);
  }
  // Flavors repeat across groups too; only look for the group-count error.
  ExpectError(spec, "spec.resourceGroups", "Too many: 17: must have at most 16 items");
}

TEST(ConfigValidationTest, AtMost256FlavorsAcrossGroups) {
  ClusterSpec spec = ValidSpec();
  ClusterQueueSpec& cq = TeamB(spec);
  cq.resource_groups.clear();
  for (int g = 0; g < 5; ++g) {
    ResourceGroupSpec rg;
    rg.covered_resources = {fmt::format("example.com/r{}", g)};
    for (int f = 0; f < 60; ++f) {
      rg.flavors.push_back({fmt::format("f{}", g * 100 + f), {Quota(rg.covered_resources[0], 1)}});
      spec.flavors.push_back(Flavor(rg.flavors.back().flavor));
    }
    cq.resource_groups.push_back(rg);
  }
  ExpectSingleIssue(spec, "spec.resourceGroups",
                    "Too many: 300 flavors across all resource groups");
}

TEST(ConfigValidationTest, CoveredResourcesRequired) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].covered_resources.clear();
  ExpectError(spec, "spec.resourceGroups[0].coveredResources", "Required value");
}

TEST(ConfigValidationTest, AtMost64CoveredResources) {
  ClusterSpec spec = ValidSpec();
  ResourceGroupSpec rg;
  FlavorQuotasSpec fq{"default", {}};
  for (int i = 0; i < 65; ++i) {
    rg.covered_resources.push_back(fmt::format("example.com/r{}", i));
    fq.resources.push_back(Quota(rg.covered_resources.back(), 1));
  }
  rg.flavors.push_back(fq);
  TeamB(spec).resource_groups = {rg};
  ExpectSingleIssue(spec, "spec.resourceGroups[0].coveredResources", "Too many: 65");
}

TEST(ConfigValidationTest, FlavorsRequired) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].flavors.clear();
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors", "Required value");
}

TEST(ConfigValidationTest, AtMost64FlavorsPerGroup) {
  ClusterSpec spec = ValidSpec();
  ResourceGroupSpec rg;
  rg.covered_resources = {"cpu"};
  for (int i = 0; i < 65; ++i) {
    rg.flavors.push_back({fmt::format("f{}", i), {Quota("cpu", 1)}});
    spec.flavors.push_back(Flavor(rg.flavors.back().flavor));
  }
  TeamB(spec).resource_groups = {rg};
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors", "Too many: 65");
}

TEST(ConfigValidationTest, FlavorListsEveryCoveredResource) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].flavors[0].resources.pop_back();  // memory missing
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[0].resources",
                    "must have the same number of resources as the coveredResources (1 listed, "
                    "2 covered)");
}

TEST(ConfigValidationTest, FlavorListsCoveredResourcesInOrder) {
  ClusterSpec spec = ValidSpec();
  auto& resources = TeamB(spec).resource_groups[0].flavors[0].resources;
  std::swap(resources[0], resources[1]);
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 2u) << Dump(issues);
  EXPECT_EQ(issues[0].field_path, "spec.resourceGroups[0].flavors[0].resources[0].name");
  EXPECT_TRUE(Contains(issues[0].message, "must match the name in coveredResources (\"cpu\")"));
}

TEST(ConfigValidationTest, ResourceInOneGroupOnly) {
  ClusterSpec spec = ValidSpec();
  ResourceGroupSpec second;
  second.covered_resources = {"memory"};
  second.flavors.push_back({"spot", {Quota("memory", 1)}});
  TeamB(spec).resource_groups[0].covered_resources = {"cpu"};
  TeamB(spec).resource_groups[0].flavors[0].resources.pop_back();
  TeamB(spec).resource_groups.push_back(second);
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
  TeamB(spec).resource_groups[1].covered_resources = {"cpu"};
  TeamB(spec).resource_groups[1].flavors[0].resources[0].resource = "cpu";
  ExpectSingleIssue(spec, "spec.resourceGroups[1].coveredResources[0]",
                    "Duplicate value: \"cpu\": already covered at "
                    "spec.resourceGroups[0].coveredResources[0]");
}

TEST(ConfigValidationTest, FlavorInOneGroupOnly) {
  ClusterSpec spec = ValidSpec();
  ResourceGroupSpec second;
  second.covered_resources = {"example.com/gpu"};
  second.flavors.push_back({"default", {Quota("example.com/gpu", 1)}});
  TeamB(spec).resource_groups.push_back(second);
  ExpectSingleIssue(spec, "spec.resourceGroups[1].flavors[0].name",
                    "Duplicate value: \"default\": already listed at "
                    "spec.resourceGroups[0].flavors[0].name");
}

TEST(ConfigValidationTest, SameFlavorInTwoQueuesIsFine) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].flavors[0].flavor = "spot";
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
}

// --- quotas ------------------------------------------------------------------------------------

TEST(ConfigValidationTest, NominalQuotaNonNegative) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].flavors[0].resources[0].nominal = Quantity(-500);
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
                    "Invalid value: \"-500m\": must be greater than or equal to 0");
}

TEST(ConfigValidationTest, BorrowingLimitNonNegative) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).resource_groups[0].flavors[0].resources[1].borrowing_limit = Quantity(-1);
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[0].resources[1].borrowingLimit",
                    "must be greater than or equal to 0");
}

TEST(ConfigValidationTest, LendingLimitNonNegative) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).resource_groups[0].flavors[1].resources[1].lending_limit = Quantity(-1);
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[1].resources[1].lendingLimit",
                    "must be greater than or equal to 0");
}

TEST(ConfigValidationTest, BorrowingLimitNeedsCohort) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].flavors[0].resources[0].borrowing_limit = Quantity(0);
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit",
                    "Forbidden: borrowingLimit must be nil when the ClusterQueue has no cohort");
}

TEST(ConfigValidationTest, LendingLimitNeedsCohort) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].flavors[0].resources[1].lending_limit = Quantity(0);
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[0].resources[1].lendingLimit",
                    "Forbidden: lendingLimit must be nil when the ClusterQueue has no cohort");
}

TEST(ConfigValidationTest, ClusterQueueLendingLimitAtMostNominal) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).resource_groups[0].flavors[0].resources[0].lending_limit = Quantity(8001);
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit",
                    "Invalid value: \"8001m\": must be less than or equal to nominalQuota (8)");
}

TEST(ConfigValidationTest, CohortLendingLimitMayExceedNominal) {
  ClusterSpec spec = ValidSpec();
  spec.cohorts[1].resource_groups[0].flavors[0].resources[1].lending_limit = Quantity(1LL << 40);
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
}

TEST(ConfigValidationTest, CohortLimitsNeedParent) {
  ClusterSpec spec = ValidSpec();
  CohortSpec& root = spec.cohorts[0];
  root.resource_groups.push_back(CpuMemoryGroup("default", 1000, 1000));
  root.resource_groups[0].flavors[0].resources[0].borrowing_limit = Quantity(1);
  root.resource_groups[0].flavors[0].resources[1].lending_limit = Quantity(1);
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 2u) << Dump(issues);
  EXPECT_EQ(issues[0].kind, "Cohort");
  EXPECT_EQ(issues[0].field_path, "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit");
  EXPECT_TRUE(Contains(issues[0].message, "when the Cohort has no parentName"));
  EXPECT_EQ(issues[1].field_path, "spec.resourceGroups[0].flavors[0].resources[1].lendingLimit");
}

TEST(ConfigValidationTest, CohortResourceGroupsFollowTheSameRules) {
  ClusterSpec spec = ValidSpec();
  spec.cohorts[1].resource_groups[0].covered_resources.push_back("cpu");
  ExpectError(spec, "spec.resourceGroups[0].coveredResources[2]", "Duplicate value: \"cpu\"");
}

// --- preemption, fungibility, fair sharing ------------------------------------------------------

TEST(ConfigValidationTest, BorrowWithinCohortNeedsReclaim) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).preemption.reclaim_within_cohort = PreemptionPolicy::kNever;
  ExpectSingleIssue(spec, "spec.preemption",
                    "reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never");
}

TEST(ConfigValidationTest, BorrowWithinCohortPolicyValues) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).preemption.borrow_within_cohort = PreemptionPolicy::kAny;
  ExpectSingleIssue(spec, "spec.preemption.borrowWithinCohort.policy",
                    "Unsupported value: \"Any\": supported values: \"Never\", \"LowerPriority\"");
}

TEST(ConfigValidationTest, ReclaimWithinCohortValues) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).preemption.reclaim_within_cohort = PreemptionPolicy::kLowerOrNewerEqualPriority;
  ExpectSingleIssue(spec, "spec.preemption.reclaimWithinCohort",
                    "Unsupported value: \"LowerOrNewerEqualPriority\"");
}

TEST(ConfigValidationTest, WithinClusterQueueValues) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).preemption.within_cluster_queue = PreemptionPolicy::kAny;
  ExpectSingleIssue(spec, "spec.preemption.withinClusterQueue", "Unsupported value: \"Any\"");
}

TEST(ConfigValidationTest, FungibilityPreferenceNeedsTryNextFlavorTwice) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).flavor_fungibility.when_can_borrow = FungibilityPolicy::kMayStopSearch;
  ExpectSingleIssue(spec, "spec.flavorFungibility.preference",
                    "preference can only be set when both whenCanBorrow and whenCanPreempt are "
                    "TryNextFlavor (they are MayStopSearch and TryNextFlavor)");
}

// Seed 002: team-a has flavors default and spot.
FlavorFallbackSpec Fallback(std::vector<FallbackRuleSpec> rules) {
  FlavorFallbackSpec f;
  f.rules = std::move(rules);
  return f;
}

constexpr int64_t kTenMinutes = int64_t{600} * 1'000'000;

TEST(ConfigValidationTest, FallbackRulesOfTheQueuesFlavorsAreValid) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).flavor_fungibility.fallback =
      Fallback({{"default", FallbackTrigger::kTimeoutForPodsReadyExceeded, kTenMinutes},
                {"spot", FallbackTrigger::kTimeoutForPodsReadyExceeded, std::nullopt},
                {"spot", FallbackTrigger::kAdmissionCheckRejected, std::nullopt},
                {"*", FallbackTrigger::kAdmissionCheckRejected, std::nullopt}});
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  EXPECT_TRUE(issues.empty()) << Dump(issues);
}

TEST(ConfigValidationTest, FallbackRuleNamesAFlavorOfTheQueue) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).flavor_fungibility.fallback =
      Fallback({{"default", FallbackTrigger::kTimeoutForPodsReadyExceeded, kTenMinutes},
                {"on-demand", FallbackTrigger::kTimeoutForPodsReadyExceeded, std::nullopt}});
  ExpectSingleIssue(spec, "spec.flavorFungibility.fallbackStrategy.rules[1].name",
                    "\"on-demand\": not a flavor of this ClusterQueue's resource groups "
                    "(flavors: default, spot;");
}

TEST(ConfigValidationTest, FallbackRuleOncePerFlavorAndTrigger) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).flavor_fungibility.fallback =
      Fallback({{"spot", FallbackTrigger::kTimeoutForPodsReadyExceeded, kTenMinutes},
                {"spot", FallbackTrigger::kTimeoutForPodsReadyExceeded, std::nullopt}});
  ExpectSingleIssue(spec, "spec.flavorFungibility.fallbackStrategy.rules[1].name",
                    "a second TimeoutForPodsReadyExceeded rule for \"spot\"");
}

TEST(ConfigValidationTest, AdmissionCheckRejectedRuleHasNoTimeout) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).flavor_fungibility.fallback =
      Fallback({{"*", FallbackTrigger::kAdmissionCheckRejected, kTenMinutes}});
  ExpectSingleIssue(spec, "spec.flavorFungibility.fallbackStrategy.rules[0].timeout",
                    "an AdmissionCheckRejected rule has no timeout");
}

TEST(ConfigValidationTest, FairSharingWeightNonNegative) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).fair_sharing_weight = -1.0;
  ExpectSingleIssue(spec, "spec.fairSharing.weight", "must be greater than or equal to 0");
}

TEST(ConfigValidationTest, FairSharingWeightZeroOrAboveOneNano) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).fair_sharing_weight = 1e-9;
  ExpectSingleIssue(spec, "spec.fairSharing.weight", "must be 0 or greater than 1e-9");
  TeamB(spec).fair_sharing_weight = 2e-9;
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
  spec.cohorts[0].fair_sharing_weight = 1e-12;
  ExpectSingleIssue(spec, "spec.fairSharing.weight", "must be 0 or greater than 1e-9");
}

// --- namespaceSelector --------------------------------------------------------------------------

TEST(ConfigValidationTest, SelectorOperatorMustBeKnown) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).namespace_selector.match_expressions[0].op = "Equals";
  ExpectSingleIssue(spec, "spec.namespaceSelector.matchExpressions[0].operator",
                    "Invalid value: \"Equals\": not a valid selector operator");
}

TEST(ConfigValidationTest, SelectorInNeedsValues) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).namespace_selector.match_expressions[0].op = "NotIn";
  TeamA(spec).namespace_selector.match_expressions[0].values.clear();
  ExpectSingleIssue(spec, "spec.namespaceSelector.matchExpressions[0].values",
                    "Required value: must be specified when `operator` is 'In' or 'NotIn'");
}

TEST(ConfigValidationTest, SelectorExistsTakesNoValues) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).namespace_selector.match_expressions[1].op = "DoesNotExist";
  TeamA(spec).namespace_selector.match_expressions[1].values = {"x"};
  ExpectSingleIssue(spec, "spec.namespaceSelector.matchExpressions[1].values",
                    "Forbidden: may not be specified when `operator` is 'Exists' or "
                    "'DoesNotExist'");
}

TEST(ConfigValidationTest, SelectorLabelsMustBeValid) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).namespace_selector.match_labels["team"] = "not a label value";
  ExpectSingleIssue(spec, "spec.namespaceSelector.matchLabels.team", "a valid label value");
}

// --- names and references -----------------------------------------------------------------------

TEST(ConfigValidationTest, NamesAreDnsSubdomains) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).name = "Team_B";
  ExpectError(spec, "metadata.name", "Invalid value: \"Team_B\": a lowercase RFC 1123 subdomain");
}

TEST(ConfigValidationTest, LocalQueueNamespaceIsADnsLabel) {
  ClusterSpec spec = ValidSpec();
  spec.local_queues[0].name_space = "team.a";  // a subdomain, but not a label
  ExpectSingleIssue(spec, "metadata.namespace", "a lowercase RFC 1123 label");
}

TEST(ConfigValidationTest, NameLengthLimits) {
  ClusterSpec spec = ValidSpec();
  spec.flavors[1].name = std::string(253, 'a');
  TeamA(spec).resource_groups[0].flavors[1].flavor = spec.flavors[1].name;
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
  spec.flavors[1].name += "a";
  TeamA(spec).resource_groups[0].flavors[1].flavor = spec.flavors[1].name;
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 2u) << Dump(issues);  // the flavor and the reference to it
  EXPECT_EQ(issues[0].field_path, "metadata.name");
  EXPECT_EQ(issues[1].field_path, "spec.resourceGroups[0].flavors[1].name");
}

TEST(ConfigValidationTest, ResourceNamesAreQualifiedNames) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].covered_resources[1] = "memory bytes";
  TeamB(spec).resource_groups[0].flavors[0].resources[1].resource = "memory bytes";
  ExpectSingleIssue(spec, "spec.resourceGroups[0].coveredResources[1]", "a qualified name");
}

TEST(ConfigValidationTest, DuplicateNamesNameTheFirstDefinition) {
  ClusterSpec spec = ValidSpec();
  spec.cluster_queues.push_back(TeamA(spec));
  spec.cluster_queues.back().source = SourceRef{"other.yaml", 4, 40};
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 1u) << Dump(issues);
  EXPECT_EQ(issues[0].source.file, "other.yaml");
  EXPECT_EQ(issues[0].field_path, "metadata.name");
  EXPECT_EQ(issues[0].message,
            "Duplicate value: \"team-a\": a ClusterQueue with this name is already defined at "
            "test.yaml: document 4 (line 41)");
}

TEST(ConfigValidationTest, DuplicateNamesPerKind) {
  {
    ClusterSpec spec = ValidSpec();
    spec.flavors.push_back(spec.flavors[0]);
    ExpectSingleIssue(spec, "metadata.name", "a ResourceFlavor with this name");
  }
  {
    ClusterSpec spec = ValidSpec();
    spec.cohorts.push_back(spec.cohorts[0]);
    ExpectSingleIssue(spec, "metadata.name", "a Cohort with this name");
  }
  {
    ClusterSpec spec = ValidSpec();
    spec.priority_classes.push_back(spec.priority_classes[0]);
    ExpectSingleIssue(spec, "metadata.name", "a WorkloadPriorityClass with this name");
  }
  {
    ClusterSpec spec = ValidSpec();
    spec.local_queues.push_back(spec.local_queues[0]);
    ExpectSingleIssue(spec, "metadata.name", "Duplicate value: \"ns-a/queue\"");
  }
  {
    // A ClusterQueue and a Cohort may share a name: different kinds.
    ClusterSpec spec = ValidSpec();
    spec.cohorts.push_back(Cohort("team-a", ""));
    EXPECT_TRUE(ValidateClusterSpec(spec).empty());
  }
}

TEST(ConfigValidationTest, CohortCannotBeItsOwnParent) {
  ClusterSpec spec = ValidSpec();
  spec.cohorts[0].parent = "root";
  ExpectSingleIssue(spec, "spec.parentName", "a Cohort cannot be its own parent");
}

TEST(ConfigValidationTest, CohortCycleIsAWarning) {
  ClusterSpec spec = ValidSpec();
  spec.cohorts[0].parent = "team";  // root -> team -> root
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 1u) << Dump(issues);
  EXPECT_TRUE(issues[0].is_warning);
  EXPECT_TRUE(Contains(issues[0].message, "(root -> team -> root)"));
}

// --max-cohort-depth (issue 23): one error, on the first Cohort past the limit, whatever the
// order the Cohorts come in; an undefined parent is an implicit root one level up; a cycle has no
// depth; branches that are shallow enough pass.
TEST(ConfigValidationTest, CohortsDeeperThanTheLimitAreOneError) {
  ClusterSpec spec;
  // c1 (implicit root "top") <- c2 <- ... <- c6, listed deepest first; and a shallow branch.
  for (int i = 6; i >= 1; --i) {
    spec.cohorts.push_back(
        Cohort("c" + std::to_string(i), i == 1 ? "top" : "c" + std::to_string(i - 1)));
  }
  spec.cohorts.push_back(Cohort("side", "c2"));
  ValidationLimits limits;
  limits.max_cohort_depth = 7;  // top=1, c1=2, ..., c6=7
  EXPECT_TRUE(ValidateClusterSpec(spec, limits).empty()) << Dump(ValidateClusterSpec(spec, limits));
  limits.max_cohort_depth = 5;
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec, limits);
  ASSERT_EQ(issues.size(), 1u) << Dump(issues);
  EXPECT_EQ(issues[0].name, "c5");
  EXPECT_EQ(issues[0].field_path, "spec.parentName");
  EXPECT_FALSE(issues[0].is_warning);
  EXPECT_TRUE(Contains(issues[0].message, "deeper than 5 levels here (--max-cohort-depth)"))
      << issues[0].message;
  // A cycle below the limit: its warning only, no depth error.
  spec.cohorts.push_back(Cohort("x", "y"));
  spec.cohorts.push_back(Cohort("y", "x"));
  limits.max_cohort_depth = 1;
  issues = ValidateClusterSpec(spec, limits);
  size_t depth_errors = 0;
  for (const ValidationIssue& issue : issues) {
    depth_errors += Contains(issue.message, "--max-cohort-depth") ? 1 : 0;
    EXPECT_TRUE((issue.name != "x" && issue.name != "y") || issue.is_warning) << issue.ToString();
  }
  EXPECT_EQ(depth_errors, 1u) << Dump(issues);  // c1, at depth 2
}

TEST(ConfigValidationTest, LocalQueueNeedsClusterQueue) {
  ClusterSpec spec = ValidSpec();
  spec.local_queues[0].cluster_queue.clear();
  ExpectSingleIssue(spec, "spec.clusterQueue", "Required value");
}

TEST(ConfigValidationTest, LocalQueueToMissingClusterQueueIsAWarning) {
  ClusterSpec spec = ValidSpec();
  spec.local_queues[0].cluster_queue = "team-z";
  ExpectSingleIssue(spec, "spec.clusterQueue", "ClusterQueue \"team-z\" is not defined",
                    /*warning=*/true);
  EXPECT_FALSE(HasErrors(ValidateClusterSpec(spec)));
}

TEST(ConfigValidationTest, MissingFlavorIsAWarning) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).resource_groups[0].flavors[0].flavor = "on-demand";
  ExpectSingleIssue(spec, "spec.resourceGroups[0].flavors[0].name",
                    "ResourceFlavor \"on-demand\" is not defined in the input: Kueue accepts the "
                    "ClusterQueue but keeps it inactive",
                    /*warning=*/true);
}

TEST(ConfigValidationTest, DuplicateAdmissionChecks) {
  ClusterSpec spec = ValidSpec();
  TeamB(spec).admission_checks = {{"prov", {}}, {"prov", {"default"}}};
  ExpectSingleIssue(spec, "spec.admissionChecksStrategy.admissionChecks[1].name",
                    "Duplicate value: \"prov\"");
}

TEST(ConfigValidationTest, FlavorTaintsAndTolerations) {
  ClusterSpec spec = ValidSpec();
  spec.flavors[1].node_taints.push_back({"spot", "true", "NoSchedule"});
  spec.flavors[1].tolerations.push_back({"spot", "Exists", "", "NoSchedule"});
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
  spec.flavors[1].node_taints[0].effect = "Sometimes";
  ExpectSingleIssue(spec, "spec.nodeTaints[0].effect", "Unsupported value: \"Sometimes\"");
  spec.flavors[1].node_taints[0].effect = "NoExecute";
  spec.flavors[1].tolerations[0].value = "true";
  ExpectSingleIssue(spec, "spec.tolerations[0].operator", "value must be empty");
  spec.flavors[1].tolerations.clear();
  for (int i = 0; i < 9; ++i) {
    spec.flavors[1].node_labels[fmt::format("label-{}", i)] = "x";
  }
  ExpectSingleIssue(spec, "spec.nodeLabels", "Too many: 9: must have at most 8 items");
}

// --- Configuration -----------------------------------------------------------------------------

TEST(ConfigValidationTest, TransformationInputsAreUnique) {
  ClusterSpec spec = ValidSpec();
  auto& transformations = spec.configuration.resources.transformations;
  transformations.push_back(transformations[0]);
  ExpectSingleIssue(spec, "resources.transformations[1].input",
                    "Duplicate value: \"nvidia.com/mig-1g.5gb\": already the input of "
                    "resources.transformations[0]");
}

// KEP-2937 graduation criterion: exclusion runs first, so such a transformation never applies.
TEST(ConfigValidationTest, TransformationOfExcludedResourceIsRejected) {
  ClusterSpec spec = ValidSpec();
  spec.configuration.resources.exclude_resource_prefixes.push_back("nvidia.com/mig-");
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 1u) << Dump(issues);
  EXPECT_EQ(issues[0].kind, "Configuration");
  EXPECT_EQ(issues[0].field_path, "resources.transformations[0].input");
  EXPECT_TRUE(Contains(issues[0].message,
                       "matches resources.excludeResourcePrefixes[1] (\"nvidia.com/mig-\")"));
}

TEST(ConfigValidationTest, IgnoreUndeclaredExcludesPrefixes) {
  ClusterSpec spec = ValidSpec();
  spec.configuration.resources.quota_check_strategy = QuotaCheckStrategy::kIgnoreUndeclared;
  ExpectSingleIssue(spec, "resources.quotaCheckStrategy",
                    "IgnoreUndeclared cannot be combined with resources.excludeResourcePrefixes");
  spec.configuration.resources.exclude_resource_prefixes.clear();
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
}

TEST(ConfigValidationTest, AbsentConfigurationIsNotValidated) {
  ClusterSpec spec = ValidSpec();
  spec.configuration.resources.quota_check_strategy = QuotaCheckStrategy::kIgnoreUndeclared;
  spec.configuration.present = false;
  EXPECT_TRUE(ValidateClusterSpec(spec).empty());
}

TEST(ConfigValidationTest, IssueToString) {
  ClusterSpec spec = ValidSpec();
  TeamA(spec).resource_groups[0].flavors[0].resources[0].lending_limit = Quantity(9000);
  std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].ToString(),
            "test.yaml: document 4 (line 41): ClusterQueue/team-a: "
            "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: \"9\": "
            "must be less than or equal to nominalQuota (8)");
  spec.local_queues[0].cluster_queue = "nowhere";
  issues = ValidateClusterSpec(spec);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_TRUE(Contains(issues[1].ToString(),
                       "warning: test.yaml: document 6 (line 61): "
                       "LocalQueue/ns-a/queue: spec.clusterQueue: "));
}

}  // namespace
}  // namespace engine
