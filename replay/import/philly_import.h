// File: replay/import/philly_import.h
//
// `tally import philly`: the Microsoft Philly per-job trace as committed by Pollux (CSV header
// `timestamp,duration,num_gpus,gpu_time,cluster`, plain or gzip) turned into tally's manifests and
// events (docs/import.md has every mapping choice):
//   - one Workload per row, ADDED at `timestamp` (read as UTC), `runtime` = `duration` seconds;
//     `num_gpus` GPUs as ceil(num_gpus / gpus_per_node) pods of equal size (num_gpus pods of one
//     GPU when that does not divide), requests `nvidia.com/gpu` only (the trace has no cpu or
//     memory); named `job-<input line>` so that duplicate rows stay distinct jobs;
//   - each virtual cluster (`cluster`) a Namespace-scoped LocalQueue `vc-<cluster>` in namespace
//     `vc-<cluster>`, pointing to its own ClusterQueue `vc-<cluster>`, all in one Cohort: Philly's
//     per-VC quotas with idle GPUs lent, which is Kueue's nominalQuota with cohort borrowing;
//   - quotas: `total_gpus` (default: the trace's mean GPU demand over its span times `headroom`,
//     rounded up to whole nodes) split between the VCs in proportion to their GPU-seconds.
// Rows that cannot be read are skipped and counted by reason, with file:line and field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "replay/import/import_common.h"

namespace replay {

struct PhillyImportOptions {
  std::string path;
  int64_t total_gpus = 0;  // 0: derived from the trace (see above)
  int32_t gpus_per_node = 8;
  double headroom = 1.25;
  std::string cohort = "philly";
  size_t max_line_bytes = CsvReader::kDefaultMaxLineBytes;  // --max-line-bytes
};

engine::StatusOr<ImportOutput> ImportPhilly(const PhillyImportOptions& options);

}  // namespace replay
