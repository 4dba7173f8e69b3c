// File: replay/import/import_common.h
//
// What every `tally import` source shares (docs/import.md): reading a plain or gzip input whole,
// splitting CSV rows, the counts of rows read / used / skipped by reason that every importer
// reports (they reconcile: read = used + skipped), splitting a quota between tenants, and writing
// the tally.events/v1 lines of the Workloads an importer derives.
//
// Thread safety: reentrant; no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "replay/import/csv_reader.h"

namespace replay {

// Splits one CSV line on commas (the public traces quote nothing; a field with a double quote is
// refused by the importers, not guessed at). A trailing '\r' is dropped.
std::vector<std::string_view> SplitCsvLine(std::string_view line);

// The importers' `--cohort NAME`: InvalidArgument unless NAME is a DNS-1123 label (a Cohort name).
engine::Status CheckCohortOption(std::string_view cohort);

// `text` as a whole decimal number (optional '-', then digits only); false when it is not one or
// does not fit an int64.
bool ParseWholeNumber(std::string_view text, int64_t& out);

// A stable 64-bit hash of a name, the same in every run and on every platform (FNV-1a with
// splitmix64's finalizer, so that sequential names do not fall round-robin): importers synthesize
// tenants as StableNameHash(name) % N where a trace has no tenant column.
uint64_t StableNameHash(std::string_view name);

// Rows read, used and skipped, with the first errors in full ("file:line: field: message").
struct ImportCounts {
  int64_t read = 0;  // data rows (not the header, not blank lines)
  int64_t used = 0;
  std::map<std::string, int64_t> skipped_by_reason;  // reason -> rows
  std::vector<std::string> first_errors;             // at most kMaxListedErrors
  static constexpr size_t kMaxListedErrors = 20;

  int64_t skipped() const;
  // Counts one skipped row under `reason` and keeps `detail` if fewer than the limit are listed.
  // An empty detail marks an expected skip (an audit line about another resource): counted, not
  // listed as an error.
  void Skip(const std::string& reason, std::string detail);
};

// Counts a CSV row longer than the reader's line limit as skipped ("line too long", with
// file:line and the flag that raises the limit).
void SkipTooLongRow(const CsvReader& csv, const CsvRow& row, ImportCounts& counts);

// Splits `total` units between tenants in proportion to `weights` (largest remainder, ties to the
// lower index): the parts sum to `total` exactly. All-zero weights split evenly.
std::vector<int64_t> SplitProportionally(int64_t total, const std::vector<double>& weights);

// The text of one single-pod-set Workload ADDED event of tally.events/v1 (docs/events.md),
// without the trailing newline.
struct ImportedWorkload {
  int64_t created_micros = 0;
  int64_t runtime_micros = -1;  // < 0: no runtime (runs until a DELETED event)
  std::string name;
  std::string namespace_name;
  std::string queue_name;
  std::string priority_class;  // "" for none
  int32_t priority = 0;        // the class's value, when priority_class is set
  int32_t pods = 1;
  std::vector<std::pair<std::string, std::string>> requests;  // per pod: resource -> quantity
  // Node affinity of the pod template: `key` In `values` (empty key: none).
  std::string affinity_key;
  std::vector<std::string> affinity_values;
  std::map<std::string, std::string> labels;
};
void AppendAddedEvent(const ImportedWorkload& w, std::string& out);
// The same Workload ADDED already admitted (it was running when the trace began): with
// status.admission in `cluster_queue`, every requested resource on `flavor` (resourceUsage = the
// requests x pods), and QuotaReserved and Admitted True since `w.created_micros`. The replay
// charges it at once, whatever its policy would have decided (docs/events.md).
struct ImportedAdmission {
  std::string cluster_queue;
  std::string flavor;
};
void AppendAdmittedAddedEvent(const ImportedWorkload& w, const ImportedAdmission& admission,
                              std::string& out);
// A DELETED event for namespace/name at `micros`.
void AppendDeletedEvent(int64_t micros, const std::string& namespace_name, const std::string& name,
                        std::string& out);

// What an importer makes of its input; `tally import` writes it to OUT/
// (replay/import/import_run.h).
struct ImportOutput {
  std::string manifests;  // multi-document YAML
  std::string events;     // tally.events/v1, header first, in time order
  ImportCounts counts;
  std::vector<std::string> notes;  // facts about the mapping, one line each, for the user
  // Further files for OUT/: name -> content (the audit importer's admissions.jsonl).
  std::vector<std::pair<std::string, std::string>> extra_files;
};

// The first line of a tally.events/v1 file.
inline constexpr std::string_view kEventsHeader = R"({"format":"tally.events","version":1})";

}  // namespace replay
