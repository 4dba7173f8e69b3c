#include "engine/workload_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include "engine/base/check.h"
#include "engine/pod_requests.h"

namespace engine {
namespace {

// `w` as Workload{} leaves it, but its vectors keep their storage for the next workload that
// takes this block (WorkloadStore::Add): pod sets of its own stay, with their request vectors,
// and BuildRequests overwrites every field of each; shared ones are let go. Field by field
// (`w = Workload{}` built and moved a whole Workload); the size check stops a new field from
// being left out.
static_assert(sizeof(Workload) == 176, "a Workload field was added: reset it below");
void ResetKeepingStorage(Workload& w) {
  w.pod_sets.ReleaseIfShared();
  w.id = {};
  w.key.clear();
  w.spec = nullptr;
  w.cluster_queue = kInvalidId<CqId>;
  w.priority = 0;
  w.creation_time = 0;
  w.queue_order_time = 0;
  w.quota_reserved = false;
  w.invalid_resources = false;
  w.quota_reserved_time = 0;
  w.admitted.clear();
  w.usage.clear();
  w.admitted_mask = 0;
  w.reservation_term = 0;
  w.holds_devices = false;
  w.device_pod_sets.Reset();
  // Let go, not kept: a block that once held a scanned Workload would carry the state's 80 bytes
  // and its vectors into every later one, scanned or not (engine/workload.h).
  w.scan = LazyBox<FlavorScanState>{};
  w.fallback.Reset();
  w.scheduling_hash = 0;
}

}  // namespace
std::optional<WorkloadId> WorkloadStore::Find(std::string_view key) const {
  return by_key_.Find(key);
}

const std::vector<WorkloadId>& WorkloadStore::Admitted(CqId cq) const {
  static const std::vector<WorkloadId> none;
  return Index(cq) < admitted_.size() ? admitted_[Index(cq)] : none;
}

std::optional<CqId> WorkloadStore::ResolveQueue(const std::string& name_space,
                                                const std::string& queue) const {
  const LocalQueueSpec* lq = cluster_.FindLocalQueue(name_space, queue);
  if (lq == nullptr) {
    return std::nullopt;
  }
  return ResolveQueue(*lq);
}

std::optional<CqId> WorkloadStore::ResolveQueue(const LocalQueueSpec& local_queue) const {
  return cluster_.ClusterQueueOf(local_queue);
}

int32_t WorkloadStore::ResolvePriority(const WorkloadSpec& spec) const {
  if (spec.priority) {
    return *spec.priority;
  }
  if (!spec.priority_class_name.empty()) {
    for (const PriorityClassSpec& pc : cluster_.priority_classes()) {
      if (pc.name == spec.priority_class_name) {
        return pc.value;
      }
    }
  }
  return 0;
}

int32_t WorkloadStore::CountAfterReclaim(const WorkloadSpec& spec, std::string_view pod_set) const {
  auto ps = std::find_if(spec.pod_sets.begin(), spec.pod_sets.end(),
                         [&](const PodSetSpec& p) { return p.name == pod_set; });
  if (ps == spec.pod_sets.end()) {
    return 0;
  }
  if (!cluster_.configuration().feature_gates.reclaimable_pods()) {
    return ps->count;  // the gate off: status.reclaimablePods is ignored
  }
  int32_t reclaimable = 0;
  if (auto it = spec.reclaimable_pods->find(ps->name); it != spec.reclaimable_pods->end()) {
    reclaimable = it->second;
  }
  return ps->count - std::min(std::max(reclaimable, 0), ps->count);
}

int32_t WorkloadStore::ChargedCount(const Workload& w, const AdmittedPodSet& ps) const {
  // Kueue pkg/workload/workload.go (totalRequestsFromAdmission): an admitted pod set is charged
  // its admission's usage, scaled down only when the spec count minus the reclaimable pods falls
  // below the admission count, and then to that count. A partially admitted pod set (admission
  // count below spec count - reclaimable) keeps its admission count.
  return std::min(ps.count, CountAfterReclaim(*w.spec, ps.name));
}

namespace {
// One multiply per word (MixWord), the whole folded once at the end (StateFold): a reservation is
// hashed at every admission.
void MixUsage(uint64_t& h, std::span<const SlotAmount> usage) {
  for (const SlotAmount& u : usage) {
    MixWord(h, uint64_t{Index(u.slot)} + 1);
    MixWord(h, static_cast<uint64_t>(u.amount.value()));
  }
}
}  // namespace

uint64_t WorkloadStore::UsageHash::operator()(std::span<const SlotAmount> usage) const {
  uint64_t h = usage.size();
  MixUsage(h, usage);
  return StateFold(h);
}

uint64_t WorkloadStore::AdmittedHash::operator()(std::span<const AdmittedPodSet> pod_sets) const {
  uint64_t h = pod_sets.size();
  for (const AdmittedPodSet& ps : pod_sets) {
    // The name's length and first bytes only: pod-set names repeat ("main"), and equal hashes
    // are compared whole anyway (ListPool::Intern).
    uint64_t head = 0;
    std::memcpy(&head, ps.name.data(), std::min<size_t>(ps.name.size(), sizeof(head)));
    MixWord(h, head ^ (uint64_t{ps.name.size()} << 56));
    MixWord(h, static_cast<uint32_t>(ps.count));
    for (const auto& [resource, flavor] : ps.flavors) {
      MixWord(h, (uint64_t{Index(resource)} << 32) | Index(flavor));
    }
    MixUsage(h, ps.usage);
  }
  return StateFold(h);
}

std::vector<SlotAmount> WorkloadStore::ChargedUsage(
    const Workload& w, std::span<const AdmittedPodSet> admitted) const {
  std::vector<SlotAmount> usage;
  for (const AdmittedPodSet& ps : admitted) {
    int32_t charged = ChargedCount(w, ps);
    for (const SlotAmount& u : ps.usage) {
      Quantity amount = u.amount;
      if (ps.count > 0 && charged < ps.count) {
        // Kueue divides the pod set's total by its count, then multiplies (integer units).
        amount = Quantity(u.amount.value() / ps.count * charged);
      }
      auto it = std::find_if(usage.begin(), usage.end(),
                             [&](const SlotAmount& x) { return x.slot == u.slot; });
      if (it == usage.end()) {
        usage.push_back({u.slot, amount});
      } else {
        it->amount += amount;
      }
    }
  }
  return usage;
}

bool WorkloadStore::SetReclaimablePods(WorkloadId id, std::map<std::string, int32_t> reclaimable) {
  Workload& w = Get(id);
  WorkloadSpec& spec = workloads_[Index(id)]->spec;
  if (spec.reclaimable_pods == reclaimable) {
    return false;
  }
  spec.reclaimable_pods = std::move(reclaimable);
  ++other_changes_;  // a pending head's requests are not in the nomination memo's key either
  w.pod_sets.clear();
  BuildRequests(w);
  w.scheduling_hash = 0;
  if (w.quota_reserved) {
    auto node = cluster_.ClusterQueueNode(w.cluster_queue);
    cluster_.mutable_tree().RemoveUsage(node, w.usage);
    CountPriorityUsage(w, -1);
    RemoveReservationTerm(w);
    w.usage = usage_pool_.Intern(ChargedUsage(w, w.admitted));
    cluster_.mutable_tree().AddUsage(node, w.usage);
    CountPriorityUsage(w, +1);
    AddReservationTerm(w, IsEvicting(id));
  }
  return true;
}

void WorkloadStore::BuildRequests(const WorkloadSpec& spec,
                                  std::span<const std::vector<CanonicalAmount>> canonical,
                                  PodSetRequestList& list) const {
  const ResourcesConfigSpec& config = cluster_.resources_config();
  // Every field of every element is written: the elements of a recycled list (a Workload's
  // after Erase, a pooled entry's) keep their vectors' storage. A list shared with other
  // Workloads is let go, not copied.
  list.ReleaseIfShared();
  std::vector<PodSetRequest>& requests = list.Mutable();
  requests.resize(spec.pod_sets.size());
  for (size_t i = 0; i < spec.pod_sets.size(); ++i) {
    const PodSetSpec& ps = spec.pod_sets[i];
    PodSetRequest& out = requests[i];
    out.name.assign(ps.name);
    out.count = CountAfterReclaim(spec, ps.name);
    out.min_count = ps.min_count;
    out.spec = &ps;
    const std::vector<CanonicalAmount> computed =
        canonical.empty() ? PerPodCanonical(ps.resources, config) : std::vector<CanonicalAmount>{};
    const std::vector<CanonicalAmount>& amounts = canonical.empty() ? computed : canonical[i];
    out.per_pod.clear();
    out.total.clear();
    out.per_pod.reserve(amounts.size());
    out.total.reserve(amounts.size());
    for (const CanonicalAmount& a : amounts) {
      ResourceId r = cluster_.FindResource(a.resource).value_or(kInvalidId<ResourceId>);
      out.per_pod.push_back({r, a.amount});
      out.total.push_back({r, MultiplySaturating(a.amount, out.count)});
    }
  }
}

StatusOr<WorkloadId> WorkloadStore::AddSwapping(WorkloadSpec& spec,
                                                const LocalQueueSpec* local_queue) {
  std::string& key = key_scratch_;
  key.assign(spec.name_space).append("/").append(spec.name);
  if (by_key_.Find(key).has_value()) {
    return InvalidArgument(fmt::format("duplicate Workload {}", key));
  }
  // The stored spec will share the pool's list equal to `spec`'s (engine/pod_set_pool.h);
  // `spec`'s own list goes back to the caller with the rest of the storage; when the pool took it,
  // the caller gets a spare list of the pool's to write over, or an empty one.
  PodSetList own_pod_sets = std::move(spec.pod_sets);
  spec.pod_sets = PodSetList{};
  PodSetPool::Entry& pooled = pod_set_pool_.Intern(own_pod_sets);
  // The canonical requests, kept for BuildRequests: worked out once per pooled list and
  // configuration, each requested resource name interned then, so that requests carry dense ids.
  if (pooled.canonical_version != cluster_.config_version()) {
    const PodSetList& pod_sets = pooled.list;
    pooled.canonical.resize(pod_sets.size());
    for (size_t i = 0; i < pod_sets.size(); ++i) {
      PerPodCanonicalInto(pod_sets[i].resources, cluster_.resources_config(), requests_scratch_,
                          pooled.canonical[i]);
      for (const CanonicalAmount& a : pooled.canonical[i]) {
        cluster_.InternResource(a.resource);
      }
    }
    pooled.canonical_version = cluster_.config_version();
    pooled.requests_built = false;  // its storage is kept, for BuildRequests to write over
  }
  const std::span<const std::vector<CanonicalAmount>> canonical(pooled.canonical);
  WorkloadId id;
  if (free_ids_.empty()) {
    id = MakeId<WorkloadId>(static_cast<uint32_t>(workloads_.size()));
    workloads_.emplace_back();
  } else {
    id = free_ids_.back();
    free_ids_.pop_back();
  }
  ++live_;
  if (spec.uid.empty()) {
    spec.uid = key;  // Workload::uid() reads it
  }
  std::unique_ptr<StoredWorkload> stored;
  if (spare_workloads_.empty()) {
    stored = std::make_unique<StoredWorkload>();
    stored->spec = std::move(spec);
    spec = WorkloadSpec{};
  } else {
    stored = std::move(spare_workloads_.back());  // reset by Erase, its pod sets let go
    spare_workloads_.pop_back();
    swap(stored->spec, spec);  // engine::swap, field by field
  }
  stored->spec.pod_sets = pooled.list;
  spec.pod_sets = std::move(own_pod_sets);
  const WorkloadSpec& s = stored->spec;
  Workload* w = &stored->workload;
  w->id = id;
  w->key.assign(key);
  w->spec = &s;
  w->invalid_resources = pooled.invalid_resources;
  w->priority = ResolvePriority(s);
  w->creation_time = s.creation_time;
  w->queue_order_time = s.creation_time;
  // §5.1: an eviction for PodsReadyTimeout or AdmissionCheck orders by the eviction time.
  if (const ConditionSpec* evicted = s.Condition("Evicted");
      evicted != nullptr && evicted->status
      && (evicted->reason == "PodsReadyTimeout" || evicted->reason == "AdmissionCheck")) {
    w->queue_order_time = evicted->last_transition;
  }
  if (std::optional<CqId> cq = local_queue != nullptr ? ResolveQueue(*local_queue)
                                                      : ResolveQueue(s.name_space, s.queue_name)) {
    w->cluster_queue = *cq;
  }
  for (const WorkloadSpec::FlavorHistorySpec& h : *s.flavor_history) {
    std::optional<FlavorId> flavor = cluster_.FindFlavor(h.flavor);
    if (!flavor.has_value()) {
      continue;  // a flavor that no longer exists cannot be assigned anyway
    }
    FlavorHistoryEntry& e = w->fallback.Mutable().Get(*flavor);
    e.assignment_time = h.assignment_time;
    e.used = h.used;
    e.failed = h.failed;
    e.failed_by = h.failed_by_check ? FallbackTrigger::kAdmissionCheckRejected
                                    : FallbackTrigger::kTimeoutForPodsReadyExceeded;
  }
  // Without reclaimable pods a Workload's requests follow from its pod-set list alone: built into
  // the pooled entry once (into the storage a recycled entry kept), shared by its Workloads.
  if (!s.reclaimable_pods->empty()) {
    BuildRequests(*w, canonical);
  } else {
    if (!pooled.requests_built) {
      BuildRequests(s, canonical, pooled.requests);
      // Every Workload of this list takes a reference to it: its count on lines of its own
      // (engine/base/cow_vector.h OnOwnCacheLines). Once per pooled list and configuration.
      pooled.requests = PodSetRequestList::OnOwnCacheLines(pooled.requests.view());
      pooled.requests_built = true;
    }
    w->pod_sets = pooled.requests;
  }
  Workload& ref = *w;
  workloads_[Index(id)] = std::move(stored);
  by_key_.Insert(ref.key, id);

  if (s.admission) {
    std::optional<CqId> cq = cluster_.FindClusterQueue(s.admission->cluster_queue);
    if (!cq || !cluster_.Exists(*cq)) {
      return InvalidArgument(
          fmt::format("Workload {}: status.admission.clusterQueue \"{}\" does not exist", ref.key,
                      s.admission->cluster_queue));
    }
    ref.cluster_queue = *cq;
    std::vector<AdmittedPodSet> admitted;
    for (const PodSetAssignmentSpec& psa : s.admission->pod_set_assignments) {
      AdmittedPodSet& ap = admitted.emplace_back();
      ap.name = psa.name;
      // Kueue: a missing count is the spec's count of the pod set.
      int32_t spec_count = 0;
      for (const PodSetSpec& ps : s.pod_sets) {
        if (ps.name == psa.name) {
          spec_count = ps.count;
        }
      }
      ap.count = psa.count.value_or(spec_count);
      for (const auto& [resource, flavor] : psa.flavors) {
        // The recorded flavor may no longer exist as an object: its slot is interned anyway so
        // that the usage keeps counting where Kueue's cache counts it.
        FrSlot slot = cluster_.InternSlot(flavor, resource);
        ap.flavors.emplace_back(cluster_.SlotKey(slot).resource, cluster_.SlotKey(slot).flavor);
        auto used = psa.resource_usage.find(resource);
        if (used == psa.resource_usage.end()) {
          continue;
        }
        ap.usage.push_back({slot, used->second});
      }
    }
    // §3.5: reclaimable pods scale the recorded usage down (ChargedCount).
    std::vector<SlotAmount> usage = ChargedUsage(ref, admitted);
    TimeMicros reserved_at = 0;
    if (const ConditionSpec* c = s.Condition("QuotaReserved"); c != nullptr) {
      reserved_at = c->last_transition;
    }
    cluster_.Refresh();  // InternSlot may have widened the tree
    // An admission recorded before the replay holds its devices too, first-fit like the rest;
    // when they are not there (the record disagrees with the nodes) it keeps its quota without
    // them, as the cluster it was recorded in did.
    (void)AllocateDevices(id, admitted);
    Reserve(id, *cq, std::move(admitted), std::move(usage), reserved_at);
    if (const ConditionSpec* evicted = s.Condition("Evicted"); evicted && evicted->status) {
      MarkEvicting(id);
    }
  }
  return id;
}

void WorkloadStore::Reserve(WorkloadId id, CqId cq, std::vector<AdmittedPodSet> admitted,
                            std::vector<SlotAmount> usage, TimeMicros now) {
  Workload& w = Get(id);
  w.admitted = admitted_pool_.Intern(admitted);
  w.usage = usage_pool_.Intern(usage);
  ChargeReservation(id, cq, now);
}

void WorkloadStore::Reserve(WorkloadId id, CqId cq, size_t pod_sets,
                            const std::function<void(size_t, AdmittedPodSet&)>& fill,
                            std::span<const SlotAmount> usage, TimeMicros now) {
  Workload& w = Get(id);
  if (admitted_scratch_.size() < pod_sets) {
    admitted_scratch_.resize(pod_sets);
  }
  for (size_t i = 0; i < pod_sets; ++i) {
    AdmittedPodSet& ps = admitted_scratch_[i];  // cleared, its vectors' storage kept
    ps.name.clear();
    ps.count = 0;
    ps.flavors.clear();
    ps.usage.clear();
    fill(i, ps);
  }
  w.admitted =
      admitted_pool_.Intern(std::span<const AdmittedPodSet>(admitted_scratch_.data(), pod_sets));
  w.usage = usage_pool_.Intern(usage);
  ChargeReservation(id, cq, now);
}

void WorkloadStore::ChargeReservation(WorkloadId id, CqId cq, TimeMicros now) {
  Workload& w = Get(id);
  w.cluster_queue = cq;
  w.quota_reserved = true;
  w.quota_reserved_time = now;
  w.admitted_mask = 0;
  for (const AdmittedPodSet& ps : w.admitted) {
    for (const auto& [resource, flavor] : ps.flavors) {
      w.admitted_mask |= FlavorResourceBit(flavor, resource);
    }
  }
  cluster_.mutable_tree().AddUsage(cluster_.ClusterQueueNode(cq), w.usage);
  CountPriorityUsage(w, +1);
  AddReservationTerm(w, /*evicting=*/false);
  if (admitted_.size() <= Index(cq)) {
    admitted_.resize(Index(cq) + 1);
  }
  admitted_[Index(cq)].push_back(id);
}

std::optional<std::string> WorkloadStore::AllocateDevices(
    WorkloadId id, std::span<const AdmittedPodSet> admitted) {
  ++other_changes_;
  DeviceInventory& devices = cluster_.mutable_devices();
  if (!devices.HasClasses()) {
    return std::nullopt;
  }
  Workload& w = Get(id);
  std::vector<PodSetDeviceDemand> demands;
  std::vector<std::string> demand_pod_sets;
  const PodSetRequestList& requests = w.pod_sets;
  for (const AdmittedPodSet& ps : admitted) {
    auto request = std::find_if(requests.begin(), requests.end(),
                                [&](const PodSetRequest& r) { return r.name == ps.name; });
    if (request == requests.end() || ps.count <= 0) {
      continue;
    }
    // One demand per flavor the pod set's classes were given (one, unless its classes sit in
    // different resource groups).
    std::map<uint32_t, PodSetDeviceDemand> by_flavor;
    for (const auto& [resource, flavor] : ps.flavors) {
      const std::string& name = cluster_.Name(resource);
      const ResourceFlavorSpec* flavor_spec = cluster_.FlavorSpec(flavor);
      if (flavor_spec == nullptr || !devices.IsClass(name)) {
        continue;
      }
      for (const ResourceAmount& r : request->per_pod) {
        if (r.resource == resource && r.amount > Quantity::Zero()) {
          PodSetDeviceDemand& d = by_flavor[Index(flavor)];
          d.flavor_node_labels = flavor_spec->node_labels;
          d.pods = ps.count;
          d.per_pod.emplace_back(name, r.amount.value());
        }
      }
    }
    for (auto& [flavor, demand] : by_flavor) {
      demands.push_back(std::move(demand));
      demand_pod_sets.push_back(ps.name);
    }
  }
  if (demands.empty()) {
    return std::nullopt;
  }
  std::string why;
  if (!devices.Allocate(Index(id), demands, &why)) {
    return why;
  }
  w.holds_devices = true;
  w.device_pod_sets = std::move(demand_pod_sets);
  return std::nullopt;
}

void WorkloadStore::Release(WorkloadId id) {
  Workload& w = Get(id);
  if (w.holds_devices) {
    ++other_changes_;
    cluster_.mutable_devices().Release(Index(id));
    w.holds_devices = false;
    w.device_pod_sets.Reset();
  }
  if (!w.quota_reserved) {
    return;
  }
  cluster_.mutable_tree().RemoveUsage(cluster_.ClusterQueueNode(w.cluster_queue), w.usage);
  CountPriorityUsage(w, -1);
  RemoveReservationTerm(w);
  std::vector<WorkloadId>& list = admitted_[Index(w.cluster_queue)];
  list.erase(std::find(list.begin(), list.end(), id));
  w.quota_reserved = false;
  if (auto it = std::find(evicting_.begin(), evicting_.end(), id); it != evicting_.end()) {
    evicting_.erase(it);
  }
  w.admitted.clear();
  w.usage.clear();
  w.admitted_mask = 0;
}

void WorkloadStore::SetReservedPriority(WorkloadId id, int32_t priority) {
  Workload& w = Get(id);
  if (w.quota_reserved) {
    CountPriorityUsage(w, -1);  // out of the old priority's sums, into the new one's
    RemoveReservationTerm(w);
    w.priority = priority;
    CountPriorityUsage(w, +1);
    AddReservationTerm(w, IsEvicting(id));
    return;
  }
  w.priority = priority;
}

void WorkloadStore::CountPriorityUsage(const Workload& w, int sign) {
  if (priority_usage_.size() <= Index(w.cluster_queue)) {
    priority_usage_.resize(Index(w.cluster_queue) + 1);
  }
  std::vector<PriorityUsage>& levels = priority_usage_[Index(w.cluster_queue)];
  auto it = std::lower_bound(
      levels.begin(), levels.end(), w.priority,
      [](const PriorityUsage& level, int32_t priority) { return level.priority < priority; });
  if (it == levels.end() || it->priority != w.priority) {
    TALLY_CHECK(sign > 0);
    it = levels.insert(it, PriorityUsage{w.priority, 0, {}});
  }
  it->workloads += sign;
  for (const SlotAmount& u : w.usage) {
    if (it->by_slot.size() <= Index(u.slot)) {
      it->by_slot.resize(Index(u.slot) + 1);
    }
    it->by_slot[Index(u.slot)] =
        sign > 0 ? it->by_slot[Index(u.slot)] + u.amount : it->by_slot[Index(u.slot)] - u.amount;
  }
  if (it->workloads == 0) {
    // Exact zero again: no drift from a level that comes and goes. The level itself stays (a
    // few per ClusterQueue): on a trace with little contention a priority's last workload
    // finishes before the next one is admitted, and erasing it cost an allocation per admission.
    if (levels.size() > kEmptyPriorityLevelsKept) {
      levels.erase(it);
    } else {
      std::fill(it->by_slot.begin(), it->by_slot.end(), Quantity::Zero());
    }
  }
}

Quantity WorkloadStore::ReservedUsageBelow(CqId cq, FrSlot slot, int32_t priority,
                                           bool inclusive) const {
  Quantity total;
  if (Index(cq) >= priority_usage_.size()) {
    return total;
  }
  for (const PriorityUsage& level : priority_usage_[Index(cq)]) {
    if (level.priority > priority || (level.priority == priority && !inclusive)) {
      break;
    }
    if (Index(slot) < level.by_slot.size()) {
      total += level.by_slot[Index(slot)];
    }
  }
  return total;
}

Quantity WorkloadStore::ReservedUsage(CqId cq, FrSlot slot) const {
  return ReservedUsageBelow(cq, slot, std::numeric_limits<int32_t>::max(), true);
}

void WorkloadStore::MarkEvicting(WorkloadId id) {
  Workload& w = Get(id);
  if (w.quota_reserved && !IsEvicting(id)) {
    evicting_.push_back(id);
    RemoveReservationTerm(w);
    AddReservationTerm(w, /*evicting=*/true);
  }
}

bool WorkloadStore::IsEvicting(WorkloadId id) const {
  return std::find(evicting_.begin(), evicting_.end(), id) != evicting_.end();
}

void WorkloadStore::AddReservationTerm(Workload& w, bool evicting) {
  // Everything of a reserved workload that a nomination reads through preemption
  // (engine/preemption_candidates.cc: Classify, AddFromClusterQueue, UsesNeededSlot; the
  // ReservedUsageBelow sums follow from it), under its id: the id names the targets of an entry,
  // and stands for the uid (an id comes back with another workload only after Erase, which moves
  // the key for good). Each word goes through an odd multiply (a bijection: one changed word
  // always changes the chain), the whole through StateMix.
  uint64_t h = 0;
  auto mix = [&h](uint64_t x) { MixWord(h, x); };
  mix((uint64_t{Index(w.id)} << 1) | (evicting ? 1 : 0));
  mix(Index(w.cluster_queue));
  mix(static_cast<uint32_t>(w.priority));
  mix(static_cast<uint64_t>(w.queue_order_time));
  mix(static_cast<uint64_t>(w.quota_reserved_time));
  for (const SlotAmount& u : w.usage) {
    mix(Index(u.slot));
    mix(static_cast<uint64_t>(u.amount.value()));
  }
  for (const AdmittedPodSet& ps : w.admitted) {
    mix(static_cast<uint32_t>(ps.count));
    for (const auto& [resource, flavor] : ps.flavors) {
      mix((uint64_t{Index(resource)} << 32) | Index(flavor));
    }
  }
  h = StateMix(h) | 1;  // never 0: 0 stands for "no term"
  w.reservation_term = h;
  reservation_sum_ += h;
}

void WorkloadStore::RemoveReservationTerm(Workload& w) {
  reservation_sum_ -= w.reservation_term;
  w.reservation_term = 0;
}

void WorkloadStore::Erase(WorkloadId id) {
  ++other_changes_;  // its id and spec's address may come back with another workload
  if (!Contains(id)) {
    return;
  }
  Release(id);
  by_key_.Erase(Get(id).key);
  std::unique_ptr<StoredWorkload> gone = std::move(workloads_[Index(id)]);
  if (spare_workloads_.size() < kSpareWorkloadsKept) {
    ResetKeepingStorage(gone->workload);  // the spec is reset by whoever writes it next,
    gone->spec.pod_sets = PodSetList{};   // but its pod sets are the pool's: let go now
    spare_workloads_.push_back(std::move(gone));
  }
  free_ids_.push_back(id);
  --live_;
}

}  // namespace engine
