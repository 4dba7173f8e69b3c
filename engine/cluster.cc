#include "engine/cluster.h"

#include <algorithm>
#include <functional>

#include "engine/base/check.h"

namespace engine {

const char* ToString(InactiveReason reason) {
  switch (reason) {
    case InactiveReason::kNone:
      return "Ready";
    case InactiveReason::kFlavorNotFound:
      return "FlavorNotFound";
    case InactiveReason::kStopped:
      return "Stopped";
    case InactiveReason::kCohortCycle:
      return "CohortCycle";
    case InactiveReason::kAdmissionCheckNotFound:
      return "AdmissionCheckNotFound";
    case InactiveReason::kAdmissionCheckInactive:
      return "AdmissionCheckInactive";
  }
  return "?";
}

namespace {
uint64_t SlotKeyHash(FlavorId flavor, ResourceId resource) {
  return (static_cast<uint64_t>(Index(flavor)) << 32) | Index(resource);
}
}  // namespace

void Cluster::Apply(const ClusterSpec& spec) {
  ++config_version_;
  if (spec.configuration.present) {
    SetConfiguration(spec.configuration);
  }
  for (const ResourceFlavorSpec& f : spec.flavors) {
    UpsertFlavor(f);
  }
  for (const CohortSpec& c : spec.cohorts) {
    UpsertCohort(c);
  }
  for (const ClusterQueueSpec& cq : spec.cluster_queues) {
    UpsertClusterQueue(cq);
  }
  for (const LocalQueueSpec& lq : spec.local_queues) {
    UpsertLocalQueue(lq);
  }
  for (const PriorityClassSpec& pc : spec.priority_classes) {
    UpsertPriorityClass(pc);
  }
  for (const AdmissionCheckSpec& check : spec.admission_checks) {
    UpsertAdmissionCheck(check);
  }
  for (const ResourceClassSpec& rc : spec.resource_classes) {
    UpsertResourceClass(rc);
  }
  for (const NodeSpec& node : spec.nodes) {
    UpsertNode(node);  // nothing is allocated yet: no owner to evict
  }
  Refresh();
}

void Cluster::Refresh() {
  tree_.Refresh();  // the tree's own state_version() covers what changes there
}

std::optional<FrSlot> Cluster::FindSlot(std::string_view flavor, std::string_view resource) const {
  std::optional<FlavorId> f = flavors_.Find(flavor);
  std::optional<ResourceId> r = resources_.Find(resource);
  if (!f || !r) {
    return std::nullopt;
  }
  auto it = slot_index_.find(SlotKeyHash(*f, *r));
  if (it == slot_index_.end()) {
    return std::nullopt;
  }
  return it->second;
}

ResourceId Cluster::AddResource(std::string_view name) {
  const ResourceId id = resources_.Intern(name);
  if (name == "pods") {
    pods_resource_ = id;
  }
  return id;
}

FrSlot Cluster::InternSlot(std::string_view flavor, std::string_view resource) {
  FlavorId f = flavors_.Intern(flavor);
  if (flavor_specs_.size() < flavors_.size()) {
    flavor_specs_.resize(flavors_.size());
  }
  ResourceId r = AddResource(resource);
  auto [it, inserted] = slot_index_.emplace(
      SlotKeyHash(f, r), MakeId<FrSlot>(static_cast<uint32_t>(slot_keys_.size())));
  if (inserted) {
    slot_keys_.push_back({f, r});
    tree_.ResizeSlots(static_cast<uint32_t>(slot_keys_.size()));
    tree_.SetSlotGroup(it->second, Index(f));  // a flavor's resources bound preemption together
  }
  return it->second;
}

NodeId Cluster::NodeFor(NodeKind kind, uint32_t owner) {
  NodeId node = tree_.AddNode(kind);
  node_owner_.push_back(owner);
  declared_slots_.emplace_back();
  return node;
}

CohortId Cluster::InternCohort(std::string_view name) {
  CohortId id = cohorts_.Intern(name);
  if (Index(id) == cohort_state_.size()) {
    cohort_state_.emplace_back();
    cohort_state_.back().node = NodeFor(NodeKind::kCohort, Index(id));
  }
  return id;
}

void Cluster::SetQuotas(NodeId node, const std::vector<ResourceGroupSpec>& groups) {
  tree_.ClearQuotas(node);
  std::vector<FrSlot>& declared = declared_slots_[Index(node)];
  declared.clear();
  for (const ResourceGroupSpec& group : groups) {
    for (const FlavorQuotasSpec& flavor : group.flavors) {
      for (const ResourceQuotaSpec& r : flavor.resources) {
        FrSlot slot = InternSlot(flavor.flavor, r.resource);
        tree_.SetQuota(node, slot,
                       SlotQuota{r.nominal, r.borrowing_limit.value_or(kUnlimited),
                                 r.lending_limit.value_or(kUnlimited)});
        declared.push_back(slot);
      }
    }
  }
}

void Cluster::UpsertFlavor(const ResourceFlavorSpec& spec) {
  ++config_version_;
  flavor_missing_dirty_ = true;
  FlavorId id = flavors_.Intern(spec.name);
  if (flavor_specs_.size() < flavors_.size()) {
    flavor_specs_.resize(flavors_.size());
  }
  flavor_specs_[Index(id)] = spec;
}

void Cluster::DeleteFlavor(std::string_view name) {
  ++config_version_;
  flavor_missing_dirty_ = true;
  if (std::optional<FlavorId> id = flavors_.Find(name)) {
    flavor_specs_[Index(*id)].reset();
  }
}

bool Cluster::FlavorExists(FlavorId flavor) const {
  return Index(flavor) < flavor_specs_.size() && flavor_specs_[Index(flavor)].has_value();
}

const ResourceFlavorSpec* Cluster::FlavorSpec(FlavorId flavor) const {
  return FlavorExists(flavor) ? &*flavor_specs_[Index(flavor)] : nullptr;
}

void Cluster::UpsertCohort(const CohortSpec& spec) {
  ++config_version_;
  CohortId id = InternCohort(spec.name);
  NodeId node = cohort_state_[Index(id)].node;
  cohort_state_[Index(id)].spec = spec;
  NodeId parent = kInvalidId<NodeId>;
  if (!spec.parent.empty()) {
    parent = cohort_state_[Index(InternCohort(spec.parent))].node;
  }
  tree_.SetParent(node, parent);
  SetQuotas(node, spec.resource_groups);
}

void Cluster::DeleteCohort(std::string_view name) {
  ++config_version_;
  std::optional<CohortId> id = cohorts_.Find(name);
  if (!id) {
    return;
  }
  // Kueue: the cohort becomes implicit — quota and parent edge dropped, children keep it.
  CohortState& state = cohort_state_[Index(*id)];
  state.spec.reset();
  tree_.SetParent(state.node, kInvalidId<NodeId>);
  SetQuotas(state.node, {});
}

bool Cluster::Exists(CohortId cohort) const {
  const CohortState& state = cohort_state_[Index(cohort)];
  return state.spec.has_value() || !tree_.Children(state.node).empty();
}

const CohortSpec* Cluster::Spec(CohortId cohort) const {
  const CohortState& state = cohort_state_[Index(cohort)];
  return state.spec ? &*state.spec : nullptr;
}

int ResourceGroup::ResourceIndex(ResourceId resource) const {
  for (size_t i = 0; i < covered.size(); ++i) {
    if (covered[i] == resource) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

const ResourceGroup* Cluster::GroupFor(CqId cq, ResourceId resource) const {
  for (const ResourceGroup& group : cq_state_[Index(cq)].groups) {
    if (group.ResourceIndex(resource) >= 0) {
      return &group;
    }
  }
  return nullptr;
}

namespace {

// FNV-1a over the group structure and the ids, in order (Cluster::FlavorListsFingerprint).
uint64_t Fingerprint(std::span<const ResourceGroup> groups) {
  uint64_t h = 14695981039346656037ULL;
  auto mix = [&h](uint64_t v) {
    h ^= v;
    h *= 1099511628211ULL;
  };
  for (const ResourceGroup& g : groups) {
    mix(0xFFFFFFFFULL);
    for (ResourceId r : g.covered) {
      mix(Index(r));
    }
    mix(0xFFFFFFFEULL);
    for (FlavorId f : g.flavors) {
      mix(Index(f));
    }
  }
  return h;
}

}  // namespace

void Cluster::UpsertClusterQueue(const ClusterQueueSpec& spec) {
  ++config_version_;
  flavor_missing_dirty_ = true;
  CqId id = cqs_.Intern(spec.name);
  if (Index(id) == cq_state_.size()) {
    cq_state_.emplace_back();
    cq_state_.back().node = NodeFor(NodeKind::kClusterQueue, Index(id));
    cq_exists_.push_back(0);
    if (unresolved_local_queues_ > 0) {  // a LocalQueue named it before it existed
      for (size_t i = 0; i < local_queues_.size(); ++i) {
        if (!IsValid(local_queue_cq_[i]) && local_queues_[i].cluster_queue == spec.name) {
          local_queue_cq_[i] = id;
          --unresolved_local_queues_;
        }
      }
    }
  }
  CqState& state = cq_state_[Index(id)];
  state.spec = spec;
  cq_exists_[Index(id)] = 1;
  state.groups.clear();
  for (const ResourceGroupSpec& group_spec : spec.resource_groups) {
    ResourceGroup& group = state.groups.emplace_back();
    for (const std::string& r : group_spec.covered_resources) {
      group.covered.push_back(AddResource(r));
    }
    for (const FlavorQuotasSpec& f : group_spec.flavors) {
      group.flavors.push_back(flavors_.Intern(f.flavor));
      for (const std::string& r : group_spec.covered_resources) {
        group.slots.push_back(InternSlot(f.flavor, r));
      }
    }
  }
  state.flavor_lists = Fingerprint(state.groups);
  NodeId parent = kInvalidId<NodeId>;
  if (!spec.cohort.empty()) {
    parent = cohort_state_[Index(InternCohort(spec.cohort))].node;
  }
  tree_.SetParent(state.node, parent);
  SetQuotas(state.node, spec.resource_groups);
}

void Cluster::DeleteClusterQueue(std::string_view name) {
  ++config_version_;
  flavor_missing_dirty_ = true;
  std::optional<CqId> id = cqs_.Find(name);
  if (!id) {
    return;
  }
  CqState& state = cq_state_[Index(*id)];
  state.spec.reset();
  cq_exists_[Index(*id)] = 0;
  state.groups.clear();
  state.flavor_lists = Fingerprint(state.groups);
  tree_.SetParent(state.node, kInvalidId<NodeId>);
  SetQuotas(state.node, {});
}

void Cluster::UpsertLocalQueue(const LocalQueueSpec& spec) {
  ++config_version_;
  auto [it, inserted] =
      local_queue_index_.emplace(spec.name_space + "/" + spec.name, local_queues_.size());
  if (inserted) {
    local_queues_.push_back(spec);
    local_queue_cq_.push_back(kInvalidId<CqId>);
    ++unresolved_local_queues_;
  } else {
    stopped_local_queues_ -= local_queues_[it->second].stop_policy != StopPolicy::kNone ? 1 : 0;
    local_queues_[it->second] = spec;
  }
  stopped_local_queues_ += spec.stop_policy != StopPolicy::kNone ? 1 : 0;
  CqId& cq = local_queue_cq_[it->second];
  const std::optional<CqId> found = cqs_.Find(spec.cluster_queue);
  const bool was_resolved = IsValid(cq);
  cq = found.value_or(kInvalidId<CqId>);
  if (was_resolved != IsValid(cq)) {
    unresolved_local_queues_ += was_resolved ? 1 : -1;  // size_t: wraps back exactly
  }
}

std::optional<CqId> Cluster::ClusterQueueOf(const LocalQueueSpec& local_queue) const {
  CqId cq = kInvalidId<CqId>;
  const std::less<const LocalQueueSpec*> before;
  if (!before(&local_queue, local_queues_.data())
      && before(&local_queue, local_queues_.data() + local_queues_.size())) {
    cq = local_queue_cq_[static_cast<size_t>(&local_queue - local_queues_.data())];
  } else {  // a LocalQueueSpec of the caller's own: by its name
    cq = cqs_.Find(local_queue.cluster_queue).value_or(kInvalidId<CqId>);
  }
  if (IsValid(cq) && Exists(cq)) {
    return cq;
  }
  return std::nullopt;
}

const LocalQueueSpec* Cluster::FindLocalQueue(std::string_view name_space,
                                              std::string_view name) const {
  const SlashKey key(name_space, name);
  auto it = local_queue_index_.find(key.view());
  return it == local_queue_index_.end() ? nullptr : &local_queues_[it->second];
}

void Cluster::UpsertAdmissionCheck(const AdmissionCheckSpec& spec) {
  ++config_version_;
  admission_checks_[spec.name] = spec.active;
}

void Cluster::UpsertPriorityClass(const PriorityClassSpec& spec) {
  ++config_version_;
  for (PriorityClassSpec& pc : priority_classes_) {
    if (pc.name == spec.name) {
      pc = spec;
      return;
    }
  }
  priority_classes_.push_back(spec);
}

void Cluster::RefreshFlavorMissing() const {
  if (!flavor_missing_dirty_) {
    return;
  }
  flavor_missing_.assign(cq_state_.size(), 0);
  for (size_t i = 0; i < cq_state_.size(); ++i) {
    for (FrSlot slot : declared_slots_[Index(cq_state_[i].node)]) {
      if (!FlavorExists(SlotKey(slot).flavor)) {
        flavor_missing_[i] = 1;
        break;
      }
    }
  }
  flavor_missing_dirty_ = false;
}

InactiveReason Cluster::Inactive(CqId cq) const {
  const CqState& state = cq_state_[Index(cq)];
  TALLY_CHECK(state.spec.has_value());
  if (tree_.InCycle(state.node)) {
    return InactiveReason::kCohortCycle;
  }
  if (state.spec->stop_policy != StopPolicy::kNone) {
    return InactiveReason::kStopped;
  }
  for (const AdmissionCheckRule& rule : state.spec->admission_checks) {
    auto it = admission_checks_.find(rule.name);
    if (it == admission_checks_.end()) {
      return InactiveReason::kAdmissionCheckNotFound;
    }
    if (!it->second) {
      return InactiveReason::kAdmissionCheckInactive;
    }
  }
  RefreshFlavorMissing();
  return flavor_missing_[Index(cq)] != 0 ? InactiveReason::kFlavorNotFound : InactiveReason::kNone;
}

std::string Cluster::InactiveMessage(CqId cq) const {
  switch (Inactive(cq)) {
    case InactiveReason::kNone:
      return "Can admit new workloads";
    case InactiveReason::kStopped:
      return "Stopped by stopPolicy " + std::string(ToString(Spec(cq).stop_policy));
    case InactiveReason::kCohortCycle:
      return "Cohort tree of \"" + Spec(cq).cohort +
             "\" contains a cycle: no new admissions in the whole tree; admitted workloads keep "
             "their quota";
    case InactiveReason::kAdmissionCheckNotFound:
    case InactiveReason::kAdmissionCheckInactive: {
      std::string names;
      for (const AdmissionCheckRule& rule : Spec(cq).admission_checks) {
        auto it = admission_checks_.find(rule.name);
        if (it == admission_checks_.end() || !it->second) {
          names += (names.empty() ? "\"" : ", \"") + rule.name + "\"";
        }
      }
      return "Can't admit new workloads: references missing or inactive AdmissionCheck(s) " + names;
    }
    case InactiveReason::kFlavorNotFound: {
      std::string missing;
      for (FrSlot slot : declared_slots_[Index(ClusterQueueNode(cq))]) {
        const std::string& flavor = Name(SlotKey(slot).flavor);
        if (!FlavorExists(SlotKey(slot).flavor)
            && missing.find("\"" + flavor + "\"") == std::string::npos) {
          missing += (missing.empty() ? "\"" : ", \"") + flavor + "\"";
        }
      }
      return "Can't admit new workloads: references missing ResourceFlavor(s) " + missing;
    }
  }
  return "";
}

std::string Cluster::CohortCycle(CqId cq) const {
  std::vector<NodeId> chain;
  std::vector<uint8_t> visited(tree_.num_nodes(), 0);
  for (NodeId n = tree_.Parent(ClusterQueueNode(cq)); IsValid(n); n = tree_.Parent(n)) {
    if (visited[Index(n)] != 0) {
      auto first = std::find(chain.begin(), chain.end(), n);
      std::string out;
      for (auto it = first; it != chain.end(); ++it) {
        out += std::string(NodeName(*it)) + " → ";
      }
      return out + std::string(NodeName(n));
    }
    visited[Index(n)] = 1;
    chain.push_back(n);
  }
  return "";
}

std::string_view Cluster::NodeName(NodeId node) const {
  if (IsClusterQueueNode(node)) {
    return Name(NodeClusterQueue(node));
  }
  return Name(NodeCohort(node));
}

}  // namespace engine
