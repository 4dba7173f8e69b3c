// File: engine/pod_requests.h
//
// A workload's effective requests per pod set (kueue-semantics.md §3), computed once when the
// workload enters the engine:
//
//   limits stand in for missing requests (§3.1 step 3)
//     -> per-pod request: containers, sidecars and init containers, pod-level requests,
//        overhead, all as exact decimals (§3.2)
//     -> drop resources matching `excludeResourcePrefixes` (§3.3)
//     -> resource transformations, Retain/Replace, multiplyBy, allowances (§3.4, seed 000)
//     -> one rounding per pod to canonical units, negatives floored to 0 (§1)
//     -> multiplied by the effective pod count (count - reclaimable), saturating.
//
// Resource names stay strings here: this runs once per workload at ingest, never per decision.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/config.h"
#include "engine/quantity.h"

namespace engine {

// A resource list as Kubernetes writes it, kept sorted by name (Kubernetes maps are unordered;
// sorting makes every later step deterministic).
using ResourceList = std::vector<std::pair<std::string, DecimalQuantity>>;

// Adds `amount` to `name` in a sorted list.
void AddTo(ResourceList& list, const std::string& name, const DecimalQuantity& amount);
const DecimalQuantity* Find(const ResourceList& list, const std::string& name);

struct ContainerResources {
  ResourceList requests;
  ResourceList limits;
  bool restartable_sidecar = false;  // an init container with restartPolicy: Always
  bool operator==(const ContainerResources&) const = default;
};

struct PodResources {
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> init_containers;
  ResourceList overhead;
  ResourceList pod_requests;  // spec.resources.requests (pod-level resources)
  ResourceList pod_limits;
  bool operator==(const PodResources&) const = default;
};

// §3.1 step 3 + §3.2: the exact per-pod request.
ResourceList PodRequests(const PodResources& pod);
// PodRequests into `result`, whose storage is reused (its old content is dropped).
void PodRequestsInto(const PodResources& pod, ResourceList& result);

// §3.3: removes every resource whose name starts with one of `prefixes`.
ResourceList ExcludePrefixes(const ResourceList& list, const std::vector<std::string>& prefixes);

// §3.4: applies the transformations; resources without a rule pass through.
ResourceList ApplyTransformations(const ResourceList& list,
                                  const std::vector<ResourceTransformationSpec>& rules);

struct CanonicalAmount {
  std::string resource;
  Quantity amount;
};

// The whole pipeline for one pod set: canonical per-pod amounts times (count - reclaimable),
// sorted by resource name; zero amounts kept (the assigner skips uncovered zeros).
std::vector<CanonicalAmount> PodSetRequests(const PodResources& pod, int64_t count,
                                            int64_t reclaimable, const ResourcesConfigSpec& config);

// The per-pod canonical amounts (after exclusion and transformation, rounded once, >= 0).
std::vector<CanonicalAmount> PerPodCanonical(const PodResources& pod,
                                             const ResourcesConfigSpec& config);
// PerPodCanonical into `out`, with `scratch` for the per-pod list: both keep their storage from
// one call to the next (a replay computes this for every workload it adds: four allocations and
// frees each, before).
void PerPodCanonicalInto(const PodResources& pod, const ResourcesConfigSpec& config,
                         ResourceList& scratch, std::vector<CanonicalAmount>& out);

}  // namespace engine
