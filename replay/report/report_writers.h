// File: replay/report/report_writers.h
//
// The four outputs of `tally replay`, each formatted from a ReplayReport
// (replay/sim/replay_report.h) that the simulator filled. The writers only format: they compute
// nothing that changes a figure, except unit conversions and rounding for display. Formats are in
// docs/report.md.
//
//   ReplayReport report = ...;                  // from the simulator
//   WriteFile(dir / "report.json", FormatReportJson(report));
//   std::fputs(FormatSummaryText(report).c_str(), stdout);
//   WriteFile(dir / "report.html", FormatReportHtml(report));
//   WriteFile(dir / "metrics.prom", FormatPrometheus(report));
//
// Determinism: every writer is a pure function of the report. Lists keep the report's order, maps
// are written in key order, numbers use fixed locale-independent formats. With
// `report.timings == false` every engine (wall clock) figure is written as 0, so two replays of the
// same input give byte-identical files.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "replay/sim/replay_report.h"

namespace replay {

// The report.json version this tally writes and reads (docs/report.md).
inline constexpr int kReportSchemaVersion = 1;

// report.json: one line of JSON, `{"schemaVersion":1,...}`, keys sorted (byte order) at every
// level. Non-integral numbers are rounded to 6 significant digits; NaN and infinities are written
// as null.
std::string FormatReportJson(const ReplayReport& report);

// The human summary printed on stdout: mode, the manifests' warnings (one line each, however long),
// virtual time span, input counters, outcomes, one row
// per ClusterQueue (the 20 with most admissions when there are more), per class when the trace has
// classes, and the engine cost. Lines are at most 100 columns.
std::string FormatSummaryText(const ReplayReport& report);

// report.html: one self-contained page (inline CSS and SVG, one inline script that sorts the
// tables, no external resource) with the summary tables (those with a header row sort), the
// time-to-admission CDF, utilisation over time, nominal quota by flavor over time (stacked: own,
// lent, idle, borrowed from cohort) and, per ClusterQueue (the 12 whose workloads waited longest
// when there are more), charts over virtual time of pending workloads, utilisation and mean
// time-to-admission.
std::string FormatReportHtml(const ReplayReport& report);

// metrics.prom: Prometheus text exposition format (version 0.0.4) under Kueue's metric names and
// labels (pkg/metrics/metrics.go), values at the end of the replay.
std::string FormatPrometheus(const ReplayReport& report);

namespace internal {

// Helpers shared by the writers (and tested on their own).

// "850ms", "12.3s", "4.5m", "2.25h", "3.1d": at most 7 characters for any duration under 10^5
// days; "-" for NaN.
std::string FormatSecondsShort(double seconds);
// Text safe in HTML and XML element content and quoted attributes (report.html, tally gate's
// JUnit XML): &, <, >, " and ' as entities, tab/newline/CR as character references, other
// control characters (which XML 1.0 cannot carry) as U+FFFD.
std::string MarkupEscape(std::string_view text);
// A Prometheus label value: backslash, double quote and line feed escaped.
std::string PrometheusLabelEscape(std::string_view text);
// The (flavor, resource) row of `cluster_queue` with the highest utilisation among those with a
// nominal quota (ties: the first in report order), or nullptr when it has none.
const ResourceUsage* MainResource(const ReplayReport& report, std::string_view cluster_queue);
// MainResource of every ClusterQueue that has one, in one pass over the usage rows (a table of
// every ClusterQueue asking MainResource of each was quadratic: 1,000,000 name comparisons for
// Kueue's large-scale scenario).
std::unordered_map<std::string_view, const ResourceUsage*> MainResources(
    const ReplayReport& report);
// Amount in canonical units (cpu millicores) as the plain number Kueue shows: cpu in cores.
double KueueUnits(std::string_view resource, double canonical);

}  // namespace internal

}  // namespace replay
