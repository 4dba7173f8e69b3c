// The summary table `tally replay` prints on stdout (docs/report.md), and the helpers the other
// writers share.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/quantity.h"
#include "replay/io/time_parse.h"
#include "replay/report/report_writers.h"

namespace replay {

namespace internal {

std::string FormatSecondsShort(double seconds) {
  if (!std::isfinite(seconds)) {
    return "-";
  }
  const double s = seconds;
  const double a = std::fabs(s);
  if (a == 0) {
    return "0s";
  }
  if (a < 0.0009995) {
    return fmt::format("{:.3g}us", s * 1e6);
  }
  if (a < 0.9995) {
    return fmt::format("{:.3g}ms", s * 1e3);
  }
  if (a < 99.95) {
    return fmt::format("{:.3g}s", s);
  }
  if (a / 60 < 99.95) {
    return fmt::format("{:.3g}m", s / 60);
  }
  if (a / 3600 < 99.95) {
    return fmt::format("{:.3g}h", s / 3600);
  }
  if (a / 86400 < 99.95) {
    return fmt::format("{:.3g}d", s / 86400);
  }
  return fmt::format("{:.0f}d", s / 86400);
}

const ResourceUsage* MainResource(const ReplayReport& report, std::string_view cluster_queue) {
  const ResourceUsage* best = nullptr;
  for (const ResourceUsage& u : report.usage) {
    if (u.cluster_queue != cluster_queue || u.nominal <= 0) {
      continue;
    }
    if (best == nullptr || u.utilisation > best->utilisation) {
      best = &u;
    }
  }
  return best;
}

std::unordered_map<std::string_view, const ResourceUsage*> MainResources(
    const ReplayReport& report) {
  std::unordered_map<std::string_view, const ResourceUsage*> best;
  for (const ResourceUsage& u : report.usage) {
    if (u.nominal <= 0) {
      continue;
    }
    auto [it, inserted] = best.try_emplace(u.cluster_queue, &u);
    if (!inserted && u.utilisation > it->second->utilisation) {
      it->second = &u;
    }
  }
  return best;
}

double KueueUnits(std::string_view resource, double canonical) {
  return engine::IsMilliResource(resource) ? canonical / 1000 : canonical;
}

}  // namespace internal

namespace {

using internal::FormatSecondsShort;

constexpr size_t kMaxWidth = 100;
constexpr size_t kMaxClusterQueueRows = 20;
constexpr size_t kMaxNameWidth = 40;  // the table narrows it further to fit kMaxWidth
constexpr size_t kMaxErrorLines = 5;

// Cut to `width` columns, marking the cut with '~'. Widths are bytes (Kubernetes names are
// ASCII); a cut never splits a UTF-8 sequence.
std::string Fit(std::string_view s, size_t width) {
  if (s.size() <= width) {
    return std::string(s);
  }
  if (width == 0) {
    return "";
  }
  size_t cut = width - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return fmt::format("{}~", s.substr(0, cut));
}

std::string FormatNanos(double ns) {
  if (!std::isfinite(ns)) {
    return "-";
  }
  if (ns < 999.5) {
    return fmt::format("{:.0f}ns", ns);
  }
  if (ns < 999.5e3) {
    return fmt::format("{:.3g}us", ns / 1e3);
  }
  if (ns < 999.5e6) {
    return fmt::format("{:.3g}ms", ns / 1e6);
  }
  return fmt::format("{:.3g}s", ns / 1e9);
}

std::string Percent(double ratio) {
  if (!std::isfinite(ratio)) {
    return "-";
  }
  return fmt::format("{:.0f}%", ratio * 100);
}

// "label: a, b, c" wrapped at kMaxWidth, continuation lines indented.
void AppendWrapped(std::string& out, std::string_view label,
                   const std::vector<std::string>& items) {
  std::string line(label);
  const std::string indent(4, ' ');
  for (size_t i = 0; i < items.size(); ++i) {
    std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (line.size() + 1 + item.size() > kMaxWidth && line.size() > indent.size()) {
      out += line;
      out += '\n';
      line = indent;
    } else if (!line.empty() && line.back() != ' ') {
      line += ' ';
    }
    line += Fit(item, kMaxWidth - indent.size());
  }
  out += line;
  out += '\n';
}

// A table with aligned columns: column 0 left-aligned, the others right-aligned unless marked.
// Left-aligned columns are shrinkable: when the table is wider than kMaxWidth, the widest of them
// is narrowed (down to kMinShrunkWidth) and its cells cut with '~'.
class Table {
 public:
  explicit Table(std::vector<std::string> headers, std::vector<bool> left = {})
      : headers_(std::move(headers)), left_(std::move(left)) {
    left_.resize(headers_.size(), false);
    left_[0] = true;
  }
  void Add(std::vector<std::string> row) {
    row.resize(headers_.size());
    rows_.push_back(std::move(row));
  }
  void Render(std::string& out) const {
    const size_t n = headers_.size();
    std::vector<size_t> width(n, 0);
    auto measure = [&](const std::vector<std::string>& row) {
      for (size_t c = 0; c < n; ++c) {
        width[c] = std::max(width[c], row[c].size());
      }
    };
    measure(headers_);
    for (const auto& row : rows_) {
      measure(row);
    }
    size_t total = kGap * (n - 1);
    for (size_t w : width) {
      total += w;
    }
    while (total > kMaxWidth) {
      size_t widest = n;
      for (size_t c = 0; c < n; ++c) {
        if (left_[c] && width[c] > kMinShrunkWidth && (widest == n || width[c] > width[widest])) {
          widest = c;
        }
      }
      if (widest == n) {
        break;
      }
      --width[widest];
      --total;
    }
    auto line = [&](const std::vector<std::string>& row) {
      std::string text;
      for (size_t c = 0; c < n; ++c) {
        if (c > 0) {
          text.append(kGap, ' ');
        }
        const std::string cell = Fit(row[c], width[c]);
        text += left_[c] ? fmt::format("{:<{}}", cell, width[c])
                         : fmt::format("{:>{}}", cell, width[c]);
      }
      while (!text.empty() && text.back() == ' ') {
        text.pop_back();
      }
      out += text;
      out += '\n';
    };
    line(headers_);
    for (const auto& row : rows_) {
      line(row);
    }
  }

 private:
  static constexpr size_t kGap = 2;
  static constexpr size_t kMinShrunkWidth = 10;

  std::vector<std::string> headers_;
  std::vector<bool> left_;
  std::vector<std::vector<std::string>> rows_;
};

std::string ModeLine(const ReplayReport& r) {
  std::vector<std::string> settings;
  for (const auto& [key, value] : r.model) {
    settings.push_back(fmt::format("{}={}", key, value));
  }
  std::string out;
  if (r.mode == "policy-only") {
    out += "tally replay, policy-only: no control-plane latency modelled\n";
    if (!settings.empty()) {
      AppendWrapped(out, "  settings:", settings);
    }
  } else {
    AppendWrapped(out, fmt::format("tally replay, {} model:", r.mode), settings);
  }
  return out;
}

void AppendInput(std::string& out, const ReplayReport& r) {
  out += fmt::format("events: {} read = {} applied + {} rejected", r.events_read, r.events_applied,
                     r.events_rejected);
  if (r.events_applied + r.events_rejected != r.events_read) {
    out +=
        fmt::format("  (MISMATCH: applied + rejected = {})", r.events_applied + r.events_rejected);
  }
  out += '\n';
  if (!r.rejected_by_reason.empty()) {
    std::vector<std::string> items;
    for (const auto& [reason, n] : r.rejected_by_reason) {
      items.push_back(fmt::format("{} {}", reason, n));
    }
    AppendWrapped(out, "  rejected by reason:", items);
  }
  const size_t listed = std::min(r.errors.size(), kMaxErrorLines);
  for (size_t i = 0; i < listed; ++i) {
    out += fmt::format("  error: {}\n", Fit(r.errors[i], kMaxWidth - 9));
  }
  const int64_t more = static_cast<int64_t>(r.errors.size() - listed) + r.errors_not_listed;
  if (more > 0) {
    out += fmt::format("  ... {} more error(s), listed in report.json up to {}\n", more,
                       ReplayReport::kMaxListedErrors);
  }
}

void AppendOutcomes(std::string& out, const ReplayReport& r) {
  out += fmt::format(
      "workloads: {} created ({} already admitted), {} admitted at least once, {} admissions\n",
      r.workloads_created, r.workloads_initially_admitted, r.workloads_admitted, r.admissions);
  std::vector<std::string> evictions;
  for (const auto& [reason, n] : r.evictions_by_reason) {
    evictions.push_back(fmt::format("{} {}", reason, n));
  }
  if (evictions.empty()) {
    evictions.push_back("none");
  }
  AppendWrapped(out,
                fmt::format("preemptions {}, requeues {}, deactivated {}; evictions:",
                            r.preemptions, r.requeues, r.deactivated),
                evictions);
  out +=
      fmt::format("at end: {} pending, {} running; {} finished, {} deleted; {} scheduling cycles\n",
                  r.pending_at_end, r.running_at_end, r.finished, r.deleted, r.cycles);
  if (r.fallbacks.enabled) {
    const ReplayReport::Fallbacks& f = r.fallbacks;
    std::vector<std::string> items;
    for (const auto& [flavor, n] : f.by_flavor) {
      items.push_back(fmt::format("from {} {}", flavor, n));
    }
    if (items.empty()) {
      items.push_back("none");
    }
    AppendWrapped(out,
                  fmt::format("flavor fallbacks: {} timeouts, {} check rejections, {} deactivated "
                              "(all flavors failed), {} retried all flavors;",
                              f.timeouts, f.check_rejections, f.exhausted, f.retries),
                  items);
    const WaitStats& s = f.time_to_start;
    out += fmt::format(
        "time to start (creation to pods ready): {} starts, mean {}, p50 {}, p90 {}, "
        "p99 {}, max {}\n",
        s.count, FormatSecondsShort(s.mean), FormatSecondsShort(s.p50), FormatSecondsShort(s.p90),
        FormatSecondsShort(s.p99), FormatSecondsShort(s.max));
    std::vector<std::string> wasted;
    for (const auto& [key, q] : f.wasted_quota_seconds) {
      wasted.push_back(fmt::format("{} {:.0f}", key, q));
    }
    if (!wasted.empty()) {
      AppendWrapped(out, "quota-seconds held by attempts that fell back:", wasted);
    }
  }
  if (r.resource_classes.enabled) {
    std::vector<std::string> items;
    for (const ReplayReport::ResourceClassFigures& c : r.resource_classes.classes) {
      items.push_back(fmt::format("{} {}/{} (peak {})", c.name, c.requested_at_end,
                                  c.allocatable_at_end, c.peak_requested));
    }
    if (items.empty()) {
      items.push_back("none");
    }
    AppendWrapped(out, "resource classes, requested/allocatable devices at end:", items);
    out +=
        fmt::format("workloads quota would have admitted but devices did not (at least once): {}\n",
                    r.resource_classes.devices_short.size());
  }
  if (r.cycle_limit_hits > 0) {
    out += fmt::format(
        "warning: {} instants stopped after 1000 cycles (a preemption ping-pong with instant "
        "releases; model release latency with --control-plane)\n",
        r.cycle_limit_hits);
  }
  const WaitStats& w = r.wait_overall;
  out +=
      fmt::format("time to admission: {} admissions, mean {}, p50 {}, p90 {}, p99 {}, max {}\n",
                  w.count, FormatSecondsShort(w.mean), FormatSecondsShort(w.p50),
                  FormatSecondsShort(w.p90), FormatSecondsShort(w.p99), FormatSecondsShort(w.max));
}

void AppendClusterQueues(std::string& out, const ReplayReport& r) {
  if (r.cluster_queues.empty()) {
    return;
  }
  std::map<std::string_view, const WaitStats*> waits;
  for (const GroupWaits& g : r.wait_by_cluster_queue) {
    waits[g.name] = &g.stats;
  }
  std::vector<const CqCounts*> rows;
  for (const CqCounts& cq : r.cluster_queues) {
    rows.push_back(&cq);
  }
  const bool truncated = rows.size() > kMaxClusterQueueRows;
  if (truncated) {
    std::stable_sort(rows.begin(), rows.end(), [](const CqCounts* a, const CqCounts* b) {
      return a->admitted > b->admitted;  // stable: ties keep name order
    });
  }
  const size_t shown = std::min(rows.size(), kMaxClusterQueueRows);

  out += truncated ? fmt::format("\nClusterQueues: the {} with most admissions of {}\n", shown,
                                 rows.size())
                   : fmt::format("\nClusterQueues ({}):\n", rows.size());
  Table table(
      {"ClusterQueue", "admitted", "preempt", "pending", "p50", "p90", "p99", "max", "util", "of"},
      {true, false, false, false, false, false, false, false, false, true});
  for (size_t i = 0; i < shown; ++i) {
    const CqCounts& cq = *rows[i];
    auto it = waits.find(cq.name);
    const WaitStats* w = it == waits.end() ? nullptr : it->second;
    auto wait = [&](double v) {
      return w == nullptr || w->count == 0 ? std::string("-") : FormatSecondsShort(v);
    };
    const ResourceUsage* main = internal::MainResource(r, cq.name);
    table.Add({Fit(cq.name, kMaxNameWidth), fmt::format("{}", cq.admitted),
               fmt::format("{}", cq.preempted), fmt::format("{}", cq.pending_at_end),
               wait(w ? w->p50 : 0), wait(w ? w->p90 : 0), wait(w ? w->p99 : 0),
               wait(w ? w->max : 0), main ? Percent(main->utilisation) : "-",
               main ? fmt::format("{}/{}", main->flavor, main->resource) : ""});
  }
  table.Render(out);
  if (truncated) {
    int64_t admitted = 0;
    int64_t pending = 0;
    for (size_t i = shown; i < rows.size(); ++i) {
      admitted += rows[i]->admitted;
      pending += rows[i]->pending_at_end;
    }
    out += fmt::format("... {} more ClusterQueues ({} admitted, {} pending at end)\n",
                       rows.size() - shown, admitted, pending);
  }
  out +=
      "util: mean usage / nominal quota of the busiest flavor/resource (\"of\"), over the replay\n";
}

void AppendClasses(std::string& out, const ReplayReport& r) {
  const bool any = std::any_of(r.wait_by_class.begin(), r.wait_by_class.end(),
                               [](const GroupWaits& g) { return !g.name.empty(); });
  if (!any) {
    return;
  }
  out += "\nTime to admission by class (label tally.dev/class):\n";
  Table table({"class", "admitted", "mean", "p50", "p90", "p99", "max"});
  for (const GroupWaits& g : r.wait_by_class) {
    const WaitStats& w = g.stats;
    auto wait = [&](double v) { return w.count == 0 ? std::string("-") : FormatSecondsShort(v); };
    table.Add({g.name.empty() ? "(none)" : Fit(g.name, kMaxNameWidth), fmt::format("{}", w.count),
               wait(w.mean), wait(w.p50), wait(w.p90), wait(w.p99), wait(w.max)});
  }
  table.Render(out);
}

void AppendEngine(std::string& out, const ReplayReport& r) {
  if (!r.timings) {
    out += "\nengine: timings off (--no-timings)\n";
    return;
  }
  out += fmt::format(
      "\nengine: {:.3f}s wall, {:.0f} events/s, peak RSS {:.1f} MiB\n"
      "        {} decisions; latency p50 {}, p90 {}, p99 {}, max {}\n"
      "        {} threads, {} {}\n",
      r.wall_seconds, std::isfinite(r.events_per_second) ? r.events_per_second : 0.0,
      static_cast<double>(r.peak_rss_bytes) / (1024.0 * 1024.0), r.decisions,
      FormatNanos(r.decision_latency_p50_ns), FormatNanos(r.decision_latency_p90_ns),
      FormatNanos(r.decision_latency_p99_ns),
      FormatNanos(static_cast<double>(r.decision_latency_max_ns)), r.threads, r.shards,
      r.shards == 1 ? "shard" : "shards (independent Cohort trees)");
}

}  // namespace

std::string FormatSummaryText(const ReplayReport& report) {
  std::string out = ModeLine(report);
  for (const std::string& w : report.warnings) {
    out += fmt::format("warning: {}\n", w);
  }
  out += fmt::format("virtual time: {} -> {} ({}){}\n", FormatRfc3339(report.start_time),
                     FormatRfc3339(report.end_time),
                     FormatDuration(std::max<int64_t>(0, report.end_time - report.start_time)),
                     report.truncated ? ", truncated by --until" : "");
  AppendInput(out, report);
  AppendOutcomes(out, report);
  AppendClusterQueues(out, report);
  AppendClasses(out, report);
  AppendEngine(out, report);
  return out;
}

}  // namespace replay
