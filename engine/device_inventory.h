// File: engine/device_inventory.h
//
// The devices under the flavors (seed 001, "Resource Classes"): which resource classes exist,
// which devices each node carries, how many of each are free, and which owner (a workload index)
// holds which. Flavor assignment asks CheckFit whether a pod set's devices fit on the nodes of a
// flavor; admission Allocates them; finishing or eviction Releases them.
//
// First-fit (the only strategy the seed proposes), deterministic:
//  - pod sets in the given order, their pods in order;
//  - for each pod, the nodes of its flavor in ascending name order: the first node on which every
//    class the pod asks for fits takes the pod. All of a pod's devices come from that one node;
//  - on the node, the pod's classes in name order; for each class, the node's device entries in
//    their declared order, taking min(free, still needed) from every entry the class selects.
//    (An entry selected by two classes of one pod serves the earlier class first.)
// A node belongs to a flavor when every (key, value) of the flavor's nodeLabels is among the
// node's labels; a flavor without nodeLabels has every node.
//
// Status, per the seed, for every class C:
//   allocatable(C) = devices C selects, on all nodes;
//   requested(C)   = allocated devices C selects, whichever class the pod asked for.
// Both are kept incrementally on every event (class created / deleted, node added / removed /
// changed, allocate / release), so Status() never rescans nodes.
//
// Node changes: deleting a node, or upserting it with different labels or devices, releases every
// owner that held a device on it — entirely, on every node — and returns those owners so that the
// caller evicts them. Classes are immutable in the seed; an upsert that changes a class's
// selectors re-selects from scratch and keeps existing allocations (requested counts the devices
// whatever class took them).
//
// Cost (N nodes, E entries per node, K classes): UpsertClass O(N*E) selector evaluations;
// UpsertNode / DeleteNode O(E*K + K*N) (each class's sorted node list shifts); CheckFit / Allocate
// per pod set O(N) in the worst case — one contiguous scan of the driving class's per-node free
// counts, resumed from the previous pod's node — plus O(E) per node actually tried.
//
// Thread safety: none; owned by the Cluster of one shard, like the rest of its state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/device_spec.h"

namespace engine {

// The devices one pod set needs in one flavor.
struct PodSetDeviceDemand {
  std::map<std::string, std::string> flavor_node_labels;  // the flavor's nodeLabels
  int32_t pods = 0;
  // Resource class name -> devices per pod. Duplicate names add up; counts <= 0 are ignored.
  std::vector<std::pair<std::string, int64_t>> per_pod;
};

// Devices of one entry given to one pod: the seed's pod annotation
// scheduler.alpha.kubernetes.io/resClass_<resource_class>_<device>=<count>.
struct DeviceGrant {
  uint32_t pod_set = 0;  // index into the demands passed to Allocate
  int32_t pod = 0;       // 0-based pod index within the pod set
  std::string node;
  std::string device;  // DeviceSpec::name
  std::string resource_class;
  int32_t count = 0;  // devices
};

// The seed's ResourceClassStatus (in devices).
struct ResourceClassStatus {
  std::string name;
  int64_t allocatable = 0;
  int64_t requested = 0;
};

class DeviceInventory {
 public:
  DeviceInventory();
  ~DeviceInventory();
  DeviceInventory(const DeviceInventory&) = delete;
  DeviceInventory& operator=(const DeviceInventory&) = delete;
  DeviceInventory(DeviceInventory&&) noexcept;
  DeviceInventory& operator=(DeviceInventory&&) noexcept;

  // --- Resource classes ---
  // Creates the class, or replaces it when its selectors differ (an identical upsert only
  // updates `source`). REQUIRES: `spec` passed ValidateResourceClass (an invalid requirement
  // simply selects nothing).
  void UpsertClass(const ResourceClassSpec& spec);
  // Allocations of the class's devices stay: they still count for the other classes.
  void DeleteClass(std::string_view name);
  bool IsClass(std::string_view resource) const;
  bool HasClasses() const { return !class_index_.empty(); }
  const ResourceClassSpec* FindClass(std::string_view name) const;

  // --- Nodes ---
  // Returns the owners, ascending, released because the node changed (labels or devices) or
  // went away; {} when nothing changed (an upsert differing only in `source`) or nobody held a
  // device there.
  std::vector<uint32_t> UpsertNode(const NodeSpec& spec);
  std::vector<uint32_t> DeleteNode(std::string_view name);
  const NodeSpec* FindNode(std::string_view name) const;
  // Free devices of the node's `entry`-th device entry; -1 when there is no such entry.
  int32_t FreeDevices(std::string_view node, size_t entry) const;

  // --- Allocation ---
  // nullopt when every pod of every pod set would get its devices; else why not (which class
  // lacked how many devices where). Changes nothing.
  std::optional<std::string> CheckFit(const std::vector<PodSetDeviceDemand>& demands) const;
  // All or nothing. On success records the grants under `owner` and returns true; an owner that
  // places no device records nothing. On failure changes nothing, sets *why (if non-null) to
  // CheckFit's message and returns false; also fails when `owner` already holds devices.
  bool Allocate(uint32_t owner, const std::vector<PodSetDeviceDemand>& demands, std::string* why);
  // Frees everything `owner` holds; no-op for an unknown owner.
  void Release(uint32_t owner);
  // The owner's grants in placement order, or nullptr when it holds nothing.
  const std::vector<DeviceGrant>* AllocationOf(uint32_t owner) const;

  // Every class, sorted by name. O(classes).
  std::vector<ResourceClassStatus> Status() const;
  std::optional<ResourceClassStatus> StatusOf(std::string_view name) const;

 private:
  struct Entry {
    int32_t count = 0;              // max(DeviceSpec::count, 0)
    int32_t free = 0;               // 0 <= free <= count
    std::vector<uint32_t> classes;  // slots of the classes that select it, ascending
  };
  struct NodeState {
    NodeSpec spec;
    std::vector<Entry> entries;     // parallel to spec.devices
    std::vector<uint32_t> holders;  // owners with a grant here, ascending
    bool live = false;
  };
  struct ClassState {
    ResourceClassSpec spec;
    int64_t allocatable = 0;
    int64_t requested = 0;
    // The nodes with at least one entry the class selects, ascending by node name, and (same
    // index) the free devices it selects there: first-fit scans this array contiguously.
    std::vector<uint32_t> nodes;
    std::vector<int64_t> node_free;
    bool live = false;
  };
  // Where a grant's devices came from (parallel to Allocation::grants).
  struct Holding {
    uint32_t node = 0;
    uint32_t entry = 0;
    int32_t count = 0;
  };
  struct Allocation {
    std::vector<DeviceGrant> grants;
    std::vector<Holding> holdings;
  };
  struct Placement;  // a tentative first-fit run (device_inventory.cc)
  struct Need;       // one class of a pod's demand, resolved to its slot

  // Runs first-fit over `demands` without changing state; fills `out` (grants, holdings).
  // Returns nullopt on success, else the shortage message.
  std::optional<std::string> Place(const std::vector<PodSetDeviceDemand>& demands,
                                   Placement& out) const;
  // One pod on one node, given what `out` already took; on success appends its grants to `out`.
  bool TryPod(uint32_t node, const std::vector<Need>& needs, uint32_t pod_set, int32_t pod,
              Placement& out) const;
  // Why pod `placed` of pod set `pod_set` found no node.
  std::string DescribeShortage(const PodSetDeviceDemand& demand, const std::vector<Need>& needs,
                               size_t pod_set, int32_t placed, const Placement& out) const;
  void AddClassSlot(uint32_t slot);
  void RemoveClassSlot(uint32_t slot);
  void AddNode(const NodeSpec& spec);
  // REQUIRES: nobody holds a device on the node.
  void RemoveNode(uint32_t slot);
  // Applies (sign = -1: takes, +1: gives back) `count` devices of one entry to every count.
  void AdjustFree(uint32_t node, uint32_t entry, int32_t delta);
  // Index of `node` in class.nodes (REQUIRES: present).
  size_t PositionIn(const ClassState& cls, uint32_t node) const;
  std::vector<uint32_t> EvictHolders(uint32_t node);

  std::map<std::string, uint32_t, std::less<>> class_index_;  // name -> slot in classes_
  std::vector<ClassState> classes_;
  std::vector<uint32_t> free_class_slots_;
  std::map<std::string, uint32_t, std::less<>> node_index_;  // name -> slot in nodes_
  std::vector<NodeState> nodes_;
  std::vector<uint32_t> free_node_slots_;
  std::unordered_map<uint32_t, Allocation> allocations_;  // owner -> what it holds
};

}  // namespace engine
