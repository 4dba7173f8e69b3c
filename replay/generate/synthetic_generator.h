// File: replay/generate/synthetic_generator.h
//
// Seeded synthetic scenarios of any size for benchmarks: `trees` balanced cohort trees of
// `cohort_depth` levels, ClusterQueues spread evenly under the leaf cohorts, `flavors` x
// `resources` quotas sized from the offered load (busy, not hopeless), a mix of workload classes
// (sizes, priorities, some with minCount), Poisson arrivals and log-normal runtimes.
//
//   SyntheticOptions o;  o.workloads = 1'000'000;  o.seed = 7;
//   std::string manifests;
//   SyntheticSummary s = GenerateSynthetic(o, &manifests, [&](std::string_view chunk) {
//     std::fwrite(chunk.data(), 1, chunk.size(), file);
//   });
//
// Determinism: the output is a function of the options alone, byte for byte, on every platform
// with IEEE-754 doubles. The generator uses its own PRNG (xoshiro256**) and its own log/exp
// (basic arithmetic only), never <random> distributions or libm. Events are produced in time
// order and streamed in chunks of about 1 MiB; memory does not grow with the workload count.
// docs/generate.md describes the model. Thread safety: reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace replay {

struct SyntheticOptions {
  int64_t workloads = 10'000;
  int32_t cluster_queues = 16;
  int32_t cohort_depth = 2;  // cohort levels per tree; 0: ClusterQueues without cohorts
  int32_t trees = 1;         // independent root cohorts (replay shards)
  int32_t flavors = 2;
  int32_t resources = 2;  // cpu, memory, nvidia.com/gpu, then example.com/res-<i>
  uint64_t seed = 1;
  int64_t start_micros = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z
  double mean_interarrival_seconds = 1.0;
  double mean_runtime_seconds = 600.0;
};

// Limits: workloads in [0, 1e9], cluster_queues in [1, 1e6], cohort_depth in [0, 32], trees in
// [1, cluster_queues] (and 1 when cohort_depth is 0), flavors in [1, 64], resources in [1, 64],
// mean interarrival and runtime in (0, 1e7] seconds. The message names the flag.
engine::Status ValidateSyntheticOptions(const SyntheticOptions& options);

struct SyntheticSummary {
  int64_t objects = 0;  // manifests documents
  int64_t cohorts = 0;
  int64_t cluster_queues = 0;
  int64_t workloads = 0;
  int64_t first_event_micros = 0;  // 0 when there are no workloads
  int64_t last_event_micros = 0;
  int64_t event_bytes = 0;
};

// Writes the manifests into `*manifests` and streams the tally.events/v1 trace (header, then one
// ADDED event per workload, non-decreasing times) to `write_events` in chunks.
// REQUIRES: ValidateSyntheticOptions(options).ok().
SyntheticSummary GenerateSynthetic(const SyntheticOptions& options, std::string* manifests,
                                   const std::function<void(std::string_view)>& write_events);

namespace internal {
// Natural logarithm and exponential from IEEE basic operations only (portable bit for bit);
// relative error below 1e-15 on the ranges the generator uses. REQUIRES: x > 0 for Log.
double Log(double x);
double Exp(double x);
// Writes "YYYY-MM-DDThh:mm:ss.ffffffZ" (27 characters) for `micros` since the Unix epoch and
// returns its length. REQUIRES: micros >= 0 (years 1970 to 9999).
size_t FormatRfc3339Micros(int64_t micros, char (&out)[32]);
}  // namespace internal

}  // namespace replay
