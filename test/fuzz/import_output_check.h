// File: test/fuzz/import_output_check.h
//
// What every importer's output must be, whatever its input: rows read = used + skipped, a bounded
// error list, manifests that are YAML, and events that tally's own reader takes line by line
// without a single error (an importer never writes a trace that replay would reject).
#pragma once

#include "replay/import/import_common.h"
#include "replay/io/event_reader.h"
#include "replay/io/yaml_syntax.h"
#include "test/fuzz/fuzz_support.h"

namespace tally_fuzz {

inline void CheckImportOutput(const engine::StatusOr<replay::ImportOutput>& out) {
  if (!out.ok()) {
    return;
  }
  FUZZ_CHECK(out->counts.used + out->counts.skipped() == out->counts.read);
  FUZZ_CHECK(out->counts.first_errors.size() <= replay::ImportCounts::kMaxListedErrors);
  FUZZ_CHECK(!replay::FindYamlSyntaxError(out->manifests).has_value());

  static ScratchFile events_file("imported-events.jsonl");
  replay::EventReader reader;
  FUZZ_CHECK(reader.Open(events_file.Write(out->events)).ok());
  replay::TraceEvent event;
  replay::EventError error;
  for (;;) {
    const replay::ReadResult r = reader.Next(event, error);
    if (r == replay::ReadResult::kEnd) {
      break;
    }
    if (r == replay::ReadResult::kError) {
      std::fprintf(stderr, "imported event rejected: %s\n", error.ToString().c_str());
    }
    FUZZ_CHECK(r == replay::ReadResult::kEvent);
  }
}

}  // namespace tally_fuzz
