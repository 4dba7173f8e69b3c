// File: engine/cluster.h
//
// The cluster's quota model: interned names, the (flavor, resource) slot table and the quota tree
// built from ClusterQueue and Cohort specs. This is the state the scheduler works on; specs come
// from replay/ loaders, already validated.
//
//   Cluster cluster;
//   cluster.Apply(spec);            // flavors, cohorts, CQs, local queues, priority classes
//   NodeId cq = cluster.ClusterQueueNode(*cluster.FindClusterQueue("team-a"));
//   Quantity free = cluster.tree().Available(cq, *cluster.FindSlot("default", "cpu"));
//
// Kueue rules mirrored here (kueue-semantics.md §2.2-§2.3, §4.3):
//  - a cohort named by a CQ or Cohort but not backed by an object is an implicit root with no
//    quota; deleting an explicit cohort that still has children makes it implicit;
//  - a CQ is inactive when a flavor it references is missing, its stopPolicy is not None, or its
//    tree has a cycle; its quota and usage still count in its cohorts.
//
// Thread safety: none; one owner at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/ids.h"
#include "engine/base/name_table.h"
#include "engine/base/string_map.h"
#include "engine/cluster_spec.h"
#include "engine/device_inventory.h"
#include "engine/resource_tree.h"

namespace engine {

enum class InactiveReason : uint8_t {
  kNone,
  kFlavorNotFound,
  kStopped,
  kCohortCycle,
  kAdmissionCheckNotFound,
  kAdmissionCheckInactive,
};
const char* ToString(InactiveReason reason);

struct FlavorResource {
  FlavorId flavor;
  ResourceId resource;
};

// A ClusterQueue resource group with interned names: covered resources and flavors in spec order
// (flavor order = preference order), plus the slot of every (flavor, covered resource).
struct ResourceGroup {
  std::vector<ResourceId> covered;
  std::vector<FlavorId> flavors;
  std::vector<FrSlot> slots;  // slots[f * covered.size() + r]

  FrSlot Slot(size_t flavor_index, size_t resource_index) const {
    return slots[flavor_index * covered.size() + resource_index];
  }
  // Index of `resource` in `covered`, or -1.
  int ResourceIndex(ResourceId resource) const;
};

class Cluster {
 public:
  Cluster() = default;
  ~Cluster() = default;
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  Cluster(Cluster&&) noexcept = default;
  Cluster& operator=(Cluster&&) noexcept = default;

  // Upserts every object of `spec` in dependency-free order, then refreshes the tree.
  void Apply(const ClusterSpec& spec);

  // Single-object changes. Each leaves the tree dirty; call Refresh() (Apply does).
  void UpsertFlavor(const ResourceFlavorSpec& spec);
  void DeleteFlavor(std::string_view name);
  void UpsertCohort(const CohortSpec& spec);
  void DeleteCohort(std::string_view name);
  void UpsertClusterQueue(const ClusterQueueSpec& spec);
  void DeleteClusterQueue(std::string_view name);
  void UpsertLocalQueue(const LocalQueueSpec& spec);
  void UpsertPriorityClass(const PriorityClassSpec& spec);
  void UpsertAdmissionCheck(const AdmissionCheckSpec& spec);
  void Refresh();

  // --- Devices under the flavors (seed 001; engine/device_inventory.h) ---
  // Node changes return the workloads (WorkloadId indexes) that held devices on a node that went
  // away or changed: their devices are released; the caller evicts them.
  void UpsertResourceClass(const ResourceClassSpec& spec) {
    ++config_version_;
    devices_.UpsertClass(spec);
  }
  void DeleteResourceClass(std::string_view name) {
    ++config_version_;
    devices_.DeleteClass(name);
  }
  std::vector<uint32_t> UpsertNode(const NodeSpec& spec) {
    ++config_version_;
    return devices_.UpsertNode(spec);
  }
  // Bumped by every change above (specs, configuration, devices): what a nomination reads of the
  // cluster besides the quota tree (engine/nomination_memo.h).
  uint64_t config_version() const { return config_version_; }
  std::vector<uint32_t> DeleteNode(std::string_view name) { return devices_.DeleteNode(name); }
  const DeviceInventory& devices() const { return devices_; }
  DeviceInventory& mutable_devices() { return devices_; }

  // --- Names and slots ---
  std::optional<CqId> FindClusterQueue(std::string_view name) const { return cqs_.Find(name); }
  std::optional<CohortId> FindCohort(std::string_view name) const { return cohorts_.Find(name); }
  std::optional<FlavorId> FindFlavor(std::string_view name) const { return flavors_.Find(name); }
  std::optional<ResourceId> FindResource(std::string_view name) const {
    return resources_.Find(name);
  }
  std::optional<FrSlot> FindSlot(std::string_view flavor, std::string_view resource) const;
  FrSlot InternSlot(std::string_view flavor, std::string_view resource);

  const std::string& Name(CqId id) const { return cqs_.Name(id); }
  const std::string& Name(CohortId id) const { return cohorts_.Name(id); }
  const std::string& Name(FlavorId id) const { return flavors_.Name(id); }
  const std::string& Name(ResourceId id) const { return resources_.Name(id); }
  FlavorResource SlotKey(FrSlot slot) const { return slot_keys_[Index(slot)]; }
  bool IsMilli(FrSlot slot) const { return IsMilliResource(Name(SlotKey(slot).resource)); }

  uint32_t num_cluster_queues() const { return cqs_.size(); }
  uint32_t num_cohorts() const { return cohorts_.size(); }
  uint32_t num_slots() const { return static_cast<uint32_t>(slot_keys_.size()); }

  // --- Objects ---
  // True when a ClusterQueue object exists (ids of deleted CQs stay interned).
  bool Exists(CqId cq) const { return cq_exists_[Index(cq)] != 0; }
  // A cohort exists while it has an object or any child (CQ or cohort) names it.
  bool Exists(CohortId cohort) const;
  // A cohort with no object behind it (named by a CQ or child cohort only).
  bool IsImplicit(CohortId cohort) const { return !cohort_state_[Index(cohort)].spec.has_value(); }
  const ClusterQueueSpec& Spec(CqId cq) const { return *cq_state_[Index(cq)].spec; }
  const CohortSpec* Spec(CohortId cohort) const;
  bool FlavorExists(FlavorId flavor) const;
  const ResourceFlavorSpec* FlavorSpec(FlavorId flavor) const;
  const std::vector<LocalQueueSpec>& local_queues() const { return local_queues_; }
  // The LocalQueue `namespace/name`, or nullptr. O(1).
  const LocalQueueSpec* FindLocalQueue(std::string_view name_space, std::string_view name) const;
  // The ClusterQueue `local_queue` points to, if that object exists. For an element of
  // local_queues() (what FindLocalQueue returns), and by the name for any other.
  // Every arriving Workload asks: read from two small arrays, not by the name (three cache misses
  // a Workload: the LocalQueueSpec, the name table's node, the ClusterQueue's state).
  std::optional<CqId> ClusterQueueOf(const LocalQueueSpec& local_queue) const;
  // Whether any LocalQueue has a stopPolicy: when none has, a Workload's queue need not be looked
  // up to know it is not stopped (QueueManager asks at every push).
  bool AnyLocalQueueStopped() const { return stopped_local_queues_ > 0; }
  const std::vector<PriorityClassSpec>& priority_classes() const { return priority_classes_; }
  const ConfigurationSpec& configuration() const { return configuration_; }
  const ResourcesConfigSpec& resources_config() const { return configuration_.resources; }
  void SetConfiguration(const ConfigurationSpec& configuration) {
    ++config_version_;
    configuration_ = configuration;
  }

  // Slots a CQ or cohort declares quota for, in resource-group order (flavor-major).
  std::span<const FrSlot> DeclaredSlots(NodeId node) const { return declared_slots_[Index(node)]; }

  // The CQ's resource groups, interned (empty for a deleted CQ).
  std::span<const ResourceGroup> ResourceGroups(CqId cq) const {
    return cq_state_[Index(cq)].groups;
  }
  // A fingerprint of the CQ's resource groups (covered resources and flavor lists, in order),
  // computed when its spec is applied: a saved scan position is only valid against the same one.
  uint64_t FlavorListsFingerprint(CqId cq) const { return cq_state_[Index(cq)].flavor_lists; }
  // The group covering `resource` in `cq`, or nullptr (§6.1 "resource unavailable").
  const ResourceGroup* GroupFor(CqId cq, ResourceId resource) const;
  ResourceId InternResource(std::string_view name) { return AddResource(name); }
  // FindResource("pods"), kept as resources are added: every flavor assignment asks whether its
  // ClusterQueue charges one per pod (§6.1), and the lookup by name was 1 % of the moderate
  // trace's cycles (issue 22).
  std::optional<ResourceId> pods_resource() const { return pods_resource_; }

  InactiveReason Inactive(CqId cq) const;
  std::string InactiveMessage(CqId cq) const;
  // The cohort cycle the CQ's parent chain runs into, as "a → b → a" (first cohort repeated), or
  // "" when the chain reaches a root. Walks with a visited set: O(depth) even on a cycle.
  std::string CohortCycle(CqId cq) const;
  // Fills the lazy caches behind the const queries, so that several threads may then call const
  // methods concurrently (parallel nomination) until the next non-const call.
  void PrepareConcurrentReads() const { RefreshFlavorMissing(); }

  // --- The tree ---
  NodeId ClusterQueueNode(CqId cq) const { return cq_state_[Index(cq)].node; }
  NodeId CohortNode(CohortId cohort) const { return cohort_state_[Index(cohort)].node; }
  bool IsClusterQueueNode(NodeId node) const { return tree_.Kind(node) == NodeKind::kClusterQueue; }
  // REQUIRES: IsClusterQueueNode(node) (resp. !...).
  CqId NodeClusterQueue(NodeId node) const { return MakeId<CqId>(node_owner_[Index(node)]); }
  CohortId NodeCohort(NodeId node) const { return MakeId<CohortId>(node_owner_[Index(node)]); }
  std::string_view NodeName(NodeId node) const;

  const ResourceTree& tree() const { return tree_; }
  ResourceTree& mutable_tree() { return tree_; }

 private:
  struct CqState {
    NodeId node = kInvalidId<NodeId>;
    std::optional<ClusterQueueSpec> spec;
    std::vector<ResourceGroup> groups;
    uint64_t flavor_lists = 0;  // FlavorListsFingerprint of `groups`
  };
  struct CohortState {
    NodeId node = kInvalidId<NodeId>;
    std::optional<CohortSpec> spec;
  };

  CohortId InternCohort(std::string_view name);
  // resources_.Intern(name), noting the id of "pods" (pods_resource()).
  ResourceId AddResource(std::string_view name);
  void SetQuotas(NodeId node, const std::vector<ResourceGroupSpec>& groups);
  NodeId NodeFor(NodeKind kind, uint32_t owner);
  void RefreshFlavorMissing() const;

  NameTable<FlavorId> flavors_;
  NameTable<ResourceId> resources_;  // added to by AddResource only
  std::optional<ResourceId> pods_resource_;
  NameTable<CqId> cqs_;
  NameTable<CohortId> cohorts_;
  std::vector<std::optional<ResourceFlavorSpec>> flavor_specs_;  // by FlavorId
  std::vector<CqState> cq_state_;
  std::vector<CohortState> cohort_state_;
  std::vector<uint32_t> node_owner_;                 // NodeId -> CqId or CohortId index
  std::vector<std::vector<FrSlot>> declared_slots_;  // NodeId -> slots with declared quota
  std::vector<FlavorResource> slot_keys_;            // FrSlot -> (flavor, resource)
  std::unordered_map<uint64_t, FrSlot> slot_index_;  // (flavor << 32 | resource) -> slot
  std::vector<uint8_t> cq_exists_;  // by CqId: 1 while the ClusterQueue object exists
  std::vector<LocalQueueSpec> local_queues_;
  StringMap<size_t> local_queue_index_;  // "ns/name" -> local_queues_
  // By local_queues_ index: the CqId of the ClusterQueue it names, once that name is interned
  // (ids are never taken back: a deleted ClusterQueue keeps its id), else invalid.
  std::vector<CqId> local_queue_cq_;
  size_t unresolved_local_queues_ = 0;  // invalid entries of local_queue_cq_
  size_t stopped_local_queues_ = 0;     // LocalQueues whose stop_policy is not kNone
  // Per CqId: a ResourceFlavor it names is missing. Recomputed lazily after flavor or CQ changes
  // (Inactive() is asked for every CQ in every cycle).
  mutable std::vector<uint8_t> flavor_missing_;
  mutable bool flavor_missing_dirty_ = true;
  std::vector<PriorityClassSpec> priority_classes_;
  ConfigurationSpec configuration_;
  std::unordered_map<std::string, bool> admission_checks_;  // name -> active
  DeviceInventory devices_;
  ResourceTree tree_;
  uint64_t config_version_ = 0;
};

}  // namespace engine
