// File: replay/manifest_fields.h
//
// Internal to the manifest loader: one parser per Kueue kind, from a document's root map to the
// spec structs of engine/config.h. The caller has already checked apiVersion and kind and made
// an ObjectContext for the object; the parser reports every malformed field through it and
// returns whether the object was added to the spec (it is not when it has no usable name).
//
// Version differences handled here (kueue-semantics.md §2):
//  - ClusterQueue cohort: v1beta1 `spec.cohort`, v1beta2 `spec.cohortName` (the other spelling
//    is an error: Kueue would drop it and the queue would silently leave its cohort);
//  - v1beta1 `admissionChecks: [names]` = checks on all flavors; both versions accept
//    `admissionChecksStrategy.admissionChecks[{name, onFlavors}]`;
//  - v1beta1 flavorFungibility `Borrow` / `Preempt` mean MayStopSearch;
//  - Cohort parent: `spec.parentName` (v1alpha1 also `spec.parent`);
//  - Configuration fairSharing: v1beta1 needs `enable: true`, v1beta2 is enabled by presence.
#pragma once

#include "engine/cluster_spec.h"
#include "replay/manifest_context.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

bool ParseResourceFlavor(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParseCohort(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParseClusterQueue(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParseLocalQueue(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParsePriorityClass(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
// Fills `spec.configuration` (REQUIRES: !spec.configuration.present).
bool ParseConfiguration(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);

}  // namespace replay::internal
