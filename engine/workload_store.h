// File: engine/workload_store.h
//
// Owns every workload the engine knows: builds the engine view (engine/workload.h) from specs —
// effective requests through the §3 pipeline, priority (§2.7), the ClusterQueue through the
// LocalQueue — and keeps the reserved ones charged in the quota tree and listed per ClusterQueue
// (the preemption candidates, §7).
//
// Thread safety: none; owned by one shard.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/ids.h"
#include "engine/base/status.h"
#include "engine/cluster.h"
#include "engine/workload.h"

namespace engine {

class WorkloadStore {
 public:
  explicit WorkloadStore(Cluster& cluster) : cluster_(cluster) {}
  WorkloadStore(const WorkloadStore&) = delete;
  WorkloadStore& operator=(const WorkloadStore&) = delete;
  WorkloadStore(WorkloadStore&&) = delete;
  WorkloadStore& operator=(WorkloadStore&&) = delete;
  ~WorkloadStore() = default;

  // Adds a workload. With `status.admission`, it is charged to that ClusterQueue right away.
  // Errors: duplicate key, or an admission naming an unknown ClusterQueue / flavor.
  StatusOr<WorkloadId> Add(WorkloadSpec spec);

  // Charges `usage` on `admitted` flavors to `cq` (QuotaReserved).
  void Reserve(WorkloadId id, CqId cq, std::vector<AdmittedPodSet> admitted,
               std::vector<SlotAmount> usage, TimeMicros now);
  // Releases the reservation (finished, evicted, deactivated) and frees its quota.
  void Release(WorkloadId id);

  Workload& Get(WorkloadId id) { return *workloads_[Index(id)]; }
  const Workload& Get(WorkloadId id) const { return *workloads_[Index(id)]; }
  std::optional<WorkloadId> Find(std::string_view key) const;
  uint32_t size() const { return static_cast<uint32_t>(workloads_.size()); }

  // Reserved workloads already being evicted (Evicted=True in their status): preemption orders
  // them first (§7.2) and counts them as done.
  const std::vector<WorkloadId>& Evicting() const { return evicting_; }

  // Reserved workloads of `cq`, in reservation order.
  const std::vector<WorkloadId>& Admitted(CqId cq) const;

  // The ClusterQueue a LocalQueue `namespace/name` points to, if both exist.
  std::optional<CqId> ResolveQueue(const std::string& name_space, const std::string& queue) const;
  // §2.7: spec.priority, else the WorkloadPriorityClass value, else 0.
  int32_t ResolvePriority(const WorkloadSpec& spec) const;

 private:
  void BuildRequests(Workload& w) const;

  Cluster& cluster_;
  std::deque<WorkloadSpec> specs_;  // stable addresses: Workload::spec points here
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::unordered_map<std::string, WorkloadId> by_key_;
  std::vector<std::vector<WorkloadId>> admitted_;  // by CqId
  std::vector<WorkloadId> evicting_;
};

}  // namespace engine
