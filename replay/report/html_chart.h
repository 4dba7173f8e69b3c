// File: replay/report/html_chart.h
//
// Line and stacked area charts as inline SVG for report.html (docs/report.md): axes with titles,
// round ticks, one path per line (or per layer) and, on wide charts or when asked, a legend. The
// SVG carries no script and no URL; every text from the input is escaped when drawn.
//
//   ChartSpec spec{.title = "pending workloads", .x_title = "virtual time",
//                  .y_title = "workloads", .x_min = 0, .x_max = times.back()};
//   AppendChart(out, spec, {{"team-a", "#2f6fd0", SampledPoints(times, series.pending)}});
//
// Each line is a `<path class="line" data-series="NAME">`, so that tests can count them; each layer
// of a stacked chart a `<path class="area" data-series="NAME">`.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replay::internal {

// Longer series are bucketed to this many points per line (the largest value of each bucket).
inline constexpr size_t kMaxChartPoints = 600;

enum class XAxis {
  kClock,       // elapsed virtual seconds, ticks as "6:00" (hours:minutes) or "1d 12h"
  kLogSeconds,  // a duration on a log scale, ticks 1s, 10s, 1m, 10m, 1h, 6h, 1d, 7d ...
};

enum class YAxis {
  kCount,    // plain numbers
  kRatio,    // a ratio shown in percent, the axis going at least to 100%
  kSeconds,  // a duration, ticks in the unit that suits the largest value (s, min, h, d)
};

struct ChartSpec {
  std::string_view title;
  std::string_view x_title;
  std::string_view y_title;  // for kSeconds the unit is appended: "mean wait (min)"
  XAxis x = XAxis::kClock;
  YAxis y = YAxis::kCount;
  double x_min = 0;  // the x range; kLogSeconds needs x_min > 0
  double x_max = 0;
  bool wide = false;    // a large chart with a legend of the named lines on its right
  bool legend = false;  // a small chart, widened for a legend on its right
};

struct ChartLine {
  std::string name;  // legend and data-series text, raw (escaped when drawn)
  std::string_view color;
  std::vector<std::pair<double, double>> points;  // (x, y); a non-finite y breaks the line
  bool emphasis = false;                          // thicker and dashed: an aggregate line
};

// One chart. Lines without a finite point still get their (empty) path and legend entry.
void AppendChart(std::string& out, const ChartSpec& spec, const std::vector<ChartLine>& lines);

// One layer of a stacked area chart: its own thickness at each point (non-finite or negative
// counts as 0). Every layer of a chart has the same x at the same index.
struct ChartLayer {
  std::string name;  // legend and data-series text, raw
  std::string_view color;
  std::vector<std::pair<double, double>> points;  // (x, thickness)
};

// A stacked area chart: `layers` bottom to top, each filled between the top of the layers below
// and that plus its own thickness, then `lines` drawn over them (a total to compare with, say),
// with the legend listing the layers bottom first, then the lines. Points inside flat runs are
// left out of the paths (they draw nothing), so step-like series stay small.
void AppendStackedChart(std::string& out, const ChartSpec& spec,
                        const std::vector<ChartLayer>& layers, const std::vector<ChartLine>& lines);

// The points of a series sampled at `times`, bucketed to at most kMaxChartPoints: x of the
// bucket's first sample, y the mean of its values (non-finite ones count as 0). For stacked
// charts: means of the layers add up to the mean of their sum.
std::vector<std::pair<double, double>> MeanPoints(const std::vector<double>& times,
                                                  const std::vector<float>& values);

// The points of a series sampled at `times`, bucketed to at most kMaxChartPoints: x of the
// bucket's first sample, y its largest finite value (NaN when it has none).
std::vector<std::pair<double, double>> SampledPoints(const std::vector<double>& times,
                                                     const std::vector<float>& values);

// Appends `v` as fmt's "{:.1f}" writes it (the same text), without formatting a double in the
// common case: chart coordinates, thousands per page.
void AppendOneDecimal(std::string& out, double v);

// The i-th of a fixed palette of distinguishable colours (it repeats after 12).
std::string_view LineColor(size_t i);

struct AxisTick {
  double value = 0;
  std::string label;
};

// Ticks of elapsed time over [t0, t1] seconds, at most `max_ticks` of them, at a round step
// (1 s ... 30 min, 1 h, 2 h, 3 h, 4 h, 6 h, 12 h, 1 d, 2 d, 7 d ...). Labels are hours:minutes
// ("0:00", "36:00"), with seconds for steps under a minute, or days and hours ("1d 12h") for spans
// of two days or more.
std::vector<AxisTick> ClockTicks(double t0, double t1, size_t max_ticks);

// Ticks of a log-scale duration axis over [lo, hi] seconds: 1s, 10s, 1m, 10m, 1h, 6h, 1d, 7d, 30d,
// 365d, those in range.
std::vector<AxisTick> LogTimeTicks(double lo, double hi);

// The smallest log tick value (see LogTimeTicks) >= seconds, at least 10 s: the end of a
// log-scale duration axis.
double LogTimeAxisEnd(double seconds);

}  // namespace replay::internal
