// File: engine/quantity.h
//
// Quantities exactly as Kueue keeps them (kueue-semantics.md §1):
//  - every amount is an int64 in canonical units: the resource named exactly `cpu` in milli-units,
//    every other resource in whole units, both rounded up (away from zero);
//  - quota arithmetic saturates, and MaxInt64 is the Unlimited sentinel (Kueue's Amount):
//      Unlimited + x = Unlimited, Unlimited - bounded = Unlimited, bounded - Unlimited = MinInt64,
//      Unlimited - Unlimited = 0; a bounded sum that overflows clamps to MaxInt64 - 1 (never
//      becomes Unlimited), a bounded difference clamps to the int64 range.
//  - no floating point anywhere.
//
// Kubernetes quantity strings ("500m", "1.5", "5Gi", "1e3", "100M") are parsed into an exact
// `DecimalQuantity` first, because Kueue combines container requests as exact decimals and rounds
// only once per pod (§3). `ToCanonical` does that single rounding.
//
//   StatusOr<Quantity> cpu = ParseCanonicalQuantity("250m", /*milli=*/true);   // 250
//   StatusOr<Quantity> mem = ParseCanonicalQuantity("5Gi", /*milli=*/false);   // 5368709120
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace engine {

class Quantity {
 public:
  static constexpr int64_t kMaxValue = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kMinValue = std::numeric_limits<int64_t>::min();

  constexpr Quantity() = default;
  constexpr explicit Quantity(int64_t value) : value_(value) {}

  static constexpr Quantity Unlimited() { return Quantity(kMaxValue); }
  static constexpr Quantity Zero() { return Quantity(0); }

  constexpr int64_t value() const { return value_; }
  constexpr bool IsUnlimited() const { return value_ == kMaxValue; }

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=>.
  friend constexpr auto operator<=>(Quantity, Quantity) = default;

  // Kueue's Amount.Add: Unlimited absorbs everything; a bounded sum saturates one below the
  // sentinel, so that a large but bounded total is never mistaken for "no limit".
  friend constexpr Quantity operator+(Quantity a, Quantity b) {
    if (a.IsUnlimited() || b.IsUnlimited()) {
      return Unlimited();
    }
    int64_t sum = 0;
    if (__builtin_add_overflow(a.value_, b.value_, &sum)) [[unlikely]] {
      return Quantity(a.value_ > 0 ? kMaxValue - 1 : kMinValue);
    }
    return Quantity(sum == kMaxValue ? kMaxValue - 1 : sum);
  }

  // Kueue's Amount.Sub (see file comment for the Unlimited cases).
  friend constexpr Quantity operator-(Quantity a, Quantity b) {
    if (b.IsUnlimited()) {
      return a.IsUnlimited() ? Zero() : Quantity(kMinValue);
    }
    if (a.IsUnlimited()) {
      return Unlimited();
    }
    int64_t diff = 0;
    if (__builtin_sub_overflow(a.value_, b.value_, &diff)) [[unlikely]] {
      return Quantity(a.value_ >= 0 ? kMaxValue : kMinValue);
    }
    return Quantity(diff);
  }

  constexpr Quantity& operator+=(Quantity other) { return *this = *this + other; }
  constexpr Quantity& operator-=(Quantity other) { return *this = *this - other; }

 private:
  int64_t value_ = 0;
};

inline constexpr Quantity kUnlimited = Quantity::Unlimited();

constexpr Quantity Min(Quantity a, Quantity b) {
  return a < b ? a : b;
}
constexpr Quantity Max(Quantity a, Quantity b) {
  return a < b ? b : a;
}
constexpr Quantity ClampNonNegative(Quantity q) {
  return Max(q, Quantity::Zero());
}

// Saturating per-pod amount x pod count (a negative or unlimited amount is returned unchanged
// in sign; overflow clamps to +-MaxInt64 as Kueue's vector Mul does).
Quantity MultiplySaturating(Quantity per_pod, int64_t count);

// True for the one resource Kueue counts in milli-units.
constexpr bool IsMilliResource(std::string_view resource_name) {
  return resource_name == "cpu";
}

// An exact decimal: (negative ? -1 : 1) * mantissa * 10^exponent, plus `sticky` when digits were
// beyond the 38 kept (the true magnitude is then slightly larger: only rounding up cares).
struct DecimalQuantity {
  unsigned __int128 mantissa = 0;
  int32_t exponent = 0;
  bool negative = false;
  bool sticky = false;

  bool IsZero() const { return mantissa == 0 && !sticky; }
  // The same representation: "1" and "1000m" differ here (CompareDecimal says they are equal).
  bool operator==(const DecimalQuantity&) const = default;
};

// Parses a Kubernetes quantity string: [+-] digits [. digits] [suffix], suffix one of
// n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei, or a decimal exponent e<int> / E<int>.
// Errors name the problem ("empty quantity", "unknown suffix \"Qi\"", ...).
StatusOr<DecimalQuantity> ParseDecimalQuantity(std::string_view text);

// Exact decimal arithmetic used to combine container requests before the per-pod rounding.
DecimalQuantity Add(const DecimalQuantity& a, const DecimalQuantity& b);
DecimalQuantity Multiply(const DecimalQuantity& a, const DecimalQuantity& b);
// max(a, b) by value.
DecimalQuantity MaxOf(const DecimalQuantity& a, const DecimalQuantity& b);
int CompareDecimal(const DecimalQuantity& a, const DecimalQuantity& b);

// Rounds once, up (away from zero), to canonical units: milli-units if `milli`, else whole units.
// Magnitudes beyond int64 clamp to +-MaxInt64 (Kueue's SafeMilliValue/SafeValue).
Quantity ToCanonical(const DecimalQuantity& decimal, bool milli);

// Parse + ToCanonical in one step: a request amount (Kueue's ResourceValue, clamping).
StatusOr<Quantity> ParseCanonicalQuantity(std::string_view text, bool milli);

// A quota amount (nominalQuota, borrowingLimit, lendingLimit: Kueue's AmountFromQuantity): like
// ToCanonical, but a value whose canonical form would not fit below MaxInt64 is Unlimited — for
// cpu anything >= MaxInt64/1000 cores, for other resources anything >= MaxInt64.
Quantity ToQuota(const DecimalQuantity& decimal, bool milli);
StatusOr<Quantity> ParseQuotaQuantity(std::string_view text, bool milli);

// --- Printing quantities as Kubernetes and Kueue do ------------------------------------------
//
// Kubernetes' resource.Quantity.String() keeps a quantity's suffix family ("format"): DecimalSI
// (n u m "" k M G T P E) or BinarySI (Ki Mi Gi Ti Pi Ei). Kueue builds every quantity in a message
// from an int64 with the family of its resource (pkg/resources/resource_formatter.go:
// ResourceQuantity): cpu milli-units, DecimalSI; memory, ephemeral-storage and hugepages-* whole
// units, BinarySI; every other resource whole units, DecimalSI. So cpu 1000 cores prints "1k", a
// count of 1024 GPUs "1024" (never "1Ki"), 100000000 bytes of memory "100000000" (BinarySI has no
// decimal suffix and 10^8 is no multiple of 1024), 1000 bytes "1k" (BinarySI below 1024 falls back
// to DecimalSI). Tested against apimachinery's pkg/api/resource/quantity_test.go
// TestQuantityString.
enum class QuantityFormat : uint8_t { kDecimalSI, kBinarySI };

// The family Kueue's ResourceFormatter uses for `resource` (DRA-registered binary resources are
// not modelled: they are DecimalSI here).
QuantityFormat FormatOf(std::string_view resource);

// Quantity.String() of `value` x 10^`scale` in `format` (CanonicalizeBytes: trailing zeros moved
// into a suffix whose exponent is a multiple of 3, or of 1024 for BinarySI). REQUIRES: the
// re-scaled mantissa fits in int64 (true for every scale tally uses: 0 and -3).
std::string FormatKubernetesQuantity(int64_t value, int32_t scale, QuantityFormat format);

// Kueue's ResourceFormatter.ResourceQuantityString: a canonical amount of `resource` (cpu in
// milli-units) as Kubernetes prints it. The Unlimited sentinel is just MaxInt64 here
// (cpu "9223372036854775807m"), as for a request that saturated.
std::string FormatQuantity(Quantity q, std::string_view resource);

// Kueue's ResourceFormatter.AmountQuantityString, for quota amounts (nominal, capacities):
// "<unlimited>" for the Unlimited sentinel (Amount.String()), else FormatQuantity.
std::string FormatAmount(Quantity q, std::string_view resource);

}  // namespace engine
