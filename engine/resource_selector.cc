#include "engine/resource_selector.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

namespace engine {
namespace {

bool IsAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}

bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char LowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// "e12", "E-3", "e+4" and nothing else: the Kubernetes exponent form.
bool IsExponent(std::string_view s) {
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) {
    return false;
  }
  size_t pos = 1;
  if (s[pos] == '+' || s[pos] == '-') {
    ++pos;
  }
  if (pos == s.size()) {
    return false;
  }
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(pos), s.end(), IsAsciiDigit);
}

// Length of the Kubernetes suffix at the start of `rest`: the binary two-letter ones win over
// the decimal one-letter ones ("1Gi" is 2^30, never 1G + unit "i").
size_t SuffixLength(std::string_view rest) {
  if (rest.size() >= 2 && rest[1] == 'i' && std::string_view("KMGTPE").find(rest[0]) != rest.npos) {
    return 2;
  }
  if (!rest.empty() && std::string_view("numkMGTPE").find(rest[0]) != rest.npos) {
    return 1;
  }
  return 0;
}

bool IsOrdering(DeviceSelectorOp op) {
  switch (op) {
    case DeviceSelectorOp::kGt:
    case DeviceSelectorOp::kGtEq:
    case DeviceSelectorOp::kLt:
    case DeviceSelectorOp::kLtEq:
      return true;
    case DeviceSelectorOp::kIn:
    case DeviceSelectorOp::kNotIn:
    case DeviceSelectorOp::kEq:
    case DeviceSelectorOp::kExists:
    case DeviceSelectorOp::kDoesNotExist:
      return false;
  }
  return false;
}

// Device value `have` against requirement value `want` for an ordering operator.
bool Ordered(DeviceSelectorOp op, std::string_view have, std::string_view want) {
  std::optional<UnitQuantity> a = ParseUnitQuantity(have);
  std::optional<UnitQuantity> b = ParseUnitQuantity(want);
  if (!a.has_value() || !b.has_value()) {
    return false;
  }
  std::optional<int> cmp = CompareUnitQuantities(*a, *b);
  if (!cmp.has_value()) {
    return false;
  }
  switch (op) {
    case DeviceSelectorOp::kGt:
      return *cmp > 0;
    case DeviceSelectorOp::kGtEq:
      return *cmp >= 0;
    case DeviceSelectorOp::kLt:
      return *cmp < 0;
    case DeviceSelectorOp::kLtEq:
      return *cmp <= 0;
    case DeviceSelectorOp::kIn:
    case DeviceSelectorOp::kNotIn:
    case DeviceSelectorOp::kEq:
    case DeviceSelectorOp::kExists:
    case DeviceSelectorOp::kDoesNotExist:
      return false;
  }
  return false;
}

bool Equal(std::string_view have, std::string_view want) {
  if (have == want) {
    return true;
  }
  std::optional<UnitQuantity> a = ParseUnitQuantity(have);
  if (!a.has_value()) {
    return false;
  }
  std::optional<UnitQuantity> b = ParseUnitQuantity(want);
  if (!b.has_value()) {
    return false;
  }
  std::optional<int> cmp = CompareUnitQuantities(*a, *b);
  return cmp.has_value() && *cmp == 0;
}

// The value a requirement's key reads on `device`, or nullptr when the device has none.
const std::string* Lookup(const DeviceSpec& device, const std::string& key) {
  auto it = device.properties.find(key);
  if (it != device.properties.end()) {
    return &it->second;
  }
  if (key == "Kind" || key == "kind") {
    return &device.kind;
  }
  return nullptr;
}

}  // namespace

const char* ToString(DeviceSelectorOp op) {
  switch (op) {
    case DeviceSelectorOp::kIn:
      return "In";
    case DeviceSelectorOp::kNotIn:
      return "NotIn";
    case DeviceSelectorOp::kEq:
      return "Eq";
    case DeviceSelectorOp::kExists:
      return "Exists";
    case DeviceSelectorOp::kDoesNotExist:
      return "DoesNotExist";
    case DeviceSelectorOp::kGt:
      return "Gt";
    case DeviceSelectorOp::kGtEq:
      return "GtEq";
    case DeviceSelectorOp::kLt:
      return "Lt";
    case DeviceSelectorOp::kLtEq:
      return "LtEq";
  }
  return "?";
}

std::optional<UnitQuantity> ParseUnitQuantity(std::string_view text) {
  size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    ++pos;
  }
  size_t digits = 0;
  for (; pos < text.size() && IsAsciiDigit(text[pos]); ++pos) {
    ++digits;
  }
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    for (; pos < text.size() && IsAsciiDigit(text[pos]); ++pos) {
      ++digits;
    }
  }
  if (digits == 0) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(pos);
  size_t quantity_end = text.size();  // exponent form: the whole text is the quantity
  if (!IsExponent(rest)) {
    quantity_end = pos + SuffixLength(rest);
  }
  std::string_view unit = text.substr(quantity_end);
  if (!std::all_of(unit.begin(), unit.end(), [](char c) { return IsAsciiLetter(c) || c == '/'; })) {
    return std::nullopt;
  }
  StatusOr<DecimalQuantity> amount = ParseDecimalQuantity(text.substr(0, quantity_end));
  if (!amount.ok()) {
    return std::nullopt;
  }
  return UnitQuantity{*amount, std::string(unit)};
}

bool UnitsEqual(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return LowerAscii(x) == LowerAscii(y);
         });
}

std::optional<int> CompareUnitQuantities(const UnitQuantity& a, const UnitQuantity& b) {
  if (!UnitsEqual(a.unit, b.unit)) {
    return std::nullopt;
  }
  return CompareDecimal(a.amount, b.amount);
}

bool MatchesRequirement(const DeviceSelectorRequirement& r, const DeviceSpec& device) {
  const std::string* value = Lookup(device, r.key);
  auto in_values = [&] {
    return std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
  };
  switch (r.op) {
    case DeviceSelectorOp::kIn:
      return value != nullptr && in_values();
    case DeviceSelectorOp::kNotIn:
      return value == nullptr || !in_values();
    case DeviceSelectorOp::kExists:
      return value != nullptr;
    case DeviceSelectorOp::kDoesNotExist:
      return value == nullptr;
    case DeviceSelectorOp::kEq:
      return value != nullptr && r.values.size() == 1 && Equal(*value, r.values[0]);
    case DeviceSelectorOp::kGt:
    case DeviceSelectorOp::kGtEq:
    case DeviceSelectorOp::kLt:
    case DeviceSelectorOp::kLtEq:
      return value != nullptr && r.values.size() == 1 && Ordered(r.op, *value, r.values[0]);
  }
  return false;
}

bool Selects(const DevicePropertySelector& selector, const DeviceSpec& device) {
  if (selector.match_expressions.empty()) {
    return false;
  }
  return std::all_of(
      selector.match_expressions.begin(), selector.match_expressions.end(),
      [&](const DeviceSelectorRequirement& r) { return MatchesRequirement(r, device); });
}

bool Selects(const ResourceClassSpec& rc, const DeviceSpec& device) {
  return std::any_of(rc.resource_selector.begin(), rc.resource_selector.end(),
                     [&](const DevicePropertySelector& s) { return Selects(s, device); });
}

Status ValidateRequirement(const DeviceSelectorRequirement& r) {
  if (r.key.empty()) {
    return InvalidArgument(fmt::format("operator {}: the key is empty", ToString(r.op)));
  }
  const size_t n = r.values.size();
  switch (r.op) {
    case DeviceSelectorOp::kIn:
    case DeviceSelectorOp::kNotIn:
      if (n == 0) {
        return InvalidArgument(fmt::format("operator {} on key \"{}\" needs at least one value",
                                           ToString(r.op), r.key));
      }
      break;
    case DeviceSelectorOp::kExists:
    case DeviceSelectorOp::kDoesNotExist:
      if (n != 0) {
        return InvalidArgument(fmt::format("operator {} on key \"{}\" takes no values, got {}",
                                           ToString(r.op), r.key, n));
      }
      break;
    case DeviceSelectorOp::kEq:
    case DeviceSelectorOp::kGt:
    case DeviceSelectorOp::kGtEq:
    case DeviceSelectorOp::kLt:
    case DeviceSelectorOp::kLtEq:
      if (n != 1) {
        return InvalidArgument(fmt::format(
            "operator {} on key \"{}\" needs exactly one value, got {}", ToString(r.op), r.key, n));
      }
      break;
  }
  if (IsOrdering(r.op) && !ParseUnitQuantity(r.values[0]).has_value()) {
    return InvalidArgument(fmt::format(
        "operator {} on key \"{}\": value \"{}\" is not a quantity with an optional unit "
        "(such as \"30G\", \"32Gi\", \"40GBPS\")",
        ToString(r.op), r.key, r.values[0]));
  }
  return Status::Ok();
}

Status ValidateResourceClass(const ResourceClassSpec& rc) {
  if (rc.name.empty()) {
    return InvalidArgument("resource class has an empty name");
  }
  for (size_t s = 0; s < rc.resource_selector.size(); ++s) {
    const std::vector<DeviceSelectorRequirement>& reqs = rc.resource_selector[s].match_expressions;
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (Status st = ValidateRequirement(reqs[i]); !st.ok()) {
        return InvalidArgument(
            fmt::format("resource class \"{}\": resourceSelector[{}].matchExpressions[{}]: {}",
                        rc.name, s, i, st.message()));
      }
    }
  }
  return Status::Ok();
}

}  // namespace engine
