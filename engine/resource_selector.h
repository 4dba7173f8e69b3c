// File: engine/resource_selector.h
//
// Whether a ResourceClass selects a device (seed 001, "Resource Class"): the class's selectors
// are ORed, the requirements of one selector ANDed; no selector, or a selector without
// requirements, matches nothing.
//
// One requirement against one device:
//  - The value looked up is the device's property `key`; when the device has no such property
//    and the key is "Kind" or "kind", it is the device's kind.
//  - A missing key fails In, Eq, Gt, GtEq, Lt, LtEq and Exists, and satisfies NotIn and
//    DoesNotExist (as Kubernetes label selectors treat NotIn).
//  - In / NotIn: exact string membership in `values`. Exists / DoesNotExist: presence.
//  - Eq: when both sides are unit quantities (below) with equal units, equal as quantities
//    ("32Gi" Eq "34359738368", "40GBPS" Eq "40gbps"); otherwise exact string equality
//    ("nvidia-gpu" Eq "nvidia-gpu").
//  - Gt / GtEq / Lt / LtEq: device value OP requirement value, compared exactly as quantities
//    ("30G" < "32Gi" because 30*10^9 < 32*2^30). They hold only when both sides are unit
//    quantities with equal units; otherwise (e.g. device "fast", or "40GBPS" against "40G")
//    the requirement is false. Validation rejects a requirement value that is not one.
//
// A unit quantity is a Kubernetes quantity followed by an optional unit: "30G", "32Gi", "7.0",
// "40GBPS" (40G + "BPS"), "100Gbps" (100G + "bps"), "1e3" (exponent form, no unit). The split
// takes the longest quantity prefix: [+-] digits [. digits], then a suffix Ki Mi Gi Ti Pi Ei
// (preferred) or n u m k M G T P E; a trailing e<int> / E<int> is an exponent only when nothing
// follows it. The rest is the unit: letters and '/' only, compared ignoring ASCII case. Because
// suffix letters are case-sensitive SI prefixes, a few spellings do not compare the way a reader
// might hope: "40gbps" is 40 + "gbps" (not 40G + "bps") and "100Kbps" is 100 + "Kbps"; each is
// only comparable with values spelled the same way. Write units as "<quantity><unit>" with a
// Kubernetes suffix ("40GBPS", "100Mbps") to compare across magnitudes.
//
//   ResourceClassSpec rc = ...;  // Kind In [nvidia-gpu], memory GtEq 30G
//   Selects(rc, {.name = "a100", .kind = "nvidia-gpu", .count = 8,
//                .properties = {{"memory", "40Gi"}}});                 // true
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/device_spec.h"
#include "engine/quantity.h"

namespace engine {

struct UnitQuantity {
  DecimalQuantity amount;  // exact value of the quantity part ("40G" -> 4 * 10^10)
  std::string unit;        // as written ("BPS", "bps", "" when none); compare with UnitsEqual
};

// Splits `text` into quantity + unit as described above; nullopt when it is not of that shape
// ("fast", "7.0.1", "1e3x", "").
std::optional<UnitQuantity> ParseUnitQuantity(std::string_view text);

// ASCII case-insensitive equality of two units ("" equals only "").
bool UnitsEqual(std::string_view a, std::string_view b);

// <0, 0, >0 as a is less than, equal to, greater than b; nullopt when the units differ.
std::optional<int> CompareUnitQuantities(const UnitQuantity& a, const UnitQuantity& b);

// One requirement against one device (semantics in the file comment). Does not validate `r`:
// an invalid requirement (e.g. Gt with no value) is simply false, except NotIn / DoesNotExist on
// a missing key.
bool MatchesRequirement(const DeviceSelectorRequirement& r, const DeviceSpec& device);

// The requirements ANDed; false when there are none.
bool Selects(const DevicePropertySelector& selector, const DeviceSpec& device);

// The selectors ORed; false when there are none.
bool Selects(const ResourceClassSpec& rc, const DeviceSpec& device);

// InvalidArgument when: the key is empty; In / NotIn have no value; Eq, Gt, GtEq, Lt, LtEq do
// not have exactly one; Exists / DoesNotExist have any; or the value of Gt, GtEq, Lt, LtEq is not
// a unit quantity ("40GBPS" is valid, "fast" is not).
Status ValidateRequirement(const DeviceSelectorRequirement& r);

// Every requirement of every selector, plus a non-empty name. The message names the selector and
// requirement index ("resource class \"fast.nic\": resourceSelector[0].matchExpressions[1]: ...").
Status ValidateResourceClass(const ResourceClassSpec& rc);

}  // namespace engine
