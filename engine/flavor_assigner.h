// File: engine/flavor_assigner.h
//
// Flavor assignment (kueue-semantics.md §6, seed 003): for every pod set and every resource group
// it requests, choose one ResourceFlavor, scanning the group's flavors in preference order from
// the resume index, classifying each as fit / reclaim / preempt / noPreemptionCandidates / noFit
// with its borrowing level, and stopping or continuing per flavorFungibility.
//
//   Assignment a = AssignFlavors(request, oracle);
//   if (a.Mode() == AssignmentMode::kFit) { ... a.usage ... }
//   else std::puts(a.Message(cluster).c_str());   // "couldn't assign flavors to pod set main: ..."
//
// The assigner reads the quota tree it is given (the scheduler's snapshot, possibly with what-if
// changes applied) and never modifies it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/base/cow_vector.h"
#include "engine/base/ids.h"
#include "engine/config.h"
#include "engine/quantity.h"
#include "engine/resource_tree.h"
#include "engine/workload.h"

namespace engine {

class Cluster;

// Kueue's FlavorAssignmentMode; enum order carries meaning (max = best).
enum class AssignmentMode : uint8_t { kNoFit, kPreempt, kDeferredFit, kFit };
const char* ToString(AssignmentMode mode);

// The granular mode inside the assigner (max = best).
enum class PreemptionMode : uint8_t { kNoFit, kNoCandidates, kPreempt, kReclaim, kFit };
const char* ToString(PreemptionMode mode);

struct GranularMode {
  PreemptionMode mode = PreemptionMode::kFit;
  int borrow = 0;
};

// §6.5 isPreferred: is `a` strictly better than `b` under the CQ's preference?
bool IsPreferred(const GranularMode& a, const GranularMode& b, const FlavorFungibilitySpec& f);
// §6.5 shouldTryNextFlavor.
bool ShouldTryNextFlavor(const GranularMode& mode, const FlavorFungibilitySpec& f);

// What the preemption oracle (§7.5) says about freeing `amount` of one slot for `workload`.
struct OracleResult {
  PreemptionMode mode = PreemptionMode::kNoCandidates;  // kNoCandidates | kPreempt | kReclaim
  int borrow = 0;                                       // borrowing level after the preemptions
};

class PreemptionOracle {
 public:
  PreemptionOracle() = default;
  PreemptionOracle(const PreemptionOracle&) = delete;
  PreemptionOracle& operator=(const PreemptionOracle&) = delete;
  PreemptionOracle(PreemptionOracle&&) = delete;
  PreemptionOracle& operator=(PreemptionOracle&&) = delete;
  virtual ~PreemptionOracle() = default;
  virtual OracleResult SimulatePreemption(const Workload& workload, CqId cq, FrSlot slot,
                                          Quantity amount) = 0;
};

struct FlavorChoice {
  ResourceId resource{};
  FlavorId flavor{};
  FrSlot slot{};
  AssignmentMode mode = AssignmentMode::kNoFit;
  PreemptionMode granular = PreemptionMode::kNoFit;
  int borrow = 0;
  int tried_index = 0;  // KEP-582 LastTriedFlavorIdx: last flavor examined, -1 if it was the last
  Quantity amount;      // this pod set's request of the resource
};

// One flavor examined for a resource group (for `tally explain`).
struct FlavorAttempt {
  FlavorId flavor{};
  int index = 0;
  PreemptionMode mode = PreemptionMode::kNoFit;
  int borrow = 0;
  std::vector<std::string> reasons;
};

struct PodSetAssignment {
  std::string name;
  int32_t count = 0;
  std::vector<ResourceAmount> requests;  // what was assigned (pods included), by resource name
  std::vector<FlavorChoice> flavors;     // by resource name
  std::vector<std::string> reasons;      // why not Fit; empty when Fit
  std::vector<FlavorAttempt> attempts;
  // Some requested resource that needs a flavor (covered by a resource group) got none. Such a
  // pod set is never Fit, whatever `reasons` holds.
  bool missing_flavor = false;
  AssignmentMode Mode() const;
};

struct Assignment {
  // Shared by copies until one of them is written (engine/base/cow_vector.h): the nomination memo
  // hands a stored entry to the cycle by copy (engine/nomination_memo.h), and copying the pod
  // sets element by element was 44 % of that copy's cost. Read it through a const Assignment.
  CowVector<PodSetAssignment> pod_sets;
  int borrowing = 0;              // max borrowing level over all resources
  std::vector<SlotAmount> usage;  // per slot, over all pod sets (slot order of first use)
  FlavorScanState last_state;     // the scan state to remember (§6.6)
  // Set by the scheduler when the assignment was overridden (DeferredFit, partial admission).
  std::optional<AssignmentMode> forced_mode;
  // Seed 001: some flavor had the quota for a pod set but not the devices of its resource
  // classes (quota alone would have taken it).
  bool devices_short = false;

  AssignmentMode Mode() const;
  // Kueue's message: "couldn't assign flavors to pod set main: ...; couldn't assign ...".
  std::string Message() const;
};

struct AssignRequest {
  const Workload* workload = nullptr;
  CqId cq{};
  const Cluster* cluster = nullptr;
  const ResourceTree* tree = nullptr;  // the snapshot to evaluate against
  // Pod counts per pod set for partial admission (§6.8); empty = the workload's counts.
  std::span<const int32_t> counts;
  // The scan state to resume from (already checked for staleness by the caller); nullptr or
  // !valid = start every group at the first flavor.
  const FlavorScanState* resume = nullptr;
  bool fair_sharing = false;
  QuotaCheckStrategy quota_check = QuotaCheckStrategy::kBlockUndeclared;
  int64_t scheduling_cycle = 0;
  // §5.6: evaluate only the flavors this earlier assignment chose (per pod set and resource
  // group); nullptr = scan normally.
  const Assignment* pinned = nullptr;
  // false: quota reasons are recorded as kUnexplained instead of Kueue's text (no formatting),
  // and no FlavorAttempt is kept. Modes, choices and scan state are the same either way.
  bool explain = true;
};

// The reason recorded for a flavor that does not fit when AssignRequest::explain is false.
inline constexpr const char* kUnexplained = "(not recorded)";

// The resources of `ps.requests` that need a flavor in `cq` (covered by a resource group, or
// uncovered with a non-zero request under BlockUndeclared) and have none in `ps.flavors`.
// Empty for every pod set of an admissible assignment.
std::vector<ResourceId> ResourcesWithoutFlavor(const Cluster& cluster, CqId cq,
                                               const PodSetAssignment& ps,
                                               QuotaCheckStrategy quota_check);

// REQUIRES: request.workload, cluster and tree set; request.cq exists.
// `oracle` may be nullptr: every preemption then has no candidates.
Assignment AssignFlavors(const AssignRequest& request, PreemptionOracle* oracle);
// The same into `out`, whatever it held, reusing the storage of its vectors (a nomination's
// allocations were a tenth of its cost). REQUIRES: request.pinned and request.resume do not
// point into `out`.
void AssignFlavorsInto(const AssignRequest& request, PreemptionOracle* oracle, Assignment& out);
// Makes `a` equal to Assignment{} and keeps the storage of its top-level vectors.
void ClearKeepingStorage(Assignment& a);

}  // namespace engine
