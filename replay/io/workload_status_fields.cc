#include "replay/io/workload_status_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "engine/k8s_names.h"
#include "replay/io/field_values.h"
#include "replay/io/manifest_fields.h"
#include "replay/io/time_parse.h"

namespace replay::internal {
std::vector<ParsedCondition> ParseConditions(ObjectContext& ctx, const YAML::Node& status,
                                             const std::string& path) {
  std::vector<ParsedCondition> out;
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "conditions", path);
  if (!list.has_value()) {
    return out;
  }
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    if (!ctx.ExpectMap(item, item_path)) {
      continue;
    }
    ctx.CheckKeys(
        item, item_path,
        {"type", "status", "reason", "message", "lastTransitionTime", "observedGeneration"});
    ParsedCondition c;
    const std::string type_path = Child(item_path, "type");
    c.spec.type = RequiredString(ctx, item, "type", type_path, "type is required").value_or("");
    const std::string status_path = Child(item_path, "status");
    if (!Present(Get(item, "status"))) {
      ctx.Error(item, status_path, "Required value: status is required");
    }
    // Unquoted True / False are YAML booleans but read as the same strings here.
    enum class Status : uint8_t { kTrue, kFalse, kUnknown };
    const std::optional<Status> value = ctx.Enum<Status>(
        Get(item, "status"), status_path,
        {{"True", Status::kTrue}, {"False", Status::kFalse}, {"Unknown", Status::kUnknown}});
    c.spec.status = value == Status::kTrue;
    c.is_false = value == Status::kFalse;
    c.spec.reason = ctx.String(Get(item, "reason"), Child(item_path, "reason")).value_or("");
    c.spec.last_transition =
        Time(ctx, Get(item, "lastTransitionTime"), Child(item_path, "lastTransitionTime"))
            .value_or(0);
    if (c.spec.type.empty()) {
      continue;
    }
    auto [it, inserted] = seen.emplace(c.spec.type, i);
    if (!inserted) {
      ctx.Error(Get(item, "type"), type_path,
                fmt::format("Duplicate value: {}: already the type of {}", Quoted(c.spec.type),
                            Index(path, it->second)));
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

// status.admission; `pod_set_counts` are the spec's pod sets (name -> count).
std::optional<engine::AdmissionSpec> ParseAdmission(
    ObjectContext& ctx, const YAML::Node& node, const std::string& path,
    const std::map<std::string, int32_t>& pod_set_counts) {
  ctx.CheckKeys(node, path, {"clusterQueue", "podSetAssignments"});
  engine::AdmissionSpec admission;
  admission.cluster_queue =
      RequiredString(ctx, node, "clusterQueue", Child(path, "clusterQueue"),
                     "the ClusterQueue that admitted the Workload is required")
          .value_or("");
  const std::string list_path = Child(path, "podSetAssignments");
  std::optional<YAML::Node> list = OptionalSequence(ctx, node, "podSetAssignments", list_path);
  if (!list.has_value()) {
    return admission;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(list_path, i);
    engine::PodSetAssignmentSpec psa;
    if (!ctx.ExpectMap(item, item_path)) {
      admission.pod_set_assignments.push_back(std::move(psa));
      continue;
    }
    ctx.CheckKeys(item, item_path,
                  {"name", "flavors", "resourceUsage", "count", "topologyAssignment",
                   "delayedTopologyRequest"});
    const std::string name_path = Child(item_path, "name");
    YAML::Node name = Get(item, "name");
    psa.name = ctx.String(name, name_path).value_or("main");
    if (!pod_set_counts.empty() && pod_set_counts.count(psa.name) == 0) {
      ctx.Error(
          Present(name) ? name : item, name_path,
          fmt::format("Not found: {}: no pod set of spec.podSets has this name", Quoted(psa.name)));
    }
    if (!seen.insert(psa.name).second) {
      ctx.Error(Present(name) ? name : item, name_path,
                fmt::format("Duplicate value: {}", Quoted(psa.name)));
    }
    psa.flavors = ctx.StringMap(Get(item, "flavors"), Child(item_path, "flavors"))
                      .value_or(std::map<std::string, std::string>{});
    YAML::Node count = Get(item, "count");
    psa.count = Int32AtLeast(ctx, count, Child(item_path, "count"), 0);
    const std::string usage_path = Child(item_path, "resourceUsage");
    if (std::optional<YAML::Node> usage = OptionalMap(ctx, item, "resourceUsage", usage_path)) {
      for (auto it = usage->begin(); it != usage->end(); ++it) {
        if (!it->first.IsScalar()) {
          ctx.Error(it->first, usage_path, "expected a resource name as key");
          continue;
        }
        const std::string& resource = it->first.Scalar();
        const std::string q_path = Child(usage_path, resource);
        std::optional<std::string> text = ctx.String(it->second, q_path);
        if (!text.has_value()) {
          if (!Present(it->second)) {
            ctx.Error(it->first, q_path, "Required value: a quantity is required");
          }
          continue;
        }
        engine::StatusOr<engine::Quantity> q =
            engine::ParseCanonicalQuantity(*text, engine::IsMilliResource(resource));
        if (!q.ok()) {
          ctx.Error(it->second, q_path, q.status().message());
          continue;
        }
        if (psa.count.has_value() && *psa.count > 0 && q->value() % *psa.count != 0) {
          ctx.Error(it->second, q_path,
                    fmt::format("Invalid value: {}: is not a multiple of {} (the count)",
                                Quoted(*text), *psa.count));
        }
        if (!psa.resource_usage.emplace(resource, *q).second) {
          ctx.Error(
              it->first, q_path,
              fmt::format("duplicate key \"{}\": Kubernetes rejects repeated fields", resource));
        }
      }
    }
    admission.pod_set_assignments.push_back(std::move(psa));
  }
  return admission;
}

void ParseReclaimablePods(ObjectContext& ctx, const YAML::Node& status,
                          const std::map<std::string, int32_t>& pod_set_counts,
                          engine::WorkloadSpec& wl) {
  const std::string path = "status.reclaimablePods";
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "reclaimablePods", path);
  if (!list.has_value()) {
    return;
  }
  std::string known;
  for (const auto& entry : pod_set_counts) {
    known += fmt::format("{}\"{}\"", known.empty() ? "" : ", ", entry.first);
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    if (!ctx.ExpectMap(item, item_path)) {
      continue;
    }
    ctx.CheckKeys(item, item_path, {"name", "count"});
    const std::string name_path = Child(item_path, "name");
    std::optional<std::string> name =
        RequiredString(ctx, item, "name", name_path, "name is required");
    YAML::Node count_node = Get(item, "count");
    const std::string count_path = Child(item_path, "count");
    if (!Present(count_node)) {
      ctx.Error(item, count_path, "Required value: count is required");
    }
    std::optional<int32_t> count = Int32AtLeast(ctx, count_node, count_path, 0);
    if (!name.has_value() || !count.has_value()) {
      continue;
    }
    auto ps = pod_set_counts.find(*name);
    if (ps == pod_set_counts.end()) {
      ctx.Error(Get(item, "name"), name_path,
                fmt::format("Unsupported value: {}: supported values: {}", Quoted(*name), known));
      continue;
    }
    if (*count > ps->second) {
      ctx.Error(
          count_node, count_path,
          fmt::format("Invalid value: {}: should be less or equal to {}", *count, ps->second));
      continue;
    }
    if (!wl.reclaimable_pods.Mutable().emplace(*name, *count).second) {
      ctx.Error(Get(item, "name"), name_path, fmt::format("Duplicate value: {}", Quoted(*name)));
    }
  }
}

void ParseCheckStates(ObjectContext& ctx, const YAML::Node& status, engine::WorkloadSpec& wl) {
  const std::string path = "status.admissionChecks";
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "admissionChecks", path);
  if (!list.has_value()) {
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    const std::string item_path = Index(path, i);
    engine::AdmissionCheckStateSpec check;
    if (!ctx.ExpectMap(item, item_path)) {
      wl.admission_checks.Mutable().push_back(std::move(check));
      continue;
    }
    ctx.CheckKeys(item, item_path,
                  {"name", "state", "lastTransitionTime", "message", "podSetUpdates",
                   "requeueAfterSeconds", "retryCount"});
    const std::string name_path = Child(item_path, "name");
    check.name = RequiredString(ctx, item, "name", name_path, "name is required").value_or("");
    if (!check.name.empty() && !seen.insert(check.name).second) {
      ctx.Error(Get(item, "name"), name_path,
                fmt::format("Duplicate value: {}", Quoted(check.name)));
    }
    const std::string state_path = Child(item_path, "state");
    if (!Present(Get(item, "state"))) {
      ctx.Error(item, state_path, "Required value: state is required");
    }
    check.state = ctx.Enum<engine::CheckState>(Get(item, "state"), state_path,
                                               {{"Pending", engine::CheckState::kPending},
                                                {"Ready", engine::CheckState::kReady},
                                                {"Retry", engine::CheckState::kRetry},
                                                {"Rejected", engine::CheckState::kRejected}})
                      .value_or(engine::CheckState::kPending);
    (void)Time(ctx, Get(item, "lastTransitionTime"), Child(item_path, "lastTransitionTime"));
    wl.admission_checks.Mutable().push_back(std::move(check));
  }
}

// status.flavorAssignmentHistory[] (seed 002): {resourceFlavor, assignmentTime} and tally's
// {usedTime (Go duration), failed, failedBy}.
void ParseFlavorHistory(ObjectContext& ctx, const YAML::Node& status, engine::WorkloadSpec& wl) {
  const std::string path = "status.flavorAssignmentHistory";
  std::optional<YAML::Node> list = OptionalSequence(ctx, status, "flavorAssignmentHistory", path);
  if (!list.has_value()) {
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string item_path = fmt::format("{}[{}]", path, i);
    const YAML::Node item = (*list)[i];
    if (!ctx.ExpectMap(item, item_path)) {
      continue;
    }
    ctx.CheckKeys(item, item_path,
                  {"resourceFlavor", "assignmentTime", "usedTime", "failed", "failedBy"});
    engine::WorkloadSpec::FlavorHistorySpec h;
    std::optional<std::string> flavor =
        ctx.String(Get(item, "resourceFlavor"), Child(item_path, "resourceFlavor"));
    if (!flavor.has_value() || flavor->empty()) {
      ctx.Error(item, Child(item_path, "resourceFlavor"), "Required value");
      continue;
    }
    if (std::any_of(wl.flavor_history->begin(), wl.flavor_history->end(),
                    [&](const engine::WorkloadSpec::FlavorHistorySpec& seen) {
                      return seen.flavor == *flavor;
                    })) {
      // +listMapKey=resourceFlavor: one entry per flavor.
      ctx.Error(Get(item, "resourceFlavor"), Child(item_path, "resourceFlavor"),
                fmt::format("Duplicate value: \"{}\"", *flavor));
      continue;
    }
    h.flavor = *flavor;
    h.assignment_time = Time(ctx, Get(item, "assignmentTime"), Child(item_path, "assignmentTime"));
    if (std::optional<std::string> used =
            ctx.String(Get(item, "usedTime"), Child(item_path, "usedTime"))) {
      engine::StatusOr<int64_t> d = ParseGoDuration(*used);
      if (d.ok()) {
        h.used = *d;
      } else {
        ctx.Error(Get(item, "usedTime"), Child(item_path, "usedTime"), d.status().message());
      }
    }
    h.failed = ctx.Bool(Get(item, "failed"), Child(item_path, "failed")).value_or(false);
    h.failed_by_check =
        ctx.Enum<bool>(Get(item, "failedBy"), Child(item_path, "failedBy"),
                       {{"TimeoutForPodsReadyExceeded", false}, {"AdmissionCheckRejected", true}})
            .value_or(false);
    wl.flavor_history.Mutable().push_back(std::move(h));
  }
}

}  // namespace

void ParseWorkloadStatus(ObjectContext& ctx, const YAML::Node& status, engine::WorkloadSpec& wl) {
  ctx.CheckKeys(status, "status",
                {"conditions", "admission", "requeueState", "reclaimablePods", "admissionChecks",
                 "resourceRequests", "accumulatedPastExecutionTimeSeconds",
                 "accumulatedPastExexcutionTimeSeconds", "schedulingStats", "nominatedClusterNames",
                 "clusterName", "unhealthyNodes", "flavorAssignmentHistory"});
  std::map<std::string, int32_t> pod_set_counts;
  for (const engine::PodSetSpec& ps : wl.pod_sets) {
    pod_set_counts.emplace(ps.name, ps.count);
  }
  std::vector<ParsedCondition> conditions = ParseConditions(ctx, status, "status.conditions");
  for (ParsedCondition& c : conditions) {
    wl.conditions.Mutable().push_back(c.spec);
  }
  if (std::optional<YAML::Node> admission =
          OptionalMap(ctx, status, "admission", "status.admission")) {
    wl.admission = ParseAdmission(ctx, *admission, "status.admission", pod_set_counts);
    const engine::ConditionSpec* reserved = wl.Condition("QuotaReserved");
    if (reserved == nullptr) {
      ctx.Warning(*admission, "status.admission",
                  "status.admission without a QuotaReserved condition: tally treats the Workload "
                  "as holding its quota (as if status.conditions had QuotaReserved=True at its "
                  "creationTimestamp)");
      wl.conditions.Mutable().push_back(
          engine::ConditionSpec{"QuotaReserved", true, "QuotaReserved", wl.creation_time});
    } else if (!reserved->status) {
      ctx.Warning(*admission, "status.admission",
                  "status.admission is ignored: the QuotaReserved condition is not True, and "
                  "Kueue charges a Workload's admission only while it is");
      wl.admission.reset();
    }
  }
  ParseReclaimablePods(ctx, status, pod_set_counts, wl);
  ParseCheckStates(ctx, status, wl);
  ParseFlavorHistory(ctx, status, wl);
  const std::string requeue_path = "status.requeueState";
  if (std::optional<YAML::Node> requeue = OptionalMap(ctx, status, "requeueState", requeue_path)) {
    ctx.CheckKeys(*requeue, requeue_path, {"count", "requeueAt"});
    wl.requeue_count =
        Int32AtLeast(ctx, Get(*requeue, "count"), Child(requeue_path, "count"), 0).value_or(0);
    wl.requeue_at = Time(ctx, Get(*requeue, "requeueAt"), Child(requeue_path, "requeueAt"));
  }
}

}  // namespace replay::internal
