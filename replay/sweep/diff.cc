// `tally diff`: figures of two replays side by side (docs/diff-and-gate.md): the comparison, the
// helpers its formats share and the command; the formats are diff_text.cc, diff_json.cc and
// diff_html.cc.
#include "replay/sweep/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "replay/io/json_to_yaml.h"
#include "replay/report/report_writers.h"

namespace replay {

double Delta::relative() const {
  if (a == 0) {
    return b == 0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  }
  return (b - a) / std::fabs(a);
}

namespace {

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
  std::string s = internal::FormatSecondsShort(v);
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

std::string SinceStart(int64_t micros, int64_t start_micros) {
  if (micros == kNeverAdmitted) {
    return "-";
  }
  return internal::FormatSecondsShort(static_cast<double>(micros - start_micros) / 1e6);
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
