#include "engine/flavor_eligibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace engine {
namespace {

std::optional<int64_t> ParseInt(const std::string& s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return std::nullopt;
  }
  return v;
}

bool RequirementMatches(const NodeSelectorRequirement& req,
                        const std::map<std::string, std::string>& labels) {
  auto it = labels.find(req.key);
  bool has = it != labels.end();
  const std::vector<std::string>& values = req.values;
  if (req.op == "In") {
    return has && std::find(values.begin(), values.end(), it->second) != values.end();
  }
  if (req.op == "NotIn") {
    return !has || std::find(values.begin(), values.end(), it->second) == values.end();
  }
  if (req.op == "Exists") {
    return has;
  }
  if (req.op == "DoesNotExist") {
    return !has;
  }
  if (req.op == "Gt" || req.op == "Lt") {
    if (!has || values.size() != 1) {
      return false;
    }
    std::optional<int64_t> label = ParseInt(it->second);
    std::optional<int64_t> bound = ParseInt(values[0]);
    if (!label || !bound) {
      return false;
    }
    return req.op == "Gt" ? *label > *bound : *label < *bound;
  }
  return false;  // unknown operator: Kubernetes rejects such pods; never matches here
}

}  // namespace

bool Tolerates(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) {
    return false;
  }
  const std::string& op = toleration.op;
  if (op == "Exists") {
    return true;
  }
  if (op.empty() || op == "Equal") {
    return toleration.value == taint.value;
  }
  if (op == "Lt" || op == "Gt") {
    std::optional<int64_t> taint_value = ParseInt(taint.value);
    std::optional<int64_t> tol_value = ParseInt(toleration.value);
    if (!taint_value || !tol_value) {
      return false;
    }
    return op == "Lt" ? *taint_value < *tol_value : *taint_value > *tol_value;
  }
  return false;
}

std::string CheckFlavorEligibility(const ResourceFlavorSpec& flavor, const PodSetSpec& pod_set) {
  // Taints: only NoSchedule and NoExecute matter; the flavor's own tolerations count too.
  for (const Taint& taint : flavor.node_taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") {
      continue;
    }
    auto tolerated = [&](const Toleration& t) { return Tolerates(t, taint); };
    if (std::none_of(pod_set.tolerations.begin(), pod_set.tolerations.end(), tolerated)
        && std::none_of(flavor.tolerations.begin(), flavor.tolerations.end(), tolerated)) {
      // Go prints the Taint value struct as {Key Value Effect TimeAdded}.
      return fmt::format("untolerated taint {{{} {} {} <nil>}} in flavor {}", taint.key,
                         taint.value, taint.effect, flavor.name);
    }
  }
  const std::map<std::string, std::string>& labels = flavor.node_labels;
  // nodeSelector, reduced to the flavor's keys: every remaining entry must match.
  for (const auto& [key, value] : pod_set.node_selector) {
    auto it = labels.find(key);
    if (it != labels.end() && it->second != value) {
      return fmt::format("flavor {} doesn't match node affinity", flavor.name);
    }
  }
  // Required affinity, each term reduced to the flavor's keys; a term left empty matches any
  // node, so the whole affinity is dropped (terms are ORed).
  bool any_term_matches = pod_set.required_affinity.empty();
  for (const NodeSelectorTerm& term : pod_set.required_affinity) {
    bool term_empty = true;
    bool term_matches = true;
    for (const NodeSelectorRequirement& req : term.match_expressions) {
      if (labels.find(req.key) == labels.end()) {
        continue;
      }
      term_empty = false;
      term_matches = term_matches && RequirementMatches(req, labels);
    }
    if (term_empty) {
      any_term_matches = true;
      break;
    }
    any_term_matches = any_term_matches || term_matches;
  }
  if (!any_term_matches) {
    return fmt::format("flavor {} doesn't match node affinity", flavor.name);
  }
  return "";
}

}  // namespace engine
