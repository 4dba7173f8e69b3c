// File: replay/import/alibaba_dlrm_import.h
//
// `tally import alibaba-dlrm TRACE.csv[.gz]`: Alibaba's cluster-trace-gpu-v2025, the GPU-
// disaggregated DLRM inference trace (one row per inference instance, a pod), turned into tally's
// manifests and events (docs/import.md#alibaba-dlrm-2025 has every choice and why):
//   - one one-pod Workload per instance, named as the instance (`instance_7` -> `instance-7`):
//     an app's instances come and go one by one over the month (they are scaled, not gang-started),
//     which is how Kueue admits the pods of a Deployment, each its own Workload;
//   - role a ResourceFlavor: `cn` (CPU nodes) and `hn` (GPU nodes), nodeLabels
//     alibaba.com/node-role, and each instance a node affinity on its role;
//   - requests cpu (vCPUs), memory (GiB, as whole MiB rounded up), nvidia.com/gpu and
//     alibaba.com/rdma-percent (percent of one RDMA NIC); limits, disk and max_instance_per_node
//     are read and checked but not mapped (Kueue quotas requests; disk and spreading are per node);
//   - each app its namespace and LocalQueue; `--tenants N` ClusterQueues `tenant-<i>` (apps by a
//     stable hash of app_name) in one Cohort; priority class alibaba-ls (500) for every instance;
//   - times (float seconds from the trace start, at 2025-01-01T00:00:00Z): an instance without
//     creation_time existed before the trace: ADDED at the start already admitted (it holds its
//     quota whatever the policy); with creation_time it arrives then and runs deletion_time -
//     scheduled_time (to the end when it has no deletion_time); never scheduled: ADDED, then
//     DELETED at deletion_time;
//   - quotas: the trace has no node list, so each flavor's quota is the peak demand of the trace
//     with every instance placed on arrival, times `headroom` (rounded up), split between the
//     tenants in proportion to their own peaks: at headroom 1 nothing waits, below 1 the replay
//     shows what a smaller cluster would have done.
// Rows that cannot be read are skipped and counted by reason, with file:line and field.
#pragma once

#include <cstdint>
#include <string>

#include "engine/base/status.h"
#include "replay/import/import_common.h"

namespace replay {

struct AlibabaDlrmImportOptions {
  std::string path;
  int32_t tenants = 4;
  double headroom = 1.0;  // quota = peak demand x headroom
  std::string cohort = "dlrm";
  size_t max_line_bytes = CsvReader::kDefaultMaxLineBytes;  // --max-line-bytes
};

engine::StatusOr<ImportOutput> ImportAlibabaDlrm(const AlibabaDlrmImportOptions& options);

}  // namespace replay
