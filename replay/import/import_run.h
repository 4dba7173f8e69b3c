// File: replay/import/import_run.h
//
// `tally import SOURCE ...` (docs/import.md): turns recorded history into tally's inputs. Writes
// OUT/manifests.yaml, OUT/events.jsonl and OUT/import.json (counts of rows read / used / skipped by
// reason, the first errors in full, and the mapping notes), and prints the same summary.
// Exit status: 0 when the input was read (rows skipped are counted, and fail only with --strict),
// 1 when it could not be read or (--strict) a row was skipped, 2 for bad flags.
#pragma once

#include <string>

#include "replay/import/alibaba_dlrm_import.h"
#include "replay/import/alibaba_gpu_import.h"
#include "replay/import/audit_import.h"
#include "replay/import/philly_import.h"

namespace replay {

struct ImportCommandOptions {
  std::string out = "tally-import";
  bool strict = false;
};

int RunImportAudit(const AuditImportOptions& audit, const ImportCommandOptions& options);
int RunImportAlibabaGpu(const AlibabaGpuImportOptions& alibaba,
                        const ImportCommandOptions& options);
int RunImportAlibabaDlrm(const AlibabaDlrmImportOptions& dlrm, const ImportCommandOptions& options);
int RunImportPhilly(const PhillyImportOptions& philly, const ImportCommandOptions& options);

}  // namespace replay
