#include "engine/device_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "engine/base/check.h"
#include "engine/resource_selector.h"

namespace engine {
namespace {

bool SameRequirements(const std::vector<DeviceSelectorRequirement>& a,
                      const std::vector<DeviceSelectorRequirement>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const DeviceSelectorRequirement& x, const DeviceSelectorRequirement& y) {
                      return x.key == y.key && x.op == y.op && x.values == y.values;
                    });
}

bool SameSelectors(const ResourceClassSpec& a, const ResourceClassSpec& b) {
  return std::equal(a.resource_selector.begin(), a.resource_selector.end(),
                    b.resource_selector.begin(), b.resource_selector.end(),
                    [](const DevicePropertySelector& x, const DevicePropertySelector& y) {
                      return SameRequirements(x.match_expressions, y.match_expressions);
                    });
}

bool SameDevices(const std::vector<DeviceSpec>& a, const std::vector<DeviceSpec>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const DeviceSpec& x, const DeviceSpec& y) {
                      return x.name == y.name && x.kind == y.kind && x.count == y.count
                             && x.properties == y.properties;
                    });
}

// A node is on a flavor when it carries every one of the flavor's nodeLabels.
bool OnFlavor(const std::map<std::string, std::string>& node_labels,
              const std::map<std::string, std::string>& flavor_labels) {
  for (const auto& [key, value] : flavor_labels) {
    auto it = node_labels.find(key);
    if (it == node_labels.end() || it->second != value) {
      return false;
    }
  }
  return true;
}

void InsertSorted(std::vector<uint32_t>& v, uint32_t x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end() || *it != x) {
    v.insert(it, x);
  }
}

void EraseSorted(std::vector<uint32_t>& v, uint32_t x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it != v.end() && *it == x) {
    v.erase(it);
  }
}

bool Contains(const std::vector<uint32_t>& sorted, uint32_t x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

// "1 node", "3 nodes".
std::string Counted(int64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace

// One class of a pod's demand, resolved.
struct DeviceInventory::Need {
  uint32_t cls = 0;  // class slot
  int64_t count = 0;
};

// A tentative first-fit run: the grants so far, and the devices they take (which later pods of
// the same run must not count as free). `taken` is keyed by node slot: few nodes are touched.
struct DeviceInventory::Placement {
  std::vector<DeviceGrant> grants;
  std::vector<Holding> holdings;
  std::unordered_map<uint32_t, std::vector<int32_t>> taken;  // node -> devices per entry
  std::vector<int32_t> pod_taken;                            // scratch: one pod on one node
  struct Pick {
    uint32_t cls = 0;
    uint32_t entry = 0;
    int32_t count = 0;
  };
  std::vector<Pick> picks;  // scratch: one pod on one node

  int32_t Taken(uint32_t node, uint32_t entry) const {
    auto it = taken.find(node);
    return it == taken.end() ? 0 : it->second[entry];
  }
};

DeviceInventory::DeviceInventory() = default;
DeviceInventory::~DeviceInventory() = default;
DeviceInventory::DeviceInventory(DeviceInventory&&) noexcept = default;
DeviceInventory& DeviceInventory::operator=(DeviceInventory&&) noexcept = default;

// --- Resource classes -------------------------------------------------------------------------

void DeviceInventory::UpsertClass(const ResourceClassSpec& spec) {
  auto it = class_index_.find(spec.name);
  if (it != class_index_.end()) {
    ClassState& existing = classes_[it->second];
    if (SameSelectors(existing.spec, spec)) {
      existing.spec.source = spec.source;
      return;
    }
    RemoveClassSlot(it->second);
  }
  uint32_t slot = 0;
  if (!free_class_slots_.empty()) {
    slot = free_class_slots_.back();
    free_class_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(classes_.size());
    classes_.emplace_back();
  }
  classes_[slot].spec = spec;
  classes_[slot].live = true;
  class_index_.emplace(spec.name, slot);
  AddClassSlot(slot);
}

void DeviceInventory::DeleteClass(std::string_view name) {
  auto it = class_index_.find(name);
  if (it != class_index_.end()) {
    RemoveClassSlot(it->second);
  }
}

bool DeviceInventory::IsClass(std::string_view resource) const {
  return class_index_.find(resource) != class_index_.end();
}

const ResourceClassSpec* DeviceInventory::FindClass(std::string_view name) const {
  auto it = class_index_.find(name);
  return it == class_index_.end() ? nullptr : &classes_[it->second].spec;
}

// Selects over every node in name order, so that `nodes` comes out sorted without a sort.
void DeviceInventory::AddClassSlot(uint32_t slot) {
  ClassState& cls = classes_[slot];
  for (const auto& [name, node] : node_index_) {
    NodeState& n = nodes_[node];
    int64_t selected = 0;
    int64_t free = 0;
    bool any = false;
    for (size_t e = 0; e < n.entries.size(); ++e) {
      if (Selects(cls.spec, n.spec.devices[e])) {
        Entry& entry = n.entries[e];
        InsertSorted(entry.classes, slot);
        selected += entry.count;
        free += entry.free;
        any = true;
      }
    }
    if (any) {
      cls.nodes.push_back(node);
      cls.node_free.push_back(free);
      cls.allocatable += selected;
      cls.requested += selected - free;
    }
  }
}

void DeviceInventory::RemoveClassSlot(uint32_t slot) {
  ClassState& cls = classes_[slot];
  for (uint32_t node : cls.nodes) {
    for (Entry& entry : nodes_[node].entries) {
      EraseSorted(entry.classes, slot);
    }
  }
  class_index_.erase(cls.spec.name);
  cls = ClassState{};
  free_class_slots_.push_back(slot);
}

// --- Nodes ------------------------------------------------------------------------------------

std::vector<uint32_t> DeviceInventory::UpsertNode(const NodeSpec& spec) {
  auto it = node_index_.find(spec.name);
  if (it == node_index_.end()) {
    AddNode(spec);
    return {};
  }
  const uint32_t slot = it->second;
  NodeState& existing = nodes_[slot];
  if (existing.spec.labels == spec.labels && SameDevices(existing.spec.devices, spec.devices)) {
    existing.spec.source = spec.source;
    return {};
  }
  // A changed node is a new node: who held what on the old one cannot be mapped onto it.
  std::vector<uint32_t> owners = EvictHolders(slot);
  RemoveNode(slot);
  AddNode(spec);
  return owners;
}

std::vector<uint32_t> DeviceInventory::DeleteNode(std::string_view name) {
  auto it = node_index_.find(name);
  if (it == node_index_.end()) {
    return {};
  }
  const uint32_t slot = it->second;
  std::vector<uint32_t> owners = EvictHolders(slot);
  RemoveNode(slot);
  return owners;
}

const NodeSpec* DeviceInventory::FindNode(std::string_view name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? nullptr : &nodes_[it->second].spec;
}

int32_t DeviceInventory::FreeDevices(std::string_view node, size_t entry) const {
  auto it = node_index_.find(node);
  if (it == node_index_.end() || entry >= nodes_[it->second].entries.size()) {
    return -1;
  }
  return nodes_[it->second].entries[entry].free;
}

std::vector<uint32_t> DeviceInventory::EvictHolders(uint32_t node) {
  std::vector<uint32_t> owners = nodes_[node].holders;  // Release edits the list
  for (uint32_t owner : owners) {
    Release(owner);
  }
  return owners;
}

void DeviceInventory::AddNode(const NodeSpec& spec) {
  uint32_t slot = 0;
  if (!free_node_slots_.empty()) {
    slot = free_node_slots_.back();
    free_node_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  NodeState& n = nodes_[slot];
  n.spec = spec;
  n.live = true;
  n.holders.clear();
  n.entries.assign(spec.devices.size(), Entry{});
  for (size_t e = 0; e < spec.devices.size(); ++e) {
    n.entries[e].count = std::max(spec.devices[e].count, 0);
    n.entries[e].free = n.entries[e].count;
  }
  node_index_.emplace(spec.name, slot);
  // Classes in slot order, so that each entry's class list is born sorted.
  for (uint32_t c = 0; c < classes_.size(); ++c) {
    ClassState& cls = classes_[c];
    if (!cls.live) {
      continue;
    }
    int64_t selected = 0;
    bool any = false;
    for (size_t e = 0; e < spec.devices.size(); ++e) {
      if (Selects(cls.spec, spec.devices[e])) {
        n.entries[e].classes.push_back(c);
        selected += n.entries[e].count;
        any = true;
      }
    }
    if (any) {
      auto pos = std::lower_bound(cls.nodes.begin(), cls.nodes.end(), spec.name,
                                  [this](uint32_t other, const std::string& name) {
                                    return nodes_[other].spec.name < name;
                                  });
      const auto index = pos - cls.nodes.begin();
      cls.nodes.insert(pos, slot);
      cls.node_free.insert(cls.node_free.begin() + index, selected);
      cls.allocatable += selected;
    }
  }
}

void DeviceInventory::RemoveNode(uint32_t slot) {
  NodeState& n = nodes_[slot];
  TALLY_CHECK(n.holders.empty());
  std::vector<uint32_t> selecting;
  for (const Entry& entry : n.entries) {
    for (uint32_t c : entry.classes) {
      classes_[c].allocatable -= entry.count;
      InsertSorted(selecting, c);
    }
  }
  for (uint32_t c : selecting) {
    ClassState& cls = classes_[c];
    const size_t pos = PositionIn(cls, slot);
    cls.nodes.erase(cls.nodes.begin() + static_cast<std::ptrdiff_t>(pos));
    cls.node_free.erase(cls.node_free.begin() + static_cast<std::ptrdiff_t>(pos));
  }
  node_index_.erase(n.spec.name);
  n = NodeState{};
  free_node_slots_.push_back(slot);
}

size_t DeviceInventory::PositionIn(const ClassState& cls, uint32_t node) const {
  const std::string& name = nodes_[node].spec.name;
  auto pos = std::lower_bound(
      cls.nodes.begin(), cls.nodes.end(), name,
      [this](uint32_t other, const std::string& n) { return nodes_[other].spec.name < n; });
  TALLY_CHECK(pos != cls.nodes.end() && *pos == node);
  return static_cast<size_t>(pos - cls.nodes.begin());
}

void DeviceInventory::AdjustFree(uint32_t node, uint32_t entry, int32_t delta) {
  Entry& e = nodes_[node].entries[entry];
  e.free += delta;
  TALLY_CHECK(e.free >= 0 && e.free <= e.count);
  for (uint32_t c : e.classes) {
    ClassState& cls = classes_[c];
    cls.requested -= delta;
    cls.node_free[PositionIn(cls, node)] += delta;
  }
}

// --- Allocation -------------------------------------------------------------------------------

std::optional<std::string> DeviceInventory::Place(const std::vector<PodSetDeviceDemand>& demands,
                                                  Placement& out) const {
  std::vector<Need> needs;
  for (size_t ps = 0; ps < demands.size(); ++ps) {
    const PodSetDeviceDemand& demand = demands[ps];
    if (demand.pods <= 0) {
      continue;
    }
    // The pod's classes, merged and in name order (the order they are served on a node).
    std::map<std::string_view, int64_t> by_name;
    for (const auto& [name, count] : demand.per_pod) {
      if (count > 0) {
        by_name[name] += count;
      }
    }
    needs.clear();
    for (const auto& [name, count] : by_name) {
      auto it = class_index_.find(name);
      if (it == class_index_.end()) {
        return fmt::format("pod set {}: resource class \"{}\" does not exist", ps, name);
      }
      needs.push_back({it->second, count});
    }
    if (needs.empty()) {
      continue;
    }
    // Only nodes where the rarest class has devices can host a pod; its node list is sorted by
    // name, so scanning it visits candidates in first-fit order.
    const Need& driver = *std::min_element(needs.begin(), needs.end(), [&](Need a, Need b) {
      return classes_[a.cls].nodes.size() < classes_[b.cls].nodes.size();
    });
    const ClassState& dc = classes_[driver.cls];
    // Pods of one pod set are identical, and free counts only shrink during a run, so a node
    // that failed pod k fails pod k+1 too: each pod resumes where the previous one was placed.
    size_t pos = 0;
    for (int32_t pod = 0; pod < demand.pods; ++pod) {
      bool placed = false;
      for (; pos < dc.nodes.size(); ++pos) {
        // node_free ignores this run's own takes: an upper bound, exact below.
        if (dc.node_free[pos] < driver.count) {
          continue;
        }
        const uint32_t node = dc.nodes[pos];
        const NodeState& n = nodes_[node];
        if (!OnFlavor(n.spec.labels, demand.flavor_node_labels)) {
          continue;
        }
        if (TryPod(node, needs, static_cast<uint32_t>(ps), pod, out)) {
          placed = true;
          break;
        }
      }
      if (!placed) {
        return DescribeShortage(demand, needs, ps, pod, out);
      }
    }
  }
  return std::nullopt;
}

bool DeviceInventory::TryPod(uint32_t node, const std::vector<Need>& needs, uint32_t pod_set,
                             int32_t pod, Placement& out) const {
  const NodeState& n = nodes_[node];
  out.pod_taken.assign(n.entries.size(), 0);
  out.picks.clear();
  for (const Need& need : needs) {
    int64_t remaining = need.count;
    for (uint32_t e = 0; e < n.entries.size() && remaining > 0; ++e) {
      const Entry& entry = n.entries[e];
      if (!Contains(entry.classes, need.cls)) {
        continue;
      }
      const int32_t avail = entry.free - out.Taken(node, e) - out.pod_taken[e];
      if (avail <= 0) {
        continue;
      }
      const auto take = static_cast<int32_t>(std::min<int64_t>(avail, remaining));
      out.pod_taken[e] += take;
      remaining -= take;
      out.picks.push_back({need.cls, e, take});
    }
    if (remaining > 0) {
      return false;
    }
  }
  std::vector<int32_t>& taken = out.taken[node];
  taken.resize(n.entries.size(), 0);
  for (const Placement::Pick& pick : out.picks) {
    taken[pick.entry] += pick.count;
    out.grants.push_back({pod_set, pod, n.spec.name, n.spec.devices[pick.entry].name,
                          classes_[pick.cls].spec.name, pick.count});
    out.holdings.push_back({node, pick.entry, pick.count});
  }
  return true;
}

// Off the hot path: rescans the class's nodes to say what the flavor still has free.
std::string DeviceInventory::DescribeShortage(const PodSetDeviceDemand& demand,
                                              const std::vector<Need>& needs, size_t pod_set,
                                              int32_t placed, const Placement& out) const {
  struct ClassView {
    int64_t total = 0;       // devices the class selects on the flavor's nodes
    int64_t free = 0;        // of which free (after this run's earlier pods)
    int64_t nodes = 0;       // flavor nodes with devices of the class
    int64_t free_nodes = 0;  // of which with at least one free
    int64_t max_free = 0;    // most free on one node
  };
  std::vector<ClassView> views;
  for (const Need& need : needs) {
    ClassView v;
    for (uint32_t node : classes_[need.cls].nodes) {
      const NodeState& n = nodes_[node];
      if (!OnFlavor(n.spec.labels, demand.flavor_node_labels)) {
        continue;
      }
      auto taken = out.taken.find(node);  // once per node: most nodes took nothing
      const std::vector<int32_t>* taken_here = taken == out.taken.end() ? nullptr : &taken->second;
      int64_t on_node = 0;
      for (uint32_t e = 0; e < n.entries.size(); ++e) {
        if (Contains(n.entries[e].classes, need.cls)) {
          v.total += n.entries[e].count;
          on_node += n.entries[e].free - (taken_here == nullptr ? 0 : (*taken_here)[e]);
        }
      }
      ++v.nodes;
      v.free += on_node;
      v.free_nodes += on_node > 0 ? 1 : 0;
      v.max_free = std::max(v.max_free, on_node);
    }
    views.push_back(v);
  }
  const std::string placed_text =
      fmt::format("{} of {} pods of pod set {} placed", placed, demand.pods, pod_set);
  // The first class (in name order) that no node of the flavor can serve alone.
  for (size_t i = 0; i < needs.size(); ++i) {
    const ClassView& v = views[i];
    if (v.max_free >= needs[i].count) {
      continue;
    }
    const std::string& name = classes_[needs[i].cls].spec.name;
    if (v.nodes == 0) {
      return fmt::format(
          "resource class \"{}\": {} (need {} per pod on one node; no node of the flavor has "
          "such devices)",
          name, placed_text, Counted(needs[i].count, "device"));
    }
    // Free counts are after this workload's earlier pods: what the next pod found.
    return fmt::format(
        "resource class \"{}\": {} (need {} per pod on one node; {}the flavor's nodes have {} of "
        "{} such devices free, on {} of {}, at most {} on one node)",
        name, placed_text, Counted(needs[i].count, "device"),
        placed > 0 ? "after placing them, " : "", v.free, v.total, v.free_nodes,
        Counted(v.nodes, "node"), v.max_free);
  }
  // Every class fits on some node alone, but no node has all of them (or entries selected by
  // several of the pod's classes cannot serve them all).
  std::string per_class;
  for (size_t i = 0; i < needs.size(); ++i) {
    per_class += fmt::format("{}\"{}\" {} (at most {} free on one node)", i == 0 ? "" : ", ",
                             classes_[needs[i].cls].spec.name, needs[i].count, views[i].max_free);
  }
  return fmt::format(
      "{}: no node of the flavor has all of a pod's devices free at once (per pod: {})",
      placed_text, per_class);
}

std::optional<std::string> DeviceInventory::CheckFit(
    const std::vector<PodSetDeviceDemand>& demands) const {
  Placement placement;
  return Place(demands, placement);
}

bool DeviceInventory::Allocate(uint32_t owner, const std::vector<PodSetDeviceDemand>& demands,
                               std::string* why) {
  if (allocations_.find(owner) != allocations_.end()) {
    if (why != nullptr) {
      *why = fmt::format("owner {} already holds devices", owner);
    }
    return false;
  }
  Placement placement;
  if (std::optional<std::string> shortage = Place(demands, placement); shortage.has_value()) {
    if (why != nullptr) {
      *why = std::move(*shortage);
    }
    return false;
  }
  if (placement.grants.empty()) {
    return true;
  }
  for (const Holding& h : placement.holdings) {
    AdjustFree(h.node, h.entry, -h.count);
    InsertSorted(nodes_[h.node].holders, owner);
  }
  allocations_[owner] = Allocation{std::move(placement.grants), std::move(placement.holdings)};
  return true;
}

void DeviceInventory::Release(uint32_t owner) {
  auto it = allocations_.find(owner);
  if (it == allocations_.end()) {
    return;
  }
  for (const Holding& h : it->second.holdings) {
    AdjustFree(h.node, h.entry, h.count);
    EraseSorted(nodes_[h.node].holders, owner);
  }
  allocations_.erase(it);
}

const std::vector<DeviceGrant>* DeviceInventory::AllocationOf(uint32_t owner) const {
  auto it = allocations_.find(owner);
  return it == allocations_.end() ? nullptr : &it->second.grants;
}

std::vector<ResourceClassStatus> DeviceInventory::Status() const {
  std::vector<ResourceClassStatus> out;
  out.reserve(class_index_.size());
  for (const auto& [name, slot] : class_index_) {
    out.push_back({name, classes_[slot].allocatable, classes_[slot].requested});
  }
  return out;
}

std::optional<ResourceClassStatus> DeviceInventory::StatusOf(std::string_view name) const {
  auto it = class_index_.find(name);
  if (it == class_index_.end()) {
    return std::nullopt;
  }
  return ResourceClassStatus{it->first, classes_[it->second].allocatable,
                             classes_[it->second].requested};
}

}  // namespace engine
