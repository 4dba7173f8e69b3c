// File: replay/report/explain_context.h
//
// What stands around a pending workload (issue 24): where it is in its ClusterQueue's queue and
// who is ahead of it by which ordering rule (Kueue's heap order: the ClusterQueue's pending
// preemptor, then higher priority, earlier queue-order time, smaller uid; engine/queue_manager.h),
// and who holds the quota it needs (the admitted workloads of its cohort tree charged on the
// flavors and resources it asks for, largest first, with whether their ClusterQueue borrows).
// For `tally explain`; read-only on the state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cycle_entry.h"
#include "engine/workload.h"
#include "replay/sim/cluster_state.h"

namespace replay {

struct QueueAhead {
  std::string workload;  // namespace/name
  int32_t priority = 0;
  std::string rule;  // why it is ahead: "higher priority (100 > 50)", ...
};

struct QueuePosition {
  std::string location;  // Active, Inadmissible, Inflight, Orphan, None
  size_t position = 0;   // 1-based in the active heap's order; 0 when not in the heap
  size_t active = 0;     // workloads in the ClusterQueue's heap
  size_t inadmissible = 0;
  std::vector<QueueAhead> ahead;  // the nearest ones ahead, at most kShown
  size_t ahead_total = 0;
  static constexpr size_t kShown = 5;
};

struct QuotaHolder {
  std::string workload;
  std::string cluster_queue;
  int32_t priority = 0;
  std::vector<std::pair<std::string, int64_t>> usage;  // "flavor/resource" -> canonical amount
  bool cluster_queue_borrows = false;  // its ClusterQueue uses more than its nominal there
};

struct QuotaHolders {
  std::vector<QuotaHolder> largest;  // at most kShown, largest total first
  size_t total = 0;                  // admitted workloads holding any of those slots
  static constexpr size_t kShown = 5;
};

// REQUIRES: w has a ClusterQueue (engine::IsValid(w.cluster_queue)).
QueuePosition FindQueuePosition(const ClusterState& state, const engine::Workload& w);
// The slots looked at: every (flavor, resource) of the flavors the assignment considered, for the
// resources the workload requests.
QuotaHolders FindQuotaHolders(const ClusterState& state, const engine::Workload& w,
                              const engine::CycleEntry& entry);

}  // namespace replay
