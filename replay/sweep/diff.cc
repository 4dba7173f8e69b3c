// `tally diff`: figures of two replays side by side (docs/diff-and-gate.md).
#include "replay/sweep/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "replay/io/json_to_yaml.h"
#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"
#include "replay/report/report_writers.h"

namespace replay {

double Delta::relative() const {
  if (a == 0) {
    return b == 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  }
  return (b - a) / std::fabs(a);
}

namespace {

using internal::FormatSecondsShort;

constexpr size_t kNameWidth = 22;
constexpr size_t kWorkloadWidth = 31;

std::string Fit(std::string_view s, size_t width) {
  if (s.size() <= width) {
    return std::string(s);
  }
  return fmt::format("{}~", s.substr(0, width - 1));
}

WaitDelta MakeWaitDelta(std::string name, const WaitFigures* a, const WaitFigures* b) {
  static constexpr WaitFigures kNone{};
  const WaitFigures& x = a != nullptr ? *a : kNone;
  const WaitFigures& y = b != nullptr ? *b : kNone;
  WaitDelta d;
  d.name = std::move(name);
  d.in_a = a != nullptr;
  d.in_b = b != nullptr;
  d.count = {static_cast<double>(x.count), static_cast<double>(y.count)};
  d.mean = {x.mean, y.mean};
  d.p50 = {x.p50, y.p50};
  d.p90 = {x.p90, y.p90};
  d.p99 = {x.p99, y.p99};
  d.max = {x.max, y.max};
  return d;
}

std::vector<WaitDelta> GroupDeltas(const std::vector<NamedWaitFigures>& a,
                                   const std::vector<NamedWaitFigures>& b) {
  std::map<std::string, std::pair<const WaitFigures*, const WaitFigures*>> merged;
  for (const NamedWaitFigures& g : a) {
    merged[g.name].first = &g.stats;
  }
  for (const NamedWaitFigures& g : b) {
    merged[g.name].second = &g.stats;
  }
  std::vector<WaitDelta> out;
  out.reserve(merged.size());
  for (const auto& [name, pair] : merged) {
    out.push_back(MakeWaitDelta(name, pair.first, pair.second));
  }
  return out;
}

WorkloadChange MakeChange(const std::string& key, const WorkloadSummary& a,
                          const DecisionSummary& da, const WorkloadSummary& b,
                          const DecisionSummary& db) {
  WorkloadChange c;
  c.workload = key;
  c.admitted_a = a.first_admitted;
  c.admitted_b = b.first_admitted;
  if (a.flavors != kNoIndex) {
    c.flavors_a = da.flavor_sets[a.flavors];
  }
  if (b.flavors != kNoIndex) {
    c.flavors_b = db.flavor_sets[b.flavors];
  }
  if (a.cluster_queue != kNoIndex) {
    c.cluster_queue = da.cluster_queues[a.cluster_queue];
  } else if (b.cluster_queue != kNoIndex) {
    c.cluster_queue = db.cluster_queues[b.cluster_queue];
  }
  c.fate_a = FateText(a);
  c.fate_b = FateText(b);
  return c;
}

void CompareWorkloads(const DecisionSummary& da, const DecisionSummary& db, int top,
                      ReplayDiff& d) {
  static constexpr WorkloadSummary kUnseen{};
  const size_t limit = static_cast<size_t>(std::max(top, 0));
  std::vector<WorkloadChange> moved;
  auto visit = [&](const std::string& key, const WorkloadSummary& a, const WorkloadSummary& b) {
    ++d.workloads_compared;
    const bool admitted_a = a.first_admitted != kNeverAdmitted;
    const bool admitted_b = b.first_admitted != kNeverAdmitted;
    const bool fate_changed = a.fate != b.fate || a.preemptions != b.preemptions;
    d.fate_changed += fate_changed ? 1 : 0;
    if (admitted_a && admitted_b) {
      ++d.admitted_both;
      const bool time_changed = a.first_admitted != b.first_admitted;
      auto flavors = [](const DecisionSummary& ds, uint32_t id) -> std::string_view {
        return id == kNoIndex ? std::string_view{} : std::string_view{ds.flavor_sets[id]};
      };
      const bool flavor_changed = flavors(da, a.flavors) != flavors(db, b.flavors);
      d.admission_time_changed += time_changed ? 1 : 0;
      d.flavor_changed += flavor_changed ? 1 : 0;
      if (time_changed) {
        d.admission_changes_seconds.push_back(
            static_cast<double>(b.first_admitted - a.first_admitted) / 1e6);
        moved.push_back(MakeChange(key, a, da, b, db));
      } else if (flavor_changed || fate_changed) {
        d.other_changed.push_back(MakeChange(key, a, da, b, db));
      }
    } else if (admitted_a) {
      ++d.admitted_only_a;
      d.only_a.push_back(MakeChange(key, a, da, b, db));
    } else if (admitted_b) {
      ++d.admitted_only_b;
      d.only_b.push_back(MakeChange(key, a, da, b, db));
    }
  };
  for (const auto& [key, a] : da.workloads) {
    auto it = db.workloads.find(key);
    visit(key, a, it != db.workloads.end() ? it->second : kUnseen);
  }
  for (const auto& [key, b] : db.workloads) {
    if (!da.workloads.contains(key)) {
      visit(key, kUnseen, b);
    }
  }
  auto by_name = [](const WorkloadChange& x, const WorkloadChange& y) {
    return x.workload < y.workload;
  };
  auto by_change = [](const WorkloadChange& x, const WorkloadChange& y) {
    const int64_t cx = std::abs(x.admitted_b - x.admitted_a);
    const int64_t cy = std::abs(y.admitted_b - y.admitted_a);
    return cx != cy ? cx > cy : x.workload < y.workload;
  };
  const size_t n = std::min(limit, moved.size());
  std::partial_sort(moved.begin(), moved.begin() + static_cast<std::ptrdiff_t>(n), moved.end(),
                    by_change);
  moved.resize(n);
  d.top_changed = std::move(moved);
  for (std::vector<WorkloadChange>* list : {&d.only_a, &d.only_b, &d.other_changed}) {
    std::sort(list->begin(), list->end(), by_name);
    if (list->size() > limit) {
      list->resize(limit);
    }
  }
}

}  // namespace

ReplayDiff ComputeDiff(const ReplayOutputs& a, const ReplayOutputs& b, int top) {
  const ReportFigures& ra = a.report;
  const ReportFigures& rb = b.report;
  ReplayDiff d;
  d.dir_a = a.dir;
  d.dir_b = b.dir;
  d.mode_a = ra.mode;
  d.mode_b = rb.mode;
  d.start_a = ra.start;
  d.start_b = rb.start;
  d.trace_a = ra.events_file;
  d.trace_b = rb.events_file;
  if (ra.events_file != rb.events_file) {
    d.warnings.emplace_back(
        "different trace files: per-workload changes assume they hold the same workloads");
  }
  if (ra.start != rb.start) {
    d.warnings.push_back(
        fmt::format("the replays start at different times ({} and {})", ra.start, rb.start));
  }
  if (ra.workloads_created != rb.workloads_created) {
    d.warnings.push_back(fmt::format("the replays created different workloads ({} and {})",
                                     ra.workloads_created, rb.workloads_created));
  }
  auto count = [&](const char* name, int64_t ReportFigures::*field) {
    d.outcomes.emplace_back(name,
                            Delta{static_cast<double>(ra.*field), static_cast<double>(rb.*field)});
  };
  count("admissions", &ReportFigures::admissions);
  count("preemptions", &ReportFigures::preemptions);
  count("evictions", &ReportFigures::evictions);
  count("finished", &ReportFigures::finished);
  count("pendingAtEnd", &ReportFigures::pending_at_end);
  count("runningAtEnd", &ReportFigures::running_at_end);
  count("deleted", &ReportFigures::deleted);
  count("deactivated", &ReportFigures::deactivated);
  count("workloadsAdmitted", &ReportFigures::workloads_admitted);
  d.overall = MakeWaitDelta("", &ra.overall, &rb.overall);
  if (ra.has_time_to_start || rb.has_time_to_start) {
    d.time_to_start = MakeWaitDelta("", ra.has_time_to_start ? &ra.time_to_start : nullptr,
                                    rb.has_time_to_start ? &rb.time_to_start : nullptr);
  }
  d.by_cluster_queue = GroupDeltas(ra.by_cluster_queue, rb.by_cluster_queue);
  d.by_class = GroupDeltas(ra.by_class, rb.by_class);

  using UsageKey = std::tuple<std::string, std::string, std::string>;
  std::map<UsageKey, std::pair<const UsageFigures*, const UsageFigures*>> usage;
  for (const UsageFigures& u : ra.usage) {
    usage[{u.cluster_queue, u.flavor, u.resource}].first = &u;
  }
  for (const UsageFigures& u : rb.usage) {
    usage[{u.cluster_queue, u.flavor, u.resource}].second = &u;
  }
  for (const auto& [key, pair] : usage) {
    UsageDelta u;
    std::tie(u.cluster_queue, u.flavor, u.resource) = key;
    const auto* x = pair.first;
    const auto* y = pair.second;
    u.nominal = {x != nullptr ? static_cast<double>(x->nominal) : 0.0,
                 y != nullptr ? static_cast<double>(y->nominal) : 0.0};
    u.utilisation = {x != nullptr ? x->utilisation : 0.0, y != nullptr ? y->utilisation : 0.0};
    d.usage.push_back(std::move(u));
  }
  CompareWorkloads(a.decisions, b.decisions, top, d);
  return d;
}

std::string SignedChange(double v, bool integer) {
  if (std::isnan(v)) {
    return "-";
  }
  if (integer) {
    return fmt::format("{:+d}", static_cast<int64_t>(v));
  }
  std::string s = FormatSecondsShort(v);
  return v > 0 ? fmt::format("+{}", s) : s;
}

std::string RelativeChange(double relative) {
  if (std::isnan(relative)) {
    return "new";
  }
  if (relative == 0) {
    return "0%";
  }
  return fmt::format("{:+.1f}%", relative * 100);
}

namespace {

// A quota in the units a manifest would use: cpu in cores, memory with a binary suffix when exact.
std::string Amount(std::string_view resource, double canonical) {
  if (resource == "cpu") {
    return fmt::format("{:g}", canonical / 1000);
  }
  auto v = static_cast<int64_t>(canonical);
  if (resource == "memory" && v > 0) {
    constexpr std::string_view kSuffixes[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    std::string_view suffix;
    for (std::string_view s : kSuffixes) {
      if (v % 1024 != 0) {
        break;
      }
      v /= 1024;
      suffix = s;
    }
    return fmt::format("{}{}", v, suffix);
  }
  return fmt::format("{}", v);
}

}  // namespace

std::string SinceStart(int64_t micros, int64_t start_micros) {
  if (micros == kNeverAdmitted) {
    return "-";
  }
  return FormatSecondsShort(static_cast<double>(micros - start_micros) / 1e6);
}

namespace {

void WaitRows(std::string& out, const std::string& name, const WaitDelta& w) {
  const Delta* ds[] = {&w.count, &w.mean, &w.p50, &w.p90, &w.p99, &w.max};
  std::string label = Fit(name, kNameWidth);
  auto row = [&](std::string_view which, auto cell) {
    out += fmt::format("{:<{}} {:<6}", label, kNameWidth, which);
    for (size_t i = 0; i < 6; ++i) {
      out += fmt::format(" {:>9}", cell(i, *ds[i]));
    }
    out += '\n';
    label.clear();
  };
  row(w.in_a ? "A" : "A (-)", [](size_t i, const Delta& d) {
    return i == 0 ? fmt::format("{}", static_cast<int64_t>(d.a)) : FormatSecondsShort(d.a);
  });
  row(w.in_b ? "B" : "B (-)", [](size_t i, const Delta& d) {
    return i == 0 ? fmt::format("{}", static_cast<int64_t>(d.b)) : FormatSecondsShort(d.b);
  });
  row("change", [](size_t i, const Delta& d) { return SignedChange(d.change(), i == 0); });
  row("rel", [](size_t, const Delta& d) { return RelativeChange(d.relative()); });
}

// One row per workload: B's flavors and fate, and a "was" line with A's when they differ.
void WorkloadRows(std::string& out, const std::vector<WorkloadChange>& rows, int64_t start) {
  constexpr size_t kTextWidth = 100 - kWorkloadWidth - 27;
  out += fmt::format("{:<{}} {:>7} {:>7} {:>8}  {}\n", "workload", kWorkloadWidth, "A at", "B at",
                     "change", "flavors, fate (B; A on a \"was\" line)");
  auto show = [](const std::string& flavors, const std::string& fate) {
    return fmt::format("{}, {}", flavors.empty() ? "-" : flavors, fate);
  };
  for (const WorkloadChange& c : rows) {
    const bool both = c.admitted_a != kNeverAdmitted && c.admitted_b != kNeverAdmitted;
    out += fmt::format("{:<{}} {:>7} {:>7} {:>8}  {}\n", Fit(c.workload, kWorkloadWidth),
                       kWorkloadWidth, SinceStart(c.admitted_a, start),
                       SinceStart(c.admitted_b, start),
                       both ? SignedChange(c.wait_change_seconds(), false) : "-",
                       Fit(show(c.flavors_b, c.fate_b), kTextWidth));
    if (c.flavors_a != c.flavors_b || c.fate_a != c.fate_b) {
      out += fmt::format("{:>{}}  {}\n", "was", kWorkloadWidth + 25,
                         Fit(show(c.flavors_a, c.fate_a), kTextWidth));
    }
  }
}

}  // namespace

std::string FormatDiffText(const ReplayDiff& d) {
  std::string out = "tally diff\n";
  out += fmt::format("  A: {}: {}, trace {}, start {}\n", d.dir_a, d.mode_a, d.trace_a, d.start_a);
  out += fmt::format("  B: {}: {}, trace {}, start {}\n", d.dir_b, d.mode_b, d.trace_b, d.start_b);
  for (const std::string& w : d.warnings) {
    out += fmt::format("  warning: {}\n", w);
  }
  out +=
      fmt::format("\n{:<22} {:>10} {:>10} {:>10} {:>9}\n", "outcomes", "A", "B", "change", "rel");
  for (const auto& [name, delta] : d.outcomes) {
    out += fmt::format("{:<22} {:>10} {:>10} {:>10} {:>9}\n", name, static_cast<int64_t>(delta.a),
                       static_cast<int64_t>(delta.b), SignedChange(delta.change(), true),
                       RelativeChange(delta.relative()));
  }
  out += fmt::format("\n{:<{}} {:<6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "time to admission",
                     kNameWidth, "", "count", "mean", "p50", "p90", "p99", "max");
  WaitRows(out, "overall", d.overall);
  if (!d.by_cluster_queue.empty()) {
    out += "by ClusterQueue:\n";
    for (const WaitDelta& w : d.by_cluster_queue) {
      WaitRows(out, w.name, w);
    }
  }
  const bool classes =
      d.by_class.size() > 1 || (d.by_class.size() == 1 && !d.by_class[0].name.empty());
  if (classes) {
    out += "by class (label tally.dev/class):\n";
    for (const WaitDelta& w : d.by_class) {
      WaitRows(out, w.name.empty() ? "(none)" : w.name, w);
    }
  }
  if (d.time_to_start.has_value()) {
    out += fmt::format("\n{:<{}} {:<6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "time to start",
                       kNameWidth, "", "count", "mean", "p50", "p90", "p99", "max");
    WaitRows(out, "creation to pods ready", *d.time_to_start);
  }
  out += fmt::format("\n{:<46} {:>8} {:>8} {:>9}\n", "utilisation (mean usage / nominal)", "A", "B",
                     "change");
  for (const UsageDelta& u : d.usage) {
    std::string name = Fit(fmt::format("{}/{}/{}", u.cluster_queue, u.flavor, u.resource), 46);
    out += fmt::format("{:<46} {:>7.1f}% {:>7.1f}% {:>+7.1f}pp", name, u.utilisation.a * 100,
                       u.utilisation.b * 100, u.utilisation.change() * 100);
    if (u.nominal.a != u.nominal.b) {
      out += fmt::format("  nominal {} -> {}", Amount(u.resource, u.nominal.a),
                         Amount(u.resource, u.nominal.b));
    }
    out += '\n';
  }

  out += fmt::format(
      "\nworkloads: {} in the decisions logs; admitted in both {}, in A only {}, in B only {}\n",
      d.workloads_compared, d.admitted_both, d.admitted_only_a, d.admitted_only_b);
  out += fmt::format("  first admission moved {}, flavor changed {}, fate changed {}\n",
                     d.admission_time_changed, d.flavor_changed, d.fate_changed);
  engine::StatusOr<int64_t> start = ParseRfc3339(d.start_a);
  const int64_t t0 = start.ok() ? *start : 0;
  if (!d.top_changed.empty()) {
    out += fmt::format(
        "\nlargest changes in time to admission ({}; A at, B at: first Admitted since A's "
        "start):\n",
        d.top_changed.size());
    WorkloadRows(out, d.top_changed, t0);
  }
  if (!d.other_changed.empty()) {
    out += fmt::format("\nsame admission time, flavor or fate changed ({} listed):\n",
                       d.other_changed.size());
    WorkloadRows(out, d.other_changed, t0);
  }
  if (!d.only_a.empty()) {
    out += fmt::format("\nadmitted in A only ({} listed):\n", d.only_a.size());
    WorkloadRows(out, d.only_a, t0);
  }
  if (!d.only_b.empty()) {
    out += fmt::format("\nadmitted in B only ({} listed):\n", d.only_b.size());
    WorkloadRows(out, d.only_b, t0);
  }
  return out;
}

namespace {

void DeltaJson(JsonWriter& w, const Delta& d, bool integer) {
  w.BeginObject();
  w.Key("a");
  integer ? w.Int(static_cast<int64_t>(d.a)) : w.RoundedNumber(d.a);
  w.Key("b");
  integer ? w.Int(static_cast<int64_t>(d.b)) : w.RoundedNumber(d.b);
  w.Key("change");
  integer ? w.Int(static_cast<int64_t>(d.change())) : w.RoundedNumber(d.change());
  w.Key("relative");
  w.RoundedNumber(d.relative());
  w.EndObject();
}

void WaitJson(JsonWriter& w, const WaitDelta& d, bool named) {
  w.BeginObject();
  w.Key("count");
  DeltaJson(w, d.count, true);
  w.Key("inA");
  w.Bool(d.in_a);
  w.Key("inB");
  w.Bool(d.in_b);
  w.Key("max");
  DeltaJson(w, d.max, false);
  w.Key("mean");
  DeltaJson(w, d.mean, false);
  if (named) {
    w.Key("name");
    w.String(d.name);
  }
  w.Key("p50");
  DeltaJson(w, d.p50, false);
  w.Key("p90");
  DeltaJson(w, d.p90, false);
  w.Key("p99");
  DeltaJson(w, d.p99, false);
  w.EndObject();
}

void SideJson(JsonWriter& w, int64_t admitted, const std::string& fate,
              const std::string& flavors) {
  w.BeginObject();
  w.Key("admitted");
  if (admitted == kNeverAdmitted) {
    w.Null();
  } else {
    w.String(FormatRfc3339(admitted));
  }
  w.Key("fate");
  w.String(fate);
  w.Key("flavors");
  w.String(flavors);
  w.EndObject();
}

void ChangesJson(JsonWriter& w, const std::vector<WorkloadChange>& list) {
  w.BeginArray();
  for (const WorkloadChange& c : list) {
    w.BeginObject();
    w.Key("a");
    SideJson(w, c.admitted_a, c.fate_a, c.flavors_a);
    w.Key("b");
    SideJson(w, c.admitted_b, c.fate_b, c.flavors_b);
    w.Key("clusterQueue");
    w.String(c.cluster_queue);
    w.Key("waitChangeSeconds");
    if (c.admitted_a != kNeverAdmitted && c.admitted_b != kNeverAdmitted) {
      w.RoundedNumber(c.wait_change_seconds());
    } else {
      w.Null();
    }
    w.Key("workload");
    w.String(c.workload);
    w.EndObject();
  }
  w.EndArray();
}

void RunJson(JsonWriter& w, const std::string& dir, const std::string& mode,
             const std::string& start, const std::string& trace) {
  w.BeginObject();
  w.Key("dir");
  w.String(dir);
  w.Key("mode");
  w.String(mode);
  w.Key("start");
  w.String(start);
  w.Key("trace");
  w.String(trace);
  w.EndObject();
}

}  // namespace

std::string FormatDiffJson(const ReplayDiff& d) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a");
  RunJson(w, d.dir_a, d.mode_a, d.start_a, d.trace_a);
  w.Key("b");
  RunJson(w, d.dir_b, d.mode_b, d.start_b, d.trace_b);
  w.Key("outcomes");
  {
    std::vector<std::pair<std::string, Delta>> sorted = d.outcomes;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    w.BeginObject();
    for (const auto& [name, delta] : sorted) {
      w.Key(name);
      DeltaJson(w, delta, true);
    }
    w.EndObject();
  }
  w.Key("timeToAdmission");
  w.BeginObject();
  w.Key("byClass");
  w.BeginArray();
  for (const WaitDelta& g : d.by_class) {
    WaitJson(w, g, true);
  }
  w.EndArray();
  w.Key("byClusterQueue");
  w.BeginArray();
  for (const WaitDelta& g : d.by_cluster_queue) {
    WaitJson(w, g, true);
  }
  w.EndArray();
  w.Key("overall");
  WaitJson(w, d.overall, false);
  w.EndObject();
  if (d.time_to_start.has_value()) {
    w.Key("timeToStart");
    WaitJson(w, *d.time_to_start, false);
  }
  w.Key("usage");
  w.BeginArray();
  for (const UsageDelta& u : d.usage) {
    w.BeginObject();
    w.Key("clusterQueue");
    w.String(u.cluster_queue);
    w.Key("flavor");
    w.String(u.flavor);
    w.Key("nominal");
    DeltaJson(w, u.nominal, true);
    w.Key("resource");
    w.String(u.resource);
    w.Key("utilisation");
    DeltaJson(w, u.utilisation, false);
    w.EndObject();
  }
  w.EndArray();
  w.Key("warnings");
  w.BeginArray();
  for (const std::string& s : d.warnings) {
    w.String(s);
  }
  w.EndArray();
  w.Key("workloads");
  w.BeginObject();
  w.Key("admissionTimeChanged");
  w.Int(d.admission_time_changed);
  w.Key("admittedBoth");
  w.Int(d.admitted_both);
  w.Key("admittedOnlyA");
  w.Int(d.admitted_only_a);
  w.Key("admittedOnlyB");
  w.Int(d.admitted_only_b);
  w.Key("compared");
  w.Int(d.workloads_compared);
  w.Key("fateChanged");
  w.Int(d.fate_changed);
  w.Key("flavorChanged");
  w.Int(d.flavor_changed);
  w.Key("onlyA");
  ChangesJson(w, d.only_a);
  w.Key("onlyB");
  ChangesJson(w, d.only_b);
  w.Key("otherChanged");
  ChangesJson(w, d.other_changed);
  w.Key("topChanged");
  ChangesJson(w, d.top_changed);
  w.EndObject();
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

int RunDiff(const DiffOptions& options) {
  engine::StatusOr<ReplayOutputs> a = LoadReplayOutputs(options.a, /*with_decisions=*/true);
  if (!a.ok()) {
    std::fprintf(stderr, "error: %s\n", a.status().message().c_str());
    return 2;
  }
  engine::StatusOr<ReplayOutputs> b = LoadReplayOutputs(options.b, /*with_decisions=*/true);
  if (!b.ok()) {
    std::fprintf(stderr, "error: %s\n", b.status().message().c_str());
    return 2;
  }
  ReplayDiff d = ComputeDiff(*a, *b, options.top);
  std::string text = options.output == "text"   ? FormatDiffText(d)
                     : options.output == "html" ? FormatDiffHtml(d)
                                                : ToOutputFormat(FormatDiffJson(d), options.output);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace replay
