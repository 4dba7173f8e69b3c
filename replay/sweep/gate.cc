// `tally gate`: limits on how much worse a candidate replay may be than a baseline
// (docs/diff-and-gate.md).
#include "replay/sweep/gate.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "replay/io/json_to_yaml.h"
#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"
#include "replay/report/report_writers.h"

namespace replay {
namespace {

using internal::FormatSecondsShort;

// Float figures are read back from 6-significant-digit JSON: a limit met exactly must pass.
constexpr double kTolerance = 1e-9;

struct MetricName {
  std::string_view name;
  GateMetric metric;
};
constexpr std::array<MetricName, 10> kMetrics = {{
    {"p50_wait", GateMetric::kP50Wait},
    {"p90_wait", GateMetric::kP90Wait},
    {"p99_wait", GateMetric::kP99Wait},
    {"mean_wait", GateMetric::kMeanWait},
    {"max_wait", GateMetric::kMaxWait},
    {"utilisation", GateMetric::kUtilisation},
    {"preemptions", GateMetric::kPreemptions},
    {"evictions", GateMetric::kEvictions},
    {"pending_at_end", GateMetric::kPendingAtEnd},
    {"admissions", GateMetric::kAdmissions},
}};

bool IsWait(GateMetric m) {
  switch (m) {
    case GateMetric::kP50Wait:
    case GateMetric::kP90Wait:
    case GateMetric::kP99Wait:
    case GateMetric::kMeanWait:
    case GateMetric::kMaxWait:
      return true;
    case GateMetric::kUtilisation:
    case GateMetric::kPreemptions:
    case GateMetric::kEvictions:
    case GateMetric::kPendingAtEnd:
    case GateMetric::kAdmissions:
      return false;
  }
  return false;
}

std::string MetricList() {
  std::string out;
  for (const MetricName& m : kMetrics) {
    out += out.empty() ? "" : ", ";
    out += m.name;
  }
  return out;
}

double WaitField(const WaitFigures& w, GateMetric m) {
  switch (m) {
    case GateMetric::kP50Wait:
      return w.p50;
    case GateMetric::kP90Wait:
      return w.p90;
    case GateMetric::kP99Wait:
      return w.p99;
    case GateMetric::kMeanWait:
      return w.mean;
    case GateMetric::kMaxWait:
      return w.max;
    case GateMetric::kUtilisation:
    case GateMetric::kPreemptions:
    case GateMetric::kEvictions:
    case GateMetric::kPendingAtEnd:
    case GateMetric::kAdmissions:
      break;
  }
  return 0;
}

// A metric's value as shown in the table.
std::string ShowValue(GateMetric m, double v) {
  if (IsWait(m)) {
    return FormatSecondsShort(v);
  }
  if (m == GateMetric::kUtilisation) {
    return std::isfinite(v) ? fmt::format("{:.1f}%", v * 100) : "-";
  }
  return fmt::format("{}", static_cast<int64_t>(v));
}

std::string ShowChange(GateMetric m, double base, double cand) {
  const double change = cand - base;
  if (m == GateMetric::kUtilisation) {
    return fmt::format("{:+.1f}pp", change * 100);
  }
  std::string abs;
  if (IsWait(m)) {
    abs = FormatSecondsShort(change);
    if (change > 0) {
      abs = fmt::format("+{}", abs);
    }
  } else {
    abs = fmt::format("{:+d}", static_cast<int64_t>(change));
  }
  if (change == 0) {
    return abs;
  }
  if (base == 0) {
    return fmt::format("{} (new)", abs);
  }
  return fmt::format("{} ({:+.1f}%)", abs, change / std::fabs(base) * 100);
}

std::string LimitText(const GateLimit& l) {
  return l.spec.substr(l.spec.find('=') + 1);
}

}  // namespace

const char* ToString(GateMetric metric) {
  for (const MetricName& m : kMetrics) {
    if (m.metric == metric) {
      return m.name.data();
    }
  }
  return "?";
}

bool HigherIsWorse(GateMetric metric) {
  return metric != GateMetric::kUtilisation && metric != GateMetric::kAdmissions;
}

engine::StatusOr<GateLimit> ParseGateLimit(std::string_view spec) {
  GateLimit l;
  l.spec = std::string(spec);
  const size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return engine::InvalidArgument(
        fmt::format("--max {}: expected METRIC=LIMIT, e.g. p99_wait=+10%", spec));
  }
  std::string_view name = spec.substr(0, eq);
  std::string_view limit = spec.substr(eq + 1);
  if (size_t at = name.find('@'); at != std::string_view::npos) {
    l.cluster_queue = std::string(name.substr(at + 1));
    name = name.substr(0, at);
    if (l.cluster_queue.empty()) {
      return engine::InvalidArgument(
          fmt::format("--max {}: expected a ClusterQueue name after '@'", spec));
    }
  }
  bool known = false;
  for (const MetricName& m : kMetrics) {
    if (m.name == name) {
      l.metric = m.metric;
      known = true;
    }
  }
  if (!known) {
    return engine::InvalidArgument(
        fmt::format("--max {}: unknown metric \"{}\" (known: {})", spec, name, MetricList()));
  }
  if (l.metric == GateMetric::kEvictions && !l.cluster_queue.empty()) {
    return engine::InvalidArgument(
        fmt::format("--max {}: evictions are not counted per ClusterQueue in report.json; use "
                    "preemptions@{} or evictions without '@'",
                    spec, l.cluster_queue));
  }
  const std::string forms = IsWait(l.metric) ? "+10%, +30s, +2m, +30 (seconds)"
                            : l.metric == GateMetric::kUtilisation ? "-2pp, -5%"
                                                                   : "+10%, +5";
  auto bad = [&](std::string_view why) {
    return engine::InvalidArgument(fmt::format("--max {}: {}; {} accepts limits like {}", spec, why,
                                               ToString(l.metric), forms));
  };
  char sign = 0;
  if (!limit.empty() && (limit[0] == '+' || limit[0] == '-')) {
    sign = limit[0];
    limit.remove_prefix(1);
  }
  // The number, then the unit.
  size_t digits = 0;
  while (digits < limit.size()
         && ((limit[digits] >= '0' && limit[digits] <= '9') || limit[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) {
    return bad(limit.empty() ? "empty limit" : "expected a number");
  }
  std::string_view number = limit.substr(0, digits);
  std::string_view unit = limit.substr(digits);
  double value = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || ptr != number.data() + number.size() || !std::isfinite(value)) {
    return bad(fmt::format("\"{}\" is not a number", number));
  }
  if (unit == "%") {
    l.unit = LimitUnit::kPercent;
    l.amount = value;
  } else if (unit == "pp") {
    if (l.metric != GateMetric::kUtilisation) {
      return bad("pp (percentage points) is for utilisation only");
    }
    l.unit = LimitUnit::kPoints;
    l.amount = value;
  } else if (unit.empty()) {
    if (l.metric == GateMetric::kUtilisation) {
      return bad("a utilisation limit needs a unit, pp (points) or % (relative)");
    }
    l.unit = LimitUnit::kAbsolute;
    l.amount = value;
  } else {
    if (!IsWait(l.metric)) {
      return bad(fmt::format("unknown unit \"{}\"", unit));
    }
    engine::StatusOr<int64_t> micros = ParseGoDuration(limit);
    if (!micros.ok()) {
      return bad(fmt::format("unknown unit \"{}\" (durations: ms, s, m, h)", unit));
    }
    l.unit = LimitUnit::kAbsolute;
    l.amount = static_cast<double>(*micros) / 1e6;
  }
  if (sign != 0 && l.amount != 0) {
    const char worse = HigherIsWorse(l.metric) ? '+' : '-';
    if (sign != worse) {
      return bad(fmt::format("for {} worse is {}: write {}{} (or leave the sign out)",
                             ToString(l.metric), worse == '+' ? "higher" : "lower", worse, limit));
    }
  }
  return l;
}

engine::StatusOr<double> GateMetricValue(const ReportFigures& r, GateMetric metric,
                                         std::string_view cluster_queue) {
  if (cluster_queue.empty()) {
    switch (metric) {
      case GateMetric::kP50Wait:
      case GateMetric::kP90Wait:
      case GateMetric::kP99Wait:
      case GateMetric::kMeanWait:
      case GateMetric::kMaxWait:
        return WaitField(r.overall, metric);
      case GateMetric::kUtilisation: {
        double sum = 0;
        int n = 0;
        for (const UsageFigures& u : r.usage) {
          if (u.nominal > 0) {
            sum += u.utilisation;
            ++n;
          }
        }
        return n == 0 ? 0.0 : sum / n;
      }
      case GateMetric::kPreemptions:
        return static_cast<double>(r.preemptions);
      case GateMetric::kEvictions:
        return static_cast<double>(r.evictions);
      case GateMetric::kPendingAtEnd:
        return static_cast<double>(r.pending_at_end);
      case GateMetric::kAdmissions:
        return static_cast<double>(r.admissions);
    }
    return 0.0;
  }
  const ClusterQueueFigures* cq = nullptr;
  for (const ClusterQueueFigures& c : r.cluster_queues) {
    if (c.name == cluster_queue) {
      cq = &c;
    }
  }
  if (cq == nullptr) {
    return engine::NotFound(fmt::format("no ClusterQueue \"{}\" in the report", cluster_queue));
  }
  switch (metric) {
    case GateMetric::kP50Wait:
    case GateMetric::kP90Wait:
    case GateMetric::kP99Wait:
    case GateMetric::kMeanWait:
    case GateMetric::kMaxWait:
      for (const NamedWaitFigures& g : r.by_cluster_queue) {
        if (g.name == cluster_queue) {
          return WaitField(g.stats, metric);
        }
      }
      return 0.0;  // no admissions: the report's convention for empty stats
    case GateMetric::kUtilisation: {
      double sum = 0;
      int n = 0;
      for (const UsageFigures& u : r.usage) {
        if (u.cluster_queue == cluster_queue && u.nominal > 0) {
          sum += u.utilisation;
          ++n;
        }
      }
      return n == 0 ? 0.0 : sum / n;
    }
    case GateMetric::kPreemptions:
      return static_cast<double>(cq->preempted);
    case GateMetric::kEvictions:
      break;
    case GateMetric::kPendingAtEnd:
      return static_cast<double>(cq->pending_at_end);
    case GateMetric::kAdmissions:
      return static_cast<double>(cq->admitted);
  }
  return engine::InvalidArgument("evictions are not counted per ClusterQueue");
}

GateCheck EvaluateGateLimit(const GateLimit& limit, double baseline, double candidate) {
  GateCheck c;
  c.limit = limit;
  c.baseline = baseline;
  c.candidate = candidate;
  const std::string name = limit.cluster_queue.empty()
                               ? std::string(ToString(limit.metric))
                               : fmt::format("{}@{}", ToString(limit.metric), limit.cluster_queue);
  if (!std::isfinite(baseline) || !std::isfinite(candidate)) {
    c.pass = false;
    c.worse_by = std::numeric_limits<double>::quiet_NaN();
    c.message = fmt::format("{}: not a number in the report (baseline {}, candidate {})", name,
                            ShowValue(limit.metric, baseline), ShowValue(limit.metric, candidate));
    return c;
  }
  const double worse = HigherIsWorse(limit.metric) ? candidate - baseline : baseline - candidate;
  switch (limit.unit) {
    case LimitUnit::kAbsolute:
      c.worse_by = worse;
      break;
    case LimitUnit::kPoints:
      c.worse_by = worse * 100;
      break;
    case LimitUnit::kPercent:
      if (baseline == 0) {
        c.worse_by = worse > 0   ? std::numeric_limits<double>::infinity()
                     : worse < 0 ? -std::numeric_limits<double>::infinity()
                                 : 0.0;
      } else {
        c.worse_by = worse / std::fabs(baseline) * 100;
      }
      break;
  }
  c.pass = c.worse_by <= limit.amount + kTolerance;
  const std::string values = fmt::format(
      "baseline {}, candidate {}, change {}", ShowValue(limit.metric, baseline),
      ShowValue(limit.metric, candidate), ShowChange(limit.metric, baseline, candidate));
  if (c.pass) {
    c.message = fmt::format("{}: within {}: {}", name, LimitText(limit), values);
  } else {
    c.message = fmt::format("{}: candidate is worse than baseline by more than {}: {}", name,
                            LimitText(limit), values);
  }
  return c;
}

std::string FormatGateTable(const std::vector<GateCheck>& checks) {
  std::string out = fmt::format("{:<28} {:>10} {:>10} {:>18} {:>10}  {}\n", "metric", "baseline",
                                "candidate", "change", "limit", "result");
  int failed = 0;
  for (const GateCheck& c : checks) {
    const GateLimit& l = c.limit;
    std::string name = l.cluster_queue.empty()
                           ? std::string(ToString(l.metric))
                           : fmt::format("{}@{}", ToString(l.metric), l.cluster_queue);
    if (name.size() > 28) {
      name = fmt::format("{}~", name.substr(0, 27));
    }
    out += fmt::format("{:<28} {:>10} {:>10} {:>18} {:>10}  {}\n", name,
                       ShowValue(l.metric, c.baseline), ShowValue(l.metric, c.candidate),
                       ShowChange(l.metric, c.baseline, c.candidate), LimitText(l),
                       c.pass ? "PASS" : "FAIL");
    failed += c.pass ? 0 : 1;
  }
  if (failed == 0) {
    out += fmt::format("PASS: all {} limits hold\n", checks.size());
  } else {
    out += fmt::format("FAIL: {} of {} limits broken\n", failed, checks.size());
  }
  return out;
}

std::string FormatJUnit(const std::vector<GateCheck>& checks) {
  int failures = 0;
  for (const GateCheck& c : checks) {
    failures += c.pass ? 0 : 1;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"tally gate\" tests=\"{0}\" failures=\"{1}\">\n",
                     checks.size(), failures);
  out += fmt::format(
      "  <testsuite name=\"tally gate\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" "
      "skipped=\"0\">\n",
      checks.size(), failures);
  for (const GateCheck& c : checks) {
    const std::string name = internal::MarkupEscape(c.limit.spec);
    if (c.pass) {
      out += fmt::format("    <testcase classname=\"tally.gate\" name=\"{}\">\n", name);
      out += fmt::format("      <system-out>{}</system-out>\n", internal::MarkupEscape(c.message));
      out += "    </testcase>\n";
    } else {
      const std::string message = internal::MarkupEscape(c.message);
      out += fmt::format("    <testcase classname=\"tally.gate\" name=\"{}\">\n", name);
      out += fmt::format("      <failure message=\"{0}\" type=\"limit\">{0}</failure>\n", message);
      out += "    </testcase>\n";
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

namespace {

const char* ToString(LimitUnit unit) {
  switch (unit) {
    case LimitUnit::kAbsolute:
      return "absolute";
    case LimitUnit::kPercent:
      return "percent";
    case LimitUnit::kPoints:
      return "points";
  }
  return "?";
}

void RunJson(JsonWriter& w, std::string_view dir, std::string_view mode) {
  w.BeginObject();
  w.Key("dir");
  w.String(dir);
  w.Key("mode");
  w.String(mode);
  w.EndObject();
}

}  // namespace

std::string FormatGateJson(const GateOptions& options, std::string_view baseline_mode,
                           std::string_view candidate_mode, const std::vector<GateCheck>& checks) {
  JsonWriter w;
  bool all = true;
  w.BeginObject();
  w.Key("baseline");
  RunJson(w, options.baseline, baseline_mode);
  w.Key("candidate");
  RunJson(w, options.candidate, candidate_mode);
  w.Key("checks");
  w.BeginArray();
  for (const GateCheck& c : checks) {
    all = all && c.pass;
    w.BeginObject();
    w.Key("baseline");
    w.RoundedNumber(c.baseline);
    w.Key("candidate");
    w.RoundedNumber(c.candidate);
    w.Key("clusterQueue");
    w.String(c.limit.cluster_queue);
    w.Key("limit");
    w.RoundedNumber(c.limit.amount);
    w.Key("message");
    w.String(c.message);
    w.Key("metric");
    w.String(ToString(c.limit.metric));
    w.Key("pass");
    w.Bool(c.pass);
    w.Key("spec");
    w.String(c.limit.spec);
    w.Key("unit");
    w.String(ToString(c.limit.unit));
    w.Key("worseBy");
    w.RoundedNumber(c.worse_by);
    w.EndObject();
  }
  w.EndArray();
  w.Key("pass");
  w.Bool(all);
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

int RunGate(const GateOptions& options) {
  std::vector<GateLimit> limits;
  for (const std::string& spec : options.limits) {
    engine::StatusOr<GateLimit> l = ParseGateLimit(spec);
    if (!l.ok()) {
      std::fprintf(stderr, "error: %s\n", l.status().message().c_str());
      return 2;
    }
    limits.push_back(std::move(l).value());
  }
  if (limits.empty()) {
    std::fprintf(stderr, "error: no limits: give at least one --max METRIC=LIMIT\n");
    return 2;
  }
  engine::StatusOr<ReplayOutputs> base = LoadReplayOutputs(options.baseline, false);
  if (!base.ok()) {
    std::fprintf(stderr, "error: --baseline: %s\n", base.status().message().c_str());
    return 2;
  }
  engine::StatusOr<ReplayOutputs> cand = LoadReplayOutputs(options.candidate, false);
  if (!cand.ok()) {
    std::fprintf(stderr, "error: --candidate: %s\n", cand.status().message().c_str());
    return 2;
  }
  std::vector<GateCheck> checks;
  for (const GateLimit& l : limits) {
    engine::StatusOr<double> b = GateMetricValue(base->report, l.metric, l.cluster_queue);
    engine::StatusOr<double> c = GateMetricValue(cand->report, l.metric, l.cluster_queue);
    if (!b.ok() || !c.ok()) {
      std::fprintf(stderr, "error: --max %s: %s: %s\n", l.spec.c_str(),
                   !b.ok() ? "baseline" : "candidate",
                   (!b.ok() ? b.status() : c.status()).message().c_str());
      return 2;
    }
    checks.push_back(EvaluateGateLimit(l, *b, *c));
  }
  std::string table;
  if (options.output == "text") {
    table = fmt::format("tally gate: baseline {} ({}), candidate {} ({})\n", options.baseline,
                        base->report.mode, options.candidate, cand->report.mode);
    table += FormatGateTable(checks);
  } else {
    table = ToOutputFormat(FormatGateJson(options, base->report.mode, cand->report.mode, checks),
                           options.output);
  }
  std::fwrite(table.data(), 1, table.size(), stdout);
  if (!options.junit.empty()) {
    std::ofstream out(options.junit, std::ios::binary | std::ios::trunc);
    const std::string xml = FormatJUnit(checks);
    out << xml;
    out.close();
    if (!out) {
      std::fprintf(stderr, "error: --junit %s: cannot write\n", options.junit.c_str());
      return 2;
    }
  }
  bool all = true;
  for (const GateCheck& c : checks) {
    all = all && c.pass;
  }
  return all ? 0 : 1;
}

}  // namespace replay
