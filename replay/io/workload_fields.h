// File: replay/io/workload_fields.h
//
// Internal to the manifest loader: parsers for the scheduling inputs — kueue.x-k8s.io Workload
// (v1beta1 and v1beta2), v1 Namespace and kueue.x-k8s.io AdmissionCheck — into the structs of
// engine/workload_spec.h (kueue-semantics.md §2.6, §3, §9.2). Same contract as
// replay/io/manifest_fields.h: the caller has checked apiVersion and kind and made an
// ObjectContext; every malformed field is reported through it with its path; the return value says
// whether the object was added (it is not when it has no usable name).
//
// Workload rules checked while parsing (Kueue's CRD schema and workload webhook):
//  - spec.podSets: 1 to 18 entries, unique names (DNS-1123 labels, default "main"), count >= 0
//    (default 1), 1 <= minCount <= count, at most one pod set with minCount; a container may not
//    request `pods` (reserved for Kueue);
//  - priority class: v1beta2 `priorityClassRef{group, kind, name}` (group and kind consistent),
//    v1beta1 `priorityClassName` + `priorityClassSource`; either one requires `spec.priority`;
//  - status.admission: podSetAssignments name spec pod sets; resourceUsage is a multiple of
//    the assignment's count; an admission without a QuotaReserved=True condition is accepted with
//    a warning and treated as reserved (a QuotaReserved=True condition is added, its time the
//    creationTimestamp); with an explicit QuotaReserved=False it is ignored (warning), since
//    Kueue only charges a Workload whose QuotaReserved is True;
//  - status.conditions (metav1 rules: type, status True|False|Unknown, reason and
//    lastTransitionTime required, one per type), reclaimablePods (known pod sets, count <= the
//    pod set's count), admissionChecks (unique names, state Pending|Ready|Retry|Rejected).
// Times are RFC 3339 (replay/io/time_parse.h), stored as microseconds since the epoch.
#pragma once

#include <vector>

#include "engine/cluster_spec.h"
#include "replay/io/manifest_context.h"
#include "replay/io/manifest_loader.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

// The most pod sets a Workload may have (kueue-semantics.md §2.6).
inline constexpr size_t kMaxPodSets = 18;

bool ParseWorkload(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
// A v1 Namespace: name and labels, plus the `kubernetes.io/metadata.name` label Kubernetes adds.
bool ParseNamespace(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
// `active` is false only when status.conditions has Active=False.
bool ParseAdmissionCheck(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);

// Checks across objects, once everything is loaded: names unique (Workloads per namespace,
// Namespaces, AdmissionChecks) and Workload uids unique (errors); a Workload whose LocalQueue,
// or whose admission's ClusterQueue, is not in the input (warnings). Lines come from `lines`.
void CheckWorkloadObjects(const engine::ClusterSpec& spec, const FieldLines& lines,
                          std::vector<LoadError>& errors, std::vector<LoadError>& warnings);

}  // namespace replay::internal
