// File: replay/import/alibaba_gpu_import.h
//
// `tally import alibaba-gpu PODS.csv --nodes NODES.csv`: Alibaba's cluster-trace-gpu-v2023
// ("openb") turned into tally's manifests and events (docs/import.md#alibaba-gpu-2023):
//   - one ResourceFlavor per GPU model of the node list (`gpu-<model>`, nodeLabels
//     alibaba.com/gpu-model), and `cpu-only` for nodes without GPUs, first in every ClusterQueue;
//   - GPUs requested as `alibaba.com/gpu-milli` (num_gpu x gpu_milli): the cluster shares GPUs, and
//     a pod asking 460/1000 of one GPU must not be charged a whole one;
//   - gpu_spec (`V100M16|V100M32`) a node affinity on alibaba.com/gpu-model: the flavors it allows;
//   - qos a WorkloadPriorityClass (Guaranteed 1000, LS 500, Burstable 200, BE 100) and the class
//     label tally.dev/class, so the report splits waits by QoS;
//   - no tenant column: `--tenants N` tenants by a stable hash of the pod name, one ClusterQueue
//     each in one Cohort; each flavor's node capacity split between them by their pod counts;
//   - creation_time (seconds from the trace start, at 2023-01-01T00:00:00Z) the ADDED time; a
//     scheduled pod runs deletion_time - scheduled_time; a pod never scheduled is ADDED and
//     DELETED at deletion_time (it gave up waiting).
// Rows that cannot be read are skipped and counted by reason, with file:line and field.
#pragma once

#include <cstdint>
#include <string>

#include "engine/base/status.h"
#include "replay/import/import_common.h"

namespace replay {

struct AlibabaGpuImportOptions {
  std::string pods;
  std::string nodes;
  int32_t tenants = 4;
  std::string cohort = "openb";
  size_t max_line_bytes = CsvReader::kDefaultMaxLineBytes;  // --max-line-bytes
};

engine::StatusOr<ImportOutput> ImportAlibabaGpu(const AlibabaGpuImportOptions& options);

}  // namespace replay
