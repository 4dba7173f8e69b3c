// report.html (docs/report.md): one self-contained page. Everything is inline — CSS in <style>,
// plots as inline <svg> drawn here — and there is no script and no URL, so the file opens offline
// and cannot leak a request. Every name from the input goes through MarkupEscape.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/io/time_parse.h"
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

using internal::FormatSecondsShort;
using internal::MarkupEscape;

constexpr size_t kMaxPlottedClusterQueues = 12;
constexpr size_t kMaxPoints = 600;  // per plotted line; longer series are bucketed (max per bucket)
constexpr double kChartWidth = 320;
constexpr double kChartHeight = 150;
constexpr double kPadLeft = 48;
constexpr double kPadRight = 8;
constexpr double kPadTop = 20;
constexpr double kPadBottom = 22;

constexpr std::string_view kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2430}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d6de}
h3{font-size:14px;margin:16px 0 4px;font-family:ui-monospace,monospace}
p.mode{margin:0 0 12px;color:#4a5566}
table{border-collapse:collapse;font-size:13px;margin:4px 0 8px}
th,td{padding:3px 10px;border-bottom:1px solid #e4e8ee;text-align:right;white-space:nowrap}
th{background:#f3f5f8;font-weight:600}
td.l,th.l{text-align:left}td.name{font-family:ui-monospace,monospace}
.plots{display:flex;flex-wrap:wrap;gap:8px}
svg{background:#fbfcfd;border:1px solid #e4e8ee}
svg text{font-size:10px;fill:#4a5566;font-family:system-ui,sans-serif}
svg .title{font-size:11px;fill:#1d2430;font-weight:600}
.note{color:#4a5566;font-size:13px}ul.errors{font-family:ui-monospace,monospace;font-size:12px}
)";

std::string Percent(double ratio) {
  if (!std::isfinite(ratio)) {
    return "-";
  }
  return fmt::format("{:.1f}%", ratio * 100);
}

// An amount for people (issue 24: memory showed as raw bytes): cpu in cores, memory and storage
// in binary units (KiB ... EiB, three significant digits), other resources in units.
std::string Amount(std::string_view resource, double canonical) {
  if (!std::isfinite(canonical)) {
    return "-";
  }
  const double value = internal::KueueUnits(resource, canonical);
  const bool bytes = resource == "memory" || resource == "ephemeral-storage"
                     || resource.ends_with("/memory") || resource.ends_with("-memory");
  if (bytes && std::abs(value) >= 1024) {
    static constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double scaled = value / 1024;
    size_t unit = 0;
    while (std::abs(scaled) >= 1024 && unit + 1 < std::size(kUnits)) {
      scaled /= 1024;
      ++unit;
    }
    return fmt::format("{:.3g} {}", scaled, kUnits[unit]);
  }
  return fmt::format("{:.6g}{}", value, bytes ? " B" : "");
}

// A table: `left` marks left-aligned columns; cells are already escaped.
class HtmlTable {
 public:
  HtmlTable(std::string& out, std::initializer_list<std::string_view> headers,
            std::vector<bool> left)
      : out_(out), left_(std::move(left)) {
    left_.resize(headers.size(), false);
    out_ += "<table>";
    if (std::any_of(headers.begin(), headers.end(),
                    [](std::string_view h) { return !h.empty(); })) {
      out_ += "<tr>";
      size_t c = 0;
      for (std::string_view h : headers) {
        out_ += fmt::format("<th{}>{}</th>", left_[c++] ? " class=\"l\"" : "", h);
      }
      out_ += "</tr>";
    }
    out_ += "\n";
  }
  ~HtmlTable() { out_ += "</table>\n"; }
  HtmlTable(const HtmlTable&) = delete;
  HtmlTable& operator=(const HtmlTable&) = delete;

  void Row(const std::vector<std::string>& cells) {
    out_ += "<tr>";
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool l = c < left_.size() && left_[c];
      out_ += fmt::format("<td{}>{}</td>", l ? " class=\"l name\"" : "", cells[c]);
    }
    out_ += "</tr>\n";
  }

 private:
  std::string& out_;
  std::vector<bool> left_;
};

std::string Int(int64_t v) {
  return fmt::format("{}", v);
}

std::string Wait(const WaitStats& w, double v) {
  return w.count == 0 ? std::string("-") : FormatSecondsShort(v);
}

void WaitTable(std::string& out, std::string_view what, const std::vector<GroupWaits>& groups) {
  if (groups.empty()) {
    return;
  }
  out += fmt::format("<h3>by {}</h3>\n", what);
  HtmlTable t(out, {what, "admitted", "mean", "p50", "p90", "p99", "max"}, {true});
  for (const GroupWaits& g : groups) {
    const WaitStats& w = g.stats;
    t.Row({g.name.empty() ? "(none)" : MarkupEscape(g.name), Int(w.count), Wait(w, w.mean),
           Wait(w, w.p50), Wait(w, w.p90), Wait(w, w.p99), Wait(w, w.max)});
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

void AppendClusterQueues(std::string& out, const ReplayReport& r) {
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
  static const WaitStats kNone;
  for (const CqCounts& cq : r.cluster_queues) {
    auto it = waits.find(cq.name);
    const WaitStats& w = it == waits.end() ? kNone : *it->second;
    const ResourceUsage* main = internal::MainResource(r, cq.name);
    t.Row({MarkupEscape(cq.name), Int(cq.admitted), Int(cq.preempted), Int(cq.pending_at_end),
           Int(cq.running_at_end), Wait(w, w.p50), Wait(w, w.p90), Wait(w, w.p99), Wait(w, w.max),
           main ? Percent(main->utilisation) : "-",
           main ? MarkupEscape(fmt::format("{}/{}", main->flavor, main->resource)) : ""});
  }
}

void AppendUsage(std::string& out, const ReplayReport& r) {
  if (r.usage.empty()) {
    return;
  }
  out +=
      "<h2>Usage</h2>\n<p class=\"note\">Time-weighted over the replay; cpu in cores, memory "
      "in binary units (GiB = 2<sup>30</sup> bytes), other resources in units.</p>\n";
  HtmlTable t(out,
              {"ClusterQueue", "flavor", "resource", "nominal", "mean usage", "mean borrowed",
               "utilisation", "peak", "at end"},
              {true, true, true});
  for (const ResourceUsage& u : r.usage) {
    t.Row({MarkupEscape(u.cluster_queue), MarkupEscape(u.flavor), MarkupEscape(u.resource),
           Amount(u.resource, static_cast<double>(u.nominal)), Amount(u.resource, u.mean_usage),
           Amount(u.resource, u.mean_borrowed), Percent(u.utilisation),
           Amount(u.resource, static_cast<double>(u.peak_usage)),
           Amount(u.resource, static_cast<double>(u.usage_at_end))});
  }
}

// One line chart as inline SVG. Non-finite values break the line (no admission in that interval).
struct ChartSpec {
  std::string_view title;
  std::string_view color;
  bool ratio = false;    // y as a percentage, axis at least 0..100%
  bool seconds = false;  // y as a duration
};

// The smallest 1, 2 or 5 times a power of ten that is >= v (v > 0): a round axis maximum.
double NiceCeil(double v) {
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= v * (1 - 1e-9)) {
      return m * p;
    }
  }
  return 10 * p;
}

std::string YLabel(const ChartSpec& spec, double v) {
  if (spec.ratio) {
    return fmt::format("{:.0f}%", v * 100);
  }
  if (spec.seconds) {
    return FormatSecondsShort(v);
  }
  return fmt::format("{:.4g}", v);
}

void AppendChart(std::string& out, const ChartSpec& spec, const std::vector<double>& times,
                 const std::vector<float>& values) {
  const size_t n = std::min(times.size(), values.size());
  // Bucket to at most kMaxPoints points: x of the bucket's first sample, y its largest finite
  // value.
  const size_t stride = n <= kMaxPoints ? 1 : (n + kMaxPoints - 1) / kMaxPoints;
  std::vector<std::pair<double, double>> points;
  double y_max = 0;
  for (size_t i = 0; i < n; i += stride) {
    double y = std::numeric_limits<double>::quiet_NaN();
    for (size_t j = i; j < std::min(n, i + stride); ++j) {
      const double v = values[j];
      if (std::isfinite(v) && (!std::isfinite(y) || v > y)) {
        y = v;
      }
    }
    if (std::isfinite(y)) {
      y_max = std::max(y_max, y);
    }
    points.emplace_back(times[i], y);
  }
  if (spec.ratio) {
    y_max = std::max(y_max, 1.0);
  }
  y_max = y_max > 0 ? NiceCeil(y_max) : 1;
  const double t0 = n > 0 ? times[0] : 0;
  const double t1 = n > 0 ? times[n - 1] : 0;
  const double span = t1 > t0 ? t1 - t0 : 1;
  const double plot_w = kChartWidth - kPadLeft - kPadRight;
  const double plot_h = kChartHeight - kPadTop - kPadBottom;
  auto x_of = [&](double t) { return kPadLeft + (t - t0) / span * plot_w; };
  auto y_of = [&](double v) { return kPadTop + plot_h - v / y_max * plot_h; };

  out += fmt::format(
      "<svg width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\">"
      "<text class=\"title\" x=\"{2:.0f}\" y=\"13\">{3}</text>",
      kChartWidth, kChartHeight, kPadLeft, MarkupEscape(spec.title));
  // Axes and labels: 0 and max on y, start and end (seconds since the first event) on x.
  out += fmt::format(
      "<path d=\"M{0:.1f} {1:.1f}V{2:.1f}H{3:.1f}\" fill=\"none\" stroke=\"#9aa4b2\"/>"
      "<path d=\"M{0:.1f} {1:.1f}H{3:.1f}M{0:.1f} {4:.1f}H{3:.1f}\" stroke=\"#e4e8ee\"/>",
      kPadLeft, kPadTop, kPadTop + plot_h, kPadLeft + plot_w, kPadTop + plot_h / 2);
  out += fmt::format(
      "<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"end\">{2}</text>"
      "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"end\">{4}</text>"
      "<text x=\"{0:.1f}\" y=\"{5:.1f}\" text-anchor=\"end\">{6}</text>",
      kPadLeft - 4, kPadTop + 4, MarkupEscape(YLabel(spec, y_max)), kPadTop + plot_h,
      MarkupEscape(YLabel(spec, 0)), kPadTop + plot_h / 2 + 4,
      MarkupEscape(YLabel(spec, y_max / 2)));
  out += fmt::format(
      "<text x=\"{0:.1f}\" y=\"{1:.1f}\">+{2}</text>"
      "<text x=\"{3:.1f}\" y=\"{1:.1f}\" text-anchor=\"end\">+{4}</text>",
      kPadLeft, kChartHeight - 6, MarkupEscape(FormatSecondsShort(t0)), kPadLeft + plot_w,
      MarkupEscape(FormatSecondsShort(t1)));
  if (points.empty()) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">no samples</text>", kPadLeft + 8,
                       kPadTop + plot_h / 2);
  } else {
    // Runs of finite points become subpaths; a run of one point is drawn as a zero-length
    // segment, which the round line cap shows as a dot.
    std::string d;
    size_t run = 0;
    std::pair<double, double> last;
    auto end_run = [&] {
      if (run == 1) {
        d += fmt::format("L{:.1f} {:.1f}", last.first, last.second);
      }
      run = 0;
    };
    for (const auto& [t, v] : points) {
      if (!std::isfinite(v)) {
        end_run();
        continue;
      }
      last = {x_of(t), y_of(v)};
      d += fmt::format("{}{:.1f} {:.1f}", run == 0 ? "M" : "L", last.first, last.second);
      ++run;
    }
    end_run();
    out += fmt::format(
        "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
        "stroke-linejoin=\"round\" stroke-linecap=\"round\"/>",
        d, spec.color);
  }
  out += "</svg>\n";
}

void AppendPlots(std::string& out, const ReplayReport& r) {
  if (r.series.empty()) {
    return;
  }
  // The queues people look for first are the ones whose workloads wait longest (issue 24: by
  // admissions, the plots showed the queues that admit and release all the time). Worst p90
  // time to admission first, a queue that admitted nothing while workloads were pending at the
  // end counting as waiting without end; then most pending at the end; then most admissions.
  struct Rank {
    double p90 = -1;
    int64_t pending = 0;
    int64_t admitted = 0;
  };
  std::map<std::string_view, Rank> rank;
  for (const CqCounts& cq : r.cluster_queues) {
    rank[cq.name].pending = cq.pending_at_end;
    rank[cq.name].admitted = cq.admitted;
  }
  for (const GroupWaits& g : r.wait_by_cluster_queue) {
    if (g.stats.count > 0) {
      rank[g.name].p90 = g.stats.p90;
    }
  }
  for (auto& [name, x] : rank) {
    if (x.admitted == 0 && x.pending > 0) {
      x.p90 = std::numeric_limits<double>::infinity();
    }
  }
  std::vector<const CqSeries*> plotted;
  for (const CqSeries& s : r.series) {
    plotted.push_back(&s);
  }
  const bool cut = plotted.size() > kMaxPlottedClusterQueues;
  std::stable_sort(plotted.begin(), plotted.end(), [&](const CqSeries* a, const CqSeries* b) {
    const Rank& x = rank[a->name];
    const Rank& y = rank[b->name];
    if (x.p90 != y.p90) {
      return x.p90 > y.p90;
    }
    if (x.pending != y.pending) {
      return x.pending > y.pending;
    }
    return x.admitted > y.admitted;  // stable: ties keep name order
  });
  if (cut) {
    plotted.resize(kMaxPlottedClusterQueues);
  }
  out += "<h2>Over virtual time</h2>\n<p class=\"note\">";
  out += cut ? fmt::format(
             "The {} ClusterQueues whose workloads waited longest (p90 time to "
             "admission; a queue that admitted none of its pending workloads "
             "first), of {}. ",
             kMaxPlottedClusterQueues, r.series.size())
             : fmt::format("{} ClusterQueue(s), longest waits first. ", r.series.size());
  out += fmt::format(
      "x: virtual time since the first event, {} samples; utilisation is the highest usage / "
      "nominal over its flavors and resources; mean wait covers the admissions since the previous "
      "sample (gaps: none).{}</p>\n",
      r.sample_times.size(),
      r.sample_times.size() > kMaxPoints
          ? " Long series are bucketed: each point is the maximum of "
            "its bucket."
          : "");
  for (const CqSeries* s : plotted) {
    out += fmt::format("<h3>{}</h3>\n<div class=\"plots\">\n", MarkupEscape(s->name));
    AppendChart(out, {"pending workloads", "#2f6fd0", false, false}, r.sample_times, s->pending);
    AppendChart(out, {"utilisation", "#2c9a5a", true, false}, r.sample_times, s->utilisation);
    AppendChart(out, {"mean time to admission", "#d0742f", false, true}, r.sample_times,
                s->mean_wait);
    out += "</div>\n";
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
      t.Row({MarkupEscape(c.name), Int(c.allocatable_at_end), Int(c.requested_at_end),
             Int(c.peak_requested)});
    }
  }
  for (const ReplayReport::ResourceClassFigures& c : rc.classes) {
    out += fmt::format("<h3>{}</h3>\n<div class=\"plots\">\n", MarkupEscape(c.name));
    AppendChart(out, {"allocatable devices", "#2c9a5a", false, false}, r.sample_times,
                c.allocatable);
    AppendChart(out, {"requested devices", "#2f6fd0", false, false}, r.sample_times, c.requested);
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
      t.Row({MarkupEscape(flavor), Int(n)});
    }
  }
  if (!f.wasted_quota_seconds.empty()) {
    HtmlTable t(out, {"wasted quota: flavor/resource", "amount &times; hours"}, {true});
    for (const auto& [key, seconds] : f.wasted_quota_seconds) {
      t.Row({MarkupEscape(key), fmt::format("{:.4g}", seconds / 3600)});
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

void AppendEngine(std::string& out, const ReplayReport& r) {
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
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  if (!report.run_id.empty()) {  // read back by tally diff and gate (replay_outputs.h)
    out += "<meta name=\"tally-run-id\" content=\"" + report.run_id + "\">\n";
  }
  out += "<title>tally replay report</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<h1>tally replay report</h1>\n<p class=\"mode\">";
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
  AppendClusterQueues(out, report);
  AppendPlots(out, report);
  AppendResourceClasses(out, report);
  AppendWaits(out, report);
  AppendFallbacks(out, report);
  AppendUsage(out, report);
  AppendErrors(out, report);
  AppendEngine(out, report);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace replay
