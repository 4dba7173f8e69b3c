// `tally diff` and `tally gate` (docs/diff-and-gate.md) on replay output directories written by
// hand: report.json figures and decisions.jsonl lines as `tally replay` writes them.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/io/content_digest.h"
#include "replay/report/replay_outputs.h"
#include "replay/report/report_writers.h"
#include "replay/sweep/diff.h"
#include "replay/sweep/gate.h"

namespace replay {
namespace {

namespace fs = std::filesystem;

struct Waits {
  int count;
  double mean, p50, p90, p99, max;
};

std::string WaitsJson(const Waits& w) {
  return fmt::format(R"("count":{},"max":{},"mean":{},"p50":{},"p90":{},"p99":{})", w.count, w.max,
                     w.mean, w.p50, w.p90, w.p99);
}

struct Fixture {
  int admissions = 10;
  int preemptions = 1;
  int evicted_preempted = 1;
  int evicted_timeout = 0;
  int pending = 2;
  Waits overall{8, 10, 5, 20, 30, 40};
  Waits team_a{5, 8, 4, 15, 20, 20};
  Waits team_b{3, 13, 6, 25, 40, 40};
  bool with_team_c = false;  // a third ClusterQueue
  double util_a_gpu = 0.5;
  double util_b_gpu = 0.8;
  int nominal_a_gpu = 8;
  int team_a_preempted = 1;
  std::optional<Waits> time_to_start;  // outcomes.fallbacks.timeToStart
};

// `run_id`: the report's runId (what `tally replay` writes: the digest of decisions.jsonl).
std::string ReportJson(const Fixture& f, const std::string& run_id = "") {
  std::string by_cq = fmt::format(R"({{"name":"team-a",{}}},{{"name":"team-b",{}}})",
                                  WaitsJson(f.team_a), WaitsJson(f.team_b));
  std::string cqs = fmt::format(
      R"({{"admitted":6,"name":"team-a","pendingAtEnd":1,"preempted":{},"runningAtEnd":2}},)"
      R"({{"admitted":4,"name":"team-b","pendingAtEnd":1,"preempted":0,"runningAtEnd":1}})",
      f.team_a_preempted);
  std::string usage = fmt::format(
      R"({{"clusterQueue":"team-a","flavor":"a100","meanBorrowed":0,"meanUsage":4,"nominal":{},"peakUsage":8,"resource":"nvidia.com/gpu","usageAtEnd":2,"utilisation":{}}},)"
      R"({{"clusterQueue":"team-a","flavor":"a100","meanBorrowed":0,"meanUsage":0,"nominal":0,"peakUsage":0,"resource":"cpu","usageAtEnd":0,"utilisation":0}},)"
      R"({{"clusterQueue":"team-b","flavor":"a100","meanBorrowed":0,"meanUsage":4,"nominal":8,"peakUsage":8,"resource":"nvidia.com/gpu","usageAtEnd":2,"utilisation":{}}})",
      f.nominal_a_gpu, f.util_a_gpu, f.util_b_gpu);
  if (f.with_team_c) {
    by_cq += R"(,{"name":"a<b&c","count":1,"max":1,"mean":1,"p50":1,"p90":1,"p99":1})";
    cqs += R"(,{"admitted":1,"name":"a<b&c","pendingAtEnd":0,"preempted":0,"runningAtEnd":0})";
  }
  const std::string fallbacks =
      f.time_to_start.has_value() ? fmt::format(
          R"("fallbacks":{{"timeToStart":{{{}}},"timeouts":1}},)", WaitsJson(*f.time_to_start))
                                  : "";
  return fmt::format(
      R"({{"clusterQueues":[{cqs}],"engine":{{}},"input":{{"errors":[],"eventsFile":"trace.jsonl"}},)"
      R"("model":{{"mode":"policy-only","settings":{{}}}},)"
      R"("outcomes":{{"admissions":{adm},"cycles":3,"deactivated":0,"deleted":1,)"
      R"("evictionsByReason":{{"Preempted":{ep},"PodsReadyTimeout":{et}}},{fallbacks}"finished":5,)"
      R"("pendingAtEnd":{pend},"preemptions":{pre},"requeues":1,"runningAtEnd":3,)"
      R"("workloadsAdmitted":8,"workloadsCreated":11,"workloadsInitiallyAdmitted":0}},)"
      R"({run_id}"schemaVersion":1,"series":{{}},)"
      R"("time":{{"durationSeconds":3600,"end":"2026-01-01T01:00:00Z","start":"2026-01-01T00:00:00Z","truncated":false}},)"
      R"("timeToAdmission":{{"byClass":[{{"name":"",{none}}},{{"name":"batch",{batch}}}],)"
      R"("byClusterQueue":[{bycq}],"byLocalQueue":[],"byPriority":[],"overall":{{{overall}}}}},)"
      R"("usage":[{usage}]}})",
      fmt::arg("cqs", cqs), fmt::arg("adm", f.admissions), fmt::arg("ep", f.evicted_preempted),
      fmt::arg("et", f.evicted_timeout), fmt::arg("pend", f.pending),
      fmt::arg("pre", f.preemptions), fmt::arg("none", WaitsJson(f.team_a)),
      fmt::arg("batch", WaitsJson(f.team_b)), fmt::arg("bycq", by_cq),
      fmt::arg("overall", WaitsJson(f.overall)), fmt::arg("usage", usage),
      fmt::arg("fallbacks", fallbacks),
      fmt::arg("run_id", run_id.empty() ? "" : fmt::format(R"("runId":"{}",)", run_id)));
}

std::string At(int seconds) {
  return fmt::format("2026-01-01T00:{:02d}:{:02d}Z", seconds / 60, seconds % 60);
}

std::string Admitted(const std::string& workload, int seconds, const std::string& flavor,
                     const std::string& cq = "team-a") {
  return fmt::format(
      R"({{"borrowed":{{}},"clusterQueue":"{}","podSets":[{{"count":1,"flavors":{{"cpu":"{}","nvidia.com/gpu":"{}"}},"name":"main","resourceUsage":{{"cpu":1000,"nvidia.com/gpu":1}}}}],"time":"{}","type":"Admitted","workload":"{}"}})",
      cq, flavor, flavor, At(seconds), workload);
}

std::string Line(const std::string& type, const std::string& workload, int seconds) {
  return fmt::format(R"({{"clusterQueue":"team-a","time":"{}","type":"{}","workload":"{}"}})",
                     At(seconds), type, workload);
}

std::string Preempted(const std::string& workload, int seconds) {
  return fmt::format(
      R"({{"clusterQueue":"team-a","preemptor":"ns/x","reason":"InClusterQueue","time":"{}","type":"Preempted","workload":"{}"}})",
      At(seconds), workload);
}

class DiffGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path()
            / fmt::format("tally_diff_gate_test_{}",
                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string WriteDir(const std::string& name, const Fixture& f,
                       const std::vector<std::string>& decisions) {
    fs::path dir = root_ / name;
    fs::create_directories(dir);
    std::string text;
    for (const std::string& line : decisions) {
      text += line;
      text += '\n';
    }
    ContentDigest digest;
    digest.Update(text);
    std::ofstream(dir / "report.json") << ReportJson(f, digest.Hex()) << "\n";
    std::ofstream(dir / "decisions.jsonl") << text;
    return dir.string();
  }

  std::string Path(const std::string& name) const { return (root_ / name).string(); }

  fs::path root_;
};

std::vector<std::string> DecisionsA() {
  return {
      Admitted("ns/same", 10, "a100"),   Line("Finished", "ns/same", 100),
      Admitted("ns/later", 20, "a100"),  Admitted("ns/much-later", 30, "a100"),
      Admitted("ns/flavor", 40, "a100"), Admitted("ns/only-a", 50, "a100"),
      Preempted("ns/fate", 55),          Line("Requeued", "ns/fate", 56),
      Admitted("ns/fate", 60, "a100"),   Line("Deleted", "ns/fate", 70),
  };
}

std::vector<std::string> DecisionsB() {
  return {
      "",  // blank lines are skipped
      Admitted("ns/same", 10, "a100"),
      Line("Finished", "ns/same", 100),
      Admitted("ns/later", 25, "a100"),
      Admitted("ns/much-later", 130, "a100"),
      Admitted("ns/flavor", 40, "h100"),
      Admitted("ns/fate", 60, "a100"),
      Line("Finished", "ns/fate", 80),
      Admitted("ns/only-b", 90, "a100", "team-b"),
      R"({"reason":"PodsReadyTimeout","time":"2026-01-01T00:01:40Z","type":"Evicted","workload":"ns/only-b"})",
  };
}

TEST_F(DiffGateTest, ReadsReportFigures) {
  Fixture f;
  f.evicted_timeout = 2;
  engine::StatusOr<ReportFigures> r = ParseReportFigures(ReportJson(f), "report.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->admissions, 10);
  EXPECT_EQ(r->evictions, 3);
  EXPECT_EQ(r->pending_at_end, 2);
  EXPECT_EQ(r->mode, "policy-only");
  EXPECT_DOUBLE_EQ(r->overall.p99, 30);
  ASSERT_EQ(r->by_cluster_queue.size(), 2U);
  EXPECT_EQ(r->by_cluster_queue[1].name, "team-b");
  ASSERT_EQ(r->usage.size(), 3U);
  EXPECT_EQ(r->usage[0].nominal, 8);
  ASSERT_EQ(r->by_class.size(), 2U);

  engine::StatusOr<ReportFigures> bad = ParseReportFigures(R"({"schemaVersion":1})", "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.json: model"), std::string::npos)
      << bad.status().message();
  EXPECT_EQ(
      ParseReportFigures("{", "x.json").status().message().rfind("x.json: not valid JSON: ", 0),
      0u);
  EXPECT_EQ(ParseReportFigures(R"({"schemaVersion":"1"})", "x.json").status().message(),
            "x.json: schemaVersion: missing or not an integer");
  EXPECT_EQ(ParseReportFigures(R"({"schemaVersion":2})", "x.json").status().message(),
            "x.json: schemaVersion 2: this tally reads version 1 (docs/report.md)");
}

TEST_F(DiffGateTest, TimeToStartOnlyWhenAReportHasFallbacks) {
  Fixture plain;
  Fixture with_fallbacks;
  with_fallbacks.time_to_start = Waits{8, 600, 120, 1200, 1800, 2400};
  engine::StatusOr<ReportFigures> r = ParseReportFigures(ReportJson(with_fallbacks), "r");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_time_to_start);
  EXPECT_DOUBLE_EQ(r->time_to_start.p99, 1800);
  EXPECT_EQ(r->time_to_start.count, 8);

  ReplayOutputs a{"a", *ParseReportFigures(ReportJson(plain), "a"), {}};
  ReplayOutputs b{"b", *r, {}};
  EXPECT_FALSE(a.report.has_time_to_start);
  EXPECT_FALSE(ComputeDiff(a, a, 5).time_to_start.has_value());
  EXPECT_EQ(FormatDiffText(ComputeDiff(a, a, 5)).find("time to start"), std::string::npos);
  ReplayDiff d = ComputeDiff(a, b, 5);
  ASSERT_TRUE(d.time_to_start.has_value());
  EXPECT_FALSE(d.time_to_start->in_a);
  EXPECT_TRUE(d.time_to_start->in_b);
  EXPECT_DOUBLE_EQ(d.time_to_start->mean.change(), 600);
  EXPECT_NE(FormatDiffText(d).find("time to start"), std::string::npos);
  EXPECT_NE(FormatDiffJson(d).find(R"("timeToStart":{"count":{"a":0,"b":8)"), std::string::npos)
      << FormatDiffJson(d);
}

TEST_F(DiffGateTest, SummarisesDecisions) {
  std::string a = WriteDir("a", Fixture{}, DecisionsA());
  engine::StatusOr<DecisionSummary> d = LoadDecisionSummary(a + "/decisions.jsonl");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->workloads.size(), 6U);
  const WorkloadSummary& fate = d->workloads.at("ns/fate");
  EXPECT_EQ(fate.preemptions, 1);
  EXPECT_EQ(fate.fate, WorkloadFate::kDeleted);
  EXPECT_EQ(FateText(fate), "deleted, preempted 1x");
  const WorkloadSummary& same = d->workloads.at("ns/same");
  EXPECT_EQ(same.fate, WorkloadFate::kFinished);
  EXPECT_EQ(same.first_admitted, (1767225600LL + 10) * 1'000'000);
  EXPECT_EQ(d->flavor_sets[same.flavors], "a100");  // every resource on a100
  EXPECT_EQ(d->workloads.at("ns/later").fate, WorkloadFate::kAdmitted);

  // Mixed flavors are listed per resource; a bad line names file and line.
  std::string c = WriteDir(
      "c", Fixture{},
      {R"({"clusterQueue":"q","podSets":[{"count":1,"flavors":{"cpu":"x","gpu":"y"},"name":"main"}],"time":"2026-01-01T00:00:00Z","type":"Admitted","workload":"ns/w"})",
       "not json"});
  engine::StatusOr<DecisionSummary> bad = LoadDecisionSummary(c + "/decisions.jsonl");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("decisions.jsonl:2: not a JSON object"), std::string::npos)
      << bad.status().message();
  std::ofstream(c + "/decisions.jsonl")
      << R"({"clusterQueue":"q","podSets":[{"count":1,"flavors":{"cpu":"x","gpu":"y"},"name":"main"}],"time":"2026-01-01T00:00:00Z","type":"Admitted","workload":"ns/w"})";
  engine::StatusOr<DecisionSummary> mixed = LoadDecisionSummary(c + "/decisions.jsonl");
  ASSERT_TRUE(mixed.ok()) << mixed.status().message();  // no final newline
  EXPECT_EQ(mixed->flavor_sets.at(mixed->workloads.at("ns/w").flavors), "cpu=x,gpu=y");
}

TEST_F(DiffGateTest, LongDecisionLog) {
  // More than one 4 MiB read block, with lines cut at block boundaries.
  std::vector<std::string> lines;
  for (int i = 0; i < 40000; ++i) {
    lines.push_back(Admitted(fmt::format("ns/w-{}", i), i % 3600, "a100"));
  }
  const std::string dir = WriteDir("long", Fixture{}, lines);
  engine::StatusOr<ReplayOutputs> o = LoadReplayOutputs(dir, true);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->decisions.workloads.size(), 40000U);
  EXPECT_EQ(o->decisions.lines, 40000);
  EXPECT_EQ(o->decisions.flavor_sets.size(), 1U);
}

// Run ids: every file of a replay's directory carries the digest of its decisions.jsonl; diff and
// gate refuse a directory mixing files of different runs.
TEST_F(DiffGateTest, FilesOfOneRunAgree) {
  const std::string dir = WriteDir("one-run", Fixture{}, DecisionsA());
  engine::StatusOr<ReplayOutputs> o = LoadReplayOutputs(dir, false);
  ASSERT_TRUE(o.ok()) << o.status().message();
  ContentDigest d;
  std::string text;
  for (const std::string& line : DecisionsA()) {
    text += line + "\n";
  }
  d.Update(text);
  EXPECT_EQ(o->report.run_id, d.Hex());
  // The other files, when present, carry the same id.
  std::ofstream(fs::path(dir) / "metrics.prom")
      << "# HELP tally_run_info x\n# TYPE tally_run_info gauge\ntally_run_info{run_id=\"" << d.Hex()
      << "\"} 1\n";
  std::ofstream(fs::path(dir) / "report.html")
      << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"tally-run-id\" content=\"" << d.Hex() << "\">\n";
  EXPECT_TRUE(LoadReplayOutputs(dir, true).ok());
}

TEST_F(DiffGateTest, DecisionsOfAnotherRunAreRefused) {
  const std::string dir = WriteDir("mixed", Fixture{}, DecisionsA());
  // decisions.jsonl of another run beside this run's report.json (with or without reading it).
  std::ofstream(fs::path(dir) / "decisions.jsonl") << DecisionsB()[1] << "\n";
  for (bool with_decisions : {false, true}) {
    engine::StatusOr<ReplayOutputs> o = LoadReplayOutputs(dir, with_decisions);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find("decisions.jsonl: has digest"), std::string::npos)
        << o.status().message();
    EXPECT_NE(o.status().message().find("different runs"), std::string::npos);
  }
  // Cut short, as by a copy that failed half way.
  const std::string cut = WriteDir("cut", Fixture{}, DecisionsA());
  fs::resize_file(fs::path(cut) / "decisions.jsonl", 100);
  EXPECT_FALSE(LoadReplayOutputs(cut, false).ok());
}

TEST_F(DiffGateTest, MetricsOrHtmlOfAnotherRunAreRefused) {
  const std::string dir = WriteDir("prom", Fixture{}, DecisionsA());
  std::ofstream(fs::path(dir) / "metrics.prom")
      << "tally_run_info{run_id=\"0123456789abcdef\"} 1\n";
  engine::StatusOr<ReplayOutputs> o = LoadReplayOutputs(dir, false);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("metrics.prom: tally_run_info run_id 0123456789abcdef"),
            std::string::npos)
      << o.status().message();

  const std::string html_dir = WriteDir("html", Fixture{}, DecisionsA());
  std::ofstream(fs::path(html_dir) / "report.html") << "<html><head><title>old</title>\n";
  o = LoadReplayOutputs(html_dir, false);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("report.html: tally-run-id (none)"), std::string::npos)
      << o.status().message();
}

TEST_F(DiffGateTest, AReportWithoutRunIdIsRefused) {
  fs::path dir = root_ / "old";
  fs::create_directories(dir);
  std::ofstream(dir / "report.json") << ReportJson(Fixture{});
  engine::StatusOr<ReplayOutputs> o = LoadReplayOutputs(dir.string(), false);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("report.json: no runId"), std::string::npos)
      << o.status().message();
}

TEST_F(DiffGateTest, DiffFiguresAndTopChangedWorkloads) {
  Fixture fb;
  fb.admissions = 12;
  fb.preemptions = 0;
  fb.evicted_preempted = 0;
  fb.overall = {8, 15, 5, 20, 45, 40};
  fb.util_a_gpu = 0.25;
  fb.nominal_a_gpu = 16;
  fb.with_team_c = true;
  engine::StatusOr<ReplayOutputs> a =
      LoadReplayOutputs(WriteDir("a", Fixture{}, DecisionsA()), true);
  engine::StatusOr<ReplayOutputs> b = LoadReplayOutputs(WriteDir("b", fb, DecisionsB()), true);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  ReplayDiff d = ComputeDiff(*a, *b, 2);

  EXPECT_EQ(d.outcomes[0].first, "admissions");
  EXPECT_EQ(d.outcomes[0].second.change(), 2);
  EXPECT_DOUBLE_EQ(d.outcomes[0].second.relative(), 0.2);
  EXPECT_EQ(d.outcomes[1].first, "preemptions");
  EXPECT_DOUBLE_EQ(d.outcomes[1].second.relative(), -1.0);
  EXPECT_DOUBLE_EQ(d.overall.mean.change(), 5);
  EXPECT_DOUBLE_EQ(d.overall.mean.relative(), 0.5);
  EXPECT_DOUBLE_EQ(d.overall.p99.change(), 15);
  ASSERT_EQ(d.by_cluster_queue.size(), 3U);  // union of both reports, by name
  EXPECT_EQ(d.by_cluster_queue[0].name, "a<b&c");
  EXPECT_FALSE(d.by_cluster_queue[0].in_a);
  EXPECT_TRUE(d.by_cluster_queue[0].in_b);
  EXPECT_TRUE(std::isnan(d.by_cluster_queue[0].count.relative()));
  ASSERT_EQ(d.usage.size(), 3U);
  EXPECT_EQ(d.usage[1].resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(d.usage[1].utilisation.change(), -0.25);
  EXPECT_DOUBLE_EQ(d.usage[1].nominal.b, 16);

  EXPECT_EQ(d.workloads_compared, 7);
  EXPECT_EQ(d.admitted_both, 5);
  EXPECT_EQ(d.admitted_only_a, 1);
  EXPECT_EQ(d.admitted_only_b, 1);
  EXPECT_EQ(d.admission_time_changed, 2);
  EXPECT_EQ(d.flavor_changed, 1);
  // ns/fate: deleted after a preemption -> finished; only-a: admitted -> unseen (pending);
  // only-b: unseen -> admitted.
  EXPECT_EQ(d.fate_changed, 3);
  ASSERT_EQ(d.top_changed.size(), 2U);
  EXPECT_EQ(d.top_changed[0].workload, "ns/much-later");
  EXPECT_DOUBLE_EQ(d.top_changed[0].wait_change_seconds(), 100);
  EXPECT_EQ(d.top_changed[1].workload, "ns/later");
  ASSERT_EQ(d.other_changed.size(), 2U);
  EXPECT_EQ(d.other_changed[0].workload, "ns/fate");
  EXPECT_EQ(d.other_changed[0].fate_a, "deleted, preempted 1x");
  EXPECT_EQ(d.other_changed[0].fate_b, "finished");
  EXPECT_EQ(d.other_changed[1].flavors_b, "h100");
  ASSERT_EQ(d.only_b.size(), 1U);
  EXPECT_EQ(d.only_b[0].cluster_queue, "team-b");
  EXPECT_EQ(d.only_a[0].fate_b, "pending");

  ReplayDiff top1 = ComputeDiff(*a, *b, 1);
  ASSERT_EQ(top1.top_changed.size(), 1U);
  EXPECT_EQ(top1.top_changed[0].workload, "ns/much-later");

  std::string text = FormatDiffText(d);
  EXPECT_NE(text.find("ns/much-later"), std::string::npos) << text;
  EXPECT_NE(text.find("+1.67m"), std::string::npos) << text;
  EXPECT_NE(text.find("h100, admitted\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" was  a100, admitted\n"), std::string::npos) << text;
  EXPECT_NE(text.find("-25.0pp  nominal 8 -> 16"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  A:", 0) != 0 && line.rfind("  B:", 0) != 0) {  // A and B show the paths
      EXPECT_LE(line.size(), 100U) << line;
    }
  }

  // JSON: valid, keys sorted at every level.
  std::string json = FormatDiffJson(d);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(int64_t(doc["outcomes"]["admissions"]["change"]), 2);
  EXPECT_EQ(double(doc["timeToAdmission"]["overall"]["mean"]["relative"]), 0.5);
  EXPECT_TRUE(doc["timeToAdmission"]["byClusterQueue"].at(0)["count"]["relative"].is_null());
  EXPECT_EQ(std::string_view(doc["workloads"]["topChanged"].at(0)["workload"]), "ns/much-later");
  EXPECT_EQ(double(doc["workloads"]["topChanged"].at(0)["waitChangeSeconds"]), 100);
  EXPECT_EQ(int64_t(doc["workloads"]["flavorChanged"]), 1);
  std::function<void(simdjson::dom::element)> sorted = [&](simdjson::dom::element e) {
    simdjson::dom::object object;
    simdjson::dom::array array;
    if (e.get_object().get(object) == simdjson::SUCCESS) {
      std::string_view previous;
      for (auto [key, value] : object) {
        EXPECT_LT(previous, key);
        previous = key;
        sorted(value);
      }
    } else if (e.get_array().get(array) == simdjson::SUCCESS) {
      for (simdjson::dom::element v : array) {
        sorted(v);
      }
    }
  };
  sorted(doc);
}

TEST_F(DiffGateTest, DiffMissingDirectory) {
  DiffOptions o;
  o.a = Path("nope");
  o.b = Path("nope2");
  EXPECT_EQ(RunDiff(o), 2);
  fs::create_directories(Path("empty"));
  engine::StatusOr<ReplayOutputs> r = LoadReplayOutputs(Path("empty"), true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("report.json: no such file"), std::string::npos);
}

TEST_F(DiffGateTest, ParsesLimits) {
  engine::StatusOr<GateLimit> l = ParseGateLimit("p99_wait=+10%");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->metric, GateMetric::kP99Wait);
  EXPECT_EQ(l->unit, LimitUnit::kPercent);
  EXPECT_DOUBLE_EQ(l->amount, 10);

  l = ParseGateLimit("utilisation@team-a=-2pp");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->cluster_queue, "team-a");
  EXPECT_EQ(l->unit, LimitUnit::kPoints);
  EXPECT_DOUBLE_EQ(l->amount, 2);

  l = ParseGateLimit("mean_wait=+1.5m");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->unit, LimitUnit::kAbsolute);
  EXPECT_DOUBLE_EQ(l->amount, 90);
  l = ParseGateLimit("max_wait=+30s");
  ASSERT_TRUE(l.ok());
  EXPECT_DOUBLE_EQ(l->amount, 30);
  l = ParseGateLimit("preemptions=5");
  ASSERT_TRUE(l.ok());
  EXPECT_DOUBLE_EQ(l->amount, 5);
  EXPECT_TRUE(ParseGateLimit("admissions=-5%").ok());
  EXPECT_TRUE(ParseGateLimit("admissions=+0").ok());

  struct Bad {
    const char* spec;
    const char* message;
  };
  for (const Bad& b : {
           Bad{"p99_wait", "expected METRIC=LIMIT"},
           Bad{"p98_wait=+10%", "unknown metric \"p98_wait\" (known: p50_wait"},
           Bad{"p99_wait=", "empty limit"},
           Bad{"p99_wait=+ten", "expected a number"},
           Bad{"p99_wait=+10x", "unknown unit \"x\""},
           Bad{"p99_wait=+2pp", "for utilisation only"},
           Bad{"p99_wait=-10%", "worse is higher"},
           Bad{"utilisation=+2pp", "worse is lower"},
           Bad{"utilisation=2", "needs a unit"},
           Bad{"admissions=+5s", "unknown unit \"s\""},
           Bad{"evictions@team-a=+1", "not counted per ClusterQueue"},
           Bad{"p99_wait@=+1", "ClusterQueue name after '@'"},
           Bad{"p99_wait=1.2.3", "not a number"},
       }) {
    engine::StatusOr<GateLimit> r = ParseGateLimit(b.spec);
    ASSERT_FALSE(r.ok()) << b.spec;
    EXPECT_NE(r.status().message().find(b.message), std::string::npos)
        << b.spec << ": " << r.status().message();
    EXPECT_NE(r.status().message().find(b.spec), std::string::npos) << r.status().message();
  }
}

TEST_F(DiffGateTest, EvaluatesEachLimitForm) {
  auto check = [](const char* spec, double base, double cand) {
    engine::StatusOr<GateLimit> l = ParseGateLimit(spec);
    EXPECT_TRUE(l.ok()) << spec;
    return EvaluateGateLimit(*l, base, cand).pass;
  };
  EXPECT_TRUE(check("p99_wait=+10%", 100, 110));
  EXPECT_FALSE(check("p99_wait=+10%", 100, 110.5));
  EXPECT_TRUE(check("p99_wait=+10%", 100, 50));  // better
  EXPECT_TRUE(check("p99_wait=+30s", 100, 130));
  EXPECT_FALSE(check("p99_wait=+30s", 100, 131));
  EXPECT_TRUE(check("utilisation=-2pp", 0.80, 0.78));
  EXPECT_FALSE(check("utilisation=-2pp", 0.80, 0.779));
  EXPECT_TRUE(check("utilisation=-2pp", 0.80, 0.95));
  EXPECT_FALSE(check("utilisation=-5%", 0.80, 0.75));  // 6.25% lower
  EXPECT_TRUE(check("admissions=-5", 100, 95));
  EXPECT_FALSE(check("admissions=-5", 100, 94));
  EXPECT_TRUE(check("preemptions=+0", 3, 3));
  EXPECT_FALSE(check("preemptions=+0", 3, 4));
  // A zero baseline: any increase breaks a relative limit.
  EXPECT_TRUE(check("preemptions=+50%", 0, 0));
  EXPECT_FALSE(check("preemptions=+50%", 0, 1));
  EXPECT_FALSE(check("p99_wait=+10%", 1, std::numeric_limits<double>::quiet_NaN()));

  engine::StatusOr<GateLimit> l = ParseGateLimit("p99_wait=+10%");
  GateCheck c = EvaluateGateLimit(*l, 100, 120);
  EXPECT_NE(c.message.find("worse than baseline by more than +10%"), std::string::npos)
      << c.message;
  EXPECT_NE(c.message.find("+20.0%"), std::string::npos) << c.message;
}

TEST_F(DiffGateTest, ScopedMetricValues) {
  Fixture f;
  f.with_team_c = true;
  engine::StatusOr<ReportFigures> r = ParseReportFigures(ReportJson(f), "r");
  ASSERT_TRUE(r.ok());
  auto value = [&](GateMetric m, std::string_view cq) {
    engine::StatusOr<double> v = GateMetricValue(*r, m, cq);
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? *v : -1;
  };
  EXPECT_DOUBLE_EQ(value(GateMetric::kP99Wait, ""), 30);
  EXPECT_DOUBLE_EQ(value(GateMetric::kP99Wait, "team-b"), 40);
  // Mean over the entries with nominal > 0: team-a's cpu (nominal 0) is left out.
  EXPECT_DOUBLE_EQ(value(GateMetric::kUtilisation, ""), (0.5 + 0.8) / 2);
  EXPECT_DOUBLE_EQ(value(GateMetric::kUtilisation, "team-a"), 0.5);
  EXPECT_DOUBLE_EQ(value(GateMetric::kPreemptions, "team-a"), 1);
  EXPECT_DOUBLE_EQ(value(GateMetric::kAdmissions, "team-b"), 4);
  EXPECT_DOUBLE_EQ(value(GateMetric::kPendingAtEnd, ""), 2);
  EXPECT_DOUBLE_EQ(value(GateMetric::kEvictions, ""), 1);
  EXPECT_FALSE(GateMetricValue(*r, GateMetric::kP99Wait, "no-such").ok());
}

// A minimal XML well-formedness check: balanced tags, quoted attributes, no bare '&' or '<'.
bool WellFormedXml(const std::string& xml, std::string& why) {
  std::vector<std::string> stack;
  size_t i = 0;
  if (xml.rfind("<?xml", 0) == 0) {
    i = xml.find("?>") + 2;
  }
  while (i < xml.size()) {
    if (xml[i] == '&') {
      size_t semi = xml.find(';', i);
      std::string entity = xml.substr(i, semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;"
          && entity != "&apos;" && entity.rfind("&#", 0) != 0) {
        why = "bad entity " + entity;
        return false;
      }
      i = semi + 1;
    } else if (xml[i] == '<') {
      size_t end = i + 1;
      char quote = 0;
      while (end < xml.size() && (quote != 0 || xml[end] != '>')) {
        if (quote == 0 && (xml[end] == '"' || xml[end] == '\'')) {
          quote = xml[end];
        } else if (quote != 0 && xml[end] == quote) {
          quote = 0;
        } else if (xml[end] == '<'
                   || (quote != 0 && xml[end] == '&' && xml.compare(end, 5, "&amp;") != 0
                       && xml.compare(end, 4, "&lt;") != 0 && xml.compare(end, 4, "&gt;") != 0
                       && xml.compare(end, 6, "&quot;") != 0 && xml.compare(end, 6, "&apos;") != 0
                       && xml.compare(end, 2, "&#") != 0)) {
          why = "bare < or & in a tag";
          return false;
        }
        ++end;
      }
      std::string tag = xml.substr(i + 1, end - i - 1);
      bool closing = tag[0] == '/';
      bool empty = tag.back() == '/';
      std::string name =
          tag.substr(closing ? 1 : 0, tag.find_first_of(" />", 1) - (closing ? 1 : 0));
      if (closing) {
        if (stack.empty() || stack.back() != name) {
          why = "unbalanced </" + name + ">";
          return false;
        }
        stack.pop_back();
      } else if (!empty) {
        stack.push_back(name);
      }
      i = end + 1;
    } else {
      ++i;
    }
  }
  if (!stack.empty()) {
    why = "unclosed <" + stack.back() + ">";
  }
  return stack.empty();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) {
    ++n;
  }
  return n;
}

TEST_F(DiffGateTest, RunGateExitCodesAndJUnit) {
  Fixture fa;
  fa.with_team_c = true;
  Fixture fb = fa;
  fb.overall = {8, 12, 5, 20, 33, 40};  // p99 +10%, mean +20%
  fb.util_a_gpu = 0.47;                 // mean utilisation 65% -> 63.5%
  GateOptions o;
  o.baseline = WriteDir("a", fa, DecisionsA());
  o.candidate = WriteDir("b", fb, DecisionsB());
  o.limits = {"p99_wait=+10%", "preemptions=+0", "utilisation=-2pp"};
  o.junit = Path("gate.xml");
  EXPECT_EQ(RunGate(o), 0);

  o.limits = {"p99_wait=+10%", "mean_wait=+10%", "utilisation=-1pp", "p99_wait@a<b&c=+0s",
              "admissions=-0"};
  EXPECT_EQ(RunGate(o), 1);
  std::stringstream xml;
  xml << std::ifstream(o.junit).rdbuf();
  std::string why;
  EXPECT_TRUE(WellFormedXml(xml.str(), why)) << why << "\n" << xml.str();
  EXPECT_EQ(Count(xml.str(), "<testsuite "), 1U);
  EXPECT_EQ(Count(xml.str(), "<testcase "), 5U);
  EXPECT_EQ(Count(xml.str(), "<failure "), 2U);
  EXPECT_NE(xml.str().find("tests=\"5\" failures=\"2\""), std::string::npos) << xml.str();
  EXPECT_NE(xml.str().find("name=\"p99_wait@a&lt;b&amp;c=+0s\""), std::string::npos) << xml.str();
  EXPECT_NE(xml.str().find("<failure message=\"mean_wait: candidate is worse"), std::string::npos)
      << xml.str();

  // Bad usage: exit 2.
  o.limits = {"p99_wait=+10%", "nonsense=+1"};
  EXPECT_EQ(RunGate(o), 2);
  o.limits = {"p99_wait@no-such=+10%"};
  EXPECT_EQ(RunGate(o), 2);
  o.limits = {"p99_wait=+10%"};
  o.candidate = Path("missing");
  EXPECT_EQ(RunGate(o), 2);
  o.candidate = Path("b");
  o.limits.clear();
  EXPECT_EQ(RunGate(o), 2);

  EXPECT_EQ(internal::MarkupEscape("a<b>&\"'\x01"), "a&lt;b&gt;&amp;&quot;&#39;\xEF\xBF\xBD");
}

}  // namespace
}  // namespace replay
