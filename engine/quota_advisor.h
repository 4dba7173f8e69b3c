// File: engine/quota_advisor.h
//
// "Which single change of quota on which node would admit this workload?" (`tally explain`).
// Candidates are nominalQuota increases by exactly the missing amount, tried on the workload's
// ClusterQueue and then on each ancestor Cohort, for every (flavor, resource) the flavor scan
// found short; each candidate is verified by applying it, re-running the flavor assignment
// (Fit required, no preemption) and reverting it.
#pragma once

#include <optional>
#include <string>

#include "engine/base/ids.h"
#include "engine/quantity.h"
#include "engine/scheduler.h"

namespace engine {

struct QuotaSuggestion {
  NodeId node{};
  FrSlot slot{};
  Quantity current;     // nominal quota today
  Quantity proposed;    // nominal quota that admits the workload
  std::string message;  // "raise nominalQuota of ClusterQueue team-a for on-demand/cpu from 4 to 6"
};

// REQUIRES: the workload is pending in a ClusterQueue. Leaves the cluster as it found it (quota
// values; generations of the touched tree are bumped by the what-if refreshes).
std::optional<QuotaSuggestion> SuggestQuotaChange(Cluster& cluster, const WorkloadStore& store,
                                                  WorkloadId id, const Assignment& current);

}  // namespace engine
