// File: replay/import/audit_import.h
//
// `tally import audit`: Kubernetes API server audit logs (audit.k8s.io/v1 and v1beta1 Event lines,
// plain or gzip, several rotated files) turned into tally's manifests and events, plus the
// admissions the log recorded, for `tally replay --verify` (docs/import.md#kubernetes-audit-logs).
//
// What is kept: ResponseComplete stages with a 2xx response code of create / update / patch /
// delete requests on Kueue's workloads (and their status subresource), clusterqueues, cohorts,
// localqueues, resourceflavors and workloadpriorityclasses, and on namespaces (name and labels
// only: namespaceSelectors match them). The object is the responseObject, else (create and update
// only) the requestObject. Every other line is counted under a skip reason WITHOUT its content
// being copied anywhere: audit logs carry Secrets and ConfigMaps.
//
// Lines of all files are ordered by stageTimestamp (then file order, then line), which also
// repairs rotated files given out of order or overlapping (a line seen twice, by auditID, is
// skipped as a duplicate). Configuration objects seen before the first Workload form the
// manifests; later changes become configuration events. A Workload's runtime is derived from its
// recorded admission (status.admission appearing) and finish (Finished=True): the replay admits
// it when its policy does and runs it for that long.
//
// Thread safety: reentrant; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "replay/import/import_common.h"

namespace replay {

struct AuditImportOptions {
  std::vector<std::string> paths;
  // Longer lines are skipped unread ("line too long"); the logs are streamed, so memory is about
  // one line plus the records of followed objects (robustness finding 19).
  size_t max_line_bytes = size_t{64} << 20;
};

// The manifests are JSON documents (which YAML reads as they are); counts are per audit line;
// extra_files holds admissions.jsonl, the admissions the log recorded (for `replay --verify`).
engine::StatusOr<ImportOutput> ImportAuditLogs(const AuditImportOptions& options);

// The (API group, resource) pairs the importer follows; data/audit/audit-policy.yaml must record
// each of them at RequestResponse level (a test checks it).
std::vector<std::pair<std::string, std::string>> FollowedAuditResources();

// The name of the recorded admissions file beside manifests.yaml and events.jsonl.
inline constexpr const char* kRecordedAdmissionsFile = "admissions.jsonl";

}  // namespace replay
