// File: replay/report/run_id_check.h
//
// Whether the files of a `tally replay` output directory come from one run. Each carries the run
// id, the digest of decisions.jsonl (replay/io/content_digest.h): report.json as "runId",
// metrics.prom as tally_run_info{run_id="..."}, report.html as <meta name="tally-run-id">, and
// decisions.jsonl by its own content. `tally diff` and `gate` compare only what agrees: a file
// copied in from another run, a decisions.jsonl cut short or edited, or a report written before
// run ids existed is refused, with the file named.
#pragma once

#include <optional>
#include <string>

#include "engine/base/status.h"

namespace replay {

// `run_id`: report.json's runId (empty: it has none, an error). `decisions_digest`: the digest of
// decisions.jsonl when the caller already read it; otherwise the file, when present, is read here.
// metrics.prom and report.html are checked when present (a user may delete either).
engine::Status CheckRunIdsAgree(const std::string& dir, const std::string& run_id,
                                const std::optional<std::string>& decisions_digest);

// The digest of a plain or gzip file's uncompressed bytes, as hex.
engine::StatusOr<std::string> DigestOfFile(const std::string& path);

}  // namespace replay
