#include "engine/workload_spec.h"

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace engine {
namespace {

// MapRequests.GreaterKeysRL (pkg/resources/requests.go): the resources whose request exceeds the
// limit of the same name, in name order (ResourceList is sorted). A request without a limit is
// not compared; a limit without a request stood in for it (equal, so never greater).
std::vector<std::string> GreaterThanLimits(const ResourceList& requests,
                                           const ResourceList& limits) {
  std::vector<std::string> greater;
  for (const auto& [name, request] : requests) {
    const DecimalQuantity* limit = Find(limits, name);
    bool milli = IsMilliResource(name);
    if (limit != nullptr && ToCanonical(request, milli) > ToCanonical(*limit, milli)) {
      greater.push_back(name);
    }
  }
  return greater;
}

// field.Invalid(path, names, detail).Error(): the value is JSON-marshalled ([]ResourceName).
void AppendInvalid(std::vector<std::string>& errors, std::string_view path,
                   const std::vector<std::string>& names) {
  if (names.empty()) {
    return;
  }
  std::string value = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    value += fmt::format("{}\"{}\"", i == 0 ? "" : ",", names[i]);
  }
  value += "]";
  errors.push_back(
      fmt::format("{}: Invalid value: {}: requests must not exceed its limits", path, value));
}

}  // namespace

// Field by field rather than through `spec = WorkloadSpec{}`, which built and moved a whole
// spec: 1,900 instructions per workload, more than the allocations it saves. The size checks
// stop a new field from being left out (it would carry one workload's value into the next).
static_assert(sizeof(PodSetSpec) == 296, "a PodSetSpec field was added: reset it below");
static_assert(sizeof(ContainerResources) == 56, "a container field was added: reset it below");
static_assert(sizeof(WorkloadSpec) == 208, "a WorkloadSpec field was added: reset it below");

void ResetForReuse(PodSetSpec& pod_set) {
  pod_set.name.assign("main");  // PodSetSpec's defaults (workload_spec_reuse_test checks them)
  pod_set.count = 1;
  pod_set.min_count.reset();
  for (ContainerResources& c : pod_set.resources.containers) {
    c.requests.clear();
    c.limits.clear();
    c.restartable_sidecar = false;
  }
  pod_set.resources.init_containers.clear();
  pod_set.resources.overhead.clear();
  pod_set.resources.pod_requests.clear();
  pod_set.resources.pod_limits.clear();
  pod_set.node_selector.clear();
  pod_set.required_affinity.clear();
  pod_set.tolerations.clear();
  pod_set.priority_class_name.clear();
}

void ResetForReuse(WorkloadSpec& spec) {
  spec.name_space.clear();
  spec.name.clear();
  spec.uid.clear();
  spec.creation_time = 0;
  spec.workload_class.clear();
  spec.expected_runtime.reset();
  spec.queue_name.clear();
  spec.priority_class_name.clear();
  spec.priority.reset();
  spec.priority_class_kind = PriorityClassKind::kNone;
  spec.active = true;
  spec.maximum_execution_time_seconds.reset();
  spec.pod_sets.ReleaseIfShared();  // a shared list is not written over (nor copied to be)
  for (PodSetSpec& ps : spec.pod_sets) {
    ResetForReuse(ps);
  }
  spec.admission.reset();
  spec.conditions.Reset();
  spec.reclaimable_pods.Reset();
  spec.admission_checks.Reset();
  spec.requeue_at.reset();
  spec.requeue_count = 0;
  spec.flavor_history.Reset();
  if (spec.source.allocated()) {  // the file name's storage kept for the next writer
    SourceRef& source = spec.source.Mutable();
    source.file.clear();
    source.document = SourceRef{}.document;
    source.line = SourceRef{}.line;
  }
}

// The size checks above keep this list whole as well.
void swap(WorkloadSpec& a, WorkloadSpec& b) noexcept {
  using std::swap;
  swap(a.name_space, b.name_space);
  swap(a.name, b.name);
  swap(a.uid, b.uid);
  swap(a.creation_time, b.creation_time);
  swap(a.workload_class, b.workload_class);
  swap(a.expected_runtime, b.expected_runtime);
  swap(a.queue_name, b.queue_name);
  swap(a.priority_class_name, b.priority_class_name);
  swap(a.priority, b.priority);
  swap(a.priority_class_kind, b.priority_class_kind);
  swap(a.active, b.active);
  swap(a.requeue_count, b.requeue_count);
  swap(a.maximum_execution_time_seconds, b.maximum_execution_time_seconds);
  swap(a.pod_sets, b.pod_sets);
  swap(a.admission, b.admission);
  swap(a.conditions, b.conditions);
  swap(a.reclaimable_pods, b.reclaimable_pods);
  swap(a.admission_checks, b.admission_checks);
  swap(a.requeue_at, b.requeue_at);
  swap(a.flavor_history, b.flavor_history);
  swap(a.source, b.source);
}

std::string ValidateResources(const WorkloadSpec& spec) {
  return ValidateResources(static_cast<const std::vector<PodSetSpec>&>(spec.pod_sets));
}

std::string ValidateResources(const std::vector<PodSetSpec>& pod_sets) {
  std::vector<std::string> errors;
  // Paths are formatted only for a field that is invalid: this runs once per distinct list.
  for (size_t i = 0; i < pod_sets.size(); ++i) {
    const PodResources& pod = pod_sets[i].resources;
    auto pod_path = [i] { return fmt::format("spec.podSets[{}].template.spec", i); };
    for (size_t c = 0; c < pod.init_containers.size(); ++c) {
      const ContainerResources& r = pod.init_containers[c];
      std::vector<std::string> greater = GreaterThanLimits(r.requests, r.limits);
      if (!greater.empty()) {
        AppendInvalid(errors, fmt::format("{}.initContainers[{}]", pod_path(), c), greater);
      }
    }
    for (size_t c = 0; c < pod.containers.size(); ++c) {
      const ContainerResources& r = pod.containers[c];
      std::vector<std::string> greater = GreaterThanLimits(r.requests, r.limits);
      if (!greater.empty()) {
        AppendInvalid(errors, fmt::format("{}.containers[{}]", pod_path(), c), greater);
      }
    }
    std::vector<std::string> greater = GreaterThanLimits(pod.pod_requests, pod.pod_limits);
    if (!greater.empty()) {
      AppendInvalid(errors, fmt::format("{}.resources", pod_path()), greater);
    }
  }
  if (errors.empty()) {
    return "";
  }
  // errors.ToAggregate().Error(): one error alone, several (distinct, they name different
  // paths) joined by ", " in brackets.
  std::string joined;
  for (size_t i = 0; i < errors.size(); ++i) {
    joined += (i == 0 ? "" : ", ") + errors[i];
  }
  return fmt::format("resources validation failed: {}",
                     errors.size() == 1 ? joined : "[" + joined + "]");
}

const char* ToString(CheckState state) {
  switch (state) {
    case CheckState::kPending:
      return "Pending";
    case CheckState::kReady:
      return "Ready";
    case CheckState::kRetry:
      return "Retry";
    case CheckState::kRejected:
      return "Rejected";
  }
  return "?";
}

}  // namespace engine
