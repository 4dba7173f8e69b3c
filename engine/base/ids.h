// File: engine/base/ids.h
//
// Strong dense ids. Names are interned once (NameTable); hot paths see only these small integers
// and index flat arrays with them. Each id kind is its own enum so a CqId cannot be passed where a
// CohortId is expected.
#pragma once

#include <cstdint>
#include <limits>

namespace engine {

enum class FlavorId : uint32_t {};
enum class ResourceId : uint32_t {};
enum class CqId : uint32_t {};
enum class CohortId : uint32_t {};
enum class LocalQueueId : uint32_t {};
enum class WorkloadId : uint32_t {};
// A (flavor, resource) pair: the index of one column in every node's quota arrays.
enum class FrSlot : uint32_t {};
// A node of the quota tree: a ClusterQueue (leaf) or a Cohort (inner node).
enum class NodeId : uint32_t {};

template <typename Id>
constexpr uint32_t Index(Id id) {
  return static_cast<uint32_t>(id);
}

template <typename Id>
constexpr Id MakeId(uint32_t index) {
  return static_cast<Id>(index);
}

template <typename Id>
inline constexpr Id kInvalidId = static_cast<Id>(std::numeric_limits<uint32_t>::max());

template <typename Id>
constexpr bool IsValid(Id id) {
  return id != kInvalidId<Id>;
}

}  // namespace engine
