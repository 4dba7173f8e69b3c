// File: replay/generate/audit_log_writer.h
//
// `tally audit-log`: a synthetic Kubernetes API server audit log of a replayed scenario
// (docs/import.md#synthetic-audit-logs-tally-audit-log). From the scenario's manifests and events
// and the decisions.jsonl a replay of them wrote, it writes what kube-apiserver would have logged
// at RequestResponse level had Kueue made those decisions:
//
//   manifests            create by kubernetes-admin, 60 s before the first event, 1 ms apart
//   configuration events create / update / delete by kubernetes-admin at the event's instant
//   Workload events      create / update / delete by Kueue's service account (never a runtime
//                        hint: an importer derives runtimes from admission and finish); a
//                        Workload created with status.admission gets a status patch 1 ms later
//   decisions            patch of workloads/status by Kueue (fieldManager kueue-admission):
//                        QuotaReserved / Admitted set status.admission and the conditions,
//                        Preempted / Evicted set Evicted=True, Requeued / Deactivated remove the
//                        admission, Finished sets Finished=True
//
// Each request is a RequestReceived and a ResponseComplete line
// (replay/generate/audit_log_lines.h), with user info, stored objects carrying uid,
// resourceVersion, generation, creationTimestamp and managedFields. With noise (the default),
// unrelated traffic is interleaved (replay/generate/audit_log_noise.h), and about every tenth
// status patch is preceded by a 409 Conflict.
//
//   AuditLogOptions o;
//   o.manifests = {"manifests.yaml"}; o.events = "events.jsonl.gz"; o.decisions = "d.jsonl";
//   StatusOr<AuditLog> log = MakeAuditLog(o);
//   WriteAuditLog(*log, "logs/audit.log", /*max_lines=*/1500);
//
// Deterministic: the same inputs and seed give the same bytes. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"

namespace replay {

struct AuditLogOptions {
  std::vector<std::string> manifests;  // files or directories, as `tally replay --manifests`
  std::string events;                  // tally.events/v1, plain or gzip
  std::string decisions;               // decisions.jsonl of `tally replay` on those inputs
  std::string api_version = "audit.k8s.io/v1";  // or audit.k8s.io/v1beta1
  bool noise = true;
  uint64_t seed = 1;  // auditIDs, receive latencies and noise
};

struct AuditLog {
  std::vector<std::string> lines;  // in stageTimestamp order, no newline
  int64_t requests = 0;            // requests (each has a ResponseComplete line)
  int64_t skipped_events = 0;      // objects and events of kinds an API server audit log would not
                                   // hold (FlavorSupply, ...) or for objects that do not exist
};

engine::StatusOr<AuditLog> MakeAuditLog(const AuditLogOptions& options);

// Writes `log` to `path`, or with `max_lines` > 0 to files of at most that many lines named as
// kube-apiserver's log rotation (lumberjack) names them: the newest part at `path`, each older
// part at `<stem>-<time><ext>` where time is the UTC time of the part's last line in
// `2006-01-02T15-04-05.000` form (`audit-2026-01-05T09-00-00.000.log`), made unique by adding a
// millisecond when two parts end in the same one. Sorting the names puts the parts oldest first.
// Returns the files written, oldest first.
engine::StatusOr<std::vector<std::string>> WriteAuditLog(const AuditLog& log,
                                                         const std::string& path,
                                                         int64_t max_lines);

// The command: writes the log to `out` (rotated with `max_lines` > 0), prints what it wrote.
// Returns the exit status (0, or 1 when an input cannot be read or an output written).
int RunAuditLog(const AuditLogOptions& options, const std::string& out, int64_t max_lines);

}  // namespace replay
