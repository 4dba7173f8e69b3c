// File: replay/io/flavor_supply_fields.h
//
// Internal to the manifest loader: the parser of tally's replay-model kind FlavorSupply
// (replay.tally.dev/v1alpha1; docs/fallback.md), which says when a flavor's capacity outside Kueue
// cannot deliver (stockout windows) and how long its pods take to become ready.
//
//   apiVersion: replay.tally.dev/v1alpha1
//   kind: FlavorSupply
//   metadata: {name: spot}
//   spec:
//     flavor: spot                    # default: metadata.name
//     stockouts:
//     - {from: "2026-03-02T10:00:00Z", to: "2026-03-02T14:00:00Z"}
//     podsReadyDelay: {min: 30s, max: 4m}   # or one Go duration
//     seed: 7
#pragma once

#include "engine/cluster_spec.h"
#include "replay/io/manifest_context.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

bool ParseFlavorSupply(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);

}  // namespace replay::internal
