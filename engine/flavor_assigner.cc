#include "engine/flavor_assigner.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "engine/base/check.h"
#include "engine/base/phase_profile.h"
#include "engine/cluster.h"
#include "engine/flavor_eligibility.h"

namespace engine {

namespace {

AssignmentMode ToAssignmentMode(PreemptionMode mode) {
  switch (mode) {
    case PreemptionMode::kNoFit:
      return AssignmentMode::kNoFit;
    case PreemptionMode::kNoCandidates:
    case PreemptionMode::kPreempt:
    case PreemptionMode::kReclaim:
      return AssignmentMode::kPreempt;
    case PreemptionMode::kFit:
      return AssignmentMode::kFit;
  }
  return AssignmentMode::kNoFit;
}

Quantity UsageAt(const std::vector<SlotAmount>& usage, FrSlot slot) {
  for (const SlotAmount& u : usage) {
    if (u.slot == slot) {
      return u.amount;
    }
  }
  return Quantity::Zero();
}

void AddUsageAt(std::vector<SlotAmount>& usage, FrSlot slot, Quantity amount) {
  for (SlotAmount& u : usage) {
    if (u.slot == slot) {
      u.amount += amount;
      return;
    }
  }
  usage.push_back({slot, amount});
}

// Per-call state of one assignment: the request, the CQ's view and the output being built.
class Assigner {
 public:
  Assigner(const AssignRequest& request, PreemptionOracle* oracle, Assignment& out)
      : req_(request),
        wl_(*request.workload),
        cluster_(*request.cluster),
        tree_(*request.tree),
        oracle_(oracle),
        cq_spec_(cluster_.Spec(request.cq)),
        cq_node_(cluster_.ClusterQueueNode(request.cq)),
        out_(out) {}

  void Run();

 private:
  struct GroupResult {
    std::vector<FlavorChoice> choices;
    std::vector<std::string> reasons;  // empty when the chosen flavor fits
    std::vector<FlavorAttempt> attempts;
    // Without explain, only whether there is a reason matters (PodSetAssignment::Mode): one is
    // kept, and the text of the others is never built.
    void AddReason(std::string reason, bool explain) {
      if (explain || reasons.empty()) {
        reasons.push_back(std::move(reason));
      }
    }
  };
  struct QuotaFit {
    PreemptionMode mode = PreemptionMode::kNoFit;
    int borrow = 0;
    std::string reason;
  };

  // Into `requests` (cleared first).
  void RequestsFor(size_t pod_set_index, int32_t count,
                   std::vector<ResourceAmount>& requests) const;
  // Into `result` (cleared first).
  void FindFlavor(const ResourceGroup& group, std::span<const ResourceAmount> requests,
                  size_t pod_set_index, ResourceId trigger, GroupResult& result);
  QuotaFit FitsResourceQuota(FrSlot slot, ResourceId resource, FlavorId flavor, Quantity request);
  std::optional<std::string> DeviceShortage(const ResourceFlavorSpec& flavor,
                                            std::span<const ResourceAmount> requests,
                                            size_t pod_set_index) const;
  bool CanPreemptWhileBorrowing() const {
    const PreemptionSpec& p = cq_spec_.preemption;
    return p.borrow_within_cohort != PreemptionPolicy::kNever
           || (req_.fair_sharing && p.reclaim_within_cohort != PreemptionPolicy::kNever);
  }
  // Kueue's ResourceFormatter (pkg/resources/resource_formatter.go): requests through
  // ResourceQuantityString, quota amounts through AmountQuantityString ("<unlimited>").
  std::string FormatRequest(ResourceId resource, Quantity q) const {
    return FormatQuantity(q, cluster_.Name(resource));
  }
  std::string FormatQuota(ResourceId resource, Quantity q) const {
    return FormatAmount(q, cluster_.Name(resource));
  }

  const AssignRequest& req_;
  const Workload& wl_;
  const Cluster& cluster_;
  const ResourceTree& tree_;
  PreemptionOracle* oracle_;
  const ClusterQueueSpec& cq_spec_;
  NodeId cq_node_;
  Assignment& out_;

 public:
  // Vectors an assignment only needs while it runs, kept by each thread across calls: a
  // nomination costs a few microseconds, and their allocations were a tenth of it.
  struct Scratch {
    GroupResult group;
    std::vector<FlavorChoice> choices;  // FindFlavor: the flavor being examined
    std::vector<ResourceAmount> some;   // Run: the requests of one group, when not all
  };
};

Assigner::Scratch& ThreadScratch() {
  thread_local Assigner::Scratch scratch;
  return scratch;
}

void Assigner::RequestsFor(size_t pod_set_index, int32_t count,
                           std::vector<ResourceAmount>& requests) const {
  const PodSetRequest& ps = wl_.pod_sets[pod_set_index];
  requests.reserve(ps.total.size() + 1);  // room for `pods`: one allocation at most
  requests.assign(ps.total.begin(), ps.total.end());
  if (count != ps.count) {
    // Kueue's ScaledTo: total / count x new count, integer ops.
    for (ResourceAmount& r : requests) {
      Quantity per_pod = ps.count == 0 ? Quantity::Zero() : Quantity(r.amount.value() / ps.count);
      if (ps.count == 0) {
        for (const ResourceAmount& p : ps.per_pod) {
          if (p.resource == r.resource) {
            per_pod = p.amount;
          }
        }
      }
      r.amount = MultiplySaturating(per_pod, count);
    }
  }
  // A CQ covering `pods` is charged one per pod (§6.1).
  if (std::optional<ResourceId> pods = cluster_.pods_resource();
      pods && cluster_.GroupFor(req_.cq, *pods) != nullptr) {
    auto it = std::find_if(requests.begin(), requests.end(),
                           [&](const ResourceAmount& r) { return r.resource == *pods; });
    if (it != requests.end()) {
      it->amount = Quantity(count);
    } else {
      requests.push_back({*pods, Quantity(count)});
      std::sort(requests.begin(), requests.end(),
                [&](const ResourceAmount& a, const ResourceAmount& b) {
                  return cluster_.Name(a.resource) < cluster_.Name(b.resource);
                });
    }
  }
}

Assigner::QuotaFit Assigner::FitsResourceQuota(FrSlot slot, ResourceId resource, FlavorId flavor,
                                               Quantity request) {
  QuotaFit fit;
  Quantity available = tree_.Available(cq_node_, slot);
  Quantity max_capacity = tree_.PotentialAvailable(cq_node_, slot);
  Quantity assumed = UsageAt(out_.usage, slot);
  Quantity val = assumed + request;
  const std::string& resource_name = cluster_.Name(resource);
  const std::string& flavor_name = cluster_.Name(flavor);
  if (val > max_capacity) {
    if (!req_.explain) {
      fit.reason = kUnexplained;
      return fit;
    }
    fit.reason = fmt::format(
        "insufficient quota for {} in flavor {}, previously considered podsets requests ({}) + "
        "current podset request ({}) > maximum capacity ({})",
        resource_name, flavor_name, FormatQuota(resource, assumed),
        FormatRequest(resource, request), FormatQuota(resource, max_capacity));
    return fit;
  }
  BorrowingLevel level = tree_.FindBorrowingLevel(cq_node_, slot, val);
  if (val <= available) {
    fit.mode = PreemptionMode::kFit;
    fit.borrow = level.level;
    return fit;
  }
  fit.reason = req_.explain ? fmt::format(
                   "insufficient unused quota for {} in flavor {}, {} "
                   "more needed",
                   resource_name, flavor_name, FormatQuota(resource, val - available))
                            : kUnexplained;
  fit.borrow = level.level;
  if (tree_.Nominal(cq_node_, slot) >= val || level.may_reclaim || CanPreemptWhileBorrowing()) {
    OracleResult r;
    r.borrow = level.level;
    if (oracle_ != nullptr) {
      r = oracle_->SimulatePreemption(wl_, req_.cq, slot, val);
    }
    fit.mode = r.mode;
    fit.borrow = r.borrow;
  }
  return fit;
}

// Seed 001: the devices of the resource classes among `requests`, first-fit on the flavor's nodes
// (engine/device_inventory.h). A shortage makes the flavor NoFit: it never triggers preemption,
// since victims are chosen by quota and need not sit on the nodes that would help.
std::optional<std::string> Assigner::DeviceShortage(const ResourceFlavorSpec& flavor,
                                                    std::span<const ResourceAmount> requests,
                                                    size_t pod_set_index) const {
  const DeviceInventory& devices = cluster_.devices();
  if (!devices.HasClasses()) {
    return std::nullopt;
  }
  const int32_t pods =
      req_.counts.empty() ? wl_.pod_sets[pod_set_index].count : req_.counts[pod_set_index];
  if (pods <= 0) {
    return std::nullopt;
  }
  PodSetDeviceDemand demand;
  demand.flavor_node_labels = flavor.node_labels;
  demand.pods = pods;
  for (const ResourceAmount& r : wl_.pod_sets[pod_set_index].per_pod) {
    const bool in_group =
        std::any_of(requests.begin(), requests.end(),
                    [&](const ResourceAmount& q) { return q.resource == r.resource; });
    const std::string& name = cluster_.Name(r.resource);
    if (in_group && r.amount > Quantity::Zero() && devices.IsClass(name)) {
      demand.per_pod.emplace_back(name, r.amount.value());
    }
  }
  if (demand.per_pod.empty()) {
    return std::nullopt;
  }
  std::optional<std::string> shortage = devices.CheckFit({demand});
  if (shortage.has_value()) {
    return fmt::format("flavor {}: {}", flavor.name, *shortage);
  }
  return std::nullopt;
}

void Assigner::FindFlavor(const ResourceGroup& group, std::span<const ResourceAmount> requests,
                          size_t pod_set_index, ResourceId trigger, GroupResult& result) {
  result.choices.clear();
  result.reasons.clear();
  result.attempts.clear();
  const FlavorFungibilitySpec& fungibility = cq_spec_.flavor_fungibility;
  const PodSetRequest& ps = wl_.pod_sets[pod_set_index];
  int num_flavors = static_cast<int>(group.flavors.size());
  int start = 0;
  if (req_.resume != nullptr && req_.resume->valid) {
    start = req_.resume->NextFlavorIndex(pod_set_index, trigger);
    // A saved index is only a position in the list it was recorded against: one past the end of
    // the current list (it shrank) starts from the first flavor again.
    if (start < 0 || start >= num_flavors) {
      start = 0;
    }
  }
  if (req_.pinned != nullptr && pod_set_index < req_.pinned->pod_sets.size()) {
    // §5.6 recompute: only the flavor chosen at nomination for this group.
    for (const FlavorChoice& c : req_.pinned->pod_sets[pod_set_index].flavors) {
      if (c.resource != trigger) {
        continue;
      }
      auto it = std::find(group.flavors.begin(), group.flavors.end(), c.flavor);
      if (it != group.flavors.end()) {
        start = static_cast<int>(it - group.flavors.begin());
        num_flavors = start + 1;
      }
    }
  }
  GranularMode best_mode{PreemptionMode::kNoFit, INT_MAX};
  // The current flavor's choices and the best so far, swapped rather than reallocated.
  std::vector<FlavorChoice>& best = result.choices;
  std::vector<FlavorChoice>& choices = ThreadScratch().choices;
  int attempted = -1;
  for (int idx = start; idx < num_flavors; ++idx) {
    attempted = idx;
    FlavorId flavor = group.flavors[static_cast<size_t>(idx)];
    FlavorAttempt attempt{flavor, idx, PreemptionMode::kNoFit, 0, {}};
    const ResourceFlavorSpec* flavor_spec = cluster_.FlavorSpec(flavor);
    std::string ineligible;
    if (flavor_spec == nullptr) {
      ineligible = fmt::format("flavor {} not found", cluster_.Name(flavor));
    } else if (const FlavorHistoryEntry* h = wl_.fallback->Find(flavor); h && h->failed) {
      // Seed 002: a flavor that failed for this workload is not assigned again.
      ineligible = fmt::format("flavor {} excluded by the fallback strategy ({})",
                               cluster_.Name(flavor), ToString(h->failed_by));
    } else if (ps.spec != nullptr) {
      ineligible = CheckFlavorEligibility(*flavor_spec, *ps.spec);
    }
    if (!ineligible.empty()) {
      if (req_.explain) {
        attempt.reasons.push_back(ineligible);
        result.attempts.push_back(std::move(attempt));
      }
      result.AddReason(std::move(ineligible), req_.explain);
      continue;
    }
    GranularMode representative{PreemptionMode::kFit, 0};
    choices.clear();
    choices.reserve(requests.size());  // one allocation, not one per doubling
    for (const ResourceAmount& r : requests) {
      int ri = group.ResourceIndex(r.resource);
      FrSlot slot = group.Slot(static_cast<size_t>(idx), static_cast<size_t>(ri));
      QuotaFit fit = FitsResourceQuota(slot, r.resource, flavor, r.amount);
      if (!fit.reason.empty()) {
        if (req_.explain) {
          attempt.reasons.push_back(fit.reason);
        }
        result.AddReason(std::move(fit.reason), req_.explain);
      }
      attempt.borrow = std::max(attempt.borrow, fit.borrow);
      GranularMode mode{fit.mode, fit.borrow};
      // The representative mode is the worst of the flavor's resources.
      if (IsPreferred(representative, mode, fungibility)) {
        representative = mode;
      }
      if (representative.mode == PreemptionMode::kNoFit) {
        continue;  // the flavor cannot be used; keep collecting reasons
      }
      choices.push_back({r.resource, flavor, slot, ToAssignmentMode(fit.mode), fit.mode, fit.borrow,
                         0, r.amount});
    }
    if (representative.mode != PreemptionMode::kNoFit && flavor_spec != nullptr) {
      if (std::optional<std::string> shortage =
              DeviceShortage(*flavor_spec, requests, pod_set_index)) {
        out_.devices_short = out_.devices_short || representative.mode == PreemptionMode::kFit;
        attempt.reasons.push_back(*shortage);
        result.AddReason(std::move(*shortage), req_.explain);
        representative = GranularMode{PreemptionMode::kNoFit, INT_MAX};
        choices.clear();
      }
    }
    attempt.mode = representative.mode;
    if (req_.explain) {
      result.attempts.push_back(std::move(attempt));
    }
    if (!ShouldTryNextFlavor(representative, fungibility)) {
      best.swap(choices);
      best_mode = representative;
      break;
    }
    if (IsPreferred(representative, best_mode, fungibility)) {
      best.swap(choices);
      best_mode = representative;
    }
  }
  int tried = attempted == num_flavors - 1 ? -1 : attempted;
  for (FlavorChoice& c : best) {
    c.tried_index = tried;
  }
  if (best_mode.mode == PreemptionMode::kFit) {
    result.reasons.clear();
  }
}

void Assigner::Run() {
  // As ClearKeepingStorage, but the pod sets and their scan records are overwritten in place
  // below (their vectors keep their storage) and trimmed at the end.
  out_.borrowing = 0;
  out_.usage.clear();
  out_.last_state.cohort_generations.clear();
  out_.forced_mode.reset();
  out_.devices_short = false;
  out_.last_state.valid = true;
  out_.last_state.cluster_queue_generation = tree_.Generation(cq_node_);
  out_.last_state.flavor_lists = cluster_.FlavorListsFingerprint(req_.cq);
  // Bounded by the node count: a cohort cycle cannot make this walk endless (the scheduler never
  // nominates into a cycle, but `tally explain` may ask).
  size_t steps = 0;
  for (NodeId n = tree_.Parent(cq_node_); IsValid(n) && steps < tree_.num_nodes();
       n = tree_.Parent(n), ++steps) {
    out_.last_state.cohort_generations.push_back(tree_.Generation(n));
  }
  out_.last_state.scheduling_cycle = req_.scheduling_cycle;
  // pod_sets and last_tried grow to the pod sets examined, reusing the elements they hold. A
  // pod-set list shared with a copy (the nomination memo keeps one) is let go of, not copied:
  // every element would be overwritten.
  std::vector<PodSetAssignment>& pod_sets = out_.pod_sets.Overwrite();
  std::vector<std::vector<std::pair<ResourceId, int>>>& tried_lists =
      out_.last_state.last_tried.Overwrite();  // likewise the scan's per-pod-set lists
  size_t examined = 0;
  Scratch& scratch = ThreadScratch();
  size_t slots_at_most = 0;  // every request of every pod set, `pods` included
  for (const PodSetRequest& ps : wl_.pod_sets) {
    slots_at_most += ps.total.size() + 1;
  }
  out_.usage.reserve(slots_at_most);
  for (size_t i = 0; i < wl_.pod_sets.size(); ++i) {
    int32_t count = req_.counts.empty() ? wl_.pod_sets[i].count : req_.counts[i];
    if (pod_sets.size() == examined) {
      pod_sets.emplace_back();
    }
    PodSetAssignment& psa = pod_sets[examined];
    psa.name = wl_.pod_sets[i].name;
    psa.count = count;
    RequestsFor(i, count, psa.requests);
    psa.flavors.clear();
    psa.reasons.clear();
    psa.attempts.clear();
    psa.missing_flavor = false;
    bool failed = false;
    for (const ResourceAmount& r : psa.requests) {
      const ResourceGroup* group = cluster_.GroupFor(req_.cq, r.resource);
      if (group == nullptr) {
        if (r.amount == Quantity::Zero()
            || req_.quota_check == QuotaCheckStrategy::kIgnoreUndeclared) {
          continue;
        }
        psa.flavors.clear();
        psa.reasons = {
            fmt::format("resource {} unavailable in ClusterQueue", cluster_.Name(r.resource))};
        failed = true;
        break;
      }
      bool done = std::any_of(psa.flavors.begin(), psa.flavors.end(),
                              [&](const FlavorChoice& c) { return c.resource == r.resource; });
      if (done) {
        continue;
      }
      // The requests this group covers (usually all of them: no copy then).
      std::span<const ResourceAmount> in_group = psa.requests;
      std::vector<ResourceAmount>& some = scratch.some;
      some.clear();
      if (!std::all_of(psa.requests.begin(), psa.requests.end(), [&](const ResourceAmount& q) {
            return group->ResourceIndex(q.resource) >= 0;
          })) {
        for (const ResourceAmount& q : psa.requests) {
          if (group->ResourceIndex(q.resource) >= 0) {
            some.push_back(q);
          }
        }
        in_group = some;
      }
      GroupResult& g = scratch.group;
      FindFlavor(*group, in_group, i, r.resource, g);
      std::move(g.attempts.begin(), g.attempts.end(), std::back_inserter(psa.attempts));
      if (g.choices.empty() && !in_group.empty()) {
        psa.flavors.clear();
        psa.reasons.swap(g.reasons);  // g is cleared before its next use
        failed = true;
        break;
      }
      if (psa.flavors.empty()) {
        psa.flavors.swap(g.choices);  // the first group: no copy
      } else {
        std::move(g.choices.begin(), g.choices.end(), std::back_inserter(psa.flavors));
      }
      for (std::string& reason : g.reasons) {
        if (req_.explain || psa.reasons.empty()) {
          psa.reasons.push_back(std::move(reason));
        }
      }
    }
    // A pod set is Fit only with a flavor for every resource that needs one; a scan that tried
    // no flavor at all (empty resource group) must not pass for a fit without reasons.
    if (!failed) {
      std::vector<ResourceId> missing =
          ResourcesWithoutFlavor(cluster_, req_.cq, psa, req_.quota_check);
      if (!missing.empty()) {
        psa.flavors.clear();
        psa.reasons.clear();
        for (ResourceId r : missing) {
          psa.reasons.push_back(
              fmt::format("no flavor of ClusterQueue {} could be tried for resource {}",
                          cluster_.Name(req_.cq), cluster_.Name(r)));
        }
        failed = true;
      }
    } else if (psa.reasons.empty()) {
      psa.reasons.push_back(
          fmt::format("no flavor of ClusterQueue {} could be tried", cluster_.Name(req_.cq)));
    }
    psa.missing_flavor = failed;
    if (psa.flavors.size() > 1) {
      std::sort(psa.flavors.begin(), psa.flavors.end(),
                [&](const FlavorChoice& a, const FlavorChoice& b) {
                  return cluster_.Name(a.resource) < cluster_.Name(b.resource);
                });
    }
    std::vector<std::vector<std::pair<ResourceId, int>>>& last_tried = tried_lists;
    if (last_tried.size() == examined) {
      last_tried.emplace_back();
    }
    std::vector<std::pair<ResourceId, int>>& tried = last_tried[examined];
    tried.clear();
    tried.reserve(psa.flavors.size());
    for (const FlavorChoice& c : psa.flavors) {
      out_.borrowing = std::max(out_.borrowing, c.borrow);
      AddUsageAt(out_.usage, c.slot, c.amount);
      tried.emplace_back(c.resource, c.tried_index);
    }
    ++examined;
    if (failed) {
      break;
    }
  }
  pod_sets.resize(examined);
  tried_lists.resize(examined);
}

}  // namespace

Assignment AssignFlavors(const AssignRequest& request, PreemptionOracle* oracle) {
  Assignment out;
  AssignFlavorsInto(request, oracle, out);
  return out;
}

void AssignFlavorsInto(const AssignRequest& request, PreemptionOracle* oracle, Assignment& out) {
  PhaseScope profile(Phase::kFlavorAssignment);
  TALLY_DCHECK(request.pinned != &out && request.resume != &out.last_state);
  Assigner(request, oracle, out).Run();
}

}  // namespace engine
