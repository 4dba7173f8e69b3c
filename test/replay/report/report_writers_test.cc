// Tests for the replay report writers (replay/report/report_writers.h) on hand-filled
// ReplayReports: report.json parses, has sorted keys and the expected values; the text summary
// reconciles its counters; report.html is self-contained and escapes names (its charts and
// tables: report_html_test.cc); metrics.prom follows the exposition format with cumulative
// histograms.
#include "replay/report/report_writers.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/sim/replay_report.h"
#include "test/replay/report/wait_stats_fixture.h"

namespace replay {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kStart = 1'767'603'600'000'000;  // 2026-01-05T09:00:00Z

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return lines;
}

using testing_report::Stats;

ReplayReport SampleReport() {
  ReplayReport r;
  r.manifest_files = {"data/samples/cluster.yaml"};
  r.events_file = "trace.jsonl";
  r.events_read = 10;
  r.events_applied = 8;
  r.events_rejected = 2;
  r.rejected_by_reason = {{"UnknownWorkload", 1}, {"BadTime", 1}};
  r.errors = {"trace.jsonl:3: time: goes backwards", "trace.jsonl:7: unknown workload a/b"};
  r.start_time = kStart;
  r.end_time = kStart + 3'600'250'000;  // +1h0m0.25s
  r.workloads_created = 6;
  r.workloads_initially_admitted = 1;
  r.workloads_admitted = 5;
  r.admissions = 6;
  r.preemptions = 1;
  r.evictions_by_reason = {{"Preempted", 1}, {"PodsReadyTimeout", 2}};
  r.requeues = 3;
  r.finished = 4;
  r.pending_at_end = 1;
  r.running_at_end = 1;
  r.cycles = 42;
  r.wait_overall = Stats({0.5, 3, 3, 100, 0.1 + 0.2, 7});
  r.wait_by_cluster_queue = {{"team-a", Stats({0.5, 3, 3, 0.1 + 0.2})},
                             {"team-b", Stats({100, 7})}};
  r.wait_by_local_queue = {{"ns-a/user-queue", Stats({0.5, 3, 3, 0.1 + 0.2})},
                           {"ns-b/q\"x", Stats({100, 7})}};
  r.wait_by_priority = {{"100", Stats({100})}, {"0", Stats({0.5, 3, 3, 0.3, 7})}};
  r.wait_by_class = {
      {"", Stats({0.5, 3})}, {"batch", Stats({3, 0.3, 100, 7})}, {"quick", Stats({0.1 + 0.2})}};
  r.usage = {
      {"team-a", "default", "cpu", 8000, 4000.5, 0, 0.5000625, 8000, 2000},
      {"team-a", "default", "memory", 17179869184, 1.0e9, 0, 0.0582, 4294967296, 0},
      {"team-b", "default", "cpu", 4000, 5000, 1000, 1.25, 6000, 4000},
  };
  r.cluster_queues = {{"team-a", 4, 1, 0, 0}, {"team-b", 2, 0, 1, 1}};
  r.sample_times = {0, 600, 1200, 1800};
  r.series = {
      {"team-a", {1, 0, 0, 0}, {2, 1, 1, 0}, {0.5, 0.25, 0.25, 0}, {0.5, NAN, 3, NAN}},
      {"team-b", {0, 1, 1, 1}, {1, 1, 1, 1}, {1, 1.25, 1.25, 1}, {NAN, 100, NAN, 7}},
  };
  r.timings = true;
  r.wall_seconds = 0.125;
  r.events_per_second = 80;
  r.decisions = 17;
  r.decision_latency = {{896, 899, 10}, {1920, 1983, 7}};
  r.decision_latency_p50_ns = 898;
  r.decision_latency_p90_ns = 1952;
  r.decision_latency_p99_ns = 1952;
  r.decision_latency_max_ns = 1980;
  r.peak_rss_bytes = 50 << 20;
  return r;
}

// --- report.json ---

size_t ArraySize(simdjson::dom::element e) {
  simdjson::dom::array array;
  if (e.get_array().get(array) != simdjson::SUCCESS) {
    return static_cast<size_t>(-1);
  }
  return array.size();
}

// Checks that every object's keys are in strictly increasing byte order, recursively.
void ExpectSortedKeys(simdjson::dom::element e, const std::string& path) {
  if (e.is_object()) {
    std::string previous;
    bool first = true;
    simdjson::dom::object object = e.get_object().value();
    for (auto field : object) {
      std::string key(field.key);
      if (!first) {
        EXPECT_LT(previous, key) << "at " << path;
      }
      first = false;
      previous = key;
      std::string child = path;
      child += '.';
      child += key;
      ExpectSortedKeys(field.value, child);
    }
  } else if (e.is_array()) {
    size_t i = 0;
    simdjson::dom::array array = e.get_array().value();
    for (auto item : array) {
      ExpectSortedKeys(item, fmt::format("{}[{}]", path, i++));
    }
  }
}

TEST(ReportJsonTest, ParsesWithSortedKeysAndExpectedValues) {
  const std::string json = FormatReportJson(SampleReport());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  ExpectSortedKeys(doc, "$");

  EXPECT_EQ(int64_t(doc["schemaVersion"]), 1);
  EXPECT_EQ(int64_t(doc["input"]["eventsRead"]), 10);
  EXPECT_EQ(int64_t(doc["input"]["eventsApplied"]), 8);
  EXPECT_EQ(int64_t(doc["input"]["eventsRejected"]), 2);
  EXPECT_EQ(int64_t(doc["input"]["rejectedByReason"]["BadTime"]), 1);
  EXPECT_EQ(ArraySize(doc["input"]["errors"]), 2u);
  EXPECT_EQ(std::string_view(doc["model"]["mode"]), "policy-only");
  EXPECT_EQ(std::string_view(doc["time"]["start"]), "2026-01-05T09:00:00Z");
  EXPECT_EQ(std::string_view(doc["time"]["end"]), "2026-01-05T10:00:00.250000Z");
  EXPECT_EQ(double(doc["time"]["durationSeconds"]), 3600.25);
  EXPECT_EQ(int64_t(doc["outcomes"]["evictionsByReason"]["PodsReadyTimeout"]), 2);
  EXPECT_EQ(int64_t(doc["outcomes"]["cycles"]), 42);
  EXPECT_EQ(int64_t(doc["timeToAdmission"]["overall"]["count"]), 6);
  EXPECT_EQ(double(doc["timeToAdmission"]["overall"]["max"]), 100);
  EXPECT_EQ(std::string_view(doc["timeToAdmission"]["byPriority"].at(0)["name"]), "100");
  EXPECT_EQ(std::string_view(doc["timeToAdmission"]["byLocalQueue"].at(1)["name"]), "ns-b/q\"x");
  EXPECT_EQ(std::string_view(doc["usage"].at(1)["resource"]), "memory");
  EXPECT_EQ(int64_t(doc["usage"].at(1)["nominal"]), 17179869184);
  EXPECT_EQ(double(doc["usage"].at(2)["utilisation"]), 1.25);
  EXPECT_EQ(int64_t(doc["clusterQueues"].at(1)["pendingAtEnd"]), 1);
  EXPECT_EQ(ArraySize(doc["series"]["sampleTimes"]), 4u);
  EXPECT_EQ(int64_t(doc["engine"]["decisions"]), 17);
  EXPECT_EQ(double(doc["engine"]["wallSeconds"]), 0.125);
  EXPECT_EQ(ArraySize(doc["engine"]["decisionLatency"]), 2u);
  EXPECT_EQ(int64_t(doc["engine"]["decisionLatency"].at(1)["count"]), 7);
  EXPECT_EQ(int64_t(doc["engine"]["decisionLatency"].at(1)["lowerNs"]), 1920);
  EXPECT_EQ(int64_t(doc["engine"]["decisionLatency"].at(1)["upperNs"]), 1983);
  EXPECT_EQ(double(doc["engine"]["decisionLatencyP50Ns"]), 898);
  EXPECT_EQ(double(doc["engine"]["decisionLatencyP90Ns"]), 1952);
  EXPECT_EQ(double(doc["engine"]["decisionLatencyP99Ns"]), 1952);
  EXPECT_EQ(int64_t(doc["engine"]["decisionLatencyMaxNs"]), 1980);
  EXPECT_TRUE(bool(doc["engine"]["timings"]));
  // Keys in byte order, the max and p90 between the buckets and the other percentiles.
  EXPECT_NE(json.find("\"decisionLatencyMaxNs\":1980,\"decisionLatencyP50Ns\":898,"
                      "\"decisionLatencyP90Ns\":1952,\"decisionLatencyP99Ns\":1952,"),
            std::string::npos)
      << json;
  // 6 significant digits: 0.1 + 0.2 is written as 0.3.
  EXPECT_NE(json.find("\"max\":0.3,\"mean\":0.3,\"name\":\"quick\""), std::string::npos) << json;
  EXPECT_EQ(json.find("0.30000000000000004"), std::string::npos);
  EXPECT_EQ(json.back(), '\n');
}

TEST(ReportJsonTest, NonFiniteNumbersAreNull) {
  ReplayReport r = SampleReport();
  r.wait_overall.mean = kNaN;
  r.usage[0].mean_usage = std::numeric_limits<double>::infinity();
  const std::string json = FormatReportJson(r);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_TRUE(doc["timeToAdmission"]["overall"]["mean"].is_null());
  EXPECT_TRUE(doc["usage"].at(0)["meanUsage"].is_null());
  // The series' NaN (no admission in the interval) too.
  EXPECT_TRUE(doc["series"]["clusterQueues"].at(0)["meanWait"].at(1).is_null());
  EXPECT_DOUBLE_EQ(double(doc["series"]["clusterQueues"].at(0)["meanWait"].at(2)), 3);
  EXPECT_EQ(json.find("nan"), std::string::npos);
  EXPECT_EQ(json.find("inf"), std::string::npos);
}

TEST(ReportJsonTest, NoTimingsWritesZerosAndIsReproducible) {
  ReplayReport a = SampleReport();
  a.timings = false;
  ReplayReport b = a;
  b.wall_seconds = 9.75;
  b.events_per_second = 12345;
  b.decisions = 99;
  b.decision_latency = {{512, 527, 3}};
  b.decision_latency_p50_ns = 400;
  b.decision_latency_p90_ns = 450;
  b.decision_latency_p99_ns = 500;
  b.decision_latency_max_ns = 520;
  b.peak_rss_bytes = 1 << 30;
  const std::string json = FormatReportJson(a);
  EXPECT_EQ(json, FormatReportJson(b));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::element engine = doc["engine"];
  EXPECT_FALSE(bool(engine["timings"]));
  EXPECT_EQ(double(engine["wallSeconds"]), 0);
  EXPECT_EQ(double(engine["eventsPerSecond"]), 0);
  EXPECT_EQ(int64_t(engine["decisions"]), 0);
  EXPECT_EQ(int64_t(engine["peakRssBytes"]), 0);
  EXPECT_EQ(double(engine["decisionLatencyP50Ns"]), 0);
  EXPECT_EQ(double(engine["decisionLatencyP99Ns"]), 0);
  EXPECT_EQ(ArraySize(engine["decisionLatency"]), 0u);
  // Keys added with the latency histogram are left out, so that the bytes are those of a report
  // written before them.
  EXPECT_EQ(json.find("decisionLatencyMaxNs"), std::string::npos);
  EXPECT_EQ(json.find("decisionLatencyP90Ns"), std::string::npos);
  // The text summary and the page do not depend on the engine figures either.
  EXPECT_EQ(FormatSummaryText(a), FormatSummaryText(b));
  EXPECT_EQ(FormatReportHtml(a), FormatReportHtml(b));
}

TEST(ReportJsonTest, EmptyReportIsValid) {
  const std::string json = FormatReportJson(ReplayReport());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  ExpectSortedKeys(doc, "$");
  EXPECT_EQ(double(doc["time"]["durationSeconds"]), 0);
  EXPECT_FALSE(FormatSummaryText(ReplayReport()).empty());
  EXPECT_FALSE(FormatReportHtml(ReplayReport()).empty());
  EXPECT_FALSE(FormatPrometheus(ReplayReport()).empty());
}

// Issue 20: settings tally does not model are never silent. The key is written only when there are
// warnings, so reports without any stay byte-identical.
TEST(ReportJsonTest, WarningsListedWhenAny) {
  ReplayReport r = SampleReport();
  EXPECT_EQ(FormatReportJson(r).find("\"warnings\""), std::string::npos);
  r.warnings = {"c.yaml:4: document 0 Configuration: admissionFairSharing: not modelled by tally"};
  const std::string json = FormatReportJson(r);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  ExpectSortedKeys(doc, "$");
  ASSERT_EQ(ArraySize(doc["warnings"]), 1u);
  EXPECT_EQ(std::string_view(doc["warnings"].at(0)), r.warnings[0]);
  EXPECT_NE(FormatReportHtml(r).find("<h2>Warnings</h2>"), std::string::npos);
  EXPECT_NE(FormatReportHtml(r).find("admissionFairSharing: not modelled by tally"),
            std::string::npos);
  EXPECT_NE(FormatSummaryText(r).find("warning: c.yaml:4:"), std::string::npos);
}

// --- Text summary ---

TEST(SummaryTextTest, CountersReconcileAndLinesFit) {
  ReplayReport r = SampleReport();
  const std::string text = FormatSummaryText(r);
  EXPECT_NE(text.find("policy-only: no control-plane latency modelled"), std::string::npos);
  EXPECT_NE(text.find("events: 10 read = 8 applied + 2 rejected"), std::string::npos) << text;
  EXPECT_EQ(r.events_read, r.events_applied + r.events_rejected);
  EXPECT_EQ(text.find("MISMATCH"), std::string::npos);
  EXPECT_NE(text.find("BadTime 1"), std::string::npos);
  EXPECT_NE(text.find("2026-01-05T09:00:00Z -> 2026-01-05T10:00:00.250000Z (1h0.25s)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("6 created"), std::string::npos);
  EXPECT_NE(text.find("team-a"), std::string::npos);
  EXPECT_NE(text.find("batch"), std::string::npos);  // per-class table
  EXPECT_NE(text.find("engine: 0.125s wall"), std::string::npos) << text;
  EXPECT_NE(text.find("17 decisions; latency p50 898ns, p90 1.95us, p99 1.95us, max 1.98us"),
            std::string::npos)
      << text;
  for (std::string_view line : Lines(text)) {
    EXPECT_LE(line.size(), 100u) << line;
  }

  r.events_rejected = 3;
  EXPECT_NE(FormatSummaryText(r).find("MISMATCH"), std::string::npos);
}

TEST(SummaryTextTest, ControlPlaneModeListsSettings) {
  ReplayReport r = SampleReport();
  r.mode = "control-plane";
  r.model = {{"apiLatency", "50ms"}, {"podsReadyDelay", "30s"}};
  const std::string text = FormatSummaryText(r);
  EXPECT_NE(text.find("control-plane model: apiLatency=50ms, podsReadyDelay=30s"),
            std::string::npos)
      << text;
  EXPECT_NE(FormatReportHtml(r).find("control-plane model: apiLatency=50ms, podsReadyDelay=30s"),
            std::string::npos);
  r.mode = "policy-only";
  EXPECT_NE(FormatSummaryText(r).find("modelled\n  settings: apiLatency=50ms, podsReadyDelay=30s"),
            std::string::npos)
      << FormatSummaryText(r);
}

TEST(SummaryTextTest, ManyClusterQueuesShowTheBusiest) {
  ReplayReport r = SampleReport();
  r.cluster_queues.clear();
  for (int i = 0; i < 30; ++i) {
    // Long names: the table narrows the name column to stay within 100 columns.
    r.cluster_queues.push_back(
        {fmt::format("cq-{:02}-with-a-rather-long-name-for-a-cluster-queue", i), i, 0, 1, 0});
  }
  const std::string text = FormatSummaryText(r);
  EXPECT_NE(text.find("the 20 with most admissions of 30"), std::string::npos) << text;
  EXPECT_NE(text.find("... 10 more ClusterQueues (45 admitted, 10 pending at end)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cq-29"), std::string::npos);
  EXPECT_EQ(text.find("cq-09"), std::string::npos);  // among the 10 least busy
  for (std::string_view line : Lines(text)) {
    EXPECT_LE(line.size(), 100u) << line;
  }
}

TEST(SummaryTextTest, NoTimings) {
  ReplayReport r = SampleReport();
  r.timings = false;
  EXPECT_NE(FormatSummaryText(r).find("engine: timings off"), std::string::npos);
}

TEST(FormatSecondsShortTest, Units) {
  EXPECT_EQ(internal::FormatSecondsShort(0), "0s");
  EXPECT_EQ(internal::FormatSecondsShort(0.000012), "12us");
  EXPECT_EQ(internal::FormatSecondsShort(0.85), "850ms");
  EXPECT_EQ(internal::FormatSecondsShort(12.34), "12.3s");
  EXPECT_EQ(internal::FormatSecondsShort(270), "4.5m");
  EXPECT_EQ(internal::FormatSecondsShort(8100), "2.25h");
  EXPECT_EQ(internal::FormatSecondsShort(3 * 86400), "72h");
  EXPECT_EQ(internal::FormatSecondsShort(5 * 86400), "5d");
  EXPECT_EQ(internal::FormatSecondsShort(400 * 86400), "400d");
  EXPECT_EQ(internal::FormatSecondsShort(kNaN), "-");
}

// --- report.html ---

TEST(ReportHtmlTest, SelfContainedAndEscaped) {
  ReplayReport r = SampleReport();
  r.cluster_queues[0].name = "<script>alert(1)</script>";
  r.series[0].name = "<script>alert(1)</script>";
  r.usage[0].cluster_queue = "<script>alert(1)</script>";
  r.wait_by_class[1].name = "a&b\"c'd";
  const std::string html = FormatReportHtml(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  // No external resource of any kind.
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // Names are escaped: no script element but the page's own table sort can appear.
  EXPECT_EQ(html.find("<script"), html.rfind("<script>"));
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("a&amp;b&quot;c&#39;d"), std::string::npos);
  // Three plots per ClusterQueue, with a line each, then the wait CDF and utilisation charts.
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    ++svgs;
  }
  EXPECT_EQ(svgs, 8u);
  EXPECT_NE(html.find("policy-only: no control-plane latency modelled"), std::string::npos);
  EXPECT_NE(html.find("10 = 8 + 2"), std::string::npos);
  EXPECT_NE(html.find("decision latency p50 / p90 / p99 / max</td><td>898 ns / 1952 ns / 1952 ns / "
                      "1980 ns"),
            std::string::npos);
}

// Issue 24: the plotted queues are those that waited longest, not the busiest. cq-i admits i
// workloads; the ones with an odd index have a p90 wait of 100 - i seconds, cq-00 admitted
// nothing but ends with 5 pending (it waits without end: first), the even ones never wait.
TEST(ReportHtmlTest, ManyClusterQueuesPlotTheLongestWaitsFirst) {
  ReplayReport r = SampleReport();
  r.series.clear();
  r.cluster_queues.clear();
  r.wait_by_cluster_queue.clear();
  for (int i = 0; i < 20; ++i) {
    std::string name = fmt::format("cq-{:02}", i);
    r.cluster_queues.push_back({name, i, 0, i == 0 ? 5 : 0, 0});
    r.series.push_back({name, {0, 1, 2, 3}, {0, 0, 0, 0}, {0, 0.5, 1, 0.5}, {1, 2, NAN, 4}});
    if (i > 0) {
      GroupWaits g;
      g.name = name;
      g.stats.count = i;
      g.stats.p90 = i % 2 == 1 ? 100.0 - i : 0.0;
      r.wait_by_cluster_queue.push_back(g);
    }
  }
  const std::string html = FormatReportHtml(r);
  EXPECT_NE(html.find("The 12 ClusterQueues whose workloads waited longest (p90 time to "
                      "admission; a queue that admitted none of its pending workloads first), of "
                      "20."),
            std::string::npos);
  // cq-00, then the ten odd ones (cq-01 waited longest), then the busiest of the rest (cq-18).
  EXPECT_LT(html.find("<h3>cq-00</h3>"), html.find("<h3>cq-01</h3>"));
  EXPECT_LT(html.find("<h3>cq-01</h3>"), html.find("<h3>cq-19</h3>"));
  EXPECT_LT(html.find("<h3>cq-19</h3>"), html.find("<h3>cq-18</h3>"));
  EXPECT_NE(html.find("<h3>cq-18</h3>"), std::string::npos);
  EXPECT_EQ(html.find("<h3>cq-16</h3>"), std::string::npos);
  EXPECT_EQ(html.find("<h3>cq-02</h3>"), std::string::npos);
}

// Issue 24: memory in binary units, not bytes (the sample's team-a has 16 GiB of memory quota).
TEST(ReportHtmlTest, UsageShowsMemoryInBinaryUnits) {
  const std::string html = FormatReportHtml(SampleReport());
  EXPECT_NE(html.find(">16 GiB</td>"), std::string::npos);
  EXPECT_EQ(html.find(">17179869184"), std::string::npos);  // only as the sort key
}

// Issue 24: the fallback figures of report.json (seed 002) have their section in the HTML, and
// only when fallbacks are modelled.
TEST(ReportHtmlTest, FallbacksHaveTheirSection) {
  ReplayReport r = SampleReport();
  EXPECT_EQ(FormatReportHtml(r).find("<h2>Flavor fallbacks</h2>"), std::string::npos);
  r.fallbacks.enabled = true;
  r.fallbacks.time_to_start.count = 3;
  r.fallbacks.time_to_start.p50 = 120;
  r.fallbacks.time_to_start.p90 = 600;
  r.fallbacks.time_to_start.p99 = 600;
  r.fallbacks.time_to_start.max = 600;
  r.fallbacks.timeouts = 2;
  r.fallbacks.by_flavor["spot"] = 2;
  r.fallbacks.wasted_quota_seconds["spot/cpu"] = 7200;
  const std::string html = FormatReportHtml(r);
  EXPECT_NE(html.find("<h2>Flavor fallbacks</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l name\">started</td><td>3</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l name\">attempts ended by a flavor's timeout</td><td>2</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"l name\">spot</td><td data-sort=\"2\">2</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"l name\">spot/cpu</td><td data-sort=\"2\">2</td>"),
            std::string::npos);  // hours
}

TEST(ReportHtmlTest, LongSeriesAreBucketed) {
  ReplayReport r = SampleReport();
  r.sample_times.clear();
  r.series.resize(1);
  CqSeries& s = r.series[0];
  s.pending.clear();
  s.utilisation.clear();
  s.mean_wait.clear();
  for (int i = 0; i < 5000; ++i) {
    r.sample_times.push_back(i * 10.0);
    s.pending.push_back(static_cast<float>(i % 7));
    s.utilisation.push_back(0.5f);
    s.mean_wait.push_back(i % 2 == 0 ? 1.0f : NAN);
  }
  const std::string html = FormatReportHtml(r);
  EXPECT_NE(html.find("Long series are bucketed"), std::string::npos);
  EXPECT_LT(html.size(), 200'000u);
}

// --- metrics.prom ---

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;
};

bool IsNameStart(char c, bool colon) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || (colon && c == ':');
}
bool IsNameChar(char c, bool colon) {
  return IsNameStart(c, colon) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool Digits(std::string_view v, size_t& j) {
  size_t start = j;
  while (j < v.size() && std::isdigit(static_cast<unsigned char>(v[j])) != 0) {
    ++j;
  }
  return j > start;
}

// Parses one sample line strictly: name{label="value",...} value, the value a decimal number
// (optional fraction and exponent), NaN, +Inf or -Inf. Label values are kept escaped, as written.
// (Hand-written: std::regex trips GCC 12's -Wmaybe-uninitialized in sanitizer builds.)
bool ParseSample(std::string_view line, Sample& out) {
  size_t i = 0;
  if (line.empty() || !IsNameStart(line[0], true)) {
    return false;
  }
  while (i < line.size() && IsNameChar(line[i], true)) {
    ++i;
  }
  out.name = std::string(line.substr(0, i));
  out.labels.clear();
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      size_t start = i;
      if (!IsNameStart(line[i], false)) {
        return false;
      }
      while (i < line.size() && IsNameChar(line[i], false)) {
        ++i;
      }
      std::string key(line.substr(start, i - start));
      if (i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') {
        return false;
      }
      i += 2;
      std::string value;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\') {
          if (i + 1 >= line.size()) {
            return false;
          }
          value += line.substr(i, 2);
          i += 2;
          continue;
        }
        value += line[i++];
      }
      if (i >= line.size()) {
        return false;
      }
      ++i;  // closing quote
      out.labels[key] = value;
      if (i < line.size() && line[i] == ',') {
        ++i;
      }
    }
    if (i >= line.size()) {
      return false;
    }
    ++i;  // '}'
  }
  if (i >= line.size() || line[i] != ' ') {
    return false;
  }
  std::string_view v = line.substr(i + 1);
  out.value = std::string(v);
  if (v == "NaN" || v == "+Inf" || v == "-Inf") {
    return true;
  }
  size_t j = 0;
  if (j < v.size() && v[j] == '-') {
    ++j;
  }
  if (!Digits(v, j)) {
    return false;
  }
  if (j < v.size() && v[j] == '.') {
    ++j;
    if (!Digits(v, j)) {
      return false;
    }
  }
  if (j < v.size() && v[j] == 'e') {
    ++j;
    if (j < v.size() && (v[j] == '+' || v[j] == '-')) {
      ++j;
    }
    if (!Digits(v, j)) {
      return false;
    }
  }
  return j == v.size();
}

std::string BaseName(const std::string& name) {
  for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

TEST(PrometheusTest, FormatAndKueueNames) {
  ReplayReport r = SampleReport();
  r.cluster_queues[1].name = "b\"ad\\name";
  const std::string prom = FormatPrometheus(r);
  std::map<std::string, std::string> types;  // family -> TYPE
  std::vector<Sample> samples;
  for (std::string_view line : Lines(prom)) {
    ASSERT_FALSE(line.empty());
    if (line.starts_with("# TYPE ")) {
      std::string_view rest = line.substr(7);
      size_t space = rest.find(' ');
      types[std::string(rest.substr(0, space))] = std::string(rest.substr(space + 1));
      continue;
    }
    if (line.starts_with("#")) {
      continue;
    }
    Sample s;
    ASSERT_TRUE(ParseSample(line, s)) << line;
    // Each sample follows the TYPE line of its family.
    const std::string family = types.count(s.name) ? s.name : BaseName(s.name);
    ASSERT_TRUE(types.count(family)) << line;
    samples.push_back(s);
  }
  EXPECT_EQ(types["kueue_admission_wait_time_seconds"], "histogram");
  EXPECT_EQ(types["kueue_local_queue_admission_wait_time_seconds"], "histogram");
  EXPECT_EQ(types["kueue_pending_workloads"], "gauge");
  EXPECT_EQ(types["kueue_admitted_workloads_total"], "counter");
  EXPECT_EQ(types["kueue_evicted_workloads_total"], "counter");
  EXPECT_EQ(types["kueue_preempted_workloads_total"], "counter");
  EXPECT_EQ(types["kueue_cluster_queue_resource_usage"], "gauge");
  EXPECT_EQ(types["kueue_cluster_queue_nominal_quota"], "gauge");

  auto find = [&](const std::string& name, const std::map<std::string, std::string>& labels) {
    for (const Sample& s : samples) {
      if (s.name == name && s.labels == labels) {
        return s.value;
      }
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(find("kueue_admitted_workloads_total", {{"cluster_queue", "team-a"}}), "4");
  EXPECT_EQ(find("kueue_admitted_workloads_total", {{"cluster_queue", "b\\\"ad\\\\name"}}), "2");
  EXPECT_EQ(find("kueue_pending_workloads", {{"cluster_queue", "team-a"}, {"status", "active"}}),
            "0");
  EXPECT_EQ(
      find("kueue_evicted_workloads_total", {{"cluster_queue", "team-a"}, {"reason", "Preempted"}}),
      "1");
  EXPECT_EQ(find("kueue_evicted_workloads_total", {{"reason", "PodsReadyTimeout"}}), "2");
  EXPECT_EQ(find("kueue_preempted_workloads_total", {}), "1");
  // cpu in cores, memory in bytes.
  EXPECT_EQ(find("kueue_cluster_queue_resource_usage",
                 {{"cluster_queue", "team-a"}, {"flavor", "default"}, {"resource", "cpu"}}),
            "2");
  EXPECT_EQ(find("kueue_cluster_queue_nominal_quota",
                 {{"cluster_queue", "team-a"}, {"flavor", "default"}, {"resource", "memory"}}),
            "17179869184");
  EXPECT_EQ(find("kueue_local_queue_admission_wait_time_seconds_count",
                 {{"name", "q\\\"x"}, {"namespace", "ns-b"}}),
            "2");
}

TEST(PrometheusTest, HistogramsAreCumulativeAndEndWithCount) {
  const std::string prom = FormatPrometheus(SampleReport());
  // series key (name without suffix + labels without le) -> bucket values in order.
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> buckets;
  std::map<std::string, std::string> counts;
  for (std::string_view line : Lines(prom)) {
    if (line.starts_with("#")) {
      continue;
    }
    Sample s;
    ASSERT_TRUE(ParseSample(line, s)) << line;
    std::string le;
    if (auto it = s.labels.find("le"); it != s.labels.end()) {
      le = it->second;
      s.labels.erase(it);
    }
    std::string key = BaseName(s.name);
    for (const auto& [k, v] : s.labels) {
      key += fmt::format(",{}={}", k, v);
    }
    if (s.name.ends_with("_bucket")) {
      buckets[key].emplace_back(le, std::stoll(s.value));
    } else if (s.name.ends_with("_count")) {
      counts[key] = s.value;
    }
  }
  ASSERT_EQ(buckets.size(), 4u);  // 2 ClusterQueues + 2 LocalQueues
  for (const auto& [key, values] : buckets) {
    ASSERT_EQ(values.size(), WaitBuckets().size() + 1) << key;
    for (size_t i = 1; i < values.size(); ++i) {
      EXPECT_LE(values[i - 1].second, values[i].second) << key << " le=" << values[i].first;
    }
    EXPECT_EQ(values.back().first, "+Inf") << key;
    EXPECT_EQ(fmt::format("{}", values.back().second), counts[key]) << key;
    EXPECT_EQ(values.front().first, "1");
  }
  // team-b waited 7 s and 100 s: le=4 holds 0, le=8 holds 1, le=128 holds both.
  const auto& team_b = buckets["kueue_admission_wait_time_seconds,cluster_queue=team-b"];
  EXPECT_EQ(team_b[2].second, 0);
  EXPECT_EQ(team_b[3].second, 1);
  EXPECT_EQ(team_b[7].second, 2);
}

// The ClusterQueue table of report.html looks each queue's main (flavor, resource) up in one
// index (MainResources) instead of scanning every usage row per queue: the same row as
// MainResource, its ties (the first in report order) and its queues without a nominal quota.
TEST(MainResourceTest, TheIndexGivesWhatTheScanGives) {
  ReplayReport r;
  auto row = [&](std::string cq, std::string flavor, int64_t nominal, double utilisation) {
    ResourceUsage u;
    u.cluster_queue = std::move(cq);
    u.flavor = std::move(flavor);
    u.resource = "cpu";
    u.nominal = nominal;
    u.utilisation = utilisation;
    r.usage.push_back(u);
  };
  row("a", "f1", 10, 0.5);
  row("b", "f1", 0, 0.9);  // no nominal quota: never the main one
  row("a", "f2", 10, 0.7);
  row("c", "f1", 4, 0.3);
  row("a", "f3", 10, 0.7);  // a tie with f2: the first stays
  row("c", "f2", 4, 0.3);
  row("b", "f2", 0, 0.1);
  const auto index = internal::MainResources(r);
  for (const std::string cq : {"a", "b", "c", "d"}) {
    const ResourceUsage* scanned = internal::MainResource(r, cq);
    auto it = index.find(cq);
    const ResourceUsage* indexed = it == index.end() ? nullptr : it->second;
    EXPECT_EQ(indexed, scanned) << cq;
  }
  ASSERT_NE(index.find("a"), index.end());
  EXPECT_EQ(index.at("a")->flavor, "f2");
  EXPECT_EQ(index.at("c")->flavor, "f1");
  EXPECT_EQ(index.count("b"), 0U);
}

}  // namespace
}  // namespace replay
