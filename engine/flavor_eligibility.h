// File: engine/flavor_eligibility.h
//
// Whether a pod set may run on a ResourceFlavor's nodes (kueue-semantics.md §6.4): taints the pod
// does not tolerate, and the pod's node selector and required node affinity reduced to the label
// keys the flavor defines, matched against a node whose labels are the flavor's nodeLabels.
#pragma once

#include <string>

#include "engine/config.h"
#include "engine/workload_spec.h"

namespace engine {

// Kubernetes ToleratesTaint: effect empty-or-equal, key empty-or-equal, operator Exists / Equal
// (values equal) / Lt / Gt (numeric comparison of the taint value against the toleration's).
bool Tolerates(const Toleration& toleration, const Taint& taint);

// Returns an empty string when `pod_set` may use `flavor`, else Kueue's reason:
// "untolerated taint {key value NoSchedule <nil>} in flavor spot" or
// "flavor spot doesn't match node affinity".
std::string CheckFlavorEligibility(const ResourceFlavorSpec& flavor, const PodSetSpec& pod_set);

}  // namespace engine
