// Tests for report.html's charts and tables (issue 24; replay/report/html_chart.h, html_table.h,
// html_plots.h): axes with titles and clock ticks, the time-to-admission CDF, utilisation over
// time, sortable tables with numeric keys, human units, and a page that loads nothing.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "replay/report/html_chart.h"
#include "replay/report/html_table.h"
#include "replay/report/report_writers.h"
#include "replay/sim/replay_report.h"
#include "test/replay/report/wait_stats_fixture.h"

namespace replay {
namespace {

constexpr int64_t kStart = 1'767'603'600'000'000;  // 2026-01-05T09:00:00Z
constexpr double kHours = 16;

size_t Count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The first <svg> ... </svg> after `heading`, or "" when there is none.
std::string_view SvgAfter(std::string_view html, std::string_view heading) {
  const size_t h = html.find(heading);
  if (h == std::string_view::npos) {
    return {};
  }
  const size_t begin = html.find("<svg", h);
  const size_t end = html.find("</svg>", begin);
  if (begin == std::string_view::npos || end == std::string_view::npos) {
    return {};
  }
  return html.substr(begin, end + 6 - begin);
}

// The points of every line path in `svg`: M/L commands, as (x, y) in SVG coordinates.
std::vector<std::vector<std::pair<double, double>>> LinePoints(std::string_view svg) {
  std::vector<std::vector<std::pair<double, double>>> lines;
  for (size_t at = svg.find("<path class=\"line\""); at != std::string_view::npos;
       at = svg.find("<path class=\"line\"", at + 1)) {
    const size_t d = svg.find(" d=\"", at) + 4;
    const std::string path(svg.substr(d, svg.find('"', d) - d));
    std::vector<std::pair<double, double>> points;
    const char* p = path.c_str();
    while (*p == 'M' || *p == 'L') {
      char* end = nullptr;
      const double x = std::strtod(p + 1, &end);
      const double y = std::strtod(end, &end);
      points.emplace_back(x, y);
      p = end;
    }
    lines.push_back(std::move(points));
  }
  return lines;
}

using testing_report::Stats;

// A 16-hour replay of `queues` ClusterQueues sampled every 10 minutes; cq-i's waits grow with i.
ReplayReport MultiHourReport(int queues) {
  ReplayReport r;
  r.start_time = kStart;
  r.end_time = kStart + static_cast<int64_t>(kHours * 3600) * 1'000'000;
  for (double t = 0; t <= kHours * 3600; t += 600) {
    r.sample_times.push_back(t);
  }
  const size_t n = r.sample_times.size();
  std::vector<double> all;
  for (int i = 0; i < queues; ++i) {
    const std::string name = fmt::format("cq-{:02}", i);
    std::vector<double> waits;
    for (int k = 0; k < 10; ++k) {
      waits.push_back(0.5 + k * std::pow(2.0, i % 16));
    }
    all.insert(all.end(), waits.begin(), waits.end());
    r.wait_by_cluster_queue.push_back({name, Stats(waits)});
    r.cluster_queues.push_back({name, 10, 0, i % 3, 1});
    CqSeries s;
    s.name = name;
    for (size_t k = 0; k < n; ++k) {
      s.pending.push_back(static_cast<float>((k + i) % 5));
      s.running.push_back(1);
      s.utilisation.push_back(static_cast<float>(0.1 * static_cast<double>((k + i) % 12)));
      s.mean_wait.push_back(k % 3 == 0 ? std::numeric_limits<float>::quiet_NaN()
                                       : static_cast<float>(60 * i + k));
    }
    r.series.push_back(std::move(s));
    r.usage.push_back({name, "default", "cpu", 8000, 2500, 0, 0.3125, 8000, 2000});
    r.usage.push_back({name, "default", "memory", 17179869184, 1.0e9, 0, 0.0582, 4294967296, 0});
    r.usage.push_back({name, "a100", "nvidia.com/gpu", 8, 4, 1, 0.5, 8, 2});
  }
  r.wait_overall = Stats(all);
  r.wait_by_class = {{"batch", Stats(all)}};
  r.admissions = static_cast<int64_t>(all.size());
  r.timings = false;
  return r;
}

TEST(HtmlChartTest, ClockTicksAreRoundElapsedTimes) {
  std::vector<internal::AxisTick> ticks = internal::ClockTicks(0, 16 * 3600, 8);
  ASSERT_GE(ticks.size(), 5u);
  ASSERT_LE(ticks.size(), 8u);
  EXPECT_EQ(ticks[0].label, "0:00");
  EXPECT_EQ(ticks[1].label, "3:00");
  EXPECT_EQ(ticks.back().label, "15:00");

  ticks = internal::ClockTicks(0, 5 * 86400, 8);
  ASSERT_GE(ticks.size(), 4u);
  EXPECT_EQ(ticks[0].label, "0d");
  EXPECT_EQ(ticks[1].label, "1d");

  ticks = internal::ClockTicks(0, 36 * 3600, 6);
  ASSERT_GE(ticks.size(), 4u);
  EXPECT_EQ(ticks.back().label, "36:00");  // hours keep counting under two days

  ticks = internal::ClockTicks(0, 100, 6);
  ASSERT_GE(ticks.size(), 4u);
  EXPECT_EQ(ticks[1].label, "0:00:30");
}

TEST(HtmlChartTest, LogTicksSpanSecondsToDays) {
  const std::vector<internal::AxisTick> ticks = internal::LogTimeTicks(1, 7 * 86400);
  std::vector<std::string> labels;
  for (const internal::AxisTick& t : ticks) {
    labels.push_back(t.label);
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"1s", "10s", "1m", "10m", "1h", "6h", "1d", "7d"}));
  EXPECT_EQ(internal::LogTimeAxisEnd(0.3), 10);
  EXPECT_EQ(internal::LogTimeAxisEnd(10240), 21600);
}

TEST(HtmlTableTest, AmountsInHumanUnits) {
  EXPECT_EQ(internal::Amount("cpu", 2500), "2.5 cores");
  EXPECT_EQ(internal::Amount("cpu", 1000), "1 core");
  EXPECT_EQ(internal::Amount("nvidia.com/gpu", 8), "8 GPUs");
  EXPECT_EQ(internal::Amount("memory", 17179869184.0), "16 GiB");
  EXPECT_EQ(internal::Amount("pods", 12), "12");
  auto sort_key = [](double v) {
    std::string key = "<";  // appended to what is there
    internal::AppendSortKey(key, v);
    return key;
  };
  EXPECT_EQ(sort_key(std::numeric_limits<double>::quiet_NaN()), "<");
  EXPECT_EQ(sort_key(std::numeric_limits<double>::infinity()), "<Infinity");
  EXPECT_EQ(sort_key(-std::numeric_limits<double>::infinity()), "<-Infinity");
  EXPECT_EQ(sort_key(17179869184.0), "<17179869184");
  EXPECT_EQ(sort_key(0.3125), "<0.3125");
}

TEST(ReportHtmlChartsTest, AxesHaveTitlesAndClockTicks) {
  const std::string html = FormatReportHtml(MultiHourReport(3));
  const std::string_view svg = SvgAfter(html, "<h2>Over virtual time</h2>");
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(Count(svg, "class=\"axis-title\""), 2u);
  EXPECT_NE(svg.find(">virtual time since the first event</text>"), std::string::npos);
  EXPECT_NE(svg.find(">pending (workloads)</text>"), std::string::npos);
  EXPECT_GE(Count(svg, "class=\"tick\""), 4u);
  EXPECT_NE(svg.find(">6:00</text>"), std::string::npos);
  // Every chart of the page has both axis titles.
  EXPECT_EQ(Count(html, "class=\"axis-title\""), 2 * Count(html, "<svg"));
  // The mean-wait chart says its unit.
  EXPECT_NE(html.find(">mean wait (min)</text>"), std::string::npos);
}

TEST(ReportHtmlChartsTest, WaitCdfHasOneMonotoneLinePerQueueAndOverall) {
  for (int queues : {3, 20}) {
    const std::string html = FormatReportHtml(MultiHourReport(queues));
    const std::string_view svg = SvgAfter(html, "<h2>Time to admission: distribution</h2>");
    ASSERT_FALSE(svg.empty()) << queues;
    const size_t plotted = std::min<size_t>(queues, 12);
    EXPECT_EQ(Count(svg, "<path class=\"line\""), plotted + 1) << queues;
    EXPECT_NE(svg.find("data-series=\"all ClusterQueues\""), std::string::npos);
    EXPECT_NE(svg.find(">1s</text>"), std::string::npos);
    // The axis reaches the longest wait: under a minute with 3 queues, days with 20.
    EXPECT_EQ(svg.find(">1h</text>") != std::string::npos, queues == 20) << queues;
    EXPECT_EQ(svg.find(">1d</text>") != std::string::npos, queues == 20) << queues;
    EXPECT_NE(svg.find(">admitted within (% of admissions)</text>"), std::string::npos);
    EXPECT_NE(svg.find(">100%</text>"), std::string::npos);
    for (const auto& line : LinePoints(svg)) {
      ASSERT_GE(line.size(), 2u);
      for (size_t i = 1; i < line.size(); ++i) {
        EXPECT_GE(line[i].first, line[i - 1].first);    // time grows
        EXPECT_LE(line[i].second, line[i - 1].second);  // fraction grows: SVG y shrinks
      }
    }
  }
  // The worst queues are the ones plotted (cq-i waits longer as i grows, up to cq-15).
  const std::string html = FormatReportHtml(MultiHourReport(20));
  const std::string_view svg = SvgAfter(html, "<h2>Time to admission: distribution</h2>");
  EXPECT_NE(svg.find("data-series=\"cq-15\""), std::string::npos);
  EXPECT_EQ(svg.find("data-series=\"cq-00\""), std::string::npos);
}

TEST(ReportHtmlChartsTest, UtilisationOverTimeWithClusterWideLine) {
  const std::string html = FormatReportHtml(MultiHourReport(3));
  const std::string_view svg = SvgAfter(html, "<h2>Utilisation over time</h2>");
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(Count(svg, "<path class=\"line\""), 4u);
  EXPECT_NE(svg.find("data-series=\"mean of all ClusterQueues\""), std::string::npos);
  EXPECT_NE(html.find("the dashed line is the mean of that figure over all 3 ClusterQueue(s)"),
            std::string::npos);
  EXPECT_GE(Count(svg, "class=\"tick\""), 4u);
  for (const auto& line : LinePoints(svg)) {
    EXPECT_GE(line.size(), 90u);  // 97 samples, one point each
  }
  // Per flavor: the report's time-weighted means summed over ClusterQueues.
  EXPECT_NE(html.find("<h3>by flavor</h3>"), std::string::npos);
  EXPECT_NE(html.find(">24 GPUs</td>"), std::string::npos);  // 3 x 8 nominal
}

TEST(ReportHtmlTablesTest, NumericCellsSortByRawValue) {
  const std::string html = FormatReportHtml(MultiHourReport(3));
  EXPECT_GE(Count(html, "<table class=\"sortable\"><thead>"), 4u);
  EXPECT_NE(html.find("<td data-sort=\"17179869184\">16 GiB</td>"), std::string::npos);
  EXPECT_NE(html.find("<td data-sort=\"2500\">2.5 cores</td>"), std::string::npos);
  EXPECT_NE(html.find("<td data-sort=\"8\">8 GPUs</td>"), std::string::npos);
  // Every cell of the ClusterQueue table but the name and the "of" column has a key.
  const size_t begin = html.find("<h2>ClusterQueues</h2>");
  const std::string_view table(html.data() + begin, html.find("</table>", begin) - begin);
  EXPECT_EQ(Count(table, "<td data-sort="), 3 * 9u);
  EXPECT_EQ(Count(table, "<td"), 3 * 11u);
  // The one script sorts, inline; nothing else runs.
  EXPECT_EQ(Count(html, "<script"), 1u);
  EXPECT_EQ(Count(html, "<script>"), 1u);
  const size_t script = html.find("<script>");
  EXPECT_NE(html.find("data-sort", script), std::string::npos);
  EXPECT_NE(html.find("table.sortable", script), std::string::npos);
}

TEST(ReportHtmlTest, LoadsNothing) {
  ReplayReport r = MultiHourReport(3);
  r.fallbacks.enabled = true;
  r.fallbacks.by_flavor["spot"] = 2;
  r.resource_classes.enabled = true;
  r.resource_classes.classes.push_back({"gpu-class", 8, 4, 6, {}, {}});
  r.resource_classes.classes[0].allocatable.assign(r.sample_times.size(), 8);
  r.resource_classes.classes[0].requested.assign(r.sample_times.size(), 4);
  const std::string html = FormatReportHtml(r);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("//"), std::string::npos);  // no protocol-relative URL either
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("fetch("), std::string::npos);
  EXPECT_EQ(html.find("XMLHttpRequest"), std::string::npos);
  // Elements are balanced.
  EXPECT_EQ(Count(html, "<svg"), Count(html, "</svg>"));
  EXPECT_EQ(Count(html, "<table"), Count(html, "</table>"));
  EXPECT_EQ(Count(html, "<tr>"), Count(html, "</tr>"));
  EXPECT_EQ(Count(html, "<path"), Count(html, "/>") + Count(html, "</path>"));
}

}  // namespace
}  // namespace replay
