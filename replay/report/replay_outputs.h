// File: replay/report/replay_outputs.h
//
// Reads back what `tally replay` wrote into an output directory, for `tally diff` and `tally gate`
// (docs/diff-and-gate.md): the figures of DIR/report.json (docs/report.md) as plain structs, and a
// compact per-workload summary of DIR/decisions.jsonl (docs/replay.md), streamed line by line
// with one reused simdjson On-Demand parser so that a log of hundreds of MB costs memory in
// proportion to its workloads, not its length.
//
//   engine::StatusOr<ReplayOutputs> a = LoadReplayOutputs("out-a", /*with_decisions=*/true);
//   if (!a.ok()) { ... a.status().message() ... }
//   a->report.outcomes.admissions;  a->decisions.workloads.at("ns/name").first_admitted;
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/status.h"

namespace replay {

// One time-to-admission stats object of report.json (seconds; count is admissions).
struct WaitFigures {
  int64_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
};

struct NamedWaitFigures {
  std::string name;
  WaitFigures stats;
};

// One `usage` entry: a quota of a ClusterQueue.
struct UsageFigures {
  std::string cluster_queue;
  std::string flavor;
  std::string resource;
  int64_t nominal = 0;     // canonical units
  double utilisation = 0;  // meanUsage / nominal (a fraction; 0 when nominal is 0)
};

// One `clusterQueues` entry.
struct ClusterQueueFigures {
  std::string name;
  int64_t admitted = 0;
  int64_t pending_at_end = 0;
  int64_t preempted = 0;
  int64_t running_at_end = 0;
};

// The figures of report.json that diff and gate compare.
struct ReportFigures {
  std::string mode;         // model.mode
  std::string events_file;  // input.eventsFile
  std::string start;        // time.start, RFC 3339
  double duration_seconds = 0;
  int64_t admissions = 0;
  int64_t preemptions = 0;
  int64_t evictions = 0;  // sum of outcomes.evictionsByReason
  int64_t finished = 0;
  int64_t pending_at_end = 0;
  int64_t running_at_end = 0;
  int64_t deleted = 0;
  int64_t deactivated = 0;
  int64_t workloads_created = 0;
  int64_t workloads_admitted = 0;
  WaitFigures overall;
  // outcomes.fallbacks.timeToStart (creation to first pods ready), present only when the replay
  // modelled fallbacks or flavor supply (docs/fallback.md).
  bool has_time_to_start = false;
  WaitFigures time_to_start;
  std::vector<NamedWaitFigures> by_cluster_queue;   // sorted by name
  std::vector<NamedWaitFigures> by_class;           // sorted by name; "" = no class label
  std::vector<UsageFigures> usage;                  // sorted by (clusterQueue, flavor, resource)
  std::vector<ClusterQueueFigures> cluster_queues;  // sorted by name
  std::string run_id;                               // runId; empty when absent
};

// Parses the text of a report.json; `name` prefixes error messages.
engine::StatusOr<ReportFigures> ParseReportFigures(std::string_view json, std::string_view name);
engine::StatusOr<ReportFigures> LoadReportFigures(const std::string& path);

// Where a workload stood at the end of the log. Order is not meaningful.
enum class WorkloadFate : uint8_t {
  kPending,      // no admission at the end (never admitted, or requeued and not admitted again)
  kAdmitted,     // holding quota at the end (Admitted or QuotaReserved, not finished)
  kFinished,     // Finished line
  kDeleted,      // Deleted line
  kDeactivated,  // Deactivated line
};
const char* ToString(WorkloadFate fate);

inline constexpr int64_t kNeverAdmitted = std::numeric_limits<int64_t>::min();
inline constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();

// One workload of decisions.jsonl, 24 bytes: names are interned in DecisionSummary.
struct WorkloadSummary {
  int64_t first_admitted = kNeverAdmitted;  // first Admitted line, microseconds since the epoch
  uint32_t flavors = kNoIndex;              // index into DecisionSummary::flavor_sets
  uint32_t cluster_queue = kNoIndex;        // index into DecisionSummary::cluster_queues
  uint16_t preemptions = 0;                 // Preempted lines (saturates)
  WorkloadFate fate = WorkloadFate::kPending;
};

struct DecisionSummary {
  // Keyed by "namespace/name".
  std::unordered_map<std::string, WorkloadSummary> workloads;
  // Interned: the flavors of a first admission, "a100" when every resource of every pod set got
  // the same flavor, else "cpu=x,nvidia.com/gpu=y" per pod set, pod sets as "name:..." joined by
  // spaces when there are several.
  std::vector<std::string> flavor_sets;
  std::vector<std::string> cluster_queues;
  int64_t lines = 0;  // non-blank lines read
  int64_t admitted_lines = 0;
  std::string digest;  // of the (uncompressed) bytes: the run id (replay/io/content_digest.h)
};

// Streams DIR/decisions.jsonl (plain or gzip). Unknown `type` values are ignored (a later tally may
// add some); a line that is not a JSON object with string `type` and `workload` is an error
// naming the file and line.
engine::StatusOr<DecisionSummary> LoadDecisionSummary(const std::string& path);

// A workload's fate as text: "finished", "pending", "finished, preempted 2x".
std::string FateText(const WorkloadSummary& w);

struct ReplayOutputs {
  std::string dir;
  ReportFigures report;
  DecisionSummary decisions;  // empty unless asked for
};

// DIR/report.json, and DIR/decisions.jsonl when `with_decisions`. Errors name the missing file.
// The files present must carry report.json's runId (replay/report/run_id_check.h): a directory
// mixing files of two runs, or a report without a run id, is an error.
engine::StatusOr<ReplayOutputs> LoadReplayOutputs(const std::string& dir, bool with_decisions);

}  // namespace replay
