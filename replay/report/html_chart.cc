// SVG line charts of report.html (html_chart.h). Geometry is in user units of the viewBox, written
// with one decimal so that the page stays small and byte-stable.
#include "replay/report/html_chart.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/report/report_writers.h"

namespace replay::internal {

namespace {

constexpr double kSmallWidth = 360;
constexpr double kSmallHeight = 190;
constexpr double kWideWidth = 780;
constexpr double kWideHeight = 320;
constexpr double kLegendWidth = 200;  // right of the plot on wide charts
constexpr double kPadLeft = 58;       // y tick labels, then the rotated y title
constexpr double kPadRight = 12;
constexpr double kPadTop = 22;      // the chart title
constexpr double kPadBottom = 38;   // x tick labels, then the x title
constexpr size_t kSmallXTicks = 6;  // about 45 px per label on a small chart
constexpr size_t kWideXTicks = 8;
constexpr size_t kLegendNameChars = 30;    // longer names are cut; the full name is the tooltip
constexpr double kSmallLegendWidth = 150;  // right of the plot on small charts with a legend
constexpr size_t kSmallLegendNameChars = 20;

struct LogTick {
  double seconds;
  std::string_view label;
};
constexpr std::array<LogTick, 10> kLogTicks = {{{1, "1s"},
                                                {10, "10s"},
                                                {60, "1m"},
                                                {600, "10m"},
                                                {3600, "1h"},
                                                {21600, "6h"},
                                                {86400, "1d"},
                                                {604800, "7d"},
                                                {2592000, "30d"},
                                                {31536000, "365d"}}};

// Round axis maxima per decade, each with the number of equal steps that keeps its ticks round.
struct NiceMax {
  double lead;
  int steps;
};
constexpr NiceMax kNiceMaxima[] = {{1, 4}, {1.5, 3}, {2, 4}, {2.5, 5}, {3, 3},
                                   {4, 4}, {5, 5},   {6, 3}, {8, 4},   {10, 4}};

// The smallest round maximum >= v (v > 0), and its steps.
std::pair<double, int> NiceCeil(double v) {
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (const NiceMax& m : kNiceMaxima) {
    if (m.lead * p >= v * (1 - 1e-9)) {
      return {m.lead * p, m.steps};
    }
  }
  return {10 * p, 4};
}

// The y axis: a round maximum cut into 3 to 5 equal steps, in a display unit.
struct YScale {
  double max = 1;           // in the data's units
  double unit = 1;          // data units per display unit (60 for minutes)
  std::string_view suffix;  // the display unit, for the title
  double step = 0.25;       // in the data's units
};

YScale MakeYScale(YAxis kind, double data_max) {
  YScale s;
  if (kind == YAxis::kSeconds) {
    if (data_max >= 2 * 86400) {
      s.unit = 86400;
      s.suffix = "d";
    } else if (data_max >= 2 * 3600) {
      s.unit = 3600;
      s.suffix = "h";
    } else if (data_max >= 120) {
      s.unit = 60;
      s.suffix = "min";
    } else {
      s.suffix = "s";
    }
  }
  double scaled = data_max / s.unit;
  if (kind == YAxis::kRatio) {
    scaled = std::max(scaled, 1.0);
  }
  const auto [nice, steps] =
      scaled > 0 && std::isfinite(scaled) ? NiceCeil(scaled) : std::pair<double, int>{1, 4};
  s.max = nice * s.unit;
  s.step = s.max / steps;
  return s;
}

std::string YTickLabel(YAxis kind, const YScale& s, double v) {
  if (kind == YAxis::kRatio) {
    return fmt::format("{:.0f}%", v * 100);
  }
  return fmt::format("{:.4g}", v / s.unit);
}

// Cut to `chars` bytes with an ellipsis, never inside a UTF-8 sequence.
std::string Cut(std::string_view s, size_t chars) {
  if (s.size() <= chars) {
    return std::string(s);
  }
  size_t cut = chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return std::string(s.substr(0, cut)) + "\xE2\x80\xA6";  // U+2026
}

// Appends tenths / 10 with one decimal ("41.1"). REQUIRES: tenths >= 0.
void AppendTenths(std::string& out, int64_t tenths) {
  char text[24];
  auto [end, ec] = std::to_chars(text, text + sizeof text, tenths / 10);
  out.append(text, end);
  out += '.';
  out += static_cast<char>('0' + tenths % 10);
}

std::string ClockLabel(double t, bool days, bool seconds) {
  const int64_t total = static_cast<int64_t>(std::llround(t));
  const int64_t sign_free = total < 0 ? -total : total;
  const std::string_view sign = total < 0 ? "-" : "";
  if (days) {
    const int64_t d = sign_free / 86400;
    const int64_t h = sign_free % 86400 / 3600;
    if (d == 0) {
      return h == 0 ? "0d" : fmt::format("{}{}h", sign, h);
    }
    return h == 0 ? fmt::format("{}{}d", sign, d) : fmt::format("{}{}d {}h", sign, d, h);
  }
  const int64_t h = sign_free / 3600;
  const int64_t m = sign_free % 3600 / 60;
  if (seconds) {
    return fmt::format("{}{}:{:02}:{:02}", sign, h, m, sign_free % 60);
  }
  return fmt::format("{}{}:{:02}", sign, h, m);
}

}  // namespace

std::vector<AxisTick> ClockTicks(double t0, double t1, size_t max_ticks) {
  std::vector<AxisTick> ticks;
  if (!std::isfinite(t0) || !std::isfinite(t1) || t1 < t0 || max_ticks < 2) {
    return ticks;
  }
  static constexpr double kSteps[] = {1,     2,     5,     10,     15,     30,      60,     120,
                                      300,   600,   900,   1800,   3600,   7200,    10800,  14400,
                                      21600, 43200, 86400, 172800, 604800, 1209600, 2592000};
  const double span = std::max(t1 - t0, 1.0);
  double step = 0;
  for (double s : kSteps) {
    if (std::floor(span / s) + 1 <= static_cast<double>(max_ticks)) {
      step = s;
      break;
    }
  }
  if (step == 0) {  // beyond 30-day steps: multiples of 30 days
    step = 2592000 * std::ceil(span / 2592000 / static_cast<double>(max_ticks - 1));
  }
  const bool days = t1 >= 2 * 86400 && step >= 3600;
  const bool seconds = step < 60;
  // A while loop: the ticks are the running sum the first draft's loop made (a count times the
  // step would move a few by an ulp), and a double is no for-loop counter.
  double t = std::ceil(t0 / step) * step;
  while (t <= t1 + 1e-9) {
    ticks.push_back({t, ClockLabel(t, days, seconds)});
    t += step;
  }
  return ticks;
}

std::vector<AxisTick> LogTimeTicks(double lo, double hi) {
  std::vector<AxisTick> ticks;
  for (const LogTick& t : kLogTicks) {
    if (t.seconds >= lo * (1 - 1e-9) && t.seconds <= hi * (1 + 1e-9)) {
      ticks.push_back({t.seconds, std::string(t.label)});
    }
  }
  return ticks;
}

double LogTimeAxisEnd(double seconds) {
  for (const LogTick& t : kLogTicks) {
    if (t.seconds >= 10 && t.seconds >= seconds) {
      return t.seconds;
    }
  }
  return kLogTicks.back().seconds;
}

std::string_view LineColor(size_t i) {
  static constexpr std::string_view kPalette[] = {"#2f6fd0", "#d0742f", "#2c9a5a", "#b8336a",
                                                  "#7a52c7", "#8c6d1f", "#1f9bb0", "#d04a3f",
                                                  "#5c7a29", "#c05fb8", "#4a5f8c", "#a0522d"};
  return kPalette[i % std::size(kPalette)];
}

void AppendOneDecimal(std::string& out, double v) {
  // Not within 1e-6 of a tie, rounding v * 10 (off by far less for v < 1e6) to the nearest
  // integer rounds as {:.1f} rounds v's exact value.
  if (v >= 0 && v < 1e6) {
    const double scaled = v * 10;
    const auto whole = static_cast<int64_t>(scaled);  // floor: scaled >= 0
    const double fraction = scaled - static_cast<double>(whole);
    if (std::abs(fraction - 0.5) > 1e-6) {
      AppendTenths(out, whole + (fraction > 0.5 ? 1 : 0));
      return;
    }
  }
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.1f}"), v);
}

std::vector<std::pair<double, double>> SampledPoints(const std::vector<double>& times,
                                                     const std::vector<float>& values) {
  const size_t n = std::min(times.size(), values.size());
  const size_t stride = n <= kMaxChartPoints ? 1 : (n + kMaxChartPoints - 1) / kMaxChartPoints;
  std::vector<std::pair<double, double>> points;
  points.reserve(n / stride + 1);
  for (size_t i = 0; i < n; i += stride) {
    double y = std::numeric_limits<double>::quiet_NaN();
    for (size_t j = i; j < std::min(n, i + stride); ++j) {
      const double v = values[j];
      if (std::isfinite(v) && (!std::isfinite(y) || v > y)) {
        y = v;
      }
    }
    points.emplace_back(times[i], y);
  }
  return points;
}

namespace {

// Where a chart's data lands: the frame OpenChart drew, and the mapping of values into it.
struct Frame {
  double width = 0;
  double height = 0;
  double plot_w = 0;
  double plot_h = 0;
  double plot_bottom = 0;
  YScale ys;
  bool log_x = false;
  double x0 = 0;
  double x_span = 1;

  double X(double x) const {
    const double v = log_x ? std::log10(std::max(x, 1e-9)) : x;
    return kPadLeft + std::clamp((v - x0) / x_span, 0.0, 1.0) * plot_w;
  }
  double Y(double v) const { return plot_bottom - std::clamp(v / ys.max, 0.0, 1.0) * plot_h; }
  // The legend's row-th entry: its swatch's left end and the baseline of its text.
  std::pair<double, double> LegendAt(size_t row) const {
    return {kPadLeft + plot_w + 16, kPadTop + 8 + 15 * static_cast<double>(row)};
  }
};

// Opens the <svg> and draws the title, the y grid and labels, the x ticks, both axis titles and
// the axes, for values up to `data_max`; "no samples" when `any_point` is false.
Frame OpenChart(std::string& out, const ChartSpec& spec, double data_max, bool any_point) {
  Frame f;
  const double legend = spec.wide ? kLegendWidth : (spec.legend ? kSmallLegendWidth : 0);
  f.width = spec.wide ? kWideWidth : kSmallWidth + legend;
  f.height = spec.wide ? kWideHeight : kSmallHeight;
  f.plot_w = f.width - kPadLeft - kPadRight - legend;
  f.plot_h = f.height - kPadTop - kPadBottom;
  f.plot_bottom = kPadTop + f.plot_h;
  f.ys = MakeYScale(spec.y, data_max);
  f.log_x = spec.x == XAxis::kLogSeconds;
  f.x0 = f.log_x ? std::log10(std::max(spec.x_min, 1e-9)) : spec.x_min;
  const double x1 = f.log_x ? std::log10(std::max(spec.x_max, 1e-9)) : spec.x_max;
  f.x_span = x1 > f.x0 ? x1 - f.x0 : 1;

  out += fmt::format(
      "<svg width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\">"
      "<text class=\"title\" x=\"{2:.0f}\" y=\"14\">{3}</text>\n",
      f.width, f.height, kPadLeft, MarkupEscape(spec.title));

  // y: grid lines and labels at each step, then the axis title, rotated, left of the labels.
  const YScale& ys = f.ys;
  for (int i = 0; ys.step > 0 && i * ys.step <= ys.max * (1 + 1e-9); ++i) {
    const double v = i * ys.step;
    const double y = f.Y(v);
    out +=
        fmt::format(FMT_COMPILE("<path d=\"M{0:.1f} {1:.1f}H{2:.1f}\" stroke=\"#e4e8ee\"/>"
                                "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>"),
                    kPadLeft, y, kPadLeft + f.plot_w, kPadLeft - 4, y + 3.5,
                    MarkupEscape(YTickLabel(spec.y, ys, v)));
  }
  const std::string y_title = spec.y == YAxis::kSeconds
                                  ? fmt::format("{} ({})", spec.y_title, ys.suffix)
                                  : std::string(spec.y_title);
  out += fmt::format(
      "\n<text class=\"axis-title\" x=\"12\" y=\"{0:.1f}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 12 {0:.1f})\">{1}</text>\n",
      kPadTop + f.plot_h / 2, MarkupEscape(y_title));

  // x: tick marks and labels, then the axis title below them.
  const std::vector<AxisTick> ticks =
      f.log_x ? LogTimeTicks(spec.x_min, spec.x_max)
              : ClockTicks(spec.x_min, spec.x_max, spec.wide ? kWideXTicks : kSmallXTicks);
  for (const AxisTick& t : ticks) {
    const double x = f.X(t.value);
    out += fmt::format(
        FMT_COMPILE(
            "<path d=\"M{0:.1f} {1:.1f}v4\" stroke=\"#9aa4b2\"/>"
            "<text class=\"tick\" x=\"{0:.1f}\" y=\"{2:.1f}\" text-anchor=\"middle\">{3}</text>"),
        x, f.plot_bottom, f.plot_bottom + 14, MarkupEscape(t.label));
  }
  out += fmt::format(
      "\n<text class=\"axis-title\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
      kPadLeft + f.plot_w / 2, f.height - 6, MarkupEscape(spec.x_title));
  out += fmt::format(
      "<path d=\"M{0:.1f} {1:.1f}V{2:.1f}H{3:.1f}\" fill=\"none\" "
      "stroke=\"#9aa4b2\"/>\n",
      kPadLeft, kPadTop, f.plot_bottom, kPadLeft + f.plot_w);

  if (!any_point) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">no samples</text>\n", kPadLeft + 8,
                       kPadTop + f.plot_h / 2);
  }
  return f;
}

// The legend text of an entry: cut to fit, the full name as the tooltip.
std::string LegendText(const ChartSpec& spec, const std::string& name) {
  return fmt::format("{}<title>{}</title>",
                     MarkupEscape(Cut(name, spec.wide ? kLegendNameChars : kSmallLegendNameChars)),
                     MarkupEscape(name));
}

// `line` as a path through its finite points (a non-finite y breaks it), and its legend entry.
void AppendLine(std::string& out, const ChartSpec& spec, const Frame& f, const ChartLine& line,
                size_t& legend_row) {
  // Runs of finite points become subpaths; a run of one point is drawn as a zero-length
  // segment, which the round line cap shows as a dot.
  std::string d;
  size_t run = 0;
  std::pair<double, double> last;
  auto end_run = [&] {
    if (run == 1) {
      d += 'L';
      AppendOneDecimal(d, last.first);
      d += ' ';
      AppendOneDecimal(d, last.second);
    }
    run = 0;
  };
  for (const auto& [x, y] : line.points) {
    if (!std::isfinite(y) || !std::isfinite(x)) {
      end_run();
      continue;
    }
    last = {f.X(x), f.Y(y)};
    d += run == 0 ? 'M' : 'L';
    AppendOneDecimal(d, last.first);
    d += ' ';
    AppendOneDecimal(d, last.second);
    ++run;
  }
  end_run();
  const std::string name = MarkupEscape(line.name);
  out += fmt::format(
      "<path class=\"line\" data-series=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
      "stroke-width=\"{}\"{} stroke-linejoin=\"round\" stroke-linecap=\"round\">"
      "<title>{}</title></path>\n",
      name, d, line.color, line.emphasis ? "2.5" : "1.5",
      line.emphasis ? " stroke-dasharray=\"6 3\"" : "", name);
  if ((spec.wide || spec.legend) && !line.name.empty()) {
    const auto [lx, ly] = f.LegendAt(legend_row++);
    out += fmt::format(
        "<path d=\"M{0:.1f} {1:.1f}h18\" stroke=\"{2}\" stroke-width=\"{3}\"{4}/>"
        "<text x=\"{5:.1f}\" y=\"{6:.1f}\">{7}</text>\n",
        lx, ly, line.color, line.emphasis ? "2.5" : "2",
        line.emphasis ? " stroke-dasharray=\"6 3\"" : "", lx + 24, ly + 3.5,
        LegendText(spec, line.name));
  }
}

}  // namespace

void AppendChart(std::string& out, const ChartSpec& spec, const std::vector<ChartLine>& lines) {
  double data_max = 0;
  bool any_point = false;
  for (const ChartLine& line : lines) {
    for (const auto& [x, y] : line.points) {
      if (std::isfinite(y)) {
        data_max = std::max(data_max, y);
        any_point = true;
      }
    }
  }
  const Frame f = OpenChart(out, spec, data_max, any_point);
  size_t legend_row = 0;
  for (const ChartLine& line : lines) {
    AppendLine(out, spec, f, line, legend_row);
  }
  out += "</svg>\n";
}

std::vector<std::pair<double, double>> MeanPoints(const std::vector<double>& times,
                                                  const std::vector<float>& values) {
  const size_t n = std::min(times.size(), values.size());
  const size_t stride = n <= kMaxChartPoints ? 1 : (n + kMaxChartPoints - 1) / kMaxChartPoints;
  std::vector<std::pair<double, double>> points;
  points.reserve(n / stride + 1);
  for (size_t i = 0; i < n; i += stride) {
    const size_t end = std::min(n, i + stride);
    double sum = 0;
    for (size_t j = i; j < end; ++j) {
      sum += std::isfinite(values[j]) ? values[j] : 0.0;
    }
    points.emplace_back(times[i], sum / static_cast<double>(end - i));
  }
  return points;
}

void AppendStackedChart(std::string& out, const ChartSpec& spec,
                        const std::vector<ChartLayer>& layers,
                        const std::vector<ChartLine>& lines) {
  // tops[l][i]: the top of layer l at point i, the sum of it and every layer below.
  const size_t n = layers.empty() ? 0 : layers.front().points.size();
  std::vector<std::vector<double>> tops(layers.size(), std::vector<double>(n, 0));
  double data_max = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t i = 0; i < n; ++i) {
      const double below = l == 0 ? 0 : tops[l - 1][i];
      const double y = i < layers[l].points.size() ? layers[l].points[i].second : 0;
      tops[l][i] = below + (std::isfinite(y) && y > 0 ? y : 0);
      data_max = std::max(data_max, tops[l][i]);
    }
  }
  bool any_point = n > 0;
  for (const ChartLine& line : lines) {
    for (const auto& [x, y] : line.points) {
      if (std::isfinite(y)) {
        data_max = std::max(data_max, y);
        any_point = true;
      }
    }
  }
  const Frame f = OpenChart(out, spec, data_max, any_point);
  // Each layer is drawn as the area from the baseline up to its top, the highest first, so that
  // the lower ones cover all of it but its own band. A point inside a flat run (the same y, to the
  // 0.1 written, as both neighbours) adds nothing to a path and is left out: quota and usage
  // change in steps, so this keeps the page small.
  // Coordinates in tenths, rounded half up (they are >= 0: clamped to the plot).
  // NOLINTNEXTLINE(bugprone-incorrect-roundings): v >= 0; half up is the rounding the tests pin.
  auto tenths = [](double v) { return static_cast<int64_t>(v * 10 + 0.5); };
  std::vector<int64_t> xs(n);
  for (size_t i = 0; i < n; ++i) {
    xs[i] = tenths(f.X(layers.front().points[i].first));
  }
  std::vector<int64_t> ys(n);
  const int64_t base = tenths(f.plot_bottom);
  for (size_t l = layers.size(); l-- > 0;) {
    for (size_t i = 0; i < n; ++i) {
      ys[i] = tenths(f.Y(tops[l][i]));
    }
    std::string d;
    auto point = [&](char command, int64_t x, int64_t y) {
      d += command;
      AppendTenths(d, x);
      d += ' ';
      AppendTenths(d, y);
    };
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && i + 1 < n && ys[i] == ys[i - 1] && ys[i] == ys[i + 1]) {
        continue;
      }
      point(d.empty() ? 'M' : 'L', xs[i], ys[i]);
    }
    if (n > 0) {
      point('L', xs[n - 1], base);
      point('L', xs[0], base);
      d += 'Z';
    }
    const std::string name = MarkupEscape(layers[l].name);
    out += fmt::format(
        "<path class=\"area\" data-series=\"{0}\" d=\"{1}\" fill=\"{2}\" stroke=\"none\">"
        "<title>{0}</title></path>\n",
        name, d, layers[l].color);
  }
  size_t legend_row = 0;
  if (spec.wide || spec.legend) {
    for (const ChartLayer& layer : layers) {
      const auto [lx, ly] = f.LegendAt(legend_row++);
      out += fmt::format(
          "<path d=\"M{0:.1f} {1:.1f}h18v8h-18Z\" fill=\"{2}\"/>"
          "<text x=\"{3:.1f}\" y=\"{4:.1f}\">{5}</text>\n",
          lx, ly - 4, layer.color, lx + 24, ly + 3.5, LegendText(spec, layer.name));
    }
  }
  for (const ChartLine& line : lines) {
    ChartLine thin{line.name, line.color, {}, line.emphasis};
    for (size_t i = 0; i < line.points.size(); ++i) {
      const double y = line.points[i].second;
      if (i > 0 && i + 1 < line.points.size() && y == line.points[i - 1].second
          && y == line.points[i + 1].second) {
        continue;  // inside a flat run (NaN never equals: gaps stay)
      }
      thin.points.push_back(line.points[i]);
    }
    AppendLine(out, spec, f, thin, legend_row);
  }
  out += "</svg>\n";
}

}  // namespace replay::internal
