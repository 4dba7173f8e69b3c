// report.html (docs/report.md): one self-contained page, assembled here from its sections.
// Everything is inline — CSS in <style>, charts as inline <svg> (html_chart.h, html_plots.h), the
// table sort as one small <script> (html_table.h) — and there is no URL, so the file opens offline
// and cannot leak a request. Every name from the input goes through MarkupEscape.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/io/time_parse.h"
#include "replay/report/html_chart.h"
#include "replay/report/html_page.h"
#include "replay/report/html_plots.h"
#include "replay/report/html_table.h"
#include "replay/report/report_writers.h"

namespace replay {

namespace internal {

std::string MarkupEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += fmt::format("&#{};", static_cast<int>(c));  // kept in attribute values too
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no way to write these
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace internal

namespace {

using internal::AmountCell;
using internal::FormatSecondsShort;
using internal::HtmlCell;
using internal::HtmlTable;
using internal::IntCell;
using internal::MarkupEscape;

// For the key/value tables, which do not sort.
std::string Int(int64_t v) {
  return fmt::format("{}", v);
}

std::string Wait(const WaitStats& w, double v) {
  return w.count == 0 ? std::string("-") : FormatSecondsShort(v);
}

HtmlCell WaitCell(const WaitStats& w, double v) {
  return {Wait(w, v), w.count == 0 ? std::numeric_limits<double>::quiet_NaN() : v};
}

void WaitTable(std::string& out, std::string_view what, const std::vector<GroupWaits>& groups) {
  if (groups.empty()) {
    return;
  }
  out += fmt::format("<h3>by {}</h3>\n", what);
  HtmlTable t(out, {what, "admitted", "mean", "p50", "p90", "p99", "max"}, {true});
  for (const GroupWaits& g : groups) {
    const WaitStats& w = g.stats;
    t.Row({g.name.empty() ? "(none)" : MarkupEscape(g.name), IntCell(w.count), WaitCell(w, w.mean),
           WaitCell(w, w.p50), WaitCell(w, w.p90), WaitCell(w, w.p99), WaitCell(w, w.max)});
  }
}

void AppendSummary(std::string& out, const ReplayReport& r) {
  out += "<h2>Summary</h2>\n";
  HtmlTable t(out, {"", ""}, {true, false});
  t.Row({"virtual time",
         fmt::format("{} &rarr; {} ({}){}", FormatRfc3339(r.start_time), FormatRfc3339(r.end_time),
                     FormatDuration(std::max<int64_t>(0, r.end_time - r.start_time)),
                     r.truncated ? ", truncated by --until" : "")});
  t.Row({"events read = applied + rejected",
         fmt::format("{} = {} + {}", r.events_read, r.events_applied, r.events_rejected)});
  for (const auto& [reason, n] : r.rejected_by_reason) {
    t.Row({fmt::format("&nbsp;&nbsp;rejected: {}", MarkupEscape(reason)), Int(n)});
  }
  t.Row({"workloads created", Int(r.workloads_created)});
  t.Row({"&nbsp;&nbsp;already admitted in the trace", Int(r.workloads_initially_admitted)});
  t.Row({"workloads admitted at least once", Int(r.workloads_admitted)});
  t.Row({"admissions", Int(r.admissions)});
  t.Row({"preemptions", Int(r.preemptions)});
  for (const auto& [reason, n] : r.evictions_by_reason) {
    t.Row({fmt::format("&nbsp;&nbsp;evicted: {}", MarkupEscape(reason)), Int(n)});
  }
  t.Row({"requeues", Int(r.requeues)});
  t.Row({"deactivated", Int(r.deactivated)});
  t.Row({"finished", Int(r.finished)});
  t.Row({"deleted", Int(r.deleted)});
  t.Row({"pending at end", Int(r.pending_at_end)});
  t.Row({"running at end", Int(r.running_at_end)});
  t.Row({"scheduling cycles", Int(r.cycles)});
  const WaitStats& w = r.wait_overall;
  t.Row({"time to admission (mean / p50 / p90 / p99 / max)",
         fmt::format("{} / {} / {} / {} / {}", Wait(w, w.mean), Wait(w, w.p50), Wait(w, w.p90),
                     Wait(w, w.p99), Wait(w, w.max))});
}

void AppendClusterQueuesHtml(std::string& out, const ReplayReport& r) {
  if (r.cluster_queues.empty()) {
    return;
  }
  std::map<std::string_view, const WaitStats*> waits;
  for (const GroupWaits& g : r.wait_by_cluster_queue) {
    waits[g.name] = &g.stats;
  }
  out += "<h2>ClusterQueues</h2>\n";
  HtmlTable t(out,
              {"ClusterQueue", "admitted", "preempted", "pending at end", "running at end",
               "wait p50", "p90", "p99", "max", "utilisation", "of"},
              {true, false, false, false, false, false, false, false, false, false, true});
  static const WaitStats no_waits;
  const auto mains = internal::MainResources(r);
  for (const CqCounts& cq : r.cluster_queues) {
    auto it = waits.find(cq.name);
    const WaitStats& w = it == waits.end() ? no_waits : *it->second;
    const auto main_it = mains.find(cq.name);
    const ResourceUsage* main = main_it == mains.end() ? nullptr : main_it->second;
    t.Row(
        {MarkupEscape(cq.name), IntCell(cq.admitted), IntCell(cq.preempted),
         IntCell(cq.pending_at_end), IntCell(cq.running_at_end), WaitCell(w, w.p50),
         WaitCell(w, w.p90), WaitCell(w, w.p99), WaitCell(w, w.max),
         internal::PercentCell(main ? main->utilisation : std::numeric_limits<double>::quiet_NaN()),
         main ? MarkupEscape(fmt::format("{}/{}", main->flavor, main->resource)) : ""});
  }
}

void AppendUsage(std::string& out, const ReplayReport& r) {
  if (r.usage.empty()) {
    return;
  }
  out +=
      "<h2>Usage</h2>\n<p class=\"note\">Time-weighted over the replay; cpu in cores, memory "
      "in binary units (GiB = 2<sup>30</sup> bytes), GPUs in devices, other resources in "
      "units.</p>\n";
  HtmlTable t(out,
              {"ClusterQueue", "flavor", "resource", "nominal", "mean usage", "mean borrowed",
               "utilisation", "peak", "at end"},
              {true, true, true});
  for (const ResourceUsage& u : r.usage) {
    t.Row({MarkupEscape(u.cluster_queue), MarkupEscape(u.flavor), MarkupEscape(u.resource),
           AmountCell(u.resource, static_cast<double>(u.nominal)),
           AmountCell(u.resource, u.mean_usage), AmountCell(u.resource, u.mean_borrowed),
           internal::PercentCell(u.utilisation),
           AmountCell(u.resource, static_cast<double>(u.peak_usage)),
           AmountCell(u.resource, static_cast<double>(u.usage_at_end))});
  }
}

// Seed 001: each class's devices over time, and what quota alone would have admitted.
void AppendResourceClasses(std::string& out, const ReplayReport& r) {
  const ReplayReport::ResourceClasses& rc = r.resource_classes;
  if (!rc.enabled) {
    return;
  }
  out +=
      "<h2>Resource classes</h2>\n<p class=\"note\">Devices, per ResourceClass: allocatable = "
      "devices the class selects on all nodes; requested = of those, allocated to admitted "
      "workloads (whichever class they asked for).</p>\n";
  {
    HtmlTable t(out, {"class", "allocatable at end", "requested at end", "peak requested"},
                {true, false, false, false});
    for (const ReplayReport::ResourceClassFigures& c : rc.classes) {
      t.Row({MarkupEscape(c.name), IntCell(c.allocatable_at_end), IntCell(c.requested_at_end),
             IntCell(c.peak_requested)});
    }
  }
  for (const ReplayReport::ResourceClassFigures& c : rc.classes) {
    out += fmt::format("<h3>{}</h3>\n<div class=\"plots\">\n", MarkupEscape(c.name));
    const double t0 = r.sample_times.empty() ? 0 : r.sample_times.front();
    const double t1 = r.sample_times.empty() ? 0 : r.sample_times.back();
    internal::AppendChart(
        out,
        {.title = "allocatable devices",
         .x_title = "virtual time since the first event",
         .y_title = "devices",
         .x_min = t0,
         .x_max = t1},
        {{c.name, "#2c9a5a", internal::SampledPoints(r.sample_times, c.allocatable)}});
    internal::AppendChart(
        out,
        {.title = "requested devices",
         .x_title = "virtual time since the first event",
         .y_title = "devices",
         .x_min = t0,
         .x_max = t1},
        {{c.name, "#2f6fd0", internal::SampledPoints(r.sample_times, c.requested)}});
    out += "</div>\n";
  }
  out += fmt::format(
      "<p>Workloads that quota alone would have admitted but devices did not (at least once): "
      "<b>{}</b></p>\n",
      rc.devices_short.size());
  if (!rc.devices_short.empty()) {
    constexpr size_t kListed = 100;
    std::string names;
    size_t listed = 0;
    for (const std::string& key : rc.devices_short) {
      if (listed == kListed) {
        break;
      }
      names += fmt::format("{}{}", listed == 0 ? "" : ", ", MarkupEscape(key));
      ++listed;
    }
    out += fmt::format("<p class=\"note\">{}{}</p>\n", names,
                       rc.devices_short.size() > kListed
                           ? fmt::format(" ... and {} more.", rc.devices_short.size() - kListed)
                           : std::string());
  }
}

void AppendWaits(std::string& out, const ReplayReport& r) {
  out +=
      "<h2>Time to admission</h2>\n<p class=\"note\">From creation to admission, "
      "in virtual time.</p>\n";
  WaitTable(out, "class", r.wait_by_class);
  WaitTable(out, "priority", r.wait_by_priority);
  WaitTable(out, "LocalQueue", r.wait_by_local_queue);
}

// Seed 002 (docs/fallback.md): what report.json's `outcomes.fallbacks` holds, for people (issue
// 24: the time to start and the quota wasted in fallback were in report.json only).
void AppendFallbacks(std::string& out, const ReplayReport& r) {
  const ReplayReport::Fallbacks& f = r.fallbacks;
  if (!f.enabled) {
    return;
  }
  out +=
      "<h2>Flavor fallbacks</h2>\n<p class=\"note\">Time to start runs from creation to the "
      "first PodsReady: what a stockout delays and a fallback saves (time to admission does not "
      "see it). Wasted quota: what attempts that fell back held, amount &times; time.</p>\n";
  const WaitStats& w = f.time_to_start;
  {
    HtmlTable summary(out, {"", ""}, {true, false});
    summary.Row({"started", Int(w.count)});
    summary.Row({"time to start p50 / p90 / p99 / max",
                 fmt::format("{} / {} / {} / {}", Wait(w, w.p50), Wait(w, w.p90), Wait(w, w.p99),
                             Wait(w, w.max))});
    summary.Row({"attempts ended by a flavor's timeout", Int(f.timeouts)});
    summary.Row({"attempts ended by an AdmissionCheck rejection", Int(f.check_rejections)});
    summary.Row({"every flavor failed: deactivated", Int(f.exhausted)});
    summary.Row({"every flavor failed: retried from the first", Int(f.retries)});
  }
  if (!f.by_flavor.empty()) {
    HtmlTable t(out, {"fell back from flavor", "attempts"}, {true});
    for (const auto& [flavor, n] : f.by_flavor) {
      t.Row({MarkupEscape(flavor), IntCell(n)});
    }
  }
  if (!f.wasted_quota_seconds.empty()) {
    HtmlTable t(out, {"wasted quota: flavor/resource", "amount &times; hours"}, {true});
    for (const auto& [key, seconds] : f.wasted_quota_seconds) {
      t.Row({MarkupEscape(key), HtmlCell(fmt::format("{:.4g}", seconds / 3600), seconds / 3600)});
    }
  }
}

void AppendErrors(std::string& out, const ReplayReport& r) {
  if (r.errors.empty() && r.errors_not_listed == 0) {
    return;
  }
  out += "<h2>Rejected events</h2>\n<ul class=\"errors\">\n";
  for (const std::string& e : r.errors) {
    out += fmt::format("<li>{}</li>\n", MarkupEscape(e));
  }
  out += "</ul>\n";
  if (r.errors_not_listed > 0) {
    out += fmt::format("<p class=\"note\">... and {} more not listed.</p>\n", r.errors_not_listed);
  }
}

void AppendWarnings(std::string& out, const ReplayReport& r) {
  if (r.warnings.empty()) {
    return;
  }
  out +=
      "<h2>Warnings</h2>\n<p class=\"note\">The figures below ignore what these warnings name "
      "(settings tally does not model, fields it does not read).</p>\n<ul class=\"errors\">\n";
  for (const std::string& w : r.warnings) {
    out += fmt::format("<li>{}</li>\n", MarkupEscape(w));
  }
  out += "</ul>\n";
}

void AppendEngineHtml(std::string& out, const ReplayReport& r) {
  out += "<h2>Engine cost</h2>\n";
  if (!r.timings) {
    out += "<p class=\"note\">Timings off (--no-timings): no wall-clock figures.</p>\n";
    return;
  }
  HtmlTable t(out, {"", ""}, {true, false});
  t.Row({"wall time", fmt::format("{:.3f} s", r.wall_seconds)});
  t.Row({"events per second", fmt::format("{:.0f}", r.events_per_second)});
  t.Row({"decisions", Int(r.decisions)});
  t.Row({"decision latency p50 / p90 / p99 / max",
         fmt::format("{:.0f} ns / {:.0f} ns / {:.0f} ns / {} ns", r.decision_latency_p50_ns,
                     r.decision_latency_p90_ns, r.decision_latency_p99_ns,
                     r.decision_latency_max_ns)});
  t.Row({"peak RSS", fmt::format("{:.1f} MiB", static_cast<double>(r.peak_rss_bytes) / 1048576.0)});
}

}  // namespace

std::string FormatReportHtml(const ReplayReport& report) {
  std::string out;
  // The run id is read back by tally diff and gate (replay_outputs.h).
  internal::AppendPageStart(
      out, "tally replay report",
      report.run_id.empty() ? std::string()
                            : "<meta name=\"tally-run-id\" content=\"" + report.run_id + "\">\n");
  out += "<h1>tally replay report</h1>\n<p class=\"mode\">";
  out += report.mode == "policy-only" ? "policy-only: no control-plane latency modelled"
                                      : fmt::format("{} model", MarkupEscape(report.mode));
  const char* sep = report.mode == "policy-only" ? "; settings: " : ": ";
  for (const auto& [key, value] : report.model) {
    out += fmt::format("{}{}={}", sep, MarkupEscape(key), MarkupEscape(value));
    sep = ", ";
  }
  out += "</p>\n";
  AppendWarnings(out, report);
  AppendSummary(out, report);
  AppendClusterQueuesHtml(out, report);
  internal::AppendWaitCdf(out, report);
  internal::AppendUtilisation(out, report);
  internal::AppendFlavorUtilisation(out, report);
  internal::AppendClusterQueuePlots(out, report);
  AppendResourceClasses(out, report);
  AppendWaits(out, report);
  AppendFallbacks(out, report);
  AppendUsage(out, report);
  AppendErrors(out, report);
  AppendEngineHtml(out, report);
  internal::AppendPageEnd(out);
  return out;
}

}  // namespace replay
