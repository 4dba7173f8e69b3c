// File: replay/sim/replay_report.h
//
// What a replay measured (docs/report.md), filled by the simulator (replay/sim/simulator.h) and
// written by the report writers (replay/report/report_writers.h): report.json, the summary table on
// stdout, report.html and metrics.prom. Plain data, no behaviour: every figure is computed before
// it lands here, so that the writers only format.
//
// Times are virtual (the replay's clock) unless the name says wall; durations in seconds as
// doubles are derived from exact microsecond integers at the end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/nomination_memo.h"
#include "engine/preemption.h"

namespace replay {

// Distribution of time-to-admission (creation → Admitted, virtual seconds) for one group.
struct WaitStats {
  int64_t count = 0;
  double mean = 0;
  double p10 = 0;  // used for ranges (quota hold times); not written for waits
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
  // Cumulative counts for Prometheus histogram buckets (kueue_admission_wait_time_seconds),
  // one per kWaitBuckets bound, then +Inf == count.
  std::vector<int64_t> cumulative_buckets;
  double sum = 0;  // seconds, for the Prometheus _sum
};

// Upper bounds of kueue_admission_wait_time_seconds buckets, as Kueue defines them
// (pkg/metrics: generateExponentialBuckets(14)): 1, then 2.5 x 2^k for k = 0..12 (2.5, 5, 10,
// ... 10240 seconds).
inline const std::vector<double>& WaitBuckets() {
  static const std::vector<double> buckets = [] {
    std::vector<double> b{1};
    double v = 2.5;
    for (int i = 0; i < 13; ++i, v *= 2) {
      b.push_back(v);
    }
    return b;
  }();
  return buckets;
}

struct GroupWaits {
  std::string name;  // ClusterQueue name, "namespace/localqueue", priority as text, class
  WaitStats stats;
};

// Time-weighted usage of one (ClusterQueue, flavor, resource) over the replayed interval.
// Amounts in canonical units: cpu in millicores, memory in bytes, others in whole units.
struct ResourceUsage {
  std::string cluster_queue;
  std::string flavor;
  std::string resource;
  int64_t nominal = 0;       // nominal quota at the end of the replay
  double mean_usage = 0;     // ∫usage dt / elapsed
  double mean_borrowed = 0;  // ∫max(0, usage − nominal) dt / elapsed
  double utilisation = 0;    // mean_usage / nominal (0 when nominal is 0)
  int64_t peak_usage = 0;
  int64_t usage_at_end = 0;
};

// Per ClusterQueue series sampled on the virtual clock (report.html's plots).
struct CqSeries {
  std::string name;
  std::vector<float> pending;      // workloads pending (active + inadmissible) at the sample
  std::vector<float> running;      // workloads holding quota at the sample
  std::vector<float> utilisation;  // max over its (flavor, resource) of usage / nominal
  std::vector<float> mean_wait;    // mean time-to-admission of admissions since the last sample
                                   // (seconds; NaN when none)
};

// Nominal quota of one (flavor, resource) over time, summed over the ClusterQueues that declare it
// (report.html's "Quota utilisation by flavor"), at each sample_times entry. Per ClusterQueue i
// with usage u_i and nominal n_i: own = Σ min(u_i, n_i), borrowed = Σ max(0, u_i − n_i), lent =
// min(borrowed, Σ max(0, n_i − u_i)) (unused nominal of some ClusterQueues in use by others'
// borrowing), idle = Σ max(0, n_i − u_i) − lent. So own + lent + idle = nominal, and borrowed −
// lent came from quota outside the ClusterQueues (a Cohort's own). Summed over shards (lent per
// shard: no quota is lent across Cohort trees). Canonical units (ResourceUsage); 0 before any
// ClusterQueue declared the quota, never NaN.
struct FlavorSeries {
  std::string flavor;
  std::string resource;
  std::vector<float> nominal;
  std::vector<float> own;
  std::vector<float> borrowed;
  std::vector<float> lent;
  std::vector<float> idle;
};

struct CqCounts {
  std::string name;
  int64_t admitted = 0;   // admissions (a workload admitted twice counts twice)
  int64_t preempted = 0;  // its workloads evicted by preemption
  int64_t pending_at_end = 0;
  int64_t running_at_end = 0;
};

// One non-empty bucket of the per-decision engine latency histogram (wall nanoseconds;
// replay/sim/latency_histogram.h): `count` decisions took between lower_ns and upper_ns.
struct LatencyBucket {
  int64_t lower_ns = 0;  // inclusive
  int64_t upper_ns = 0;  // inclusive
  int64_t count = 0;
};

// How shards that run free met (replay/sim/shard_pipeline.h), with 2 threads or more: the
// batches that went through the pipeline, and the wall time threads spent blocked in it with
// nothing to replay. The reader blocks when the window is full and every step it could run is
// taken (it waits for the slowest shard); a helper blocks when no step is ready (it waits for the
// reader, or for a shard that another thread is replaying). Timing: not deterministic.
struct PipelineWaits {
  int64_t batches = 0;
  int64_t reader_waits = 0;
  double reader_wait_seconds = 0;
  int64_t helper_waits = 0;
  double helper_wait_seconds = 0;
  int64_t window_grown = 0;        // times the window's limit doubled (a lagging shard)
  int64_t window_shrunk = 0;       // and halved again
  int64_t steps_paused = 0;        // steps that paused at their line limit and went on later
  int64_t lines_waiting_peak = 0;  // most decision lines held for the slowest shard (FinalLines)
};

// One shard's CPU time in its own steps (replay/sim/shard_cpu.h), with --profile.
struct ShardCpuTime {
  std::string label;  // engine::ShardPlan::labels(): its smallest Cohort or ClusterQueue
  double seconds = 0;
};

// `tally replay --profile` (docs/replay.md, "Where the time goes"): the CPU time by phase of
// engine/base/phase_profile.h and the counts that explain it.
struct ProfileReport {
  struct PhaseRow {
    std::string name;
    int64_t calls = 0;   // times the phase was entered
    double seconds = 0;  // exclusive: nested phases are counted apart
  };
  std::vector<PhaseRow> phases;  // in engine::Phase order
  double phase_seconds = 0;      // their sum
  double cpu_seconds = 0;        // the process's user + system time over the same span
  double wall_seconds = 0;
  int threads = 0;  // threads that entered a phase
  int64_t nominations = 0;
  int64_t admissions = 0;
  engine::PreemptionSearchStats searches;
  engine::NominationMemoStats memo;
  PipelineWaits pipeline;
  std::vector<ShardCpuTime> shard_cpu;  // ReplayReport::shard_cpu
};

struct ReplayReport {
  // --- Input ---
  std::vector<std::string> manifest_files;
  std::string events_file;
  int64_t events_read = 0;
  int64_t events_applied = 0;
  int64_t events_rejected = 0;
  std::map<std::string, int64_t> rejected_by_reason;  // EventErrorReason names
  std::vector<std::string> errors;  // the first kMaxListedErrors, "file:line: ..."
  int64_t errors_not_listed = 0;
  static constexpr size_t kMaxListedErrors = 100;
  // The manifests' warnings ("file:line: ..."), among them every Configuration setting and
  // feature gate tally does not model: the figures ignored them (docs/feature-gates.md).
  std::vector<std::string> warnings;

  // --- Model ---
  std::string mode = "policy-only";          // or "control-plane"
  std::map<std::string, std::string> model;  // the control-plane / pods-ready / checks settings
  int shards = 1;  // independent Cohort trees replayed apart (engine/shard/shard_plan.h)

  // --- Virtual time ---
  int64_t start_time = 0;    // µs since the epoch: first event
  int64_t end_time = 0;      // last simulated instant
  bool truncated = false;    // stopped by --until
  bool interrupted = false;  // stopped by SIGINT/SIGTERM: report.json "complete": false
  // The digest of decisions.jsonl (DecisionLog::RunId), repeated in every output file so that
  // `tally diff` and `gate` refuse files of different runs. Empty: not set (not written).
  std::string run_id;

  // --- Outcomes ---
  int64_t workloads_created = 0;
  int64_t workloads_initially_admitted = 0;  // ADDED with status.admission
  int64_t workloads_admitted = 0;            // distinct workloads admitted at least once
  int64_t admissions = 0;
  int64_t preemptions = 0;
  std::map<std::string, int64_t> evictions_by_reason;  // Preempted, PodsReadyTimeout, ...
  int64_t requeues = 0;
  int64_t deactivated = 0;
  int64_t finished = 0;
  int64_t deleted = 0;
  int64_t pending_at_end = 0;
  int64_t running_at_end = 0;
  int64_t cycles = 0;
  // Instants whose cycles were cut at 1,000 (a preemption ping-pong at one instant).
  int64_t cycle_limit_hits = 0;

  // Flavor fallbacks (seed 002; docs/fallback.md). Reported only when `enabled`: some
  // ClusterQueue has a fallback strategy, or the manifests model flavor supply (FlavorSupply), so
  // that a replay without fallbacks can be compared with one with them.
  struct Fallbacks {
    bool enabled = false;
    // Creation to the first PodsReady, in seconds: what a stockout delays and a fallback saves
    // (time to admission does not see it: quota is reserved at once on a flavor that stocks out).
    // The samples behind it are RawWaits::starts (replay/sim/replay_stats.h): bounded, as every
    // wait group's (issue 22), not a vector per started workload.
    WaitStats time_to_start;
    std::map<std::string, int64_t> by_flavor;  // attempts that fell back from the flavor
    int64_t timeouts = 0;                      // attempts ended by a flavor's timeout
    int64_t check_rejections = 0;              // attempts ended by AdmissionCheckRejected
    int64_t exhausted = 0;  // every flavor failed, DeactivateWorkload: deactivated
    int64_t retries = 0;    // every flavor failed, RetryAllFlavors: history reset
    // Seed 002's "wasteful resource allocation": quota held by attempts that fell back,
    // "flavor/resource" -> amount x seconds (cpu in cores, other resources in their units).
    std::map<std::string, double> wasted_quota_seconds;
  };
  Fallbacks fallbacks;

  // Resource classes (seed 001; docs/resource-classes.md). Reported only when `enabled`: the
  // manifests or the trace define a ResourceClass.
  struct ResourceClassFigures {
    std::string name;
    int64_t allocatable_at_end = 0;  // devices the class selects on the nodes at the end
    int64_t requested_at_end = 0;    // of those, allocated to workloads at the end
    int64_t peak_requested = 0;      // over the samples
    std::vector<float> allocatable;  // at each sample_times entry (NaN before the class existed)
    std::vector<float> requested;
  };
  struct ResourceClasses {
    bool enabled = false;
    std::vector<ResourceClassFigures> classes;  // sorted by name
    // Workloads that some flavor had the quota for but not the devices, and that were not
    // admitted in that cycle: what quota alone would have admitted. Keys, sorted.
    std::set<std::string> devices_short;
  };
  ResourceClasses resource_classes;

  // --- Time-to-admission ---
  WaitStats wait_overall;
  std::vector<GroupWaits> wait_by_cluster_queue;  // sorted by name
  std::vector<GroupWaits> wait_by_local_queue;
  std::vector<GroupWaits> wait_by_priority;  // sorted by priority, descending
  std::vector<GroupWaits> wait_by_class;     // label tally.dev/class; "" = no label
  // Quota hold time (QuotaReserved -> quota released) of the workloads that finished, overall and
  // per ClusterQueue (sorted by name, every ClusterQueue): the runtime distribution `tally
  // explain --eta --runtimes report.json` learns from (replay/report/eta.h).
  WaitStats hold_overall;
  std::vector<GroupWaits> hold_by_cluster_queue;

  // --- Usage ---
  std::vector<ResourceUsage> usage;      // sorted by (cluster_queue, flavor, resource)
  std::vector<CqCounts> cluster_queues;  // sorted by name

  // --- Series ---
  std::vector<double> sample_times;         // seconds since start_time
  std::vector<CqSeries> series;             // sorted by name
  std::vector<FlavorSeries> flavor_series;  // sorted by (flavor, resource)

  // --- Engine cost (wall clock: the only non-deterministic part; zero with --no-timings) ---
  bool timings = true;
  double wall_seconds = 0;
  int threads = 0;  // worker threads the replay ran on
  double events_per_second = 0;
  int64_t decisions = 0;                        // nominated entries
  std::vector<LatencyBucket> decision_latency;  // in increasing order; empty with --no-timings
  // Nearest-rank percentiles of decision_latency, within 1/64 of the exact ones; the max is exact.
  double decision_latency_p50_ns = 0;
  double decision_latency_p90_ns = 0;
  double decision_latency_p99_ns = 0;
  int64_t decision_latency_max_ns = 0;
  int64_t peak_rss_bytes = 0;
  PipelineWaits pipeline;  // printed by --profile only
  // Each shard's CPU time in its own steps, by shard index (replay/sim/shard_cpu.h; --profile
  // only).
  std::vector<ShardCpuTime> shard_cpu;

  // What the preemption searches of every shard did (counts: deterministic).
  engine::PreemptionSearchStats preemption_searches;
  engine::NominationMemoStats nomination_memo;  // engine/nomination_memo.h, all shards
  std::optional<ProfileReport> profile;         // --profile only
};

}  // namespace replay
