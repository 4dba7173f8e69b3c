// File: replay/sweep/sweep_results.h
//
// What `tally sweep` leaves in its output directory and how `tally sweep` and `tally merge` show
// it (docs/sweep.md): DIR/sweep.json, the record of a sweep (or of one slice of it) with its
// variants, their status and the inputs' fingerprints; and the comparison table, one row per
// variant, read back from each variant's report.json.
//
//   engine::StatusOr<SweepRecord> r = LoadSweepRecord("tally-sweep");
//   std::vector<SweepRow> rows;
//   for (const SweepVariantRecord& v : r->variants)
//     if (v.status != VariantStatus::kOtherShard) rows.push_back(*LoadSweepRow("tally-sweep", v));
//   std::fputs(FormatSweepTable(*r, rows).c_str(), stdout);
//
// Determinism: the table and its JSON are pure functions of sweep.json's variant list and the
// variants' report.json, so a merge of slices prints the same bytes as the sweep run whole.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "replay/report/replay_outputs.h"
#include "replay/sweep/sweep_variants.h"

namespace replay {

enum class VariantStatus : uint8_t {
  kOk,          // replayed, outputs written
  kFailed,      // replayed, the replay failed (exit_code)
  kOtherShard,  // not replayed here: another slice's
};
const char* ToString(VariantStatus status);

struct SweepVariantRecord {
  int index = 0;
  std::string id;
  std::string label;
  std::string overlay;            // "" unless an overlay variant
  std::vector<std::string> sets;  // assignment labels, for --set variants
  VariantStatus status = VariantStatus::kOtherShard;
  int exit_code = 0;  // tally replay's exit status when kFailed
};

inline constexpr int kSweepSchemaVersion = 1;

struct SweepRecord {
  // Over the parts below: equal fingerprints mean the same sweep.
  std::string fingerprint;
  // "events", "manifests", "overlays", "sets", "settings": which input differs between slices.
  std::map<std::string, std::string> part_fingerprints;
  ShardSpec shard;
  std::string events;                           // --events as given
  std::vector<std::string> manifests;           // --manifests as given
  std::vector<std::string> overlays;            // --overlay as given
  std::vector<std::string> sets;                // --set as given
  std::map<std::string, std::string> settings;  // replay model flags as given
  std::vector<std::string> merged_from;         // tally merge --out: the slice directories
  std::vector<SweepVariantRecord> variants;     // every variant of the sweep, in order

  std::string Mode() const;  // "policy-only" or "control-plane"
};

// sweep.json: one line of JSON, keys sorted, and a newline.
std::string FormatSweepJson(const SweepRecord& record);
engine::StatusOr<SweepRecord> ParseSweepJson(std::string_view json, std::string_view name);
// DIR/sweep.json; errors say when DIR is not a sweep output.
engine::StatusOr<SweepRecord> LoadSweepRecord(const std::string& dir);

// One row of the comparison table.
struct SweepRow {
  SweepVariantRecord variant;
  ReportFigures figures;  // when variant.status is kOk
  // Mean of usage[].utilisation over the quotas with nominal > 0: `tally gate`'s utilisation.
  double utilisation = 0;
};

// DIR/variants/<id>/report.json of a variant with status kOk; a failed one gets no figures.
engine::StatusOr<SweepRow> LoadSweepRow(const std::string& dir, const SweepVariantRecord& variant);

// The table for people: a header line, one row per variant (a --set variant shown by its values),
// then the --set flags the values are for.
std::string FormatSweepTable(const SweepRecord& record, const std::vector<SweepRow>& rows);
// The same as one JSON object and a newline (keys sorted; numbers as in report.json).
std::string FormatSweepTableJson(const SweepRecord& record, const std::vector<SweepRow>& rows);

}  // namespace replay
