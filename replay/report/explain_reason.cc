#include "replay/report/explain_reason.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <optional>

#include "engine/queue_manager.h"

namespace replay {
namespace {

ExplainVerdict Verdict(std::string code, std::string sentence, std::string remedy) {
  return ExplainVerdict{std::move(code), std::move(sentence), std::move(remedy), false};
}

const char* StopPolicyName(engine::StopPolicy p) {
  return engine::ToString(p);
}

// A ClusterQueue that admits nothing new (Kueue's Active=False condition, pkg/cache/clusterqueue.go
// updateQueueStatus); nullopt when it is active.
std::optional<ExplainVerdict> InactiveClusterQueue(const engine::Cluster& c, engine::CqId cq) {
  const std::string& name = c.Name(cq);
  switch (c.Inactive(cq)) {
    case engine::InactiveReason::kNone:
      return std::nullopt;
    case engine::InactiveReason::kStopped:
      return Verdict("OnHold",
                     fmt::format("ClusterQueue {} is stopped (stopPolicy {}): it admits nothing "
                                 "new, whatever its quota",
                                 name, StopPolicyName(c.Spec(cq).stop_policy)),
                     fmt::format("set spec.stopPolicy of ClusterQueue {} to None", name));
    case engine::InactiveReason::kCohortCycle:
      return Verdict("Misconfigured",
                     fmt::format("ClusterQueue {} cannot admit: cohorts {} form a cycle (Kueue "
                                 "keeps every ClusterQueue of that tree inactive)",
                                 name, c.CohortCycle(cq)),
                     fmt::format("no quota change: break the cohort cycle {} (change one "
                                 "parentName)",
                                 c.CohortCycle(cq)));
    case engine::InactiveReason::kFlavorNotFound:
      return Verdict("Misconfigured",
                     fmt::format("ClusterQueue {}: {}", name, c.InactiveMessage(cq)),
                     "create the missing ResourceFlavor(s), or remove them from the ClusterQueue");
    case engine::InactiveReason::kAdmissionCheckNotFound:
    case engine::InactiveReason::kAdmissionCheckInactive:
      return Verdict("Misconfigured",
                     fmt::format("ClusterQueue {}: {}", name, c.InactiveMessage(cq)),
                     "create or activate the AdmissionCheck(s), or remove them from the "
                     "ClusterQueue");
  }
  return std::nullopt;
}

// Why no preemption makes room (Kueue pkg/scheduler/preemption: candidates come from the
// ClusterQueue under withinClusterQueue, and from the cohort under reclaimWithinCohort and
// borrowWithinCohort): the policies, then who could be a candidate at all.
std::string WhyPreemptionCannotHelp(const ClusterState& state, const engine::Workload& w) {
  const engine::Cluster& c = *state.cluster;
  const engine::ClusterQueueSpec& spec = c.Spec(w.cluster_queue);
  const engine::PreemptionSpec& p = spec.preemption;
  const bool in_cq = p.within_cluster_queue != engine::PreemptionPolicy::kNever;
  const bool in_cohort = !spec.cohort.empty()
                         && (p.reclaim_within_cohort != engine::PreemptionPolicy::kNever
                             || p.borrow_within_cohort != engine::PreemptionPolicy::kNever);
  if (!in_cq && !in_cohort) {
    return spec.cohort.empty()
               ? "its ClusterQueue's withinClusterQueue policy is Never"
               : "its ClusterQueue's preemption policies (withinClusterQueue, reclaimWithinCohort, "
                 "borrowWithinCohort) are all Never";
  }
  size_t lower = 0;
  for (engine::WorkloadId id : state.store->Admitted(w.cluster_queue)) {
    lower += state.store->Get(id).priority < w.priority ? 1 : 0;
  }
  if (in_cq && !in_cohort && lower == 0) {
    return fmt::format("no admitted workload of ClusterQueue {} has a priority below {}",
                       c.Name(w.cluster_queue), w.priority);
  }
  return "the workloads its policies allow it to preempt would not free enough (see the "
         "considered flavors below)";
}

}  // namespace

ExplainVerdict DiagnoseWorkload(const ClusterState& state, const engine::Workload& w,
                                const engine::CycleEntry* entry) {
  const engine::Cluster& c = *state.cluster;
  const engine::WorkloadSpec& spec = *w.spec;
  if (w.quota_reserved) {
    return Verdict("QuotaReserved",
                   fmt::format("it holds quota in ClusterQueue {}: it is admitted, nothing keeps "
                               "it waiting",
                               c.Name(w.cluster_queue)),
                   "nothing to change");
  }
  if (const engine::ConditionSpec* finished = spec.Condition("Finished");
      finished != nullptr && finished->status) {
    return Verdict("Finished", "it has finished: it holds no quota and is not queued",
                   "nothing to change");
  }
  if (!spec.active) {
    return Verdict("Deactivated",
                   "spec.active is false: Kueue does not queue a deactivated workload",
                   "set spec.active to true");
  }
  const engine::LocalQueueSpec* lq = c.FindLocalQueue(spec.name_space, w.local_queue());
  if (lq == nullptr) {
    return Verdict("LocalQueueNotFound",
                   fmt::format("LocalQueue \"{}\" does not exist in namespace {}: the workload "
                               "waits outside every queue until it does",
                               w.local_queue(), spec.name_space),
                   fmt::format("create LocalQueue {} in namespace {}, pointing to a "
                               "ClusterQueue, or set spec.queueName to an existing one",
                               w.local_queue(), spec.name_space));
  }
  if (!engine::IsValid(w.cluster_queue)) {
    return Verdict("ClusterQueueNotFound",
                   fmt::format("LocalQueue {}/{} points to ClusterQueue \"{}\", which does not "
                               "exist: the workload waits outside every queue until it does",
                               spec.name_space, w.local_queue(), lq->cluster_queue),
                   fmt::format("create ClusterQueue {}, or point LocalQueue {}/{} to an existing "
                               "one",
                               lq->cluster_queue, spec.name_space, w.local_queue()));
  }
  if (lq->stop_policy != engine::StopPolicy::kNone) {
    return Verdict("OnHold",
                   fmt::format("LocalQueue {}/{} is stopped (stopPolicy {}): its workloads are "
                               "not queued, whatever the quota",
                               spec.name_space, w.local_queue(), StopPolicyName(lq->stop_policy)),
                   fmt::format("set spec.stopPolicy of LocalQueue {}/{} to None", spec.name_space,
                               w.local_queue()));
  }
  if (std::optional<ExplainVerdict> inactive = InactiveClusterQueue(c, w.cluster_queue)) {
    return *inactive;
  }
  if (entry == nullptr) {
    return Verdict("Pending", "not evaluated", "");
  }
  if (entry->reason == engine::RequeueReason::kNamespaceMismatch) {
    return Verdict("NamespaceMismatch",
                   fmt::format("ClusterQueue {}'s namespaceSelector does not select namespace "
                               "{}: Kueue refuses the workload before looking at quota",
                               c.Name(w.cluster_queue), spec.name_space),
                   fmt::format("label namespace {} to match the selector, or use a LocalQueue of "
                               "a ClusterQueue that selects it",
                               spec.name_space));
  }
  if (entry->misconfigured) {
    return Verdict("Misconfigured", entry->message,
                   "fix the workload's pod templates (the message says what is wrong)");
  }
  if (entry->outcome == engine::EntryOutcome::kNotNominated) {
    return Verdict("AdmissionCheckRejected", entry->message,
                   "nothing in tally's model: the admission check decides");
  }
  const engine::Assignment& a = entry->assignment;
  if (a.Mode() == engine::AssignmentMode::kFit) {
    return Verdict("Fits",
                   fmt::format("it fits in ClusterQueue {} now: the next scheduling cycle admits "
                               "it unless a workload ahead of it takes the quota first",
                               c.Name(w.cluster_queue)),
                   "nothing needed");
  }
  if (a.devices_short) {
    // Resource classes (seed 001): the quota may be there, the devices on the flavors' nodes
    // are not. A quota change is still looked for (a flavor may lack both).
    ExplainVerdict v = Verdict(
        "WaitingForDevices",
        fmt::format("no flavor of ClusterQueue {} has the devices its pods need free on its nodes "
                    "(resource classes){}",
                    c.Name(w.cluster_queue),
                    a.pod_sets.empty() || a.pod_sets[0].reasons.empty()
                        ? ""
                        : ": " + a.pod_sets[0].reasons.front()),
        "devices freed by running workloads, or nodes with such devices added to a flavor");
    v.quota_is_the_cause = true;
    return v;
  }
  for (const engine::PodSetAssignment& ps : a.pod_sets) {
    if (!ps.missing_flavor) {
      continue;
    }
    // Why no flavor could take it, from the flavor assigner's reasons (Kueue's own texts,
    // engine/flavor_eligibility.cc and flavor_assigner.cc): every flavor refused for its taints
    // or node affinity, or every flavor too small even when the whole cohort is free.
    const auto every_attempt = [&ps](std::initializer_list<std::string_view> texts) {
      return !ps.attempts.empty()
             && std::all_of(ps.attempts.begin(), ps.attempts.end(), [&](const auto& attempt) {
                  return std::any_of(
                      attempt.reasons.begin(), attempt.reasons.end(), [&](const std::string& r) {
                        return std::any_of(texts.begin(), texts.end(),
                                           [&](std::string_view t) { return r.find(t) != r.npos; });
                      });
                });
    };
    const std::string why = ps.reasons.empty() ? "" : ": " + ps.reasons.front();
    if (ps.attempts.empty()
        || every_attempt({"untolerated taint", "doesn't match node affinity"})) {
      return Verdict("NoMatchingFlavor",
                     fmt::format("no flavor of ClusterQueue {} can take pod set {}{}",
                                 c.Name(w.cluster_queue), ps.name, why),
                     "add the resource to one of the ClusterQueue's resource groups, or change "
                     "the pod template's requests, node affinity or tolerations");
    }
    if (every_attempt({"> maximum capacity"})) {
      ExplainVerdict v = Verdict(
          "ExceedsMaxQuota",
          fmt::format("pod set {} asks more than ClusterQueue {} could ever get, its cohort "
                      "entirely free{}",
                      ps.name, c.Name(w.cluster_queue), why),
          "lower the request");
      v.quota_is_the_cause = true;
      return v;
    }
  }
  ExplainVerdict v;
  v.quota_is_the_cause = true;
  if (a.Mode() == engine::AssignmentMode::kPreempt && !entry->targets.empty()) {
    v.code = "WaitingForPreemption";
    v.sentence = fmt::format("it fits in ClusterQueue {} once {} workload(s) are preempted",
                             c.Name(w.cluster_queue), entry->targets.size());
    return v;
  }
  v.code = "WaitingForQuota";
  v.sentence = fmt::format(
      "ClusterQueue {} cannot get the quota now, from its own or by "
      "borrowing, and preemption cannot help: {}",
      c.Name(w.cluster_queue), WhyPreemptionCannotHelp(state, w));
  return v;
}

ExplainVerdict DiagnoseAdmittedToUndefined(std::string_view key) {
  return Verdict("ClusterQueueNotFound",
                 fmt::format("Workload {} holds an admission to a ClusterQueue that is not "
                             "defined: Kueue keeps it out of every ClusterQueue, so it is not "
                             "queued and charges no quota",
                             key),
                 "define that ClusterQueue, or clear the workload's status.admission");
}

}  // namespace replay
