// File: replay/report/explain_reason.h
//
// Why a workload is where it is, first (issue 24): `tally explain` used to give quota advice to
// every workload, including one in a stopped ClusterQueue, one whose namespace the ClusterQueue
// does not select and one already admitted, and failed outright on a missing LocalQueue. A
// verdict names the cause with a stable reason code, following the vocabulary of Kueue's
// UnadmittedWorkloadsObservability (KEP for kubernetes-sigs/kueue#10852: Misconfigured,
// WaitingForQuota, NoMatchingFlavor, ...) where it has one, a one-line sentence, and the change
// that would help; quota advice is given only when quota is the cause. The causes are checked
// in the order Kueue's scheduler meets them (a stopped queue is never nominated, so its quota
// does not matter), docs/explain.md lists them.
#pragma once

#include <string>
#include <string_view>

#include "engine/cycle_entry.h"
#include "engine/workload.h"
#include "replay/sim/cluster_state.h"

namespace replay {

struct ExplainVerdict {
  std::string code;                 // "OnHold", "WaitingForQuota", ...
  std::string sentence;             // one line, for people
  std::string remedy;               // what would change it; empty when quota advice is the remedy
  bool quota_is_the_cause = false;  // only then is a nominalQuota change suggested
};

// A workload in the store. `entry` is its evaluation now (Scheduler::Evaluate), or nullptr when it
// has no ClusterQueue to be evaluated against.
ExplainVerdict DiagnoseWorkload(const ClusterState& state, const engine::Workload& w,
                                const engine::CycleEntry* entry);

// A workload admitted to a ClusterQueue that is not defined (ClusterState::admitted_to_undefined).
ExplainVerdict DiagnoseAdmittedToUndefined(std::string_view key);

}  // namespace replay
