// `tally diff A B -o html` (docs/diff-and-gate.md): the "what changed" page. One self-contained
// HTML file, built like report.html (the same style sheet, inline SVG charts, sortable tables, no
// URL): what moved between two replays of the same trace, worst first.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/io/time_parse.h"
#include "replay/report/html_chart.h"
#include "replay/report/html_page.h"
#include "replay/report/html_table.h"
#include "replay/report/report_writers.h"
#include "replay/sweep/diff.h"

namespace replay {

namespace {

using internal::AmountCell;
using internal::FormatSecondsShort;
using internal::HtmlCell;
using internal::HtmlTable;
using internal::IntCell;
using internal::MarkupEscape;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Rows of the per-quota table; the rest are counted in a note.
constexpr size_t kMaxUsageRows = 200;

// A change, red when B is worse and green when B is better if lower is better (waits, pending
// workloads); sorts by the signed value.
HtmlCell Change(double change, bool integer, bool lower_is_better) {
  std::string_view cls;
  if (lower_is_better && change > 0) {
    cls = "worse";
  } else if (lower_is_better && change < 0) {
    cls = "better";
  }
  std::string text = MarkupEscape(SignedChange(change, integer));
  if (!cls.empty()) {
    text = fmt::format("<span class=\"{}\">{}</span>", cls, text);
  }
  return {std::move(text), change};
}

HtmlCell Seconds(double v, bool present) {
  return present ? HtmlCell(FormatSecondsShort(v), v) : HtmlCell("-", kNaN);
}

HtmlCell Relative(double relative) {
  return {MarkupEscape(RelativeChange(relative)), relative};
}

void AppendRuns(std::string& out, const ReplayDiff& d) {
  HtmlTable t(out, {"", "directory", "trace", "mode", "start"}, {true, true, true, true, true});
  t.Row({"A", MarkupEscape(d.dir_a), MarkupEscape(d.trace_a), MarkupEscape(d.mode_a),
         MarkupEscape(d.start_a)});
  t.Row({"B", MarkupEscape(d.dir_b), MarkupEscape(d.trace_b), MarkupEscape(d.mode_b),
         MarkupEscape(d.start_b)});
}

void AppendOutcomes(std::string& out, const ReplayDiff& d) {
  out += "<h2>Outcomes</h2>\n";
  HtmlTable t(out, {"outcome", "A", "B", "change", "relative"}, {true});
  for (const auto& [name, delta] : d.outcomes) {
    const bool lower_is_better = name == "preemptions" || name == "evictions"
                                 || name == "pendingAtEnd" || name == "deactivated";
    t.Row({MarkupEscape(name), IntCell(static_cast<int64_t>(delta.a)),
           IntCell(static_cast<int64_t>(delta.b)), Change(delta.change(), true, lower_is_better),
           Relative(delta.relative())});
  }
}

void AppendOverallWaits(std::string& out, std::string_view title, const WaitDelta& w) {
  out += fmt::format("<h3>{}</h3>\n", title);
  HtmlTable t(out, {"statistic", "A", "B", "change", "relative"}, {true});
  const std::pair<std::string_view, const Delta*> rows[] = {{"count", &w.count}, {"mean", &w.mean},
                                                            {"p50", &w.p50},     {"p90", &w.p90},
                                                            {"p99", &w.p99},     {"max", &w.max}};
  for (const auto& [name, delta] : rows) {
    const bool count = name == "count";
    t.Row({std::string(name),
           count ? IntCell(static_cast<int64_t>(delta->a)) : Seconds(delta->a, w.in_a),
           count ? IntCell(static_cast<int64_t>(delta->b)) : Seconds(delta->b, w.in_b),
           Change(delta->change(), count, !count), Relative(delta->relative())});
  }
}

// The fraction of moved workloads whose first admission moved by at most x, on a log axis: one
// line for those admitted earlier in B, one for those admitted later.
void AppendChangeDistribution(std::string& out, const ReplayDiff& d) {
  std::vector<double> earlier;
  std::vector<double> later;
  for (double s : d.admission_changes_seconds) {
    (s < 0 ? earlier : later).push_back(std::abs(s));
  }
  if (earlier.empty() && later.empty()) {
    return;
  }
  std::sort(earlier.begin(), earlier.end());
  std::sort(later.begin(), later.end());
  const double longest =
      std::max(earlier.empty() ? 0.0 : earlier.back(), later.empty() ? 0.0 : later.back());
  const double axis_end = internal::LogTimeAxisEnd(longest);
  // A step CDF, at most kMaxChartPoints points: a change under 1 s counts at 1 s (the axis start).
  auto cdf = [](const std::vector<double>& v) {
    std::vector<std::pair<double, double>> points;
    const size_t n = v.size();
    const size_t step = std::max<size_t>(1, n / internal::kMaxChartPoints);
    for (size_t i = 0; i < n; i += step) {
      size_t last = std::min(n, i + step) - 1;
      points.emplace_back(std::max(1.0, v[last]),
                          static_cast<double>(last + 1) / static_cast<double>(n));
    }
    return points;
  };
  std::vector<internal::ChartLine> lines;
  lines.push_back(
      {fmt::format("admitted earlier in B ({})", earlier.size()), "#1b7f3b", cdf(earlier), false});
  lines.push_back(
      {fmt::format("admitted later in B ({})", later.size()), "#b3261e", cdf(later), false});
  out += fmt::format(
      "<p class=\"note\">{} workloads admitted in both runs were first admitted at a different "
      "time: the fraction of them whose first admission moved by at most a given time, "
      "earlier and later apart (a move under 1s counts at 1s).</p>\n<div class=\"plots\">\n",
      d.admission_changes_seconds.size());
  internal::AppendChart(out,
                        {.title = "change in first admission, cumulative",
                         .x_title = "|B − A| (log scale)",
                         .y_title = "moved by at most (% of those moved)",
                         .x = internal::XAxis::kLogSeconds,
                         .y = internal::YAxis::kRatio,
                         .x_min = 1,
                         .x_max = axis_end,
                         .wide = true},
                        lines);
  out += "</div>\n";
}

// Per ClusterQueue or class: admissions, mean and p90 in both, the worst change in mean first.
void AppendGroupWaits(std::string& out, std::string_view what, std::vector<WaitDelta> groups) {
  if (groups.empty()) {
    return;
  }
  auto change = [](const WaitDelta& w) {
    const double c = w.mean.change();
    return std::isnan(c) ? -std::numeric_limits<double>::infinity() : c;
  };
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const WaitDelta& x, const WaitDelta& y) { return change(x) > change(y); });
  out += fmt::format("<h3>by {} (largest increase in mean first)</h3>\n", what);
  HtmlTable t(out,
              {what, "admitted A", "admitted B", "mean A", "mean B", "mean change", "p90 A",
               "p90 B", "p90 change"},
              {true});
  for (const WaitDelta& w : groups) {
    std::string name = w.name.empty() ? std::string("(none)") : MarkupEscape(w.name);
    if (!w.in_a) {
      name += " <span class=\"note\">(B only)</span>";
    } else if (!w.in_b) {
      name += " <span class=\"note\">(A only)</span>";
    }
    const bool both = w.in_a && w.in_b;
    t.Row({std::move(name), IntCell(static_cast<int64_t>(w.count.a)),
           IntCell(static_cast<int64_t>(w.count.b)), Seconds(w.mean.a, w.in_a),
           Seconds(w.mean.b, w.in_b), both ? Change(w.mean.change(), false, true) : "-",
           Seconds(w.p90.a, w.in_a), Seconds(w.p90.b, w.in_b),
           both ? Change(w.p90.change(), false, true) : "-"});
  }
}

void AppendUsage(std::string& out, const ReplayDiff& d) {
  if (d.usage.empty()) {
    return;
  }
  std::vector<const UsageDelta*> rows;
  rows.reserve(d.usage.size());
  for (const UsageDelta& u : d.usage) {
    rows.push_back(&u);
  }
  // Quota edits first, then the largest moves in utilisation.
  std::stable_sort(rows.begin(), rows.end(), [](const UsageDelta* x, const UsageDelta* y) {
    const bool ex = x->nominal.a != x->nominal.b;
    const bool ey = y->nominal.a != y->nominal.b;
    if (ex != ey) {
      return ex;
    }
    return std::abs(x->utilisation.change()) > std::abs(y->utilisation.change());
  });
  out +=
      "<h2>Quota and utilisation</h2>\n<p class=\"note\">Utilisation is mean usage over "
      "nominal quota across the replay. Changed quotas first, then the largest moves.";
  if (rows.size() > kMaxUsageRows) {
    out += fmt::format(" The first {} of {} rows.", kMaxUsageRows, rows.size());
    rows.resize(kMaxUsageRows);
  }
  out += "</p>\n";
  HtmlTable t(out,
              {"ClusterQueue", "flavor", "resource", "nominal A", "nominal B", "utilisation A",
               "utilisation B", "change (points)"},
              {true, true, true});
  for (const UsageDelta* u : rows) {
    const double points = u->utilisation.change() * 100;
    t.Row({MarkupEscape(u->cluster_queue), MarkupEscape(u->flavor), MarkupEscape(u->resource),
           AmountCell(u->resource, u->nominal.a), AmountCell(u->resource, u->nominal.b),
           internal::PercentCell(u->utilisation.a), internal::PercentCell(u->utilisation.b),
           HtmlCell(fmt::format("{:+.1f}", points), points)});
  }
}

void AppendWorkloadList(std::string& out, std::string_view title,
                        const std::vector<WorkloadChange>& rows, int64_t start) {
  if (rows.empty()) {
    return;
  }
  out += fmt::format("<h3>{} ({} listed)</h3>\n", title, rows.size());
  HtmlTable t(out,
              {"workload", "ClusterQueue", "A admitted at", "B admitted at", "change", "flavors A",
               "flavors B", "fate A", "fate B"},
              {true, true, false, false, false, true, true, true, true});
  auto at = [&](int64_t micros) -> HtmlCell {
    if (micros == kNeverAdmitted) {
      return {"-", kNaN};
    }
    return {SinceStart(micros, start), static_cast<double>(micros - start) / 1e6};
  };
  for (const WorkloadChange& c : rows) {
    const bool both = c.admitted_a != kNeverAdmitted && c.admitted_b != kNeverAdmitted;
    t.Row({MarkupEscape(c.workload), MarkupEscape(c.cluster_queue), at(c.admitted_a),
           at(c.admitted_b), both ? Change(c.wait_change_seconds(), false, true) : "-",
           MarkupEscape(c.flavors_a.empty() ? "-" : c.flavors_a),
           MarkupEscape(c.flavors_b.empty() ? "-" : c.flavors_b), MarkupEscape(c.fate_a),
           MarkupEscape(c.fate_b)});
  }
}

void AppendWorkloads(std::string& out, const ReplayDiff& d) {
  out += "<h2>Workloads</h2>\n";
  {
    HtmlTable t(out, {"", ""}, {true, false});
    t.Row({"in either decisions log", IntCell(d.workloads_compared)});
    t.Row({"admitted in both", IntCell(d.admitted_both)});
    t.Row({"admitted in A only", IntCell(d.admitted_only_a)});
    t.Row({"admitted in B only", IntCell(d.admitted_only_b)});
    t.Row({"first admission moved", IntCell(d.admission_time_changed)});
    t.Row({"flavor changed", IntCell(d.flavor_changed)});
    t.Row({"fate changed", IntCell(d.fate_changed)});
  }
  AppendChangeDistribution(out, d);
  engine::StatusOr<int64_t> start = ParseRfc3339(d.start_a);
  const int64_t t0 = start.ok() ? *start : 0;
  out += "<p class=\"note\">Times are since A's start.</p>\n";
  AppendWorkloadList(out, "largest changes in time to admission", d.top_changed, t0);
  AppendWorkloadList(out, "same admission time, flavor or fate changed", d.other_changed, t0);
  AppendWorkloadList(out, "admitted in A only", d.only_a, t0);
  AppendWorkloadList(out, "admitted in B only", d.only_b, t0);
}

}  // namespace

std::string FormatDiffHtml(const ReplayDiff& d) {
  std::string out;
  internal::AppendPageStart(out, "tally diff: what changed");
  out += "<h1>What changed from A to B</h1>\n";
  AppendRuns(out, d);
  if (!d.warnings.empty()) {
    out += "<ul class=\"errors\">\n";
    for (const std::string& w : d.warnings) {
      out += fmt::format("<li>warning: {}</li>\n", MarkupEscape(w));
    }
    out += "</ul>\n";
  }
  AppendOutcomes(out, d);
  out += "<h2>Time to admission</h2>\n";
  AppendOverallWaits(out, "overall", d.overall);
  if (d.time_to_start.has_value()) {
    AppendOverallWaits(out, "time to start (creation to pods ready)", *d.time_to_start);
  }
  AppendGroupWaits(out, "ClusterQueue", d.by_cluster_queue);
  const bool classes =
      d.by_class.size() > 1 || (d.by_class.size() == 1 && !d.by_class[0].name.empty());
  if (classes) {
    AppendGroupWaits(out, "class", d.by_class);
  }
  AppendUsage(out, d);
  AppendWorkloads(out, d);
  internal::AppendPageEnd(out);
  return out;
}

}  // namespace replay
