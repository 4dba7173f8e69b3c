// File: replay/sim/fallback_output.h
//
// What the replay writes and counts about flavor fallbacks (seed 002; docs/fallback.md): the
// workload's flavorAssignmentHistory in decision lines, and the quota-seconds held by attempts
// that fell back (the seed's "wasteful resource allocation").
#pragma once

#include <string>

#include "engine/cluster.h"
#include "engine/workload.h"
#include "replay/io/json_writer.h"
#include "replay/sim/replay_report.h"

namespace replay {

// {"<flavor>": {"assignmentTime": RFC 3339, "failed": bool, "failedBy": trigger (when failed),
//  "used": Go duration}, ...}, flavors sorted by name.
void WriteFlavorHistoryJson(const engine::Cluster& cluster, const engine::FlavorHistory& history,
                            JsonWriter& out);

// Adds usage x `held` of the workload's reservation to `fallbacks.wasted_quota_seconds`.
void AddWastedQuota(const engine::Cluster& cluster, const engine::Workload& w,
                    engine::TimeMicros held, ReplayReport::Fallbacks& fallbacks);

// "a, b" from flavor ids.
std::string JoinFlavorNames(const engine::Cluster& cluster,
                            const std::vector<engine::FlavorId>& flavors);

}  // namespace replay
