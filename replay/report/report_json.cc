// report.json (docs/report.md): every object's keys are written in byte order by hand, so each
// Write* function below lists its keys alphabetically; the test checks it.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"
#include "replay/report/profile_report.h"
#include "replay/report/report_writers.h"

namespace replay {
namespace {

void StringArray(JsonWriter& w, const std::vector<std::string>& values) {
  w.BeginArray();
  for (const std::string& v : values) {
    w.String(v);
  }
  w.EndArray();
}

template <typename Map>
void IntMap(JsonWriter& w, const Map& map) {
  w.BeginObject();
  for (const auto& [key, value] : map) {  // std::map: byte order
    w.Key(key);
    w.Int(value);
  }
  w.EndObject();
}

void FloatArray(JsonWriter& w, const std::vector<float>& values) {
  w.RoundedNumbers(values);
}

void WaitStatsFields(JsonWriter& w, const WaitStats& s) {
  w.Key("count");
  w.Int(s.count);
  w.Key("max");
  w.RoundedNumber(s.max);
  w.Key("mean");
  w.RoundedNumber(s.mean);
  w.Key("p50");
  w.RoundedNumber(s.p50);
  w.Key("p90");
  w.RoundedNumber(s.p90);
  w.Key("p99");
  w.RoundedNumber(s.p99);
}

// Keys in byte order: "count" "max" "mean" < "name" < "p50" ..., so the name goes between.
void GroupObjectSorted(JsonWriter& w, const GroupWaits& g) {
  const WaitStats& s = g.stats;
  w.BeginObject();
  w.Key("count");
  w.Int(s.count);
  w.Key("max");
  w.RoundedNumber(s.max);
  w.Key("mean");
  w.RoundedNumber(s.mean);
  w.Key("name");
  w.String(g.name);
  w.Key("p50");
  w.RoundedNumber(s.p50);
  w.Key("p90");
  w.RoundedNumber(s.p90);
  w.Key("p99");
  w.RoundedNumber(s.p99);
  w.EndObject();
}

void Groups(JsonWriter& w, const std::vector<GroupWaits>& groups) {
  w.BeginArray();
  for (const GroupWaits& g : groups) {
    GroupObjectSorted(w, g);
  }
  w.EndArray();
}

void WriteClusterQueues(JsonWriter& w, const ReplayReport& r) {
  w.BeginArray();
  for (const CqCounts& cq : r.cluster_queues) {
    w.BeginObject();
    w.Key("admitted");
    w.Int(cq.admitted);
    w.Key("name");
    w.String(cq.name);
    w.Key("pendingAtEnd");
    w.Int(cq.pending_at_end);
    w.Key("preempted");
    w.Int(cq.preempted);
    w.Key("runningAtEnd");
    w.Int(cq.running_at_end);
    w.EndObject();
  }
  w.EndArray();
}

void WriteEngine(JsonWriter& w, const ReplayReport& r) {
  const bool t = r.timings;
  w.BeginObject();
  w.Key("decisionLatency");
  w.BeginArray();
  if (t) {
    for (const LatencyBucket& b : r.decision_latency) {
      w.BeginObject();
      w.Key("count");
      w.Int(b.count);
      w.Key("lowerNs");
      w.Int(b.lower_ns);
      w.Key("upperNs");
      w.Int(b.upper_ns);
      w.EndObject();
    }
  }
  w.EndArray();
  // The max and p90 came with the log-linear histogram (issue 21): written only with timings, so
  // that a report written with --no-timings stays byte-identical to one from before.
  if (t) {
    w.Key("decisionLatencyMaxNs");
    w.Int(r.decision_latency_max_ns);
  }
  w.Key("decisionLatencyP50Ns");
  w.RoundedNumber(t ? r.decision_latency_p50_ns : 0);
  if (t) {
    w.Key("decisionLatencyP90Ns");
    w.RoundedNumber(r.decision_latency_p90_ns);
  }
  w.Key("decisionLatencyP99Ns");
  w.RoundedNumber(t ? r.decision_latency_p99_ns : 0);
  w.Key("decisions");
  w.Int(t ? r.decisions : 0);
  w.Key("eventsPerSecond");
  w.RoundedNumber(t ? r.events_per_second : 0);
  w.Key("peakRssBytes");
  w.Int(t ? r.peak_rss_bytes : 0);
  w.Key("threads");
  w.Int(t ? r.threads : 0);
  w.Key("timings");
  w.Bool(t);
  w.Key("wallSeconds");
  w.RoundedNumber(t ? r.wall_seconds : 0);
  w.EndObject();
}

void WriteInput(JsonWriter& w, const ReplayReport& r) {
  w.BeginObject();
  w.Key("errors");
  StringArray(w, r.errors);
  w.Key("errorsNotListed");
  w.Int(r.errors_not_listed);
  w.Key("eventsApplied");
  w.Int(r.events_applied);
  w.Key("eventsFile");
  w.String(r.events_file);
  w.Key("eventsRead");
  w.Int(r.events_read);
  w.Key("eventsRejected");
  w.Int(r.events_rejected);
  w.Key("manifestFiles");
  StringArray(w, r.manifest_files);
  w.Key("rejectedByReason");
  IntMap(w, r.rejected_by_reason);
  w.EndObject();
}

void WriteModel(JsonWriter& w, const ReplayReport& r) {
  w.BeginObject();
  w.Key("mode");
  w.String(r.mode);
  w.Key("settings");
  w.BeginObject();
  for (const auto& [key, value] : r.model) {
    w.Key(key);
    w.String(value);
  }
  w.EndObject();
  w.Key("shards");
  w.Int(r.shards);
  w.EndObject();
}

void WriteFallbacks(JsonWriter& w, const ReplayReport::Fallbacks& f) {
  w.BeginObject();
  w.Key("byFlavor");
  IntMap(w, f.by_flavor);
  w.Key("checkRejections");
  w.Int(f.check_rejections);
  w.Key("exhaustedDeactivated");
  w.Int(f.exhausted);
  w.Key("retriesAllFlavors");
  w.Int(f.retries);
  w.Key("timeToStart");
  w.BeginObject();
  WaitStatsFields(w, f.time_to_start);
  w.EndObject();
  w.Key("timeouts");
  w.Int(f.timeouts);
  w.Key("wastedQuotaSeconds");
  w.BeginObject();
  for (const auto& [key, q] : f.wasted_quota_seconds) {
    w.Key(key);
    w.Double(q);
  }
  w.EndObject();
  w.EndObject();
}

void WriteOutcomes(JsonWriter& w, const ReplayReport& r) {
  w.BeginObject();
  w.Key("admissions");
  w.Int(r.admissions);
  w.Key("cycleLimitHits");
  w.Int(r.cycle_limit_hits);
  w.Key("cycles");
  w.Int(r.cycles);
  w.Key("deactivated");
  w.Int(r.deactivated);
  w.Key("deleted");
  w.Int(r.deleted);
  w.Key("evictionsByReason");
  IntMap(w, r.evictions_by_reason);
  if (r.fallbacks.enabled) {
    w.Key("fallbacks");
    WriteFallbacks(w, r.fallbacks);
  }
  w.Key("finished");
  w.Int(r.finished);
  w.Key("pendingAtEnd");
  w.Int(r.pending_at_end);
  w.Key("preemptions");
  w.Int(r.preemptions);
  w.Key("requeues");
  w.Int(r.requeues);
  w.Key("runningAtEnd");
  w.Int(r.running_at_end);
  w.Key("workloadsAdmitted");
  w.Int(r.workloads_admitted);
  w.Key("workloadsCreated");
  w.Int(r.workloads_created);
  w.Key("workloadsInitiallyAdmitted");
  w.Int(r.workloads_initially_admitted);
  w.EndObject();
}

void WriteSeries(JsonWriter& w, const ReplayReport& r) {
  w.BeginObject();
  w.Key("clusterQueues");
  w.BeginArray();
  for (const CqSeries& s : r.series) {
    w.BeginObject();
    w.Key("meanWait");
    FloatArray(w, s.mean_wait);
    w.Key("name");
    w.String(s.name);
    w.Key("pending");
    FloatArray(w, s.pending);
    w.Key("running");
    FloatArray(w, s.running);
    w.Key("utilisation");
    FloatArray(w, s.utilisation);
    w.EndObject();
  }
  w.EndArray();
  w.Key("flavors");
  w.BeginArray();
  for (const FlavorSeries& f : r.flavor_series) {
    w.BeginObject();
    w.Key("borrowed");
    FloatArray(w, f.borrowed);
    w.Key("flavor");
    w.String(f.flavor);
    w.Key("idle");
    FloatArray(w, f.idle);
    w.Key("lent");
    FloatArray(w, f.lent);
    w.Key("nominal");
    FloatArray(w, f.nominal);
    w.Key("own");
    FloatArray(w, f.own);
    w.Key("resource");
    w.String(f.resource);
    w.EndObject();
  }
  w.EndArray();
  w.Key("sampleTimes");
  w.BeginArray();
  for (double t : r.sample_times) {
    w.RoundedNumber(t);
  }
  w.EndArray();
  w.EndObject();
}

// Seed 001: per class, allocatable / requested devices at the end, the peak, and both over time
// (aligned with series.sampleTimes); the workloads devices held back.
void WriteResourceClasses(JsonWriter& w, const ReplayReport::ResourceClasses& rc) {
  w.BeginObject();
  w.Key("classes");
  w.BeginArray();
  for (const ReplayReport::ResourceClassFigures& c : rc.classes) {
    w.BeginObject();
    w.Key("allocatable");
    FloatArray(w, c.allocatable);
    w.Key("allocatableAtEnd");
    w.Int(c.allocatable_at_end);
    w.Key("name");
    w.String(c.name);
    w.Key("peakRequested");
    w.Int(c.peak_requested);
    w.Key("requested");
    FloatArray(w, c.requested);
    w.Key("requestedAtEnd");
    w.Int(c.requested_at_end);
    w.EndObject();
  }
  w.EndArray();
  w.Key("devicesShort");
  w.BeginObject();
  w.Key("count");
  w.Int(static_cast<int64_t>(rc.devices_short.size()));
  w.Key("workloads");
  w.BeginArray();
  for (const std::string& key : rc.devices_short) {
    w.String(key);
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

void WriteTime(JsonWriter& w, const ReplayReport& r) {
  w.BeginObject();
  w.Key("durationSeconds");
  // Exact: from integer microseconds, not rounded to 6 digits.
  w.Double(static_cast<double>(r.end_time - r.start_time) / 1e6);
  w.Key("end");
  w.String(FormatRfc3339(r.end_time));
  w.Key("start");
  w.String(FormatRfc3339(r.start_time));
  w.Key("truncated");
  w.Bool(r.truncated);
  w.EndObject();
}

void WriteTimeToAdmission(JsonWriter& w, const ReplayReport& r) {
  w.BeginObject();
  w.Key("byClass");
  Groups(w, r.wait_by_class);
  w.Key("byClusterQueue");
  Groups(w, r.wait_by_cluster_queue);
  w.Key("byLocalQueue");
  Groups(w, r.wait_by_local_queue);
  w.Key("byPriority");
  Groups(w, r.wait_by_priority);
  w.Key("overall");
  w.BeginObject();
  WaitStatsFields(w, r.wait_overall);
  w.EndObject();
  w.EndObject();
}

// Quota hold times: count, max, mean, then name (in a group), then p10, p50, p90 (byte order).
void HoldFields(JsonWriter& w, const WaitStats& s, const std::string* name) {
  w.BeginObject();
  w.Key("count");
  w.Int(s.count);
  w.Key("max");
  w.RoundedNumber(s.max);
  w.Key("mean");
  w.RoundedNumber(s.mean);
  if (name != nullptr) {
    w.Key("name");
    w.String(*name);
  }
  w.Key("p10");
  w.RoundedNumber(s.p10);
  w.Key("p50");
  w.RoundedNumber(s.p50);
  w.Key("p90");
  w.RoundedNumber(s.p90);
  w.EndObject();
}

void WriteQuotaHoldTime(JsonWriter& w, const ReplayReport& r) {
  w.BeginObject();
  w.Key("byClusterQueue");
  w.BeginArray();
  for (const GroupWaits& g : r.hold_by_cluster_queue) {
    HoldFields(w, g.stats, &g.name);
  }
  w.EndArray();
  w.Key("overall");
  HoldFields(w, r.hold_overall, nullptr);
  w.EndObject();
}

void WriteUsage(JsonWriter& w, const ReplayReport& r) {
  w.BeginArray();
  for (const ResourceUsage& u : r.usage) {
    w.BeginObject();
    w.Key("clusterQueue");
    w.String(u.cluster_queue);
    w.Key("flavor");
    w.String(u.flavor);
    w.Key("meanBorrowed");
    w.RoundedNumber(u.mean_borrowed);
    w.Key("meanUsage");
    w.RoundedNumber(u.mean_usage);
    w.Key("nominal");
    w.Int(u.nominal);
    w.Key("peakUsage");
    w.Int(u.peak_usage);
    w.Key("resource");
    w.String(u.resource);
    w.Key("usageAtEnd");
    w.Int(u.usage_at_end);
    w.Key("utilisation");
    w.RoundedNumber(u.utilisation);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string FormatReportJson(const ReplayReport& report) {
  JsonWriter w;
  w.BeginObject();
  w.Key("clusterQueues");
  WriteClusterQueues(w, report);
  if (report.interrupted) {  // only then: a complete run's report keeps its shape
    w.Key("complete");
    w.Bool(false);
  }
  w.Key("engine");
  WriteEngine(w, report);
  w.Key("input");
  WriteInput(w, report);
  w.Key("model");
  WriteModel(w, report);
  w.Key("outcomes");
  WriteOutcomes(w, report);
  if (report.profile) {  // --profile only: other reports stay byte-identical
    w.Key("profile");
    WriteProfileJson(w, *report.profile);
  }
  if (report.hold_overall.count > 0) {  // only when something finished
    w.Key("quotaHoldTime");
    WriteQuotaHoldTime(w, report);
  }
  if (report.resource_classes.enabled) {
    w.Key("resourceClasses");
    WriteResourceClasses(w, report.resource_classes);
  }
  if (!report.run_id.empty()) {
    w.Key("runId");
    w.String(report.run_id);
  }
  w.Key("schemaVersion");
  w.Int(kReportSchemaVersion);
  w.Key("series");
  WriteSeries(w, report);
  w.Key("time");
  WriteTime(w, report);
  w.Key("timeToAdmission");
  WriteTimeToAdmission(w, report);
  w.Key("usage");
  WriteUsage(w, report);
  if (!report.warnings.empty()) {  // only when there are any: older reports stay byte-identical
    w.Key("warnings");
    StringArray(w, report.warnings);
  }
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

}  // namespace replay
