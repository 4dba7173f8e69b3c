// File: replay/io/manifest_fields.h
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

#include <optional>
#include <string>
#include <string_view>

#include "engine/cluster_spec.h"
#include "replay/io/manifest_context.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

// --- helpers shared with the other per-kind parsers (replay/io/workload_fields.h)
// -----------------

// The map under `key` of `parent` (REQUIRES: parent.IsMap()), or nullopt when the key is absent
// or null (no error) or holds something else (error).
std::optional<YAML::Node> OptionalMap(ObjectContext& ctx, const YAML::Node& parent,
                                      std::string_view key, const std::string& path);
std::optional<YAML::Node> OptionalSequence(ObjectContext& ctx, const YAML::Node& parent,
                                           std::string_view key, const std::string& path);
// The `spec` map of an object; an absent spec is an empty one.
std::optional<YAML::Node> SpecOf(ObjectContext& ctx, const YAML::Node& obj);

struct Metadata {
  std::string name;
  std::string name_space;
};

// metadata.name is required (generateName needs an API server); namespaced objects default to
// the "default" namespace, as `kubectl apply` without -n does. Sets the context's display name.
std::optional<Metadata> ParseMetadata(ObjectContext& ctx, const YAML::Node& obj, bool namespaced);

// Warns about top-level keys other than apiVersion, kind, metadata, spec and status.
void CheckTopLevelKeys(ObjectContext& ctx, const YAML::Node& obj);

// One toleration {key, operator (default Equal), value, effect, tolerationSeconds}.
// REQUIRES: item.IsMap().
engine::Toleration ParseToleration(ObjectContext& ctx, const YAML::Node& item,
                                   const std::string& path);

// --- one parser per kind -----------------------------------------------------------------------

bool ParseResourceFlavor(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParseCohort(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParseClusterQueue(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParseLocalQueue(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParsePriorityClass(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
// Fills `spec.configuration` (REQUIRES: !spec.configuration.present).
bool ParseConfiguration(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);

}  // namespace replay::internal
