// File: test/replay/io/manifest_loader_test_fixture.h
//
// Shared by manifest_loader_test.cc and manifest_loader_kinds_test.cc: the helpers and fixture
// both use (one file would be over 800 lines).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/io/manifest_loader.h"
#include "test/replay/io/loader_test_support.h"

namespace replay {

// A flavor, so that queues referencing it raise no warning.
inline constexpr char kFlavor[] = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
)";

// --- versions ------------------------------------------------------------------------------------

// Seed 002: both spellings of the strategy and of the timeout.
inline constexpr char kFallbackFlavors[] = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: reservation}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
---
)";

inline std::string FallbackQueue(const std::string& fungibility) {
  return std::string(kFallbackFlavors) + R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: reservation, resources: [{name: cpu, nominalQuota: 4}]}
    - {name: spot, resources: [{name: cpu, nominalQuota: 4}]}
    - {name: on-demand, resources: [{name: cpu, nominalQuota: 4}]}
  flavorFungibility:
    whenCanBorrow: TryNextFlavor
)" + fungibility;
}

}  // namespace replay
