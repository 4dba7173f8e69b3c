// File: engine/cycle_entry.h
//
// One head's nomination and what the cycle then did with it (engine/scheduler.h), on its own so
// that the nomination memo (engine/nomination_memo.h) can keep entries without the scheduler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/ids.h"
#include "engine/flavor_assigner.h"
#include "engine/preemption.h"
#include "engine/queue_manager.h"

namespace engine {

// What happened to one head in a cycle.
enum class EntryOutcome : uint8_t {
  kAdmitted,      // quota reserved (and Admitted unless admission checks apply)
  kPreempting,    // targets evicted; waits for them (PendingPreemption)
  kSkipped,       // nominated but no longer fits / overlapping targets: requeued at once
  kInadmissible,  // NoFit, no candidates, namespace mismatch...: see reason
  kNotNominated,  // e.g. admission check in Retry/Rejected
};
const char* ToString(EntryOutcome outcome);

struct CycleEntry {
  WorkloadId workload{};
  CqId cq{};
  Assignment assignment;
  std::vector<PreemptionTarget> targets;
  EntryOutcome outcome = EntryOutcome::kInadmissible;
  RequeueReason reason = RequeueReason::kGeneric;
  std::string message;  // Kueue's condition message
  // QuotaReserved=False with reason Misconfigured (Kueue's quotaReservedReason): a namespace the
  // ClusterQueue's selector does not match, or requests above limits. Other entries keep
  // Kueue's default reasons (Pending and the flavor assigner's), which tally does not print.
  bool misconfigured = false;
  bool partial = false;         // admitted with reduced counts (§6.8)
  bool checks_pending = false;  // QuotaReserved but admission checks not all Ready
};

}  // namespace engine
