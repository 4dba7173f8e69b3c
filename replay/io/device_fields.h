// File: replay/io/device_fields.h
//
// Internal to the manifest loader: the parsers of the resource-class kinds (seed 001;
// docs/resource-classes.md).
//
//   kind: ResourceClass                 # apiVersion replay.tally.dev/v1alpha1, or none (the
//   seed's) metadata: {name: nvidia.high.mem} spec:
//     resourceSelector:                 # ORed
//     - matchExpressions:               # ANDed
//       - {key: Kind, operator: In, values: [nvidia-gpu]}
//       - {key: memory, operator: GtEq, values: ["30G"]}
//
//   apiVersion: v1
//   kind: Node
//   metadata: {name: gpu-node-1, labels: {cloud.example.com/pool: a100}}
//   status:
//     devices:                          # the seed's devices in the node status, in order
//     - {name: nvidia-a100-80g, kind: nvidia-gpu, count: 8, properties: {memory: 80Gi}}
#pragma once

#include "engine/cluster_spec.h"
#include "replay/io/manifest_context.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

bool ParseResourceClass(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);
bool ParseNode(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec);

}  // namespace replay::internal
