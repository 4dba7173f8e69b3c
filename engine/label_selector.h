// File: engine/label_selector.h
//
// Kubernetes label selectors as Kueue uses them for ClusterQueue.namespaceSelector (§2.2): a null
// selector selects nothing, an empty one everything; matchLabels and matchExpressions (In, NotIn,
// Exists, DoesNotExist) are ANDed.
#pragma once

#include <map>
#include <string>

#include "engine/config.h"

namespace engine {

bool Matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels);

// True when `selector` is `{}`: it matches every label set, so callers need not look the labels
// up (a namespace's, per requeued workload, is a string-keyed map lookup).
inline bool MatchesEverything(const LabelSelector& selector) {
  return !selector.is_null && selector.match_labels.empty() && selector.match_expressions.empty();
}

}  // namespace engine
