// Quota utilisation by flavor in the reports (issue 24): report.json's series.flavors, and
// report.html's "Quota utilisation by flavor" section of stacked area charts (html_chart.h,
// html_flavor_plots.cc) in human units, cluster-wide per resource and per flavor, capped.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/report/html_chart.h"
#include "replay/report/html_table.h"
#include "replay/report/report_writers.h"
#include "replay/sim/replay_report.h"

namespace replay {
namespace {

constexpr int64_t kStart = 1'767'603'600'000'000;  // 2026-01-05T09:00:00Z
constexpr double kGiB = 1024.0 * 1024 * 1024;

size_t Count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The HTML from `heading` to the next <h2>.
std::string_view Section(std::string_view html, std::string_view heading) {
  const size_t begin = html.find(heading);
  if (begin == std::string_view::npos) {
    return {};
  }
  const size_t end = html.find("<h2>", begin + heading.size());
  return html.substr(begin, end == std::string_view::npos ? end : end - begin);
}

// The <svg> ... </svg> elements of `html`, in order.
std::vector<std::string_view> Charts(std::string_view html) {
  std::vector<std::string_view> charts;
  for (size_t at = html.find("<svg"); at != std::string_view::npos; at = html.find("<svg", at)) {
    const size_t end = html.find("</svg>", at) + 6;
    charts.push_back(html.substr(at, end - at));
    at = end;
  }
  return charts;
}

// The first point of the path with `attributes` (say `class="area" data-series="idle"`) in svg.
std::pair<double, double> FirstPoint(std::string_view svg, std::string_view attributes) {
  const size_t at = svg.find(attributes);
  if (at == std::string_view::npos) {
    return {-1, -1};
  }
  const size_t d = svg.find(" d=\"M", at) + 5;
  const std::string text(svg.substr(d, 40));
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  return {x, std::strtod(end, nullptr)};
}

// One flavor and resource with a constant state: `nominal`, `own`, `borrowed`, `lent`.
FlavorSeries Constant(std::string flavor, std::string resource, size_t n, double nominal,
                      double own, double borrowed, double lent) {
  FlavorSeries s{std::move(flavor), std::move(resource), {}, {}, {}, {}, {}};
  s.nominal.assign(n, static_cast<float>(nominal));
  s.own.assign(n, static_cast<float>(own));
  s.borrowed.assign(n, static_cast<float>(borrowed));
  s.lent.assign(n, static_cast<float>(lent));
  s.idle.assign(n, static_cast<float>(nominal - own - lent));
  return s;
}

// A 16-hour replay sampled every 10 minutes with `flavors` flavors of cpu and memory:
// flavor-00 borrows 2 cores from its cohort beyond the 4 lent; the others borrow nothing.
ReplayReport FlavorReport(int flavors) {
  ReplayReport r;
  r.start_time = kStart;
  r.end_time = kStart + int64_t{16} * 3600 * 1'000'000;
  for (int t = 0; t <= 16 * 3600; t += 600) {
    r.sample_times.push_back(t);
  }
  const size_t n = r.sample_times.size();
  for (int f = 0; f < flavors; ++f) {
    const std::string name = fmt::format("flavor-{:02}", f);
    const double cores = 1000.0 * (8 + f);
    r.flavor_series.push_back(
        Constant(name, "cpu", n, 16 * cores, 8 * cores, f == 0 ? 6000 : 0, f == 0 ? 4000 : 0));
    r.flavor_series.push_back(Constant(name, "memory", n, 64 * kGiB, 32 * kGiB, 0, 0));
  }
  r.timings = false;
  return r;
}

TEST(FlavorReportJsonTest, SeriesListsEveryFlavorWithItsFigures) {
  const std::string json = FormatReportJson(FlavorReport(2));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::array flavors;
  ASSERT_EQ(doc["series"]["flavors"].get_array().get(flavors), simdjson::SUCCESS);
  ASSERT_EQ(flavors.size(), 4u);
  simdjson::dom::element first = flavors.at(0);
  EXPECT_EQ(std::string_view(first["flavor"]), "flavor-00");
  EXPECT_EQ(std::string_view(first["resource"]), "cpu");
  EXPECT_EQ(std::string_view(flavors.at(1)["resource"]), "memory");
  EXPECT_EQ(std::string_view(flavors.at(2)["flavor"]), "flavor-01");
  for (const char* key : {"borrowed", "idle", "lent", "nominal", "own"}) {
    simdjson::dom::array values;
    ASSERT_EQ(first[key].get_array().get(values), simdjson::SUCCESS) << key;
    EXPECT_EQ(values.size(), 97u) << key;
  }
  EXPECT_EQ(int64_t(first["nominal"].at(0)), 128000);  // canonical units: millicores
  EXPECT_EQ(int64_t(first["own"].at(0)), 64000);
  EXPECT_EQ(int64_t(first["borrowed"].at(0)), 6000);
  EXPECT_EQ(int64_t(first["lent"].at(0)), 4000);
  EXPECT_EQ(int64_t(first["idle"].at(0)), 60000);
  // Keys in byte order: "clusterQueues" < "flavors" < "sampleTimes", and within an object.
  EXPECT_NE(json.find(R"("series":{"clusterQueues":[],"flavors":[{"borrowed":[)"),
            std::string::npos);
  EXPECT_NE(json.find(R"(],"flavor":"flavor-00","idle":[)"), std::string::npos);
  EXPECT_NE(json.find(R"(],"own":[)"), std::string::npos);
  EXPECT_NE(json.find(R"(],"resource":"cpu"},{"borrowed":[)"), std::string::npos);
}

TEST(FlavorReportHtmlTest, StackedChartsClusterWideAndPerFlavor) {
  const std::string html = FormatReportHtml(FlavorReport(2));
  const std::string_view section = Section(html, "<h2>Quota utilisation by flavor</h2>");
  ASSERT_FALSE(section.empty());
  const std::vector<std::string_view> charts = Charts(section);
  ASSERT_EQ(charts.size(), 2u + 4u);  // cpu and memory cluster-wide, then 2 flavors x 2
  EXPECT_NE(charts[0].find(">cpu: all flavors</text>"), std::string::npos);
  EXPECT_NE(charts[1].find(">memory: all flavors</text>"), std::string::npos);
  EXPECT_NE(charts[2].find(">flavor-00: cpu</text>"), std::string::npos);
  EXPECT_NE(charts[5].find(">flavor-01: memory</text>"), std::string::npos);
  for (std::string_view svg : charts) {
    // own, lent and idle stacked, the nominal quota as a dashed line; both axes and a legend.
    for (std::string_view layer : {"own", "lent to borrowers", "idle"}) {
      EXPECT_EQ(Count(svg, fmt::format("<path class=\"area\" data-series=\"{}\"", layer)), 1u)
          << layer;
      EXPECT_EQ(Count(svg, fmt::format(">{}<title>", layer)), 1u) << layer << ": in the legend";
    }
    EXPECT_EQ(Count(svg, "<path class=\"line\" data-series=\"nominal quota\""), 1u);
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
    EXPECT_EQ(Count(svg, "class=\"axis-title\""), 2u);
    EXPECT_NE(svg.find(">virtual time since the first event</text>"), std::string::npos);
    EXPECT_NE(svg.find(">6:00</text>"), std::string::npos);
    // The stack's top (own + lent + idle) is the nominal line: same first point.
    EXPECT_EQ(FirstPoint(svg, "class=\"area\" data-series=\"idle\""),
              FirstPoint(svg, "class=\"line\" data-series=\"nominal quota\""));
  }
  // Borrowed beyond what was lent is stacked on top, only where there is some.
  EXPECT_EQ(Count(section, "data-series=\"borrowed from cohort\""), 2u);  // cpu overall, flavor-00
  EXPECT_NE(charts[0].find("data-series=\"borrowed from cohort\""), std::string::npos);
  EXPECT_NE(charts[2].find("data-series=\"borrowed from cohort\""), std::string::npos);
  // Human units on the y axis: cores, and GiB for 64 and 128 GiB.
  EXPECT_NE(charts[0].find(">cpu (cores)</text>"), std::string::npos);
  EXPECT_NE(charts[1].find(">memory (GiB)</text>"), std::string::npos);
  EXPECT_EQ(section.find("of 4;"), std::string::npos);  // nothing cut
  // Nothing to show: no section.
  EXPECT_EQ(FormatReportHtml(FlavorReport(0)).find("Quota utilisation"), std::string::npos);
}

TEST(FlavorReportHtmlTest, ManyFlavorsShowTheLargestAndSaySo) {
  const std::string html = FormatReportHtml(FlavorReport(10));  // 20 (flavor, resource) pairs
  const std::string_view section = Section(html, "<h2>Quota utilisation by flavor</h2>");
  const std::vector<std::string_view> charts = Charts(section);
  ASSERT_EQ(charts.size(), 2u + 12u);
  EXPECT_NE(section.find("the 12 (flavor, resource) pairs with the largest share"),
            std::string::npos);
  EXPECT_NE(section.find("of 20;"), std::string::npos);
  // Memory is the same everywhere; cpu grows with the flavor: the largest cpu shares are shown,
  // and the ties of memory keep (flavor, resource) order.
  EXPECT_NE(section.find(">flavor-09: cpu</text>"), std::string::npos);
  EXPECT_EQ(section.find(">flavor-00: cpu</text>"), std::string::npos);
  EXPECT_NE(section.find(">flavor-00: memory</text>"), std::string::npos);
}

TEST(HtmlChartStackedTest, LayersStackFromTheBaseline) {
  std::string out;
  const std::vector<std::pair<double, double>> one{{0, 1}, {10, 1}, {20, 1}, {30, 3}};
  internal::AppendStackedChart(
      out, {.title = "t", .x_title = "x", .y_title = "y", .x_min = 0, .x_max = 30, .wide = true},
      {{"low", "#111111", one}, {"high", "#222222", one}}, {});
  // Drawn highest first; the flat run's middle point is left out; each closes at the baseline.
  const size_t high = out.find("data-series=\"high\"");
  const size_t low = out.find("data-series=\"low\"");
  ASSERT_NE(high, std::string::npos);
  ASSERT_NE(low, std::string::npos);
  EXPECT_LT(high, low);
  EXPECT_EQ(Count(out, "<path class=\"area\""), 2u);
  const std::string_view svg(out);
  const auto [x_low, y_low] = FirstPoint(svg, "data-series=\"low\"");
  const auto [x_high, y_high] = FirstPoint(svg, "data-series=\"high\"");
  EXPECT_EQ(x_low, x_high);
  EXPECT_GT(y_low, y_high);  // SVG y grows downwards: the upper layer's top is higher
  const size_t d = out.find(" d=\"", low) + 4;
  const std::string_view path = svg.substr(d, out.find('"', d) - d);
  EXPECT_EQ(Count(path, "L"), 2u + 2u) << path;  // 4 points less 1 flat, then 2 baseline corners
  EXPECT_EQ(path.back(), 'Z');
  EXPECT_EQ(Count(out, ">low<title>"), 1u);  // the legend
}

TEST(HtmlChartTest, OneDecimalAsFmtWritesIt) {
  std::vector<double> values = {
      0,         0.05, 0.15, 0.25,  0.35,  2.45,    41.05,   58,
      999999.95, 1e6,  1e7,  -0.04, -3.25, 1.0 / 3, 2.0 / 3, 123.44999999999999};
  std::mt19937_64 random(24);
  for (int i = 0; i < 100000; ++i) {
    const double v = static_cast<double>(random() % 100000000) / 100000;  // [0, 1000)
    values.push_back(v);
    values.push_back(std::floor(v * 10) / 10 + 0.05);  // at or near a tie
  }
  for (double v : values) {
    std::string out = "x";
    internal::AppendOneDecimal(out, v);
    ASSERT_EQ(out, fmt::format("x{:.1f}", v)) << fmt::format("{}", v);
  }
}

TEST(HtmlTableTest, AmountUnitsForAxes) {
  EXPECT_EQ(internal::AmountUnitFor("cpu", 64000).name, "cores");
  EXPECT_EQ(internal::AmountUnitFor("cpu", 64000).canonical_per_unit, 1000);
  EXPECT_EQ(internal::AmountUnitFor("memory", 64 * kGiB).name, "GiB");
  EXPECT_EQ(internal::AmountUnitFor("memory", 64 * kGiB).canonical_per_unit, kGiB);
  EXPECT_EQ(internal::AmountUnitFor("memory", 3 * 1024 * kGiB).name, "TiB");
  EXPECT_EQ(internal::AmountUnitFor("memory", 100).name, "B");
  EXPECT_EQ(internal::AmountUnitFor("nvidia.com/gpu", 8).name, "GPUs");
  EXPECT_EQ(internal::AmountUnitFor("pods", 110).name, "");
}

}  // namespace
}  // namespace replay
