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

}  // namespace engine
