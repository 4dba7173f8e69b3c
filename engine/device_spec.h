// File: engine/device_spec.h
//
// Resource classes (seed 001) as plain specs: a ResourceClass selects devices by their metadata,
// and Nodes list the devices they carry. Loaders (replay/) fill these from YAML or JSON;
// engine/resource_selector.h evaluates selectors, engine/device_inventory.h allocates devices
// first-fit and keeps each class's allocatable / requested counts (docs/resource-classes.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/config.h"

namespace engine {

// The seed's ResourceSelectorOperator.
enum class DeviceSelectorOp : uint8_t {
  kIn,
  kNotIn,
  kEq,
  kExists,
  kDoesNotExist,
  kGt,
  kGtEq,
  kLt,
  kLtEq,
};
const char* ToString(DeviceSelectorOp op);

// One (key, operator, values) of a matchExpressions list. The key "Kind" (or "kind") is the
// device's kind unless the device has a property of that name; any other key is a property.
struct DeviceSelectorRequirement {
  std::string key;
  DeviceSelectorOp op = DeviceSelectorOp::kIn;
  std::vector<std::string> values;
};

// The seed's ResourcePropertySelector: its requirements are ANDed; an empty one matches nothing.
struct DevicePropertySelector {
  std::vector<DeviceSelectorRequirement> match_expressions;
};

// kind: ResourceClass (cluster-scoped, immutable after creation). Its selectors are ORed; no
// selector matches nothing. Its name is the resource name containers request and ClusterQueues
// give quota to ("nvidia.high.mem").
struct ResourceClassSpec {
  std::string name;
  std::vector<DevicePropertySelector> resource_selector;
  SourceRef source;
};

// One entry of a Node's status.devices: `count` identical devices named `name` (the name the
// seed's allocation annotation records), of `kind`, with metadata `properties` ("memory": "32Gi",
// "version": "7.0").
struct DeviceSpec {
  std::string name;
  std::string kind;
  int32_t count = 1;
  std::map<std::string, std::string> properties;
};

// kind: Node (v1): its labels (which flavors' nodeLabels it matches) and its devices, in order
// (first-fit takes them in this order).
struct NodeSpec {
  std::string name;
  std::map<std::string, std::string> labels;
  std::vector<DeviceSpec> devices;
  SourceRef source;
};

}  // namespace engine
