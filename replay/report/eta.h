// File: replay/report/eta.h
//
// `tally explain --eta` / `tally predict`: when will a pending workload be admitted? The state
// `explain` loads is simulated forward: the admitted workloads release their quota when their
// expected hold time runs out, Kueue's scheduling cycles run after each release (the tree's
// inadmissible workloads requeued, as on a finish), workloads admitted on the way hold quota
// for their own expected time, until the workload asked about reserves quota. Three runs give
// the range: every hold time at its low (p10), middle (p50) and high (p90) estimate.
//
// Hold times (QuotaReserved until the quota is released), per workload, first that applies:
//   1. the annotation tally.dev/expected-runtime (a Go duration): the same in the three runs;
//   2. --runtimes REPORT.json, the quotaHoldTime of a replay's report: its ClusterQueue's
//      p10/p50/p90 when it has at least kMinOwnSamples finished workloads, else the overall ones;
//   3. spec.maximumExecutionTimeSeconds alone: Kueue deactivates the workload then, so it is the
//      latest release and is used in the three runs (the prediction is then a latest time);
// each capped at maximumExecutionTimeSeconds. A workload with none of these holds its quota past
// the horizon, and the prediction says how many did. An admitted workload already older than its
// estimate releases at the start (it is overdue).
//
// Not modelled: backoffs that expire between releases are seen at the next release; admission
// checks, pods-ready timeouts and arrivals after `now` do not happen.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/workload.h"
#include "replay/sim/cluster_state.h"

namespace replay {

// Hold-time estimates learned from a replay's report.json (its quotaHoldTime section).
class RuntimeModel {
 public:
  static constexpr int64_t kMinOwnSamples = 5;
  enum class Run : uint8_t { kLow, kMid, kHigh };

  // No report: only annotations and maximumExecutionTimeSeconds.
  RuntimeModel() = default;
  static engine::StatusOr<RuntimeModel> FromReportJson(const std::string& path);

  // The hold time of `w` (in ClusterQueue `cq_name`) in `run`, and where it came from
  // ("annotation", "report:<cq>", "report:overall", "maximumExecutionTimeSeconds"), or nullopt.
  struct Estimate {
    engine::TimeMicros hold = 0;
    std::string source;
  };
  std::optional<Estimate> HoldOf(const engine::Workload& w, const std::string& cq_name,
                                 Run run) const;

  bool has_report() const { return overall_.has_value() || !by_cluster_queue_.empty(); }

 private:
  struct Quantiles {
    engine::TimeMicros p10 = 0;
    engine::TimeMicros p50 = 0;
    engine::TimeMicros p90 = 0;
    int64_t count = 0;
    engine::TimeMicros At(Run run) const;
  };
  std::optional<Quantiles> overall_;
  std::map<std::string, Quantiles, std::less<>> by_cluster_queue_;
};

// One forward simulation.
struct EtaRun {
  std::optional<engine::TimeMicros> admitted_at;  // nullopt: not within the horizon
  // Why not, when admitted_at is empty: "nothing left to release" or "past the horizon".
  std::string not_admitted_because;
  // Workloads of its cohort tree admitted before it, and the releases that came before, in
  // order ("namespace/name"), as they happened in this run.
  std::vector<std::string> admitted_ahead;
  std::vector<std::string> released_before;
  int unknown_holds = 0;  // admitted workloads with no estimate (they never released)
  int releases = 0;
};

struct EtaLimits {
  engine::TimeMicros horizon = int64_t{30} * 24 * 3600 * 1'000'000;  // 30 days after `now`
  int max_releases = 100'000;
};

// Simulates `state` (consumed: it is changed) forward until `target` reserves quota.
EtaRun SimulateUntilAdmitted(ClusterState& state, engine::WorkloadId target,
                             const RuntimeModel& model, RuntimeModel::Run run,
                             const EtaLimits& limits = {});

struct EtaPrediction {
  EtaRun low;   // every hold at its p10 (or the one estimate there is)
  EtaRun mid;   // p50: the prediction
  EtaRun high;  // p90
  engine::TimeMicros now = 0;
  bool has_report = false;
  // The earliest and latest admission over the three runs, when all three admit it.
  std::optional<engine::TimeMicros> earliest() const;
  std::optional<engine::TimeMicros> latest() const;
};

// Three runs from fresh copies of the state `load` and `options` build (options.now set).
EtaPrediction PredictAdmission(const LoadResult& load, const ClusterStateOptions& options,
                               const std::string& workload_key, const RuntimeModel& model,
                               const EtaLimits& limits = {});

}  // namespace replay
