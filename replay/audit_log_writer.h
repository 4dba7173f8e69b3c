// File: replay/audit_log_writer.h
//
// `tally audit-log`: a synthetic Kubernetes API server audit log of a replayed scenario
// (docs/import.md#synthetic-audit-logs-tally-audit-log). From the scenario's manifests and events
// and the decisions.jsonl a replay of them wrote, it writes what kube-apiserver would have logged
// at RequestResponse level had Kueue made those decisions: the objects created by an admin, the
// Workloads created by the job controller, Kueue's status patches (admission, eviction,
// requeue, deactivation, finish), deletions; each request as a RequestReceived and a
// ResponseComplete line, with user info, managedFields and server metadata. Optional noise:
// leases, pod reads, Secrets and ConfigMaps carrying canary values, a 409 conflict before some
// status patches, a denied anonymous request.
//
// `tally import audit` on the result, replayed with `--verify`, must find zero differences: the
// round trip tests the importer on logs that look like a real API server's.
//
// Deterministic: the same inputs and seed give the same bytes. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"

namespace replay {

struct AuditLogOptions {
  std::vector<std::string> manifests;
  std::string events;
  std::string decisions;
  std::string api_version = "audit.k8s.io/v1";  // or audit.k8s.io/v1beta1
  bool noise = true;
  uint64_t seed = 1;
};

struct AuditLog {
  std::vector<std::string> lines;  // in stageTimestamp order, no newline
  int64_t requests = 0;            // ResponseComplete lines
  int64_t skipped_events = 0;      // events of kinds an API server audit log would not hold
};

engine::StatusOr<AuditLog> MakeAuditLog(const AuditLogOptions& options);

// Writes `log` to `path`, or with `max_lines` > 0 to rotated files as kube-apiserver's log
// rotation names them: the newest part at `path`, older parts at `<stem>-<time>.<ext>` (time of
// the part's last line, `2006-01-02T15-04-05.000`). Returns the files written, oldest first.
engine::StatusOr<std::vector<std::string>> WriteAuditLog(const AuditLog& log,
                                                         const std::string& path,
                                                         int64_t max_lines);

// The command: writes the log to `out` (rotated with `max_lines` > 0), prints what it wrote.
int RunAuditLog(const AuditLogOptions& options, const std::string& out, int64_t max_lines);

}  // namespace replay
