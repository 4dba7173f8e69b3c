// metrics.prom (docs/report.md): the replay's end state in the Prometheus text exposition format
// (version 0.0.4), under the metric names and labels Kueue registers in pkg/metrics/metrics.go, so
// that dashboards and queries written for a live Kueue read a replay too.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/report/report_writers.h"

namespace replay {

namespace internal {

std::string PrometheusLabelEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace internal

namespace {

using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

// A sample value: integers exactly, other numbers in the shortest form that reads back to the
// same double, non-finite values as the format spells them.
std::string Value(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "+Inf" : "-Inf";
  }
  return fmt::format("{}", v == 0 ? 0.0 : v);
}

std::string Value(int64_t v) {
  char text[24];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return std::string(text, end);
}

// Appends `text` as a label value: escaped where it must be, else as is (almost always).
void AppendLabelValue(std::string_view text, std::string& out) {
  // A loop, not find_first_of, which calls memchr on the three characters for each byte of the
  // text (a million calls for Kueue's large-scale scenario).
  const bool plain = std::none_of(text.begin(), text.end(),
                                  [](char c) { return c == '\\' || c == '"' || c == '\n'; });
  if (plain) {
    out += text;
  } else {
    out += internal::PrometheusLabelEscape(text);
  }
}

class PromWriter {
 public:
  // # HELP and # TYPE lines of a family; its samples must follow before the next family.
  void Family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void Comment(std::string_view text) { out_ += fmt::format("# {}\n", text); }
  void Sample(std::string_view name, const Labels& labels, const std::string& value) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      const char* sep = "";
      for (const auto& [key, v] : labels) {
        out_ += sep;  // appended, not formatted: thousands of samples per report
        out_ += key;
        out_ += "=\"";
        AppendLabelValue(v, out_);
        out_ += '"';
        sep = ",";
      }
      out_ += '}';
    }
    out_ += ' ';
    out_ += value;
    out_ += '\n';
  }
  // One histogram series: _bucket per WaitBuckets() bound and +Inf, then _sum and _count.
  void Histogram(std::string_view name, const Labels& labels, const WaitStats& s) {
    const std::vector<double>& bounds = WaitBuckets();
    // The bounds as the format writes them, once: a report has a histogram per ClusterQueue
    // and per LocalQueue (2,000 of them for Kueue's large-scale scenario).
    static const std::vector<std::string> le_text = [] {
      std::vector<std::string> text;
      for (double b : WaitBuckets()) {
        text.push_back(fmt::format("{}", b));
      }
      return text;
    }();
    // Every _bucket line reads `<name>_bucket{<labels>,le="<bound>"} <count>`: its start is
    // written once per histogram, not label by label for each of its 30 lines (2,000 histograms
    // for Kueue's large-scale scenario).
    std::string head = fmt::format("{}_bucket{{", name);
    for (const auto& [key, v] : labels) {
      head += key;
      head += "=\"";
      AppendLabelValue(v, head);
      head += "\",";
    }
    head += "le=\"";
    auto bucket_line = [&](std::string_view le, int64_t value) {
      out_ += head;
      out_ += le;
      out_ += "\"} ";
      out_ += Value(value);
      out_ += '\n';
    };
    // Buckets the simulator did not fill are only possible for an empty group (all zero);
    // otherwise a histogram with just the +Inf bucket is still valid.
    const bool have = s.cumulative_buckets.size() == bounds.size();
    if (have || s.count == 0) {
      for (size_t i = 0; i < bounds.size(); ++i) {
        bucket_line(le_text[i], have ? s.cumulative_buckets[i] : int64_t{0});
      }
    }
    bucket_line("+Inf", s.count);
    Sample(fmt::format("{}_sum", name), labels, Value(s.sum));
    Sample(fmt::format("{}_count", name), labels, Value(s.count));
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// "namespace/name" -> {namespace, name}; without a slash the namespace is empty.
std::pair<std::string_view, std::string_view> SplitLocalQueue(std::string_view full) {
  const size_t slash = full.find('/');
  if (slash == std::string_view::npos) {
    return {std::string_view(), full};
  }
  return {full.substr(0, slash), full.substr(slash + 1)};
}

}  // namespace

std::string FormatPrometheus(const ReplayReport& report) {
  PromWriter w;
  w.Comment(
      "tally replay: Kueue metrics at the end of the replayed trace (virtual time). Wait-time "
      "histograms use the buckets of docs/report.md.");

  w.Family("kueue_admission_wait_time_seconds", "histogram",
           "The time between a workload was created or requeued until admission, per "
           "'cluster_queue'");
  w.Comment(
      "tally: one observation per workload, at its first admission, measured from its creation "
      "(Kueue observes every admission, from creation or the last requeue).");
  for (const GroupWaits& g : report.wait_by_cluster_queue) {
    w.Histogram("kueue_admission_wait_time_seconds", {{"cluster_queue", g.name}}, g.stats);
  }

  w.Family("kueue_local_queue_admission_wait_time_seconds", "histogram",
           "The time between a workload was created or requeued until admission, per "
           "'local_queue'");
  for (const GroupWaits& g : report.wait_by_local_queue) {
    auto [ns, name] = SplitLocalQueue(g.name);
    w.Histogram("kueue_local_queue_admission_wait_time_seconds",
                {{"name", name}, {"namespace", ns}}, g.stats);
  }

  w.Family("kueue_admitted_workloads_total", "counter",
           "The total number of admitted workloads per 'cluster_queue'");
  for (const CqCounts& cq : report.cluster_queues) {
    w.Sample("kueue_admitted_workloads_total", {{"cluster_queue", cq.name}}, Value(cq.admitted));
  }

  w.Family("kueue_pending_workloads", "gauge",
           "The number of pending workloads, per 'cluster_queue' and 'status'");
  w.Comment(
      "tally: active and inadmissible workloads are not told apart; all pending workloads are "
      "reported as status=\"active\".");
  for (const CqCounts& cq : report.cluster_queues) {
    w.Sample("kueue_pending_workloads", {{"cluster_queue", cq.name}, {"status", "active"}},
             Value(cq.pending_at_end));
  }

  w.Family("kueue_reserving_active_workloads", "gauge",
           "The number of Workloads that are reserving quota, per 'cluster_queue'");
  for (const CqCounts& cq : report.cluster_queues) {
    w.Sample("kueue_reserving_active_workloads", {{"cluster_queue", cq.name}},
             Value(cq.running_at_end));
  }

  w.Family("kueue_evicted_workloads_total", "counter",
           "The number of evicted workloads per 'cluster_queue' and 'reason'");
  for (const CqCounts& cq : report.cluster_queues) {
    w.Sample("kueue_evicted_workloads_total", {{"cluster_queue", cq.name}, {"reason", "Preempted"}},
             Value(cq.preempted));
  }
  bool other_reasons = false;
  for (const auto& [reason, n] : report.evictions_by_reason) {
    if (reason == "Preempted") {
      continue;
    }
    if (!other_reasons) {
      w.Comment(
          "tally: evictions for reasons other than Preempted are not split by ClusterQueue; "
          "their totals over all ClusterQueues follow, without a cluster_queue label.");
      other_reasons = true;
    }
    w.Sample("kueue_evicted_workloads_total", {{"reason", reason}}, Value(n));
  }

  w.Family("kueue_preempted_workloads_total", "counter",
           "The number of preempted workloads per 'preempting_cluster_queue' and 'reason'");
  w.Comment(
      "tally: the preempting ClusterQueue and the preemption reason are not recorded; the total "
      "over all of them follows, without labels.");
  w.Sample("kueue_preempted_workloads_total", {}, Value(report.preemptions));

  w.Family("kueue_cluster_queue_resource_usage", "gauge",
           "Reports the cluster_queue's total resource usage within all the flavors");
  w.Comment(
      "tally: at the end of the replay; cpu in cores, memory in bytes, other resources in units. "
      "No cohort label.");
  for (const ResourceUsage& u : report.usage) {
    w.Sample("kueue_cluster_queue_resource_usage",
             {{"cluster_queue", u.cluster_queue}, {"flavor", u.flavor}, {"resource", u.resource}},
             Value(internal::KueueUnits(u.resource, static_cast<double>(u.usage_at_end))));
  }

  w.Family("kueue_cluster_queue_nominal_quota", "gauge",
           "Reports the cluster_queue's resource nominal quota within all the flavors");
  for (const ResourceUsage& u : report.usage) {
    w.Sample("kueue_cluster_queue_nominal_quota",
             {{"cluster_queue", u.cluster_queue}, {"flavor", u.flavor}, {"resource", u.resource}},
             Value(internal::KueueUnits(u.resource, static_cast<double>(u.nominal))));
  }

  if (!report.run_id.empty()) {  // read back by tally diff and gate (replay_outputs.h)
    w.Family("tally_run_info", "gauge",
             "The replay that wrote these files: run_id is the digest of its decisions.jsonl");
    w.Sample("tally_run_info", {{"run_id", report.run_id}}, "1");
  }
  return w.Take();
}

}  // namespace replay
