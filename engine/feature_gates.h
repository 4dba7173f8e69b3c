// File: engine/feature_gates.h
//
// Kueue's feature gates (Kueue pkg/features/kube_features.go at snapshot ff69552e, about v0.20):
// every gate name that Kueue version knows, its default, and whether tally models it. A
// Configuration's `featureGates` map and the `--feature-gates Name=bool,...` flag set them; an
// unknown name is an error, as it is for Kueue's manager. docs/feature-gates.md is the table.
//
//   engine::FeatureGates gates;
//   Status s = gates.Set("ReclaimablePods", false, /*from_flag=*/false);
//   if (!gates.reclaimable_pods()) { ... status.reclaimablePods is ignored ... }
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/status.h"

namespace engine {

// What tally does with a gate.
enum class GateSupport : uint8_t {
  kModelled,     // both values change tally's decisions as they change Kueue's
  kNotModelled,  // changes Kueue's admission decisions; tally does what `note` says, either value
  kNoEffect,     // changes nothing tally models (controllers, integrations, MultiKueue, metrics)
};
const char* ToString(GateSupport v);

struct FeatureGateInfo {
  std::string_view name;
  bool kueue_default = false;
  GateSupport support = GateSupport::kNoEffect;
  std::string_view note;  // for kNotModelled: what tally does instead
};

// Every gate of the Kueue version tally follows, sorted by name.
std::span<const FeatureGateInfo> KnownFeatureGates();
// nullptr for a name Kueue does not know.
const FeatureGateInfo* FindFeatureGate(std::string_view name);

// The warning for setting a known gate to `value`: nullopt when tally models the gate or `value`
// is Kueue's default. REQUIRES: FindFeatureGate(name).
std::optional<std::string> GateWarning(std::string_view name, bool value);

// The gates in effect: Kueue's defaults, then the Configuration's `featureGates`, then the flag.
class FeatureGates {
 public:
  struct Setting {
    bool value = false;
    bool from_flag = false;  // set by --feature-gates (else by the Configuration)
  };

  // Errors: a name Kueue does not know.
  [[nodiscard]] Status Set(std::string_view name, bool value, bool from_flag);
  // The value of a known gate (its Kueue default unless set). REQUIRES: FindFeatureGate(name).
  bool Enabled(std::string_view name) const;

  // Explicit settings, by name.
  const std::map<std::string, Setting, std::less<>>& settings() const { return settings_; }

  // The modelled gates, cached for the hot paths.
  bool reclaimable_pods() const { return reclaimable_pods_; }
  bool partial_admission() const { return partial_admission_; }
  bool preserve_scan_progress() const { return preserve_scan_progress_; }
  bool quota_check_strategy() const { return quota_check_strategy_; }
  bool disable_wait_for_pods_ready() const { return disable_wait_for_pods_ready_; }

 private:
  std::map<std::string, Setting, std::less<>> settings_;
  bool reclaimable_pods_ = true;
  bool partial_admission_ = true;
  bool preserve_scan_progress_ = true;
  bool quota_check_strategy_ = true;
  bool disable_wait_for_pods_ready_ = false;
};

// Parses "Name=bool,Name=bool" (the flag's value; Go's strconv.ParseBool spellings: 1 t T TRUE
// true True, 0 f F FALSE false False). Errors: malformed item, bad bool, unknown gate name.
StatusOr<std::vector<std::pair<std::string, bool>>> ParseFeatureGateList(std::string_view text);

// Go's strconv.ParseBool. false on anything else.
bool ParseGoBool(std::string_view text, bool& out);

}  // namespace engine
