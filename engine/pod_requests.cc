#include "engine/pod_requests.h"

#include <algorithm>

namespace engine {
namespace {

bool IsPodLevelOverridable(const std::string& name) {
  return name == "cpu" || name == "memory" || name.rfind("hugepages-", 0) == 0;
}

// Limits used as requests for every key with a limit and no request (§3.1 step 3).
ResourceList EffectiveRequests(const ResourceList& requests, const ResourceList& limits) {
  ResourceList out = requests;
  for (const auto& [name, limit] : limits) {
    if (Find(requests, name) == nullptr) {
      AddTo(out, name, limit);
    }
  }
  return out;
}

// Adds EffectiveRequests(requests, limits) to `sum`, name by name (the order of names does not
// matter: each name's sum only sees its own additions).
void AddEffectiveRequests(ResourceList& sum, const ResourceList& requests,
                          const ResourceList& limits) {
  for (const auto& [name, q] : requests) {
    AddTo(sum, name, q);
  }
  for (const auto& [name, limit] : limits) {
    if (Find(requests, name) == nullptr) {
      AddTo(sum, name, limit);
    }
  }
}

// Sets `name` to `amount`, inserting it in order if absent.
void SetIn(ResourceList& list, const std::string& name, const DecimalQuantity& amount) {
  auto it =
      std::lower_bound(list.begin(), list.end(), name,
                       [](const auto& entry, const std::string& n) { return entry.first < n; });
  if (it != list.end() && it->first == name) {
    it->second = amount;
  } else {
    list.insert(it, {name, amount});
  }
}

void MaxInto(ResourceList& into, const ResourceList& candidate) {
  for (const auto& [name, q] : candidate) {
    const DecimalQuantity* current = Find(into, name);
    if (current == nullptr || CompareDecimal(q, *current) > 0) {
      SetIn(into, name, q);
    }
  }
}

ResourceList Sum(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, q] : b) {
    AddTo(out, name, q);
  }
  return out;
}

}  // namespace

void AddTo(ResourceList& list, const std::string& name, const DecimalQuantity& amount) {
  auto it =
      std::lower_bound(list.begin(), list.end(), name,
                       [](const auto& entry, const std::string& n) { return entry.first < n; });
  if (it != list.end() && it->first == name) {
    it->second = Add(it->second, amount);
  } else {
    list.insert(it, {name, amount});
  }
}

const DecimalQuantity* Find(const ResourceList& list, const std::string& name) {
  auto it =
      std::lower_bound(list.begin(), list.end(), name,
                       [](const auto& entry, const std::string& n) { return entry.first < n; });
  return it != list.end() && it->first == name ? &it->second : nullptr;
}

ResourceList PodRequests(const PodResources& pod) {
  ResourceList result;
  PodRequestsInto(pod, result);
  return result;
}

void PodRequestsInto(const PodResources& pod, ResourceList& result) {
  // Accumulated in place: each resource's sum is the same sequence of exact additions as
  // Sum(sum, EffectiveRequests(...)) per container would make, without the copies (this runs for
  // every workload that enters a replay).
  // 1. Regular containers.
  result.clear();
  ResourceList& sum = result;
  for (const ContainerResources& c : pod.containers) {
    AddEffectiveRequests(sum, c.requests, c.limits);
  }
  // 2. Init containers in order; sidecars keep running and add to everything after them.
  ResourceList init_max;
  if (!pod.init_containers.empty()) {
    ResourceList sidecars;
    for (const ContainerResources& c : pod.init_containers) {
      ResourceList req = EffectiveRequests(c.requests, c.limits);
      if (c.restartable_sidecar) {
        sum = Sum(sum, req);
        sidecars = Sum(sidecars, req);
        MaxInto(init_max, sidecars);
      } else {
        MaxInto(init_max, Sum(req, sidecars));
      }
    }
  }
  // 3. max(sum, initMax).
  MaxInto(result, init_max);
  // 4. Pod-level requests replace cpu, memory and hugepages-*.
  if (!pod.pod_requests.empty() || !pod.pod_limits.empty()) {
    ResourceList pod_level = EffectiveRequests(pod.pod_requests, pod.pod_limits);
    for (const auto& [name, q] : pod_level) {
      if (!IsPodLevelOverridable(name)) {
        continue;
      }
      SetIn(result, name, q);
    }
  }
  // 5. Overhead.
  for (const auto& [name, q] : pod.overhead) {
    AddTo(result, name, q);
  }
}

ResourceList ExcludePrefixes(const ResourceList& list, const std::vector<std::string>& prefixes) {
  ResourceList out;
  for (const auto& entry : list) {
    bool excluded = std::any_of(prefixes.begin(), prefixes.end(),
                                [&](const std::string& p) { return entry.first.rfind(p, 0) == 0; });
    if (!excluded) {
      out.push_back(entry);
    }
  }
  return out;
}

ResourceList ApplyTransformations(const ResourceList& list,
                                  const std::vector<ResourceTransformationSpec>& rules) {
  auto rule_for = [&](const std::string& name) -> const ResourceTransformationSpec* {
    for (const ResourceTransformationSpec& r : rules) {
      if (r.input == name) {
        return &r;
      }
    }
    return nullptr;
  };
  bool any = std::any_of(list.begin(), list.end(),
                         [&](const auto& entry) { return rule_for(entry.first) != nullptr; });
  if (!any) {
    return list;
  }
  ResourceList retained;
  ResourceList generated;
  for (const auto& [name, q] : list) {
    const ResourceTransformationSpec* rule = rule_for(name);
    if (rule == nullptr) {
      AddTo(retained, name, q);
      continue;
    }
    DecimalQuantity base = q;
    if (!rule->multiply_by.empty()) {
      // multiplyBy reads the original list, even if that resource is itself replaced.
      if (const DecimalQuantity* factor = Find(list, rule->multiply_by)) {
        base = Multiply(q, *factor);
      }
    }
    for (const auto& [output, per_unit] : rule->outputs) {
      AddTo(generated, output, Multiply(base, per_unit));
    }
    if (rule->strategy == TransformationStrategy::kRetain) {
      AddTo(retained, name, q);
    }
  }
  // Negative outputs encode allowances: clamp the generated total at zero.
  for (auto& [name, q] : generated) {
    if (q.negative && !q.IsZero()) {
      q = DecimalQuantity{};
    }
  }
  return Sum(retained, generated);
}

std::vector<CanonicalAmount> PerPodCanonical(const PodResources& pod,
                                             const ResourcesConfigSpec& config) {
  ResourceList scratch;
  std::vector<CanonicalAmount> out;
  PerPodCanonicalInto(pod, config, scratch, out);
  return out;
}

void PerPodCanonicalInto(const PodResources& pod, const ResourcesConfigSpec& config,
                         ResourceList& scratch, std::vector<CanonicalAmount>& out) {
  // Neither step copies the list when it has nothing to do (the common configuration).
  ResourceList& list = scratch;
  PodRequestsInto(pod, list);
  if (!config.exclude_resource_prefixes.empty()) {
    list = ExcludePrefixes(list, config.exclude_resource_prefixes);
  }
  if (!config.transformations.empty()) {
    list = ApplyTransformations(list, config.transformations);
  }
  out.resize(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& [name, q] = list[i];
    out[i].resource.assign(name);
    out[i].amount = ClampNonNegative(ToCanonical(q, IsMilliResource(name)));
  }
}

std::vector<CanonicalAmount> PodSetRequests(const PodResources& pod, int64_t count,
                                            int64_t reclaimable,
                                            const ResourcesConfigSpec& config) {
  int64_t effective = count - std::min(std::max<int64_t>(reclaimable, 0), count);
  std::vector<CanonicalAmount> out = PerPodCanonical(pod, config);
  for (CanonicalAmount& a : out) {
    a.amount = MultiplySaturating(a.amount, effective);
  }
  return out;
}

}  // namespace engine
