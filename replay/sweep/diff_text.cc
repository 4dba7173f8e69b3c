// `tally diff` as text (docs/diff-and-gate.md): A and B side by side in columns of at most 100
// characters.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/io/time_parse.h"
#include "replay/report/report_writers.h"
#include "replay/sweep/diff.h"

namespace replay {

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

}  // namespace replay
