// Chart sections of report.html (html_plots.h).
#include "replay/report/html_plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "replay/report/html_chart.h"
#include "replay/report/html_table.h"
#include "replay/report/report_writers.h"

namespace replay::internal {

namespace {

constexpr std::string_view kPlotTimeAxis = "virtual time since the first event";
constexpr std::string_view kAggregateColor = "#1d2430";

// The CDF of one group from its cumulative Prometheus buckets: exact at each bucket bound below
// the longest wait, then 100% from the longest wait (below 1 s: from 1 s, the axis's start) to
// `axis_end`, so that a group whose waits were all under 1 s still shows as a line.
std::vector<std::pair<double, double>> CdfPoints(const WaitStats& w, double axis_end) {
  std::vector<std::pair<double, double>> points;
  const std::vector<double>& bounds = WaitBuckets();
  const double count = static_cast<double>(w.count);
  for (size_t i = 0; i < bounds.size() && i < w.cumulative_buckets.size(); ++i) {
    if (bounds[i] >= w.max) {
      break;
    }
    points.emplace_back(bounds[i], static_cast<double>(w.cumulative_buckets[i]) / count);
  }
  points.emplace_back(std::max(w.max, bounds.front()), 1.0);
  if (axis_end > points.back().first) {
    points.emplace_back(axis_end, 1.0);
  }
  return points;
}

}  // namespace

std::vector<std::string_view> ByLongestWait(const ReplayReport& report,
                                            std::vector<std::string_view> names) {
  struct Rank {
    double p90 = -1;
    int64_t pending = 0;
    int64_t admitted = 0;
  };
  std::map<std::string_view, Rank> rank;
  for (const CqCounts& cq : report.cluster_queues) {
    rank[cq.name].pending = cq.pending_at_end;
    rank[cq.name].admitted = cq.admitted;
  }
  for (const GroupWaits& g : report.wait_by_cluster_queue) {
    if (g.stats.count > 0) {
      rank[g.name].p90 = g.stats.p90;
    }
  }
  for (auto& [name, x] : rank) {
    if (x.admitted == 0 && x.pending > 0) {
      x.p90 = std::numeric_limits<double>::infinity();
    }
  }
  // Each name's rank looked up once, not at every comparison (a thousand ClusterQueues' sort
  // was 2 % of a replay of Kueue's large-scale config with no events).
  std::vector<std::pair<Rank, std::string_view>> ranked;
  ranked.reserve(names.size());
  for (std::string_view name : names) {
    auto it = rank.find(name);
    ranked.emplace_back(it == rank.end() ? Rank{} : it->second, name);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    const Rank& x = a.first;
    const Rank& y = b.first;
    return std::tie(x.p90, x.pending, x.admitted) > std::tie(y.p90, y.pending, y.admitted);
  });
  for (size_t i = 0; i < ranked.size(); ++i) {
    names[i] = ranked[i].second;
  }
  return names;
}

void AppendWaitCdf(std::string& out, const ReplayReport& r) {
  if (r.wait_overall.count == 0) {
    return;
  }
  std::vector<std::string_view> names;
  std::map<std::string_view, const WaitStats*> stats;
  for (const GroupWaits& g : r.wait_by_cluster_queue) {
    if (g.stats.count > 0) {
      names.push_back(g.name);
      stats[g.name] = &g.stats;
    }
  }
  names = ByLongestWait(r, std::move(names));
  const size_t total = names.size();
  names.resize(std::min(names.size(), kMaxPlottedClusterQueues));

  double longest = r.wait_overall.max;
  for (std::string_view name : names) {
    longest = std::max(longest, stats[name]->max);
  }
  const double axis_end = LogTimeAxisEnd(longest);
  std::vector<ChartLine> lines;
  lines.push_back(
      {"all ClusterQueues", kAggregateColor, CdfPoints(r.wait_overall, axis_end), true});
  for (size_t i = 0; i < names.size(); ++i) {
    lines.push_back(
        {std::string(names[i]), LineColor(i), CdfPoints(*stats[names[i]], axis_end), false});
  }
  out += "<h2>Time to admission: distribution</h2>\n<p class=\"note\">";
  out += total > names.size()
             ? fmt::format(
                 "All admissions and the {} ClusterQueues whose workloads waited "
                 "longest, of {} that admitted any. ",
                 names.size(), total)
             : fmt::format(
                 "All admissions and each of the {} ClusterQueue(s) that admitted any, "
                 "longest waits first. ",
                 total);
  out += fmt::format(
      "Fraction of admissions made within a time to admission (creation to admission, virtual "
      "time): exact at the bounds of Kueue's admission wait-time buckets ({} to {}), straight in "
      "between, reaching 100% at the longest wait; a wait under 1s counts at 1s.</p>\n",
      FormatSecondsShort(WaitBuckets().front()), FormatSecondsShort(WaitBuckets().back()));
  out += "<div class=\"plots\">\n";
  AppendChart(out,
              {.title = "time to admission, cumulative",
               .x_title = "time to admission (log scale)",
               .y_title = "admitted within (% of admissions)",
               .x = XAxis::kLogSeconds,
               .y = YAxis::kRatio,
               .x_min = 1,
               .x_max = axis_end,
               .wide = true},
              lines);
  out += "</div>\n";
}

void AppendUtilisation(std::string& out, const ReplayReport& r) {
  if (r.series.empty() || r.sample_times.empty()) {
    return;
  }
  // The cluster-wide line: at each sample, the mean over the ClusterQueues with a figure.
  std::vector<float> mean(r.sample_times.size(), std::numeric_limits<float>::quiet_NaN());
  for (size_t i = 0; i < r.sample_times.size(); ++i) {
    double sum = 0;
    int n = 0;
    for (const CqSeries& s : r.series) {
      if (i < s.utilisation.size() && std::isfinite(s.utilisation[i])) {
        sum += s.utilisation[i];
        ++n;
      }
    }
    if (n > 0) {
      mean[i] = static_cast<float>(sum / n);
    }
  }
  std::vector<std::string_view> names;
  std::map<std::string_view, const CqSeries*> series;
  for (const CqSeries& s : r.series) {
    names.push_back(s.name);
    series[s.name] = &s;
  }
  names = ByLongestWait(r, std::move(names));
  names.resize(std::min(names.size(), kMaxPlottedClusterQueues));
  std::vector<ChartLine> lines;
  lines.push_back(
      {"mean of all ClusterQueues", kAggregateColor, SampledPoints(r.sample_times, mean), true});
  for (size_t i = 0; i < names.size(); ++i) {
    lines.push_back({std::string(names[i]), LineColor(i),
                     SampledPoints(r.sample_times, series[names[i]]->utilisation), false});
  }
  out += "<h2>Utilisation over time</h2>\n<p class=\"note\">";
  out += fmt::format(
      "Usage / nominal quota at each sample: per ClusterQueue its highest over its flavors and "
      "resources, for the {} ClusterQueue(s) whose workloads waited longest{}; the dashed line is "
      "the mean of that figure over all {} ClusterQueue(s) (unweighted: a small queue counts as "
      "much as a large one). Above 100%: borrowing.{}</p>\n",
      names.size(), r.series.size() > names.size() ? fmt::format(" of {}", r.series.size()) : "",
      r.series.size(),
      r.sample_times.size() > kMaxChartPoints ? " Long series are bucketed: each point is the "
                                                "maximum of its bucket."
                                              : "");
  out += "<div class=\"plots\">\n";
  AppendChart(out,
              {.title = "utilisation of nominal quota",
               .x_title = kPlotTimeAxis,
               .y_title = "usage / nominal (%)",
               .x = XAxis::kClock,
               .y = YAxis::kRatio,
               .x_min = r.sample_times.front(),
               .x_max = r.sample_times.back(),
               .wide = true},
              lines);
  out += "</div>\n";

  // By flavor: time-weighted means per ClusterQueue summed (over time: AppendFlavorUtilisation).
  struct Sum {
    double nominal = 0;
    double mean_usage = 0;
    double mean_borrowed = 0;
    int64_t cluster_queues = 0;
  };
  std::map<std::pair<std::string_view, std::string_view>, Sum> by_flavor;
  for (const ResourceUsage& u : r.usage) {
    Sum& s = by_flavor[{u.flavor, u.resource}];
    s.nominal += static_cast<double>(u.nominal);
    s.mean_usage += u.mean_usage;
    s.mean_borrowed += u.mean_borrowed;
    ++s.cluster_queues;
  }
  if (by_flavor.empty()) {
    return;
  }
  out +=
      "<h3>by flavor</h3>\n<p class=\"note\">Time-weighted means over the replay, summed over the "
      "ClusterQueues with quota for the flavor and resource; utilisation = mean usage / "
      "nominal.</p>\n";
  HtmlTable t(out,
              {"flavor", "resource", "ClusterQueues", "nominal", "mean usage", "mean borrowed",
               "utilisation"},
              {true, true});
  for (const auto& [key, s] : by_flavor) {
    t.Row({MarkupEscape(key.first), MarkupEscape(key.second), IntCell(s.cluster_queues),
           AmountCell(key.second, s.nominal), AmountCell(key.second, s.mean_usage),
           AmountCell(key.second, s.mean_borrowed),
           PercentCell(s.nominal > 0 ? s.mean_usage / s.nominal
                                     : std::numeric_limits<double>::quiet_NaN())});
  }
}

void AppendClusterQueuePlots(std::string& out, const ReplayReport& r) {
  if (r.series.empty()) {
    return;
  }
  std::vector<std::string_view> names;
  std::map<std::string_view, const CqSeries*> series;
  for (const CqSeries& s : r.series) {
    names.push_back(s.name);
    series[s.name] = &s;
  }
  names = ByLongestWait(r, std::move(names));
  const bool cut = names.size() > kMaxPlottedClusterQueues;
  if (cut) {
    names.resize(kMaxPlottedClusterQueues);
  }
  out += "<h2>Over virtual time</h2>\n<p class=\"note\">";
  out += cut ? fmt::format(
             "The {} ClusterQueues whose workloads waited longest (p90 time to "
             "admission; a queue that admitted none of its pending workloads "
             "first), of {}. ",
             kMaxPlottedClusterQueues, r.series.size())
             : fmt::format("{} ClusterQueue(s), longest waits first. ", r.series.size());
  out += fmt::format(
      "x: virtual time since the first event (hours:minutes, or days and hours), {} samples; "
      "utilisation is the highest usage / nominal over its flavors and resources; mean wait "
      "covers the admissions since the previous sample (gaps: none).{}</p>\n",
      r.sample_times.size(),
      r.sample_times.size() > kMaxChartPoints
          ? " Long series are bucketed: each point is the maximum of its bucket."
          : "");
  const double t0 = r.sample_times.empty() ? 0 : r.sample_times.front();
  const double t1 = r.sample_times.empty() ? 0 : r.sample_times.back();
  for (std::string_view name : names) {
    const CqSeries& s = *series[name];
    out += fmt::format("<h3>{}</h3>\n<div class=\"plots\">\n", MarkupEscape(name));
    AppendChart(out,
                {.title = "pending workloads",
                 .x_title = kPlotTimeAxis,
                 .y_title = "pending (workloads)",
                 .y = YAxis::kCount,
                 .x_min = t0,
                 .x_max = t1},
                {{std::string(name), "#2f6fd0", SampledPoints(r.sample_times, s.pending)}});
    AppendChart(out,
                {.title = "utilisation",
                 .x_title = kPlotTimeAxis,
                 .y_title = "usage / nominal (%)",
                 .y = YAxis::kRatio,
                 .x_min = t0,
                 .x_max = t1},
                {{std::string(name), "#2c9a5a", SampledPoints(r.sample_times, s.utilisation)}});
    AppendChart(out,
                {.title = "mean time to admission",
                 .x_title = kPlotTimeAxis,
                 .y_title = "mean wait",
                 .y = YAxis::kSeconds,
                 .x_min = t0,
                 .x_max = t1},
                {{std::string(name), "#d0742f", SampledPoints(r.sample_times, s.mean_wait)}});
    out += "</div>\n";
  }
}

}  // namespace replay::internal
