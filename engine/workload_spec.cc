#include "engine/workload_spec.h"

#include <fmt/format.h>

#include <string_view>

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

std::string ValidateResources(const WorkloadSpec& spec) {
  std::vector<std::string> errors;
  // Paths are formatted only for a field that is invalid: this runs for every workload added.
  for (size_t i = 0; i < spec.pod_sets.size(); ++i) {
    const PodResources& pod = spec.pod_sets[i].resources;
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
