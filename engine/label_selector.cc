#include "engine/label_selector.h"

#include <algorithm>

namespace engine {

bool Matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels) {
  if (selector.is_null) {
    return false;
  }
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) {
      return false;
    }
  }
  for (const LabelSelectorRequirement& req : selector.match_expressions) {
    auto it = labels.find(req.key);
    bool has = it != labels.end();
    bool in_values =
        has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
    if (req.op == "In" && !in_values) {
      return false;
    }
    if (req.op == "NotIn" && in_values) {
      return false;
    }
    if (req.op == "Exists" && !has) {
      return false;
    }
    if (req.op == "DoesNotExist" && has) {
      return false;
    }
  }
  return true;
}

}  // namespace engine
