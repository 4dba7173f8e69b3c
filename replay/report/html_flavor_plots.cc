// report.html's "Quota utilisation by flavor" (html_plots.h): the nominal quota of each flavor and
// resource over time, stacked as own, lent and idle, plus what was borrowed from Cohorts' quota.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "replay/report/html_chart.h"
#include "replay/report/html_plots.h"
#include "replay/report/html_table.h"
#include "replay/report/report_writers.h"

namespace replay::internal {

namespace {

constexpr std::string_view kTimeAxis = "virtual time since the first event";
constexpr std::string_view kOwnColor = "#2f6fd0";
constexpr std::string_view kLentColor = "#2c9a5a";
constexpr std::string_view kIdleColor = "#c3ccd8";
constexpr std::string_view kCohortColor = "#d0742f";
constexpr std::string_view kNominalColor = "#1d2430";

// Borrowed beyond what ClusterQueues lent: from quota of the Cohorts themselves.
float FromCohort(const FlavorSeries& s, size_t i) {
  return std::max(0.0F, s.borrowed[i] - s.lent[i]);
}

// The largest quota in play at any sample: nominal plus what came from Cohorts.
double Peak(const FlavorSeries& s) {
  double peak = 0;
  for (size_t i = 0; i < s.nominal.size() && i < s.borrowed.size() && i < s.lent.size(); ++i) {
    peak = std::max(peak, static_cast<double>(s.nominal[i]) + FromCohort(s, i));
  }
  return peak;
}

// One stacked chart of `s` (every vector as long as `times`).
void AppendStack(std::string& out, const std::vector<double>& times, const FlavorSeries& s,
                 const std::string& title, bool wide) {
  const AmountUnit unit = AmountUnitFor(s.resource, Peak(s));
  const size_t n = std::min({times.size(), s.nominal.size(), s.own.size(), s.borrowed.size(),
                             s.lent.size(), s.idle.size()});
  auto points = [&](auto value) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
      v[i] = static_cast<float>(static_cast<double>(value(i)) / unit.canonical_per_unit);
    }
    return MeanPoints(times, v);
  };
  bool cohort = false;
  for (size_t i = 0; i < n && !cohort; ++i) {
    cohort = FromCohort(s, i) > 0;
  }
  std::vector<ChartLayer> layers;
  layers.push_back({"own", kOwnColor, points([&](size_t i) { return s.own[i]; })});
  layers.push_back({"lent to borrowers", kLentColor, points([&](size_t i) { return s.lent[i]; })});
  layers.push_back({"idle", kIdleColor, points([&](size_t i) { return s.idle[i]; })});
  if (cohort) {
    layers.push_back(
        {"borrowed from cohort", kCohortColor, points([&](size_t i) { return FromCohort(s, i); })});
  }
  const std::string y_title =
      unit.name.empty() ? s.resource : fmt::format("{} ({})", s.resource, unit.name);
  AppendStackedChart(
      out,
      {.title = title,
       .x_title = kTimeAxis,
       .y_title = y_title,
       .x = XAxis::kClock,
       .y = YAxis::kCount,
       .x_min = times.front(),
       .x_max = times.back(),
       .wide = wide,
       .legend = true},
      layers,
      {{"nominal quota", kNominalColor, points([&](size_t i) { return s.nominal[i]; }), true}});
}

}  // namespace

void AppendFlavorUtilisation(std::string& out, const ReplayReport& r) {
  if (r.flavor_series.empty() || r.sample_times.empty()) {
    return;
  }
  const size_t n = r.sample_times.size();
  // Cluster-wide, per resource: every flavor's figures added up.
  std::map<std::string_view, FlavorSeries> by_resource;
  for (const FlavorSeries& s : r.flavor_series) {
    FlavorSeries& sum = by_resource[s.resource];
    if (sum.resource.empty()) {
      sum.resource = s.resource;
      for (std::vector<float>* v : {&sum.nominal, &sum.own, &sum.borrowed, &sum.lent, &sum.idle}) {
        v->assign(n, 0.0F);
      }
    }
    auto add = [&](std::vector<float>& into, const std::vector<float>& from) {
      for (size_t i = 0; i < n && i < from.size(); ++i) {
        into[i] += from[i];
      }
    };
    add(sum.nominal, s.nominal);
    add(sum.own, s.own);
    add(sum.borrowed, s.borrowed);
    add(sum.lent, s.lent);
    add(sum.idle, s.idle);
  }
  // Per flavor, at most kMaxPlottedFlavors: those with the largest share of their resource's
  // quota (ranks compare across resources), shown in (flavor, resource) order.
  std::vector<const FlavorSeries*> shown;
  for (const FlavorSeries& s : r.flavor_series) {
    shown.push_back(&s);
  }
  if (shown.size() > kMaxPlottedFlavors) {
    std::map<const FlavorSeries*, double> share;
    for (const FlavorSeries* s : shown) {
      const double total = Peak(by_resource[s->resource]);
      share[s] = total > 0 ? Peak(*s) / total : 0;
    }
    std::stable_sort(shown.begin(), shown.end(), [&](const FlavorSeries* a, const FlavorSeries* b) {
      return share[a] > share[b];
    });
    shown.resize(kMaxPlottedFlavors);
    std::sort(shown.begin(), shown.end(), [](const FlavorSeries* a, const FlavorSeries* b) {
      return std::tie(a->flavor, a->resource) < std::tie(b->flavor, b->resource);
    });
  }

  out += "<h2>Quota utilisation by flavor</h2>\n<p class=\"note\">";
  out +=
      "Nominal quota at each sample, summed over the ClusterQueues, stacked: <b>own</b> (usage "
      "within each ClusterQueue's own nominal quota), <b>lent to borrowers</b> (nominal quota "
      "some ClusterQueues did not use and others borrowed), <b>idle</b> (unused, not borrowed); "
      "together they make the nominal quota (dashed line). <b>Borrowed from cohort</b>, above it "
      "when any: borrowing beyond what ClusterQueues lent, from quota of the Cohorts themselves. "
      "Lent is estimated per Cohort tree as the smaller of what was borrowed and what was "
      "unused. ";
  if (shown.size() < r.flavor_series.size()) {
    out += fmt::format(
        "Per flavor: the {} (flavor, resource) pairs with the largest share of their resource's "
        "quota (nominal plus borrowed from cohort, at its peak), of {}; the cluster-wide charts "
        "count them all. ",
        shown.size(), r.flavor_series.size());
  }
  if (n > kMaxChartPoints) {
    out += "Long series are bucketed: each point is the mean of its bucket.";
  }
  out += "</p>\n<h3>cluster-wide</h3>\n<div class=\"plots\">\n";
  for (const auto& [resource, sum] : by_resource) {
    AppendStack(out, r.sample_times, sum, fmt::format("{}: all flavors", resource), true);
  }
  out += "</div>\n<h3>per flavor</h3>\n<div class=\"plots\">\n";
  for (const FlavorSeries* s : shown) {
    AppendStack(out, r.sample_times, *s, fmt::format("{}: {}", s->flavor, s->resource), false);
  }
  out += "</div>\n";
}

}  // namespace replay::internal
