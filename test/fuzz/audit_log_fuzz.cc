// File: test/fuzz/audit_log_fuzz.cc
//
// `tally import audit`: Kubernetes audit-log lines (JSON, one event each) into manifests and
// events. Every line is either used or counted as skipped under a reason; what it writes must be
// something tally reads back.
#include <cstdint>

#include "replay/import/audit_import.h"
#include "replay/io/yaml_syntax.h"
#include "test/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tally_fuzz::ScratchFile file("audit.log");
  replay::AuditImportOptions options;
  options.paths = {file.Write(tally_fuzz::AsText(data, size))};
  engine::StatusOr<replay::ImportOutput> out = replay::ImportAuditLogs(options);
  if (!out.ok()) {
    return 0;
  }
  FUZZ_CHECK(out->counts.used + out->counts.skipped() == out->counts.read);
  FUZZ_CHECK(out->counts.first_errors.size() <= replay::ImportCounts::kMaxListedErrors);
  // The manifests written are YAML (their validation may still complain: a log can hold
  // objects Kueue's webhooks would have refused).
  FUZZ_CHECK(!replay::FindYamlSyntaxError(out->manifests).has_value());
  return 0;
}
