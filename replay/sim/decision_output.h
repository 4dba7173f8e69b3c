// File: replay/sim/decision_output.h
//
// Renders scheduling cycles (`tally schedule`) as text or as the JSON of docs/schedule.md, with
// keys sorted and every list in a deterministic order.
#pragma once

#include <string>
#include <vector>

#include "engine/scheduler.h"
#include "replay/sim/cluster_state.h"

namespace replay {

class JsonWriter;

// Manifest and workload ingest errors to stderr.
void PrintLoadErrors(const ClusterState& state);
// True when a head of `cycle` still has flavors to try (its next scan resumes elsewhere): the
// state can still change at this instant even if nothing was admitted.
bool CycleHasPendingScans(const ClusterState& state, const engine::CycleResult& cycle);

std::string FormatScheduleText(const ClusterState& state,
                               const std::vector<engine::CycleResult>& cycles);
void WriteScheduleJson(const ClusterState& state, const std::vector<engine::CycleResult>& cycles,
                       JsonWriter& out);

// Shared by schedule and explain: one pod set assignment as JSON / text.
void WritePodSetAssignmentJson(const engine::Cluster& cluster, const engine::PodSetAssignment& ps,
                               JsonWriter& out);
// The same JSON object appended to `out` (the replay's admission lines, written without a
// JsonWriter).
void AppendPodSetAssignmentJson(const engine::Cluster& cluster, const engine::PodSetAssignment& ps,
                                std::string& out);
std::string FormatPodSetAssignment(const engine::Cluster& cluster,
                                   const engine::PodSetAssignment& ps);

}  // namespace replay
