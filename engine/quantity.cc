#include "engine/quantity.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

namespace engine {
namespace {

using U128 = unsigned __int128;

// Mantissas are kept below 10^38 so that one more decimal digit never overflows 2^128.
constexpr U128 Pow10(int k) {
  U128 r = 1;
  for (int i = 0; i < k; ++i) {
    r *= 10;
  }
  return r;
}
constexpr int kMaxDigits = 38;
constexpr U128 kMantissaLimit = Pow10(kMaxDigits - 1);  // room for one more digit
// Exponents beyond this already over/underflow any int64 result; clamping keeps loops short.
constexpr int32_t kExponentClamp = 400;

// Drops the last decimal digit of d (exponent + 1), remembering a non-zero digit as sticky.
void DropDigit(DecimalQuantity& d) {
  if (d.mantissa % 10 != 0) {
    d.sticky = true;
  }
  d.mantissa /= 10;
  ++d.exponent;
}

// Rescales a so that a.exponent == target (target < a.exponent), losing precision only when the
// mantissa would overflow; returns false if it could not get all the way.
bool LowerExponent(DecimalQuantity& a, int32_t target) {
  while (a.exponent > target) {
    if (a.mantissa >= kMantissaLimit) {
      return false;
    }
    a.mantissa *= 10;
    --a.exponent;
  }
  return true;
}

// Brings both operands to one exponent: the larger exponent is lowered as far as the mantissa
// allows; then the smaller-exponent operand drops digits (sticky) until they meet.
void Align(DecimalQuantity& a, DecimalQuantity& b) {
  if (a.exponent == b.exponent) {
    return;
  }
  DecimalQuantity& hi = a.exponent > b.exponent ? a : b;
  DecimalQuantity& lo = a.exponent > b.exponent ? b : a;
  if (hi.mantissa == 0) {
    hi.exponent = lo.exponent;
    return;
  }
  if (lo.mantissa == 0) {
    lo.exponent = hi.exponent;
    return;
  }
  LowerExponent(hi, lo.exponent);
  while (lo.exponent < hi.exponent) {
    DropDigit(lo);
  }
}

int CompareMagnitude(DecimalQuantity a, DecimalQuantity b) {
  Align(a, b);
  if (a.mantissa != b.mantissa) {
    return a.mantissa < b.mantissa ? -1 : 1;
  }
  if (a.sticky != b.sticky) {
    return a.sticky ? 1 : -1;
  }
  return 0;
}

struct Suffix {
  std::string_view text;
  int32_t exponent10;
  int binary_power;  // multiply by 1024^binary_power
};
constexpr std::array<Suffix, 16> kSuffixes = {{
    {"n", -9, 0},
    {"u", -6, 0},
    {"m", -3, 0},
    {"k", 3, 0},
    {"M", 6, 0},
    {"G", 9, 0},
    {"T", 12, 0},
    {"P", 15, 0},
    {"E", 18, 0},
    {"Ki", 0, 1},
    {"Mi", 0, 2},
    {"Gi", 0, 3},
    {"Ti", 0, 4},
    {"Pi", 0, 5},
    {"Ei", 0, 6},
    {"", 0, 0},
}};

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Parses a decimal exponent suffix "e12", "E-3", "e+4". Returns false if `s` is not one.
bool ParseExponentSuffix(std::string_view s, int32_t& exponent) {
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) {
    return false;
  }
  size_t pos = 1;
  bool negative = false;
  if (s[pos] == '+' || s[pos] == '-') {
    negative = s[pos] == '-';
    ++pos;
  }
  if (pos == s.size()) {
    return false;
  }
  int64_t value = 0;
  for (; pos < s.size(); ++pos) {
    if (!IsDigit(s[pos])) {
      return false;
    }
    value = std::min<int64_t>(value * 10 + (s[pos] - '0'), kExponentClamp);
  }
  exponent = static_cast<int32_t>(negative ? -value : value);
  return true;
}

}  // namespace

Quantity MultiplySaturating(Quantity per_pod, int64_t count) {
  if (per_pod.IsUnlimited() && count > 0) {
    return kUnlimited;
  }
  int64_t product = 0;
  if (__builtin_mul_overflow(per_pod.value(), count, &product)) [[unlikely]] {
    bool negative = (per_pod.value() < 0) != (count < 0);
    return Quantity(negative ? -Quantity::kMaxValue : Quantity::kMaxValue);
  }
  return Quantity(product);
}

StatusOr<DecimalQuantity> ParseDecimalQuantity(std::string_view text) {
  if (text.empty()) {
    return InvalidArgument("empty quantity");
  }
  DecimalQuantity d;
  size_t pos = 0;
  if (text[pos] == '+' || text[pos] == '-') {
    d.negative = text[pos] == '-';
    ++pos;
  }
  size_t digits = 0;
  // Integer part.
  for (; pos < text.size() && IsDigit(text[pos]); ++pos, ++digits) {
    unsigned digit = static_cast<unsigned>(text[pos] - '0');
    if (d.mantissa >= kMantissaLimit) {
      // Too many significant digits: keep the magnitude through the exponent.
      d.sticky |= digit != 0;
      ++d.exponent;
      continue;
    }
    d.mantissa = d.mantissa * 10 + digit;
  }
  // Fraction.
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    for (; pos < text.size() && IsDigit(text[pos]); ++pos, ++digits) {
      unsigned digit = static_cast<unsigned>(text[pos] - '0');
      if (d.mantissa >= kMantissaLimit) {
        d.sticky |= digit != 0;
        continue;
      }
      d.mantissa = d.mantissa * 10 + digit;
      --d.exponent;
    }
  }
  if (digits == 0) {
    return InvalidArgument(fmt::format("quantity \"{}\" has no digits", text));
  }
  std::string_view suffix = text.substr(pos);
  int32_t exponent10 = 0;
  int binary_power = 0;
  bool known = false;
  for (const Suffix& s : kSuffixes) {
    if (s.text == suffix) {
      exponent10 = s.exponent10;
      binary_power = s.binary_power;
      known = true;
      break;
    }
  }
  if (!known && !ParseExponentSuffix(suffix, exponent10)) {
    if (suffix.find_first_of(".+-") != std::string_view::npos || suffix.empty()) {
      return InvalidArgument(fmt::format("quantity \"{}\" is not a number", text));
    }
    return InvalidArgument(fmt::format(
        "quantity \"{}\" has unknown suffix \"{}\" (want n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, "
        "Ti, Pi, Ei or e<exponent>)",
        text, suffix));
  }
  d.exponent = std::clamp(d.exponent + exponent10, -kExponentClamp, kExponentClamp);
  for (int i = 0; i < binary_power * 10; ++i) {  // x 2^(10 k)
    if (d.mantissa >= kMantissaLimit / 2 * 10) {
      DropDigit(d);
    }
    d.mantissa *= 2;
  }
  if (d.mantissa == 0 && !d.sticky) {
    d.negative = false;
    d.exponent = 0;
  }
  return d;
}

DecimalQuantity Add(const DecimalQuantity& a_in, const DecimalQuantity& b_in) {
  DecimalQuantity a = a_in;
  DecimalQuantity b = b_in;
  Align(a, b);
  DecimalQuantity r;
  r.exponent = a.exponent;
  r.sticky = a.sticky || b.sticky;
  if (a.negative == b.negative) {
    r.negative = a.negative;
    if (a.mantissa >= kMantissaLimit || b.mantissa >= kMantissaLimit) {
      DropDigit(a);
      DropDigit(b);
      r.exponent = a.exponent;
      r.sticky = a.sticky || b.sticky;
    }
    r.mantissa = a.mantissa + b.mantissa;
  } else if (a.mantissa >= b.mantissa) {
    r.negative = a.negative;
    r.mantissa = a.mantissa - b.mantissa;
  } else {
    r.negative = b.negative;
    r.mantissa = b.mantissa - a.mantissa;
  }
  if (r.mantissa == 0 && !r.sticky) {
    r = DecimalQuantity{};
  }
  return r;
}

DecimalQuantity Multiply(const DecimalQuantity& a_in, const DecimalQuantity& b_in) {
  DecimalQuantity a = a_in;
  DecimalQuantity b = b_in;
  DecimalQuantity r;
  if (a.mantissa == 0 || b.mantissa == 0) {
    return r;
  }
  // Shrink until the product fits in 38 digits.
  while (a.mantissa > 0 && b.mantissa > kMantissaLimit / a.mantissa) {
    DropDigit(a.mantissa >= b.mantissa ? a : b);
  }
  r.mantissa = a.mantissa * b.mantissa;
  r.exponent = std::clamp(a.exponent + b.exponent, -kExponentClamp, kExponentClamp);
  r.negative = a.negative != b.negative;
  r.sticky = a.sticky || b.sticky;
  if (r.mantissa == 0 && !r.sticky) {
    r = DecimalQuantity{};
  }
  return r;
}

int CompareDecimal(const DecimalQuantity& a, const DecimalQuantity& b) {
  if (a.IsZero() && b.IsZero()) {
    return 0;
  }
  if (a.negative != b.negative) {
    return a.negative ? -1 : 1;
  }
  int magnitude = CompareMagnitude(a, b);
  return a.negative ? -magnitude : magnitude;
}

DecimalQuantity MaxOf(const DecimalQuantity& a, const DecimalQuantity& b) {
  return CompareDecimal(a, b) >= 0 ? a : b;
}

Quantity ToCanonical(const DecimalQuantity& decimal, bool milli) {
  int32_t exponent = decimal.exponent + (milli ? 3 : 0);
  U128 magnitude = decimal.mantissa;
  const U128 max = static_cast<U128>(Quantity::kMaxValue);
  bool saturated = false;
  if (exponent >= 0) {
    for (int32_t i = 0; i < exponent && !saturated; ++i) {
      if (magnitude > max) {
        saturated = true;
        break;
      }
      magnitude *= 10;
    }
    // A sticky tail below the integer digits means the true value is just above: round up.
    if (decimal.sticky && !saturated) {
      magnitude += 1;
    }
  } else {
    bool remainder = decimal.sticky;
    int32_t k = -exponent;
    if (k > kMaxDigits) {
      remainder |= magnitude != 0;
      magnitude = 0;
    } else {
      U128 divisor = Pow10(k);
      remainder |= magnitude % divisor != 0;
      magnitude /= divisor;
    }
    if (remainder) {
      magnitude += 1;  // round up, away from zero
    }
  }
  if (saturated || magnitude >= max) {
    return Quantity(decimal.negative ? -Quantity::kMaxValue : Quantity::kMaxValue);
  }
  int64_t value = static_cast<int64_t>(magnitude);
  return Quantity(decimal.negative ? -value : value);
}

StatusOr<Quantity> ParseCanonicalQuantity(std::string_view text, bool milli) {
  StatusOr<DecimalQuantity> decimal = ParseDecimalQuantity(text);
  if (!decimal.ok()) {
    return decimal.status();
  }
  return ToCanonical(*decimal, milli);
}

Quantity ToQuota(const DecimalQuantity& decimal, bool milli) {
  // Compare the exact value with the threshold in the quantity's own units (cores for cpu).
  DecimalQuantity threshold;
  threshold.mantissa = static_cast<U128>(milli ? Quantity::kMaxValue / 1000 : Quantity::kMaxValue);
  if (!decimal.negative && CompareDecimal(decimal, threshold) >= 0) {
    return kUnlimited;
  }
  return ToCanonical(decimal, milli);
}

StatusOr<Quantity> ParseQuotaQuantity(std::string_view text, bool milli) {
  StatusOr<DecimalQuantity> decimal = ParseDecimalQuantity(text);
  if (!decimal.ok()) {
    return decimal.status();
  }
  return ToQuota(*decimal, milli);
}

QuantityFormat FormatOf(std::string_view resource) {
  if (resource == "memory" || resource == "ephemeral-storage"
      || resource.starts_with("hugepages-")) {
    return QuantityFormat::kBinarySI;
  }
  return QuantityFormat::kDecimalSI;
}

namespace {

// apimachinery's removeInt64Factors on a magnitude: divides out `base` while it divides.
// "-" if negative, the digits of `amount`, then `suffix`: what every branch of the formatter
// returns, written without fmt's format-string parsing (it runs for every quantity of every
// message and decision line).
std::string SignDigitsSuffix(bool negative, uint64_t amount, std::string_view suffix) {
  std::array<char, 24> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), amount);
  (void)ec;  // 24 chars hold any uint64
  std::string out;
  out.reserve(static_cast<size_t>(end - digits.data()) + suffix.size() + 1);
  if (negative) {
    out.push_back('-');
  }
  out.append(digits.data(), end);
  out.append(suffix);
  return out;
}

std::pair<uint64_t, int32_t> RemoveFactors(uint64_t magnitude, uint64_t base) {
  int32_t times = 0;
  while (magnitude >= base && magnitude % base == 0) {
    magnitude /= base;
    ++times;
  }
  return {magnitude, times};
}

std::string_view DecimalSuffix(int32_t exponent) {
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "u";
    case -3:
      return "m";
    case 0:
      return "";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    case 18:
      return "E";
    default:
      return "?";
  }
}

}  // namespace

// apimachinery pkg/api/resource/quantity.go: CanonicalizeBytes, with int64Amount's
// AsCanonicalBytes / AsCanonicalBase1024Bytes (amount.go) and the suffixer (suffix.go).
std::string FormatKubernetesQuantity(int64_t value, int32_t scale, QuantityFormat format) {
  if (value == 0) {
    return "0";
  }
  const bool negative = value < 0;
  // The magnitude as unsigned, so that MinInt64 is representable.
  const uint64_t magnitude =
      negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  const std::string_view sign = negative ? "-" : "";
  if (format == QuantityFormat::kBinarySI) {
    // Below 1024 in magnitude, or not a whole number: shown as DecimalSI ("avoids rounding").
    // magnitude x 10^scale < 1024, compared exactly in 128 bits (|scale| >= 30 is out of reach
    // of any int64 anyway).
    bool small = false;
    if (scale >= 0) {
      small = scale < 4 && U128{magnitude} * Pow10(scale) < 1024;
    } else {
      small = -scale >= 30 || U128{magnitude} < 1024 * Pow10(-scale);
    }
    const bool whole = scale >= 0 || RemoveFactors(magnitude, 10).second >= -scale;
    // apimachinery's removeInt64Factors cannot negate MinInt64 and leaves it whole: the decimal
    // path below prints it the same way.
    if (!small && whole && value != std::numeric_limits<int64_t>::min()) {
      uint64_t integer = magnitude;
      for (int32_t i = 0; i < scale; ++i) {
        integer *= 10;
      }
      for (int32_t i = scale; i < 0; ++i) {
        integer /= 10;
      }
      auto [amount, times] = RemoveFactors(integer, 1024);
      static constexpr std::array<std::string_view, 7> kBinary = {"",   "Ki", "Mi", "Gi",
                                                                  "Ti", "Pi", "Ei"};
      return SignDigitsSuffix(negative, amount, kBinary[static_cast<size_t>(times)]);
    }
  }
  auto [amount, times] = RemoveFactors(magnitude, 10);
  int32_t exponent = scale + times;
  // Make the exponent a multiple of 3, moving one or two zeros back into the number.
  int32_t rest = exponent % 3;
  if (rest == 1 || rest == -2) {
    amount *= 10;
    exponent -= 1;
  } else if (rest == 2 || rest == -1) {
    amount *= 100;
    exponent -= 2;
  }
  std::string_view suffix = DecimalSuffix(exponent);
  if (suffix == "?") [[unlikely]] {
    return fmt::format("{}{}e{}", sign, amount, exponent);
  }
  return SignDigitsSuffix(negative, amount, suffix);
}

std::string FormatQuantity(Quantity q, std::string_view resource) {
  if (IsMilliResource(resource)) {
    return FormatKubernetesQuantity(q.value(), -3, QuantityFormat::kDecimalSI);
  }
  return FormatKubernetesQuantity(q.value(), 0, FormatOf(resource));
}

std::string FormatAmount(Quantity q, std::string_view resource) {
  if (q.IsUnlimited()) {
    return "<unlimited>";
  }
  return FormatQuantity(q, resource);
}

}  // namespace engine
