// File: engine/assignment.cc
//
// The types of engine/flavor_assigner.h: the modes and their order (Kueue's isPreferred and
// shouldTryNextFlavor), an assignment's mode and message, its reset that keeps storage, and the
// reads of a flavor scan's state. The assigner itself is engine/flavor_assigner.cc.
#include <fmt/format.h>

#include <algorithm>

#include "engine/cluster.h"
#include "engine/flavor_assigner.h"  // declares everything defined here

namespace engine {

const char* ToString(AssignmentMode mode) {
  switch (mode) {
    case AssignmentMode::kNoFit:
      return "NoFit";
    case AssignmentMode::kPreempt:
      return "Preempt";
    case AssignmentMode::kDeferredFit:
      return "DeferredFit";
    case AssignmentMode::kFit:
      return "Fit";
  }
  return "?";
}

const char* ToString(PreemptionMode mode) {
  switch (mode) {
    case PreemptionMode::kNoFit:
      return "noFit";
    case PreemptionMode::kNoCandidates:
      return "noPreemptionCandidates";
    case PreemptionMode::kPreempt:
      return "preempt";
    case PreemptionMode::kReclaim:
      return "reclaim";
    case PreemptionMode::kFit:
      return "fit";
  }
  return "?";
}

bool IsPreferred(const GranularMode& a, const GranularMode& b, const FlavorFungibilitySpec& f) {
  if (a.mode == PreemptionMode::kNoFit) {
    return false;
  }
  if (b.mode == PreemptionMode::kNoFit) {
    return true;
  }
  bool a_none = a.mode == PreemptionMode::kNoCandidates;
  bool b_none = b.mode == PreemptionMode::kNoCandidates;
  if (a_none != b_none) {
    return !a_none;
  }
  if (f.preference == FungibilityPreference::kPreemptionOverBorrowing) {
    if (a.borrow != b.borrow) {
      return a.borrow < b.borrow;
    }
    return a.mode > b.mode;
  }
  // BorrowingOverPreemption, also when `preference` is unset.
  if (a.mode != b.mode) {
    return a.mode > b.mode;
  }
  return a.borrow < b.borrow;
}

bool ShouldTryNextFlavor(const GranularMode& mode, const FlavorFungibilitySpec& f) {
  if (mode.mode == PreemptionMode::kNoFit || mode.mode == PreemptionMode::kNoCandidates) {
    return true;
  }
  bool preempts = mode.mode == PreemptionMode::kPreempt || mode.mode == PreemptionMode::kReclaim;
  if (preempts && f.when_can_preempt == FungibilityPolicy::kTryNextFlavor) {
    return true;
  }
  return mode.borrow > 0 && f.when_can_borrow == FungibilityPolicy::kTryNextFlavor;
}

AssignmentMode PodSetAssignment::Mode() const {
  if (missing_flavor) {
    return AssignmentMode::kNoFit;
  }
  if (reasons.empty()) {
    return AssignmentMode::kFit;
  }
  if (flavors.empty()) {
    return AssignmentMode::kNoFit;
  }
  AssignmentMode mode = AssignmentMode::kFit;
  for (const FlavorChoice& c : flavors) {
    mode = std::min(mode, c.mode);
  }
  return mode;
}

AssignmentMode Assignment::Mode() const {
  if (forced_mode) {
    return *forced_mode;
  }
  if (pod_sets.empty()) {
    return AssignmentMode::kNoFit;
  }
  AssignmentMode mode = AssignmentMode::kFit;
  for (const PodSetAssignment& ps : pod_sets) {
    mode = std::min(mode, ps.Mode());
  }
  return mode;
}

std::string Assignment::Message() const {
  std::string out;
  for (const PodSetAssignment& ps : pod_sets) {
    if (ps.reasons.empty()) {
      continue;
    }
    std::vector<std::string> sorted = ps.reasons;
    std::sort(sorted.begin(), sorted.end());
    if (!out.empty()) {
      out += "; ";
    }
    out += "couldn't assign flavors to pod set " + ps.name + ": ";
    for (size_t i = 0; i < sorted.size(); ++i) {
      out += (i == 0 ? "" : ", ") + sorted[i];
    }
  }
  return out;
}

std::vector<ResourceId> ResourcesWithoutFlavor(const Cluster& cluster, CqId cq,
                                               const PodSetAssignment& ps,
                                               QuotaCheckStrategy quota_check) {
  std::vector<ResourceId> missing;
  for (const ResourceAmount& r : ps.requests) {
    if (cluster.GroupFor(cq, r.resource) == nullptr
        && (r.amount == Quantity::Zero() || quota_check == QuotaCheckStrategy::kIgnoreUndeclared)) {
      continue;  // skipped and not charged (§3.4)
    }
    bool has = std::any_of(ps.flavors.begin(), ps.flavors.end(),
                           [&](const FlavorChoice& c) { return c.resource == r.resource; });
    if (!has) {
      missing.push_back(r.resource);
    }
  }
  return missing;
}

void ClearKeepingStorage(Assignment& a) {
  a.pod_sets.clear();
  a.borrowing = 0;
  a.usage.clear();
  FlavorScanState& s = a.last_state;
  s.valid = false;
  s.last_tried.clear();
  s.cluster_queue_generation = 0;
  s.cohort_generations.clear();
  s.flavor_lists = 0;
  s.scheduling_cycle = 0;
  a.forced_mode.reset();
  a.devices_short = false;
}

int FlavorScanState::NextFlavorIndex(size_t pod_set, ResourceId resource) const {
  if (pod_set >= last_tried.size()) {
    return 0;
  }
  for (const auto& [r, idx] : last_tried[pod_set]) {
    if (r == resource) {
      return idx + 1;
    }
  }
  return 0;
}

bool FlavorScanState::HasPendingFlavors() const {
  for (const auto& pod_set : last_tried) {
    for (const auto& [r, idx] : pod_set) {
      if (idx != -1) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace engine
