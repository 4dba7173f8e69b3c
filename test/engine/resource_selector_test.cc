// Resource class selectors (engine/resource_selector.h, seed 001): unit quantities, every
// operator on matching, non-matching and missing values, mixed units, the seed's three example
// classes, empty selectors, and validation.
#include "engine/resource_selector.h"

#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

using Op = DeviceSelectorOp;

DeviceSelectorRequirement Req(std::string key, Op op, std::vector<std::string> values = {}) {
  return DeviceSelectorRequirement{std::move(key), op, std::move(values)};
}

DeviceSpec Device(std::string kind, std::map<std::string, std::string> properties = {}) {
  return DeviceSpec{"dev", std::move(kind), 1, std::move(properties)};
}

ResourceClassSpec Class(std::string name,
                        std::initializer_list<std::vector<DeviceSelectorRequirement>> selectors) {
  ResourceClassSpec rc;
  rc.name = std::move(name);
  for (const std::vector<DeviceSelectorRequirement>& reqs : selectors) {
    rc.resource_selector.push_back(DevicePropertySelector{reqs});
  }
  return rc;
}

// The requirement `key op value` against a device whose property `key` is `have`.
bool Holds(const std::string& have, Op op, const std::string& want) {
  return MatchesRequirement(Req("p", op, {want}), Device("k", {{"p", have}}));
}

DecimalQuantity Dec(std::string_view text) {
  StatusOr<DecimalQuantity> d = ParseDecimalQuantity(text);
  EXPECT_TRUE(d.ok()) << text;
  return d.ok() ? *d : DecimalQuantity{};
}

// --- Unit quantities ----------------------------------------------------------------------------

void ExpectUnitQuantity(std::string_view text, std::string_view quantity, std::string_view unit) {
  std::optional<UnitQuantity> q = ParseUnitQuantity(text);
  ASSERT_TRUE(q.has_value()) << text;
  EXPECT_EQ(CompareDecimal(q->amount, Dec(quantity)), 0) << text;
  EXPECT_EQ(q->unit, unit) << text;
}

TEST(ParseUnitQuantityTest, SplitsTheLongestQuantityPrefix) {
  ExpectUnitQuantity("30G", "30000000000", "");
  ExpectUnitQuantity("32Gi", "34359738368", "");
  ExpectUnitQuantity("7.0", "7", "");
  ExpectUnitQuantity("40GBPS", "40G", "BPS");
  ExpectUnitQuantity("100Gbps", "100G", "bps");
  ExpectUnitQuantity("1Gib", "1Gi", "b");  // the binary suffix wins over G + "ib"
  ExpectUnitQuantity("10m/s", "10m", "/s");
  ExpectUnitQuantity("1e3", "1000", "");       // exponent form only when nothing follows
  ExpectUnitQuantity("40gbps", "40", "gbps");  // "g" is no Kubernetes suffix
  ExpectUnitQuantity("100Kbps", "100", "Kbps");
  ExpectUnitQuantity("-5Mi", "-5242880", "");
  ExpectUnitQuantity(".5", "0.5", "");
}

TEST(ParseUnitQuantityTest, RejectsOtherShapes) {
  for (const char* text : {"", "fast", "G", "7.0.1", "1e3x", "v100", "40 GBPS", "1-2", "+", "."}) {
    EXPECT_FALSE(ParseUnitQuantity(text).has_value()) << text;
  }
}

TEST(ParseUnitQuantityTest, UnitsCompareIgnoringCase) {
  EXPECT_TRUE(UnitsEqual("BPS", "bps"));
  EXPECT_TRUE(UnitsEqual("", ""));
  EXPECT_FALSE(UnitsEqual("BPS", ""));
  EXPECT_FALSE(UnitsEqual("bps", "Bps/s"));
  std::optional<int> cmp =
      CompareUnitQuantities(*ParseUnitQuantity("40GBPS"), *ParseUnitQuantity("100Gbps"));
  ASSERT_TRUE(cmp.has_value());
  EXPECT_LT(*cmp, 0);
  EXPECT_FALSE(
      CompareUnitQuantities(*ParseUnitQuantity("40GBPS"), *ParseUnitQuantity("40G")).has_value());
}

// --- Operators ----------------------------------------------------------------------------------

TEST(MatchesRequirementTest, InAndNotIn) {
  const DeviceSpec gpu = Device("nvidia-gpu", {{"version", "7.0"}});
  EXPECT_TRUE(MatchesRequirement(Req("version", Op::kIn, {"6.0", "7.0"}), gpu));
  EXPECT_FALSE(MatchesRequirement(Req("version", Op::kIn, {"6.0"}), gpu));
  EXPECT_FALSE(MatchesRequirement(Req("version", Op::kIn, {"7"}), gpu));  // strings, not numbers
  EXPECT_FALSE(MatchesRequirement(Req("vendor", Op::kIn, {"nvidia"}), gpu));
  EXPECT_FALSE(MatchesRequirement(Req("version", Op::kNotIn, {"6.0", "7.0"}), gpu));
  EXPECT_TRUE(MatchesRequirement(Req("version", Op::kNotIn, {"6.0"}), gpu));
  EXPECT_TRUE(MatchesRequirement(Req("vendor", Op::kNotIn, {"nvidia"}), gpu));  // missing key
}

TEST(MatchesRequirementTest, ExistsAndDoesNotExist) {
  const DeviceSpec gpu = Device("nvidia-gpu", {{"nvlink", ""}});
  EXPECT_TRUE(MatchesRequirement(Req("nvlink", Op::kExists), gpu));
  EXPECT_FALSE(MatchesRequirement(Req("ecc", Op::kExists), gpu));
  EXPECT_FALSE(MatchesRequirement(Req("nvlink", Op::kDoesNotExist), gpu));
  EXPECT_TRUE(MatchesRequirement(Req("ecc", Op::kDoesNotExist), gpu));
  EXPECT_TRUE(MatchesRequirement(Req("Kind", Op::kExists), gpu));  // the kind is always there
}

TEST(MatchesRequirementTest, EqComparesQuantitiesWithUnitsElseStrings) {
  EXPECT_TRUE(Holds("nvidia-gpu", Op::kEq, "nvidia-gpu"));
  EXPECT_FALSE(Holds("nvidia-gpu", Op::kEq, "nvidia"));
  EXPECT_TRUE(Holds("32Gi", Op::kEq, "34359738368"));
  EXPECT_TRUE(Holds("1000M", Op::kEq, "1G"));
  EXPECT_TRUE(Holds("7", Op::kEq, "7.0"));
  EXPECT_FALSE(Holds("1G", Op::kEq, "1Gi"));
  EXPECT_TRUE(Holds("40GBPS", Op::kEq, "40Gbps"));
  EXPECT_TRUE(Holds("40000MBPS", Op::kEq, "40GBPS"));
  EXPECT_FALSE(Holds("40GBPS", Op::kEq, "40G"));  // different units
  EXPECT_FALSE(MatchesRequirement(Req("p", Op::kEq, {"1"}), Device("k")));
}

TEST(MatchesRequirementTest, OrderingAcrossSuffixes) {
  // 30G = 30 * 10^9 < 32Gi = 32 * 2^30 = 34.36 * 10^9.
  EXPECT_TRUE(Holds("32Gi", Op::kGtEq, "30G"));
  EXPECT_TRUE(Holds("32Gi", Op::kGt, "30G"));
  EXPECT_FALSE(Holds("30G", Op::kGtEq, "32Gi"));
  EXPECT_TRUE(Holds("30G", Op::kLt, "32Gi"));
  EXPECT_TRUE(Holds("30G", Op::kLtEq, "32Gi"));
  EXPECT_FALSE(Holds("32Gi", Op::kLt, "30G"));
  // 1G < 1Gi.
  EXPECT_TRUE(Holds("1Gi", Op::kGt, "1G"));
  EXPECT_FALSE(Holds("1G", Op::kGt, "1Gi"));
  EXPECT_FALSE(Holds("1G", Op::kGtEq, "1Gi"));
  EXPECT_TRUE(Holds("1G", Op::kLt, "1Gi"));
  // Equal values: only the inclusive operators hold.
  EXPECT_TRUE(Holds("1024Mi", Op::kGtEq, "1Gi"));
  EXPECT_TRUE(Holds("1024Mi", Op::kLtEq, "1Gi"));
  EXPECT_FALSE(Holds("1024Mi", Op::kGt, "1Gi"));
  EXPECT_FALSE(Holds("1024Mi", Op::kLt, "1Gi"));
  // Milli and fractional values.
  EXPECT_TRUE(Holds("500m", Op::kLt, "1"));
  EXPECT_TRUE(Holds("7.5", Op::kGt, "7.0"));
}

TEST(MatchesRequirementTest, OrderingWithUnits) {
  EXPECT_TRUE(Holds("100GBPS", Op::kGt, "40GBPS"));
  EXPECT_TRUE(Holds("100Gbps", Op::kGt, "40GBPS"));  // units ignore case
  EXPECT_TRUE(Holds("40GBPS", Op::kGtEq, "40GBPS"));
  EXPECT_FALSE(Holds("40GBPS", Op::kGt, "100Gbps"));
  EXPECT_TRUE(Holds("40GBPS", Op::kLt, "100Gbps"));
  EXPECT_TRUE(Holds("400MBPS", Op::kLt, "40GBPS"));
  // Different units never compare: every ordering operator is false.
  for (Op op : {Op::kGt, Op::kGtEq, Op::kLt, Op::kLtEq}) {
    EXPECT_FALSE(Holds("40GBPS", op, "40G")) << ToString(op);
    EXPECT_FALSE(Holds("40G", op, "40GBPS")) << ToString(op);
    EXPECT_FALSE(Holds("100GBPS", op, "40Gb")) << ToString(op);
  }
}

TEST(MatchesRequirementTest, OrderingIsFalseOnNonQuantitiesAndMissingKeys) {
  for (Op op : {Op::kGt, Op::kGtEq, Op::kLt, Op::kLtEq}) {
    EXPECT_FALSE(Holds("fast", op, "40GBPS")) << ToString(op);
    EXPECT_FALSE(Holds("7.0.1", op, "7")) << ToString(op);
    EXPECT_FALSE(Holds("10", op, "fast")) << ToString(op);  // invalid requirement value
    EXPECT_FALSE(MatchesRequirement(Req("p", op, {"1"}), Device("k"))) << ToString(op);
  }
}

TEST(MatchesRequirementTest, KindKeyReadsTheKindUnlessAPropertyHasThatName) {
  const DeviceSpec gpu = Device("nvidia-gpu");
  EXPECT_TRUE(MatchesRequirement(Req("Kind", Op::kIn, {"nvidia-gpu"}), gpu));
  EXPECT_TRUE(MatchesRequirement(Req("kind", Op::kIn, {"nvidia-gpu"}), gpu));
  EXPECT_FALSE(MatchesRequirement(Req("KIND", Op::kIn, {"nvidia-gpu"}), gpu));
  const DeviceSpec relabelled = Device("nvidia-gpu", {{"Kind", "accelerator"}});
  EXPECT_TRUE(MatchesRequirement(Req("Kind", Op::kIn, {"accelerator"}), relabelled));
  EXPECT_FALSE(MatchesRequirement(Req("Kind", Op::kIn, {"nvidia-gpu"}), relabelled));
  EXPECT_TRUE(MatchesRequirement(Req("kind", Op::kIn, {"nvidia-gpu"}), relabelled));
}

// --- The seed's example classes
// -------------------------------------------------------------------

TEST(SelectsTest, SeedNvidiaHighMem) {
  const ResourceClassSpec rc =
      Class("nvidia.high.mem",
            {{Req("Kind", Op::kIn, {"nvidia-gpu"}), Req("memory", Op::kGtEq, {"30G"})}});
  EXPECT_TRUE(Selects(rc, Device("nvidia-gpu", {{"memory", "32Gi"}})));
  EXPECT_TRUE(Selects(rc, Device("nvidia-gpu", {{"memory", "30G"}})));
  EXPECT_TRUE(Selects(rc, Device("nvidia-gpu", {{"memory", "28Gi"}})));   // 30.06 * 10^9
  EXPECT_FALSE(Selects(rc, Device("nvidia-gpu", {{"memory", "27Gi"}})));  // 28.99 * 10^9
  EXPECT_FALSE(Selects(rc, Device("nvidia-gpu", {{"memory", "16Gi"}})));
  EXPECT_FALSE(Selects(rc, Device("amd-gpu", {{"memory", "64Gi"}})));
  EXPECT_FALSE(Selects(rc, Device("nvidia-gpu")));  // no memory property
  EXPECT_FALSE(Selects(rc, Device("nvidia-gpu", {{"memory", "lots"}})));
}

TEST(SelectsTest, SeedHugepages1Gig) {
  const ResourceClassSpec rc = Class(
      "hugepages-1gig", {{Req("Kind", Op::kIn, {"huge-pages"}), Req("size", Op::kGtEq, {"1G"})}});
  EXPECT_TRUE(Selects(rc, Device("huge-pages", {{"size", "1Gi"}})));
  EXPECT_TRUE(Selects(rc, Device("huge-pages", {{"size", "1G"}})));
  EXPECT_FALSE(Selects(rc, Device("huge-pages", {{"size", "2Mi"}})));
  EXPECT_FALSE(Selects(rc, Device("huge-pages", {{"size", "512Mi"}})));
  EXPECT_FALSE(Selects(rc, Device("nvidia-gpu", {{"size", "1Gi"}})));
}

TEST(SelectsTest, SeedFastNic) {
  const ResourceClassSpec rc =
      Class("fast.nic", {{Req("Kind", Op::kIn, {"nic"}), Req("speed", Op::kGtEq, {"40GBPS"})}});
  EXPECT_TRUE(Selects(rc, Device("nic", {{"speed", "40GBPS"}})));
  EXPECT_TRUE(Selects(rc, Device("nic", {{"speed", "100Gbps"}})));
  EXPECT_FALSE(Selects(rc, Device("nic", {{"speed", "10GBPS"}})));
  EXPECT_FALSE(Selects(rc, Device("nic", {{"speed", "40G"}})));  // no unit: not comparable
  EXPECT_FALSE(Selects(rc, Device("nic", {{"speed", "fast"}})));
  EXPECT_FALSE(Selects(rc, Device("infiniband", {{"speed", "200GBPS"}})));
}

TEST(SelectsTest, SelectorsAreOredAndRequirementsAnded) {
  const ResourceClassSpec rc =
      Class("either",
            {{Req("Kind", Op::kIn, {"a"}), Req("x", Op::kExists)}, {Req("Kind", Op::kIn, {"b"})}});
  EXPECT_TRUE(Selects(rc, Device("a", {{"x", "1"}})));
  EXPECT_FALSE(Selects(rc, Device("a")));  // second requirement of the first selector fails
  EXPECT_TRUE(Selects(rc, Device("b")));
  EXPECT_FALSE(Selects(rc, Device("c", {{"x", "1"}})));
}

TEST(SelectsTest, EmptySelectorsMatchNothing) {
  EXPECT_FALSE(Selects(Class("none", {}), Device("a")));
  EXPECT_FALSE(Selects(Class("empty", {{}}), Device("a")));
  EXPECT_FALSE(Selects(DevicePropertySelector{}, Device("a")));
  // An empty selector next to a matching one does not spoil it.
  EXPECT_TRUE(Selects(Class("mixed", {{}, {Req("Kind", Op::kIn, {"a"})}}), Device("a")));
}

// --- Validation
// -----------------------------------------------------------------------------------

void ExpectInvalid(const DeviceSelectorRequirement& r, std::string_view fragment) {
  Status s = ValidateRequirement(r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << ToString(r.op);
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(ValidateRequirementTest, AcceptsWellFormedRequirements) {
  EXPECT_TRUE(ValidateRequirement(Req("Kind", Op::kIn, {"nic"})).ok());
  EXPECT_TRUE(ValidateRequirement(Req("Kind", Op::kNotIn, {"a", "b"})).ok());
  EXPECT_TRUE(ValidateRequirement(Req("nvlink", Op::kExists)).ok());
  EXPECT_TRUE(ValidateRequirement(Req("nvlink", Op::kDoesNotExist)).ok());
  EXPECT_TRUE(ValidateRequirement(Req("model", Op::kEq, {"a100"})).ok());  // Eq takes strings
  EXPECT_TRUE(ValidateRequirement(Req("speed", Op::kGtEq, {"40GBPS"})).ok());
  EXPECT_TRUE(ValidateRequirement(Req("memory", Op::kLt, {"32Gi"})).ok());
}

TEST(ValidateRequirementTest, RejectsMalformedRequirements) {
  ExpectInvalid(Req("", Op::kIn, {"a"}), "key is empty");
  ExpectInvalid(Req("Kind", Op::kIn, {}), "needs at least one value");
  ExpectInvalid(Req("Kind", Op::kNotIn, {}), "needs at least one value");
  ExpectInvalid(Req("model", Op::kEq, {}), "needs exactly one value, got 0");
  ExpectInvalid(Req("memory", Op::kGt, {"1", "2"}), "needs exactly one value, got 2");
  ExpectInvalid(Req("memory", Op::kLtEq, {}), "needs exactly one value");
  ExpectInvalid(Req("nvlink", Op::kExists, {"yes"}), "takes no values, got 1");
  ExpectInvalid(Req("nvlink", Op::kDoesNotExist, {"yes"}), "takes no values");
  ExpectInvalid(Req("speed", Op::kGtEq, {"fast"}), "\"fast\" is not a quantity");
  ExpectInvalid(Req("version", Op::kLt, {"7.0.1"}), "is not a quantity");
}

TEST(ValidateRequirementTest, ResourceClassNamesTheFailingRequirement) {
  EXPECT_TRUE(ValidateResourceClass(Class("fast.nic", {{Req("Kind", Op::kIn, {"nic"}),
                                                        Req("speed", Op::kGtEq, {"40GBPS"})}}))
                  .ok());
  Status s = ValidateResourceClass(
      Class("fast.nic", {{Req("Kind", Op::kIn, {"nic"})},
                         {Req("Kind", Op::kIn, {"nic"}), Req("speed", Op::kGtEq, {"fast"})}}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      s.message().find("resource class \"fast.nic\": resourceSelector[1].matchExpressions[1]"),
      std::string::npos)
      << s.message();
  EXPECT_FALSE(ValidateResourceClass(Class("", {})).ok());
}

TEST(DeviceSelectorOpTest, ToStringNamesEveryOperator) {
  EXPECT_STREQ(ToString(Op::kIn), "In");
  EXPECT_STREQ(ToString(Op::kNotIn), "NotIn");
  EXPECT_STREQ(ToString(Op::kEq), "Eq");
  EXPECT_STREQ(ToString(Op::kExists), "Exists");
  EXPECT_STREQ(ToString(Op::kDoesNotExist), "DoesNotExist");
  EXPECT_STREQ(ToString(Op::kGt), "Gt");
  EXPECT_STREQ(ToString(Op::kGtEq), "GtEq");
  EXPECT_STREQ(ToString(Op::kLt), "Lt");
  EXPECT_STREQ(ToString(Op::kLtEq), "LtEq");
}

}  // namespace
}  // namespace engine
