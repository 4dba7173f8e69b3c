// Quantity parsing and Kueue's canonical rounding (kueue-semantics.md §1).
#include "engine/quantity.h"

#include <gtest/gtest.h>

namespace engine {
namespace {

int64_t Canonical(std::string_view text, bool milli) {
  StatusOr<Quantity> q = ParseCanonicalQuantity(text, milli);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status().ToString();
  return q.ok() ? q->value() : -1;
}

TEST(QuantityTest, CpuIsMilliUnitsRoundedUp) {
  EXPECT_EQ(Canonical("500m", true), 500);
  EXPECT_EQ(Canonical("1.5", true), 1500);
  EXPECT_EQ(Canonical("0.0005", true), 1);  // half a millicore is charged as one
  EXPECT_EQ(Canonical("2", true), 2000);
  EXPECT_EQ(Canonical("100u", true), 1);
  EXPECT_EQ(Canonical("1000000n", true), 1);
  EXPECT_EQ(Canonical("1001000n", true), 2);
}

TEST(QuantityTest, OtherResourcesAreWholeUnitsRoundedUp) {
  EXPECT_EQ(Canonical("100M", false), 100'000'000);
  EXPECT_EQ(Canonical("5Gi", false), 5'368'709'120);
  EXPECT_EQ(Canonical("1e3", false), 1000);
  EXPECT_EQ(Canonical("0.5", false), 1);
  EXPECT_EQ(Canonical("500m", false), 1);  // half a GPU is one GPU
  EXPECT_EQ(Canonical("1Ki", false), 1024);
  EXPECT_EQ(Canonical("1.5Ki", false), 1536);
  EXPECT_EQ(Canonical("120Gi", false), 128'849'018'880);
  EXPECT_EQ(Canonical("1E", false), 1'000'000'000'000'000'000);
  EXPECT_EQ(Canonical("1E3", false), 1000);
  EXPECT_EQ(Canonical("12e-1", false), 2);
  EXPECT_EQ(Canonical("+7", false), 7);
  EXPECT_EQ(Canonical(".5", false), 1);
  EXPECT_EQ(Canonical("1.", false), 1);
  EXPECT_EQ(Canonical("0", false), 0);
  EXPECT_EQ(Canonical("000123", false), 123);
}

TEST(QuantityTest, NegativeValuesRoundAwayFromZero) {
  EXPECT_EQ(Canonical("-0.5", false), -1);
  EXPECT_EQ(Canonical("-1500m", true), -1500);
  EXPECT_EQ(Canonical("-1.2", false), -2);
}

TEST(QuantityTest, ValuesBeyondInt64Saturate) {
  EXPECT_EQ(Canonical("9223372036854775807", false), Quantity::kMaxValue);
  EXPECT_EQ(Canonical("9223372036854775808", false), Quantity::kMaxValue);
  EXPECT_EQ(Canonical("100Ei", false), Quantity::kMaxValue);
  EXPECT_EQ(Canonical("1e100", false), Quantity::kMaxValue);
  // cpu saturates at MaxInt64 / 1000 cores.
  EXPECT_EQ(Canonical("9223372036854776", true), Quantity::kMaxValue);
  EXPECT_EQ(Canonical("9223372036854775", true), 9'223'372'036'854'775'000);
  EXPECT_EQ(Canonical("-1e100", false), -Quantity::kMaxValue);
  EXPECT_TRUE(ParseCanonicalQuantity("1e100", false)->IsUnlimited());
  // Many digits beyond what is kept still round up.
  EXPECT_EQ(Canonical("1.000000000000000000000000000000000000000000001", false), 2);
}

TEST(QuantityTest, InvalidStringsAreRejectedWithAReason) {
  for (std::string_view bad : {"", "-", "+", ".", "1.2.3", "5Qi", "5K", "1e", "e3", "1 Gi", "Gi",
                               "1Gi5", "abc", "1e3.5", "--1", "1ee3"}) {
    StatusOr<Quantity> q = ParseCanonicalQuantity(bad, false);
    EXPECT_FALSE(q.ok()) << "accepted \"" << bad << "\"";
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(q.status().message().empty());
  }
  EXPECT_NE(ParseCanonicalQuantity("5Qi", false).status().message().find("unknown suffix \"Qi\""),
            std::string::npos);
  EXPECT_NE(ParseCanonicalQuantity("", false).status().message().find("empty"), std::string::npos);
}

TEST(QuantityTest, AmountArithmeticFollowsKueuesUnlimitedRules) {
  const Quantity five(5);
  EXPECT_EQ(kUnlimited + five, kUnlimited);
  EXPECT_EQ(five + kUnlimited, kUnlimited);
  EXPECT_EQ(kUnlimited - five, kUnlimited);
  EXPECT_EQ((five - kUnlimited).value(), Quantity::kMinValue);
  EXPECT_EQ(kUnlimited - kUnlimited, Quantity::Zero());
  EXPECT_GT(kUnlimited, Quantity(Quantity::kMaxValue - 1));
  // Bounded sums saturate one below the sentinel: never Unlimited (Kueue's boundedAmount).
  EXPECT_EQ((Quantity(Quantity::kMaxValue - 1) + five).value(), Quantity::kMaxValue - 1);
  EXPECT_FALSE((Quantity(Quantity::kMaxValue - 1) + Quantity(1)).IsUnlimited());
  EXPECT_EQ((Quantity(Quantity::kMinValue + 1) + Quantity(-5)).value(), Quantity::kMinValue);
  EXPECT_EQ((Quantity(Quantity::kMinValue + 1) - five).value(), Quantity::kMinValue);
  EXPECT_EQ(Quantity(3) - Quantity(5), Quantity(-2));
}

// Quotas follow AmountFromQuantity: values that cannot be held below MaxInt64 are Unlimited.
TEST(QuantityTest, HugeQuotasAreUnlimited) {
  EXPECT_TRUE(ParseQuotaQuantity("9223372036854775", true)->IsUnlimited());  // MaxInt64/1000 cores
  EXPECT_EQ(ParseQuotaQuantity("9223372036854774", true)->value(), 9'223'372'036'854'774'000);
  EXPECT_TRUE(ParseQuotaQuantity("1E", true)->IsUnlimited());
  EXPECT_FALSE(ParseQuotaQuantity("1E", false)->IsUnlimited());
  EXPECT_TRUE(ParseQuotaQuantity("9223372036854775807", false)->IsUnlimited());
  EXPECT_EQ(ParseQuotaQuantity("9223372036854775806", false)->value(), Quantity::kMaxValue - 1);
  EXPECT_EQ(ParseQuotaQuantity("500m", true)->value(), 500);
  EXPECT_FALSE(ParseQuotaQuantity("5Qi", false).ok());
}

TEST(QuantityTest, MultiplySaturates) {
  EXPECT_EQ(MultiplySaturating(Quantity(2350), 3), Quantity(7050));
  EXPECT_EQ(MultiplySaturating(Quantity(Quantity::kMaxValue / 2), 3).value(), Quantity::kMaxValue);
  EXPECT_EQ(MultiplySaturating(Quantity(5), 0), Quantity(0));
}

TEST(QuantityTest, ExactDecimalsCombineBeforeRounding) {
  // §3.2: two containers of 0.4 cpu... rounding happens once per pod, not per container.
  DecimalQuantity a = *ParseDecimalQuantity("0.0004");
  DecimalQuantity b = *ParseDecimalQuantity("0.0004");
  EXPECT_EQ(ToCanonical(Add(a, b), true).value(), 1);  // 0.8m -> 1m, not 2m
  // 1 + 500m + overhead 100m + sidecar 250m = 1.85 cpu.
  DecimalQuantity sum = Add(Add(*ParseDecimalQuantity("1"), *ParseDecimalQuantity("500m")),
                            Add(*ParseDecimalQuantity("100m"), *ParseDecimalQuantity("250m")));
  EXPECT_EQ(ToCanonical(sum, true).value(), 1850);
  // Mixed binary and decimal suffixes: 3Gi + 128Mi + 64Mi.
  DecimalQuantity mem = Add(Add(*ParseDecimalQuantity("3Gi"), *ParseDecimalQuantity("128Mi")),
                            *ParseDecimalQuantity("64Mi"));
  EXPECT_EQ(ToCanonical(mem, false).value(), 3'422'552'064);
  EXPECT_EQ(ToCanonical(Multiply(*ParseDecimalQuantity("2048"), *ParseDecimalQuantity("2")), false)
                .value(),
            4096);
  EXPECT_EQ(
      ToCanonical(Add(*ParseDecimalQuantity("512"), *ParseDecimalQuantity("-1024")), false).value(),
      -512);
  EXPECT_EQ(CompareDecimal(*ParseDecimalQuantity("1Ki"), *ParseDecimalQuantity("1k")), 1);
  EXPECT_EQ(CompareDecimal(*ParseDecimalQuantity("1000m"), *ParseDecimalQuantity("1")), 0);
  EXPECT_EQ(CompareDecimal(*ParseDecimalQuantity("-3"), *ParseDecimalQuantity("2")), -1);
}

// apimachinery pkg/api/resource/quantity_test.go, TestQuantityString: every case in the DecimalSI
// and BinarySI families (tally keeps no DecimalExponent quantities), as (value, scale, format),
// the quantity being value x 10^scale, and its canonical String(). Upstream also checks each
// negated value prints with a leading "-"; so does this test.
struct KubernetesStringCase {
  int64_t value;
  int32_t scale;
  QuantityFormat format;
  const char* expect;
};

constexpr QuantityFormat kDec = QuantityFormat::kDecimalSI;
constexpr QuantityFormat kBin = QuantityFormat::kBinarySI;

constexpr KubernetesStringCase kKubernetesStringCases[] = {
    {int64_t{1024} * 1024 * 1024, 0, kBin, "1Gi"},
    {int64_t{300} * 1024 * 1024, 0, kBin, "300Mi"},
    {6 * 1024, 0, kBin, "6Ki"},
    {int64_t{1001} * 1024 * 1024 * 1024, 0, kBin, "1001Gi"},
    {int64_t{1024} * 1024 * 1024 * 1024, 0, kBin, "1Ti"},
    {5, 0, kBin, "5"},
    {500, -3, kBin, "500m"},
    {1, 9, kDec, "1G"},
    {1000, 6, kDec, "1G"},
    {1000000, 3, kDec, "1G"},
    {1000000000, 0, kDec, "1G"},
    {1, -3, kDec, "1m"},
    {80, -3, kDec, "80m"},
    {1080, -3, kDec, "1080m"},
    {108, -2, kDec, "1080m"},
    {10800, -4, kDec, "1080m"},
    {300, 6, kDec, "300M"},
    {1, 12, kDec, "1T"},
    {1234567, 6, kDec, "1234567M"},
    {1234567, -3, kBin, "1234567m"},
    {3, 3, kDec, "3k"},
    {1025, 0, kBin, "1025"},
    {0, 0, kDec, "0"},
    {0, 0, kBin, "0"},
    {1, -9, kDec, "1n"},
    {80, -9, kDec, "80n"},
    {1080, -9, kDec, "1080n"},
    {108, -8, kDec, "1080n"},
    {10800, -10, kDec, "1080n"},
    {1, -6, kDec, "1u"},
    {80, -6, kDec, "80u"},
    {1080, -6, kDec, "1080u"},
};

TEST(QuantityTest, KubernetesStringMatchesApimachinery) {
  for (const KubernetesStringCase& c : kKubernetesStringCases) {
    EXPECT_EQ(FormatKubernetesQuantity(c.value, c.scale, c.format), c.expect)
        << c.value << "e" << c.scale;
    if (c.value != 0) {
      EXPECT_EQ(FormatKubernetesQuantity(-c.value, c.scale, c.format), std::string("-") + c.expect)
          << c.value << "e" << c.scale;
    }
  }
}

// Kueue's ResourceFormatter families (pkg/resources/resource_formatter.go): the suffix family
// is the resource's, never picked from the value.
TEST(QuantityTest, FormatKeepsTheResourceFamily) {
  EXPECT_EQ(FormatQuantity(Quantity(1500), "cpu"), "1500m");
  EXPECT_EQ(FormatQuantity(Quantity(2000), "cpu"), "2");
  EXPECT_EQ(FormatQuantity(Quantity(1'000'000), "cpu"), "1k");  // 1000 cores
  EXPECT_EQ(FormatQuantity(Quantity(Quantity::kMaxValue), "cpu"), "9223372036854775807m");
  EXPECT_EQ(FormatQuantity(Quantity(1024), "nvidia.com/gpu"), "1024");  // a count, not "1Ki"
  EXPECT_EQ(FormatQuantity(Quantity(1000), "pods"), "1k");
  EXPECT_EQ(FormatQuantity(Quantity(7), "pods"), "7");
  EXPECT_EQ(FormatQuantity(Quantity(5'368'709'120), "memory"), "5Gi");
  EXPECT_EQ(FormatQuantity(Quantity(100'000'000), "memory"), "100000000");  // no "M" in BinarySI
  EXPECT_EQ(FormatQuantity(Quantity(1000), "memory"), "1k");                // below 1024: DecimalSI
  EXPECT_EQ(FormatQuantity(Quantity(1536), "ephemeral-storage"), "1536");
  EXPECT_EQ(FormatQuantity(Quantity(2 * 1024 * 1024), "hugepages-2Mi"), "2Mi");
  EXPECT_EQ(FormatQuantity(Quantity(2 * 1024 * 1024), "example.com/bytes"), "2097152");
  EXPECT_EQ(FormatQuantity(Quantity(-1500), "cpu"), "-1500m");
  EXPECT_EQ(FormatQuantity(Quantity(Quantity::kMinValue), "pods"), "-9223372036854775808");
  // Quota amounts: Kueue's Amount prints its sentinel as "<unlimited>".
  EXPECT_EQ(FormatAmount(kUnlimited, "cpu"), "<unlimited>");
  EXPECT_EQ(FormatAmount(Quantity(4000), "cpu"), "4");
}

TEST(QuantityTest, FormatRoundTrips) {
  for (int64_t v : {int64_t{1}, int64_t{999}, int64_t{1024}, int64_t{3'422'552'064},
                    int64_t{123'456'789'000}}) {
    for (const char* resource : {"cpu", "memory", "pods"}) {
      bool milli = IsMilliResource(resource);
      EXPECT_EQ(Canonical(FormatQuantity(Quantity(v), resource), milli), v);
    }
  }
}

}  // namespace
}  // namespace engine
