// File: replay/sim/decision_output.h
//
// Renders scheduling cycles (`tally schedule`) as text or as the JSON of docs/schedule.md, with
// keys sorted and every list in a deterministic order.
#pragma once

#include <string>
#include <vector>

#include "engine/scheduler.h"
#include "replay/io/line_builder.h"
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

// AppendPodSetAssignmentJson for a replay's admission lines, which repeat a few pod-set shapes
// (the issue-22 moderate trace: 50,032 admissions, 9 distinct pod-set objects): the text of the
// last shapes written is kept and appended again when the name, the count and every (resource,
// flavor, amount) choice, in order, are the same. Formatting one was 4 % of that trace's
// instructions. One per shard: it holds the ids of one cluster, whose names never change.
class PodSetJsonCache {
 public:
  void Append(const engine::Cluster& cluster, const engine::PodSetAssignment& ps, LineBuilder& out);

 private:
  struct Choice {
    engine::ResourceId resource;
    engine::FlavorId flavor;
    int64_t amount;
    bool operator==(const Choice&) const = default;
  };
  struct Entry {
    std::string name;
    int32_t count = -1;
    std::vector<Choice> choices;
    std::string text;
  };
  static constexpr size_t kEntries = 8;
  bool Matches(const Entry& e, const engine::PodSetAssignment& ps) const;

  std::vector<Entry> entries_;  // up to kEntries; replaced round robin
  size_t next_ = 0;
};

// One member of a replay admission line's "borrowed" object, `"<flavor>/<resource>":"<amount>"`,
// appended to `out` (no separator). The key's text is kept per (flavor, resource) and the value's
// for the last amount of that pair: a preemption ping-pong admits the same victim with the same
// borrowing round after round (the 16-tree trace: 1.1 million members, whose formatting was 3 %
// of its busiest tree's instructions). Bytes as AppendJsonString of the formatted text. One per
// shard, like PodSetJsonCache: ids of one cluster, whose names never change.
class BorrowedJsonCache {
 public:
  void Append(const engine::Cluster& cluster, engine::FrSlot slot, engine::Quantity amount,
              LineBuilder& out);

 private:
  struct Entry {
    engine::FlavorId flavor = engine::kInvalidId<engine::FlavorId>;
    engine::ResourceId resource = engine::kInvalidId<engine::ResourceId>;
    std::string key_text;  // quoted, with the colon
    bool has_amount = false;
    engine::Quantity amount;
    std::string amount_text;  // quoted
  };
  std::vector<Entry> by_slot_;
};

}  // namespace replay
