// Tests for `tally generate`: the Kueue perf-config expansion
// (replay/generate/kueue_perf_generator.h) and the synthetic generator
// (replay/generate/synthetic_generator.h). Run with the repository root as working directory (ctest
// does that): the Kueue configs are read from data/kueue-examples/.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/generate/kueue_perf_generator.h"
#include "replay/generate/synthetic_generator.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

constexpr std::string_view kConfigs = "data/kueue-examples/test/performance/scheduler/configs/";
constexpr int64_t kStart = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z

std::string Dump(const std::vector<LoadError>& errors) {
  std::string out;
  for (const LoadError& e : errors) {
    out += e.ToString() + "\n";
  }
  return out;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return lines;
}

struct EventCheck {
  int64_t workloads = 0;
  int64_t first = 0;
  int64_t last = 0;
  std::vector<std::string> objects;  // the first `keep` Workload objects, as JSON
};

// Every line parses as JSON; the first is the header; the others are ADDED Workload events with
// a runtime, in non-decreasing time order.
void CheckEventsInto(std::string_view events, size_t keep, EventCheck& check) {
  simdjson::dom::parser parser;
  std::vector<std::string_view> lines = Lines(events);
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) {
    return;
  }
  EXPECT_EQ(lines[0], R"({"format":"tally.events","version":1})");
  int64_t previous = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    simdjson::padded_string line(lines[i]);
    simdjson::dom::element event;
    ASSERT_EQ(parser.parse(line).get(event), simdjson::SUCCESS) << "line " << i + 1;
    std::string_view type;
    std::string_view time;
    std::string_view runtime;
    std::string_view kind;
    ASSERT_EQ(event["type"].get(type), simdjson::SUCCESS);
    ASSERT_EQ(event["time"].get(time), simdjson::SUCCESS);
    ASSERT_EQ(event["runtime"].get(runtime), simdjson::SUCCESS) << "line " << i + 1;
    ASSERT_EQ(event["object"]["kind"].get(kind), simdjson::SUCCESS);
    EXPECT_EQ(type, "ADDED");
    EXPECT_EQ(kind, "Workload");
    EXPECT_TRUE(runtime.ends_with("ms"));
    std::string_view label;
    EXPECT_EQ(event["object"]["metadata"]["labels"]["tally.dev/class"].get(label),
              simdjson::SUCCESS);
    engine::StatusOr<int64_t> t = ParseRfc3339(time);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_GE(*t, previous) << "line " << i + 1 << " goes back in time";
    previous = *t;
    if (check.workloads == 0) {
      check.first = *t;
    }
    check.last = *t;
    ++check.workloads;
    if (check.objects.size() < keep) {
      check.objects.push_back(simdjson::to_string(event["object"]));
    }
  }
}

EventCheck CheckEvents(std::string_view events, size_t keep) {
  EventCheck check;
  CheckEventsInto(events, keep, check);
  return check;
}

// Loads the manifests plus the given Workload objects (JSON is YAML) as one input.
LoadResult LoadWithWorkloads(const std::string& manifests, const std::vector<std::string>& objects,
                             const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "tally_generate_test";
  std::filesystem::create_directories(dir);
  std::filesystem::path path = dir / name;
  {
    std::ofstream out(path, std::ios::binary);
    out << manifests;
    for (const std::string& o : objects) {
      out << "---\n" << o << "\n";
    }
  }
  LoadResult result = LoadManifestFiles({path.string()});
  std::filesystem::remove(path);
  return result;
}

int Count(const LoadResult& r, const std::string& kind) {
  auto it = r.loaded_by_kind.find(kind);
  return it == r.loaded_by_kind.end() ? 0 : it->second;
}

// ---- --kueue-perf ----

TEST(KueuePerfGenerator, BaselineMatchesKueueCounts) {
  engine::StatusOr<KueuePerfConfig> config =
      LoadKueuePerfConfig(fmt::format("{}baseline/generator.yaml", kConfigs));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_TRUE(config->warnings.empty());
  KueuePerfScenario s = GenerateKueuePerfScenario(*config, kStart);
  // By hand from the config: 5 cohorts x 6 queues; per queue 350 + 100 + 50 workloads.
  EXPECT_EQ(s.cohorts, 5);
  EXPECT_EQ(s.cluster_queues, 30);
  EXPECT_EQ(s.local_queues, 30);
  EXPECT_EQ(s.workloads, 30 * 500);
  // The k-th creation of a set happens k intervals after the start (the runner sleeps first);
  // the last is the 50th large workload: 50 x 1200 ms.
  EXPECT_EQ(s.first_event_micros, kStart + 100'000);
  EXPECT_EQ(s.last_event_micros, kStart + 60'000'000);

  EventCheck events = CheckEvents(s.events, 120);
  EXPECT_EQ(events.workloads, 15'000);
  EXPECT_EQ(events.first, kStart + 100'000);
  EXPECT_EQ(events.last, kStart + 60'000'000);

  // Kueue's names and units.
  EXPECT_NE(s.manifests.find("name: cq-0-5-cohort-4\n"), std::string::npos);
  EXPECT_NE(s.manifests.find("nominalQuota: \"20\"\n        borrowingLimit: \"100\"\n"),
            std::string::npos);
  EXPECT_NE(s.manifests.find("reclaimWithinCohort: Any\n    withinClusterQueue: LowerPriority\n"),
            std::string::npos);
  EXPECT_NE(events.objects[0].find(R"("name":"small-0-0-0","namespace":"cq-0-0-cohort-0")"),
            std::string::npos)
      << events.objects[0];
  EXPECT_NE(events.objects[0].find(R"("priority":50)"), std::string::npos);
  EXPECT_NE(events.objects[0].find(R"("requests":{"cpu":"1"})"), std::string::npos);

  LoadResult loaded = LoadWithWorkloads(s.manifests, events.objects, "baseline.yaml");
  EXPECT_TRUE(loaded.errors.empty()) << Dump(loaded.errors);
  EXPECT_TRUE(loaded.warnings.empty()) << Dump(loaded.warnings);
  EXPECT_EQ(Count(loaded, "ResourceFlavor"), 1);
  EXPECT_EQ(Count(loaded, "Cohort"), 5);
  EXPECT_EQ(Count(loaded, "ClusterQueue"), 30);
  EXPECT_EQ(Count(loaded, "LocalQueue"), 30);
  EXPECT_EQ(Count(loaded, "Namespace"), 30);
  EXPECT_EQ(Count(loaded, "Workload"), 120);
}

TEST(KueuePerfGenerator, LargeScaleMatchesKueueCounts) {
  engine::StatusOr<KueuePerfConfig> config =
      LoadKueuePerfConfig(fmt::format("{}large-scale/generator.yaml", kConfigs));
  ASSERT_TRUE(config.ok()) << config.status().message();
  KueuePerfScenario s = GenerateKueuePerfScenario(*config, kStart);
  // 10 cohorts x 100 queues; per queue 35 + 11 + 4 workloads; last: 4 x 700 ms vs 35 x 60 ms
  // vs 11 x 300 ms.
  EXPECT_EQ(s.cohorts, 10);
  EXPECT_EQ(s.cluster_queues, 1000);
  EXPECT_EQ(s.workloads, 50'000);
  EXPECT_EQ(s.first_event_micros, kStart + 60'000);
  EXPECT_EQ(s.last_event_micros, kStart + 3'300'000);
  EventCheck events = CheckEvents(s.events, 0);
  EXPECT_EQ(events.workloads, 50'000);
  LoadResult loaded = LoadWithWorkloads(s.manifests, {}, "large.yaml");
  EXPECT_TRUE(loaded.errors.empty()) << Dump(loaded.errors);
  EXPECT_EQ(Count(loaded, "ClusterQueue"), 1000);
}

TEST(KueuePerfGenerator, TasConfigWarnsAndKeepsPodCount) {
  engine::StatusOr<KueuePerfConfig> config =
      LoadKueuePerfConfig(fmt::format("{}tas/generator.yaml", kConfigs));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_FALSE(config->warnings.empty());
  EXPECT_EQ(config->flavor_name, "tas-flavor");
  KueuePerfScenario s = GenerateKueuePerfScenario(*config, kStart);
  EventCheck events = CheckEvents(s.events, 40);
  EXPECT_EQ(events.workloads, s.workloads);
  LoadResult loaded = LoadWithWorkloads(s.manifests, events.objects, "tas.yaml");
  EXPECT_TRUE(loaded.errors.empty()) << Dump(loaded.errors);
}

TEST(KueuePerfGenerator, ErrorsNameFileLineAndField) {
  engine::StatusOr<KueuePerfConfig> missing = ParseKueuePerfConfig(R"(cohorts:
- className: cohort
  count: 1
  queuesSets:
  - className: cq
    count: 2
    workloadsSets: []
)",
                                                                   "gen.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("gen.yaml:5: cohorts[0].queuesSets[0].nominalQuota: "
                                            "Required value"),
            std::string::npos)
      << missing.status().message();

  engine::StatusOr<KueuePerfConfig> typo = ParseKueuePerfConfig(R"(cohorts:
- className: cohort
  count: 1
  queuesSets:
  - className: cq
    count: 2
    nominalQuota: 20
    borowingLimit: 100
    workloadsSets:
    - count: x
      workloads:
      - className: Small
        request: 1Q
)",
                                                                "gen.yaml");
  ASSERT_FALSE(typo.ok());
  const std::string m = typo.status().message();
  EXPECT_NE(m.find("gen.yaml:8: cohorts[0].queuesSets[0].borowingLimit: unknown field"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("gen.yaml:10: cohorts[0].queuesSets[0].workloadsSets[0].count: expected an "
                   "integer"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("workloads[0].className: Invalid value: \"Small\""), std::string::npos) << m;
  EXPECT_NE(m.find("workloads[0].request: "), std::string::npos) << m;

  EXPECT_FALSE(ParseKueuePerfConfig("cohorts: [", "bad.yaml").ok());
  EXPECT_FALSE(ParseKueuePerfConfig("cohorts: []\n", "empty.yaml").ok());
  EXPECT_FALSE(LoadKueuePerfConfig("no/such/generator.yaml").ok());
}

// ---- --synthetic ----

struct Synthetic {
  std::string manifests;
  std::string events;
  SyntheticSummary summary;
};

Synthetic RunSynthetic(const SyntheticOptions& o) {
  EXPECT_TRUE(ValidateSyntheticOptions(o).ok()) << ValidateSyntheticOptions(o).message();
  Synthetic s;
  s.summary =
      GenerateSynthetic(o, &s.manifests, [&s](std::string_view chunk) { s.events.append(chunk); });
  return s;
}

TEST(SyntheticGenerator, LoadsAndIsTimeOrdered) {
  for (int32_t depth : {0, 1, 3, 6}) {
    SCOPED_TRACE(fmt::format("depth {}", depth));
    SyntheticOptions o;
    o.workloads = 3000;
    o.cluster_queues = 23;
    o.cohort_depth = depth;
    o.trees = depth > 0 ? 2 : 1;
    o.flavors = 3;
    o.resources = 5;
    Synthetic s = RunSynthetic(o);
    EXPECT_EQ(s.summary.workloads, 3000);
    EXPECT_EQ(s.summary.event_bytes, static_cast<int64_t>(s.events.size()));
    EventCheck events = CheckEvents(s.events, 300);
    EXPECT_EQ(events.workloads, 3000);
    EXPECT_EQ(events.first, s.summary.first_event_micros);
    EXPECT_EQ(events.last, s.summary.last_event_micros);
    LoadResult loaded = LoadWithWorkloads(s.manifests, events.objects, "synthetic.yaml");
    EXPECT_TRUE(loaded.errors.empty()) << Dump(loaded.errors);
    EXPECT_TRUE(loaded.warnings.empty()) << Dump(loaded.warnings);
    EXPECT_EQ(Count(loaded, "ClusterQueue"), 23);
    EXPECT_EQ(Count(loaded, "ResourceFlavor"), 3);
    EXPECT_EQ(Count(loaded, "WorkloadPriorityClass"), 3);
    EXPECT_EQ(Count(loaded, "Cohort"), s.summary.cohorts);
    EXPECT_EQ(Count(loaded, "Workload"), 300);
    if (depth == 0) {
      EXPECT_EQ(s.summary.cohorts, 0);
    } else {
      EXPECT_GE(s.summary.cohorts, 2 * depth);
    }
  }
}

TEST(SyntheticGenerator, SameSeedSameBytesOtherSeedDiffers) {
  SyntheticOptions o;
  o.workloads = 20'000;
  o.cluster_queues = 40;
  o.cohort_depth = 3;
  o.resources = 3;
  Synthetic a = RunSynthetic(o);
  Synthetic b = RunSynthetic(o);
  EXPECT_EQ(a.manifests, b.manifests);
  EXPECT_EQ(a.events, b.events);
  EXPECT_GT(a.events.size(), size_t{1} << 20);  // more than one chunk
  o.seed = 2;
  Synthetic c = RunSynthetic(o);
  EXPECT_NE(a.events, c.events);
  EXPECT_NE(a.manifests, c.manifests);  // queue weights, hence quotas
  // The workload count does not change the cluster, and a prefix of the trace is a prefix.
  o.seed = 1;
  o.workloads = 1000;
  Synthetic d = RunSynthetic(o);
  EXPECT_EQ(d.manifests, a.manifests);
  EXPECT_EQ(a.events.compare(0, d.events.size(), d.events), 0);
}

TEST(SyntheticGenerator, MeansAreRoughlyAsAsked) {
  SyntheticOptions o;
  o.workloads = 50'000;
  o.mean_interarrival_seconds = 2.0;
  Synthetic s = RunSynthetic(o);
  double span = (s.summary.last_event_micros - o.start_micros) / 1e6;
  EXPECT_NEAR(span / o.workloads, 2.0, 0.05);
}

TEST(SyntheticGenerator, RejectsBadOptions) {
  SyntheticOptions o;
  o.flavors = 65;
  EXPECT_FALSE(ValidateSyntheticOptions(o).ok());
  o = SyntheticOptions();
  o.cohort_depth = 0;
  o.trees = 2;
  EXPECT_FALSE(ValidateSyntheticOptions(o).ok());
  o = SyntheticOptions();
  o.mean_interarrival_seconds = 0;
  EXPECT_FALSE(ValidateSyntheticOptions(o).ok());
}

TEST(SyntheticGenerator, PortableLogExpAndTimes) {
  for (double x : {1e-300, 1e-10, 0.001, 0.3, 0.5, 0.70710678, 0.9999, 1.0, 1.5, 2.0, 10.0, 1e6}) {
    EXPECT_NEAR(internal::Log(x), std::log(x), 1e-14 * std::max(1.0, std::abs(std::log(x)))) << x;
  }
  for (double x : {-30.0, -2.5, -0.5, 0.0, 1e-9, 0.5, 1.0, 3.7, 20.0}) {
    EXPECT_NEAR(internal::Exp(x) / std::exp(x), 1.0, 1e-14) << x;
  }
  for (int64_t t : {int64_t{0}, kStart, kStart + 123'456, int64_t{951'782'400'000'001},
                    int64_t{4'102'444'799'999'999}}) {
    char text[32];
    size_t n = internal::FormatRfc3339Micros(t, text);
    engine::StatusOr<int64_t> back = ParseRfc3339(std::string_view(text, n));
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(*back, t) << text;
  }
}

}  // namespace
}  // namespace replay
