// Google Benchmark: parsing one Workload object of an event trace, the JSON fast path
// (replay/io/workload_json.h) against the YAML manifest loader it stands in for. Fixtures: 1,000
// Workload objects from the synthetic generator (4 resources, several classes), and one rich
// object (init containers, a sidecar, overhead, tolerations, node affinity, priorityClassRef);
// and whole event lines through EventLineParser (BM_EventLine_Parse_Synthetic).
// Each fixture is checked to take the fast path before timing; items/s = objects/s.
//
//   build/bench/workload_json_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include "engine/shard/shard_plan.h"
#include "replay/generate/synthetic_generator.h"
#include "replay/io/event_reader.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/routing_line_parser.h"
#include "replay/io/workload_json.h"
#include "replay/sim/sharded_replay.h"

namespace {

constexpr std::string_view kFile = "bench.jsonl";

constexpr std::string_view kRich =
    R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"rich-1",)"
    R"("namespace":"team-a","uid":"0f6c1d2e-1111-4000-8000-000000000001",)"
    R"("creationTimestamp":"2026-01-01T00:00:00Z","labels":{"tally.dev/class":"large","app":"x"}},)"
    R"("spec":{"queueName":"user-queue","priority":1000,"priorityClassRef":{"group":"kueue.x-k8s.io",)"
    R"("kind":"WorkloadPriorityClass","name":"high"},"podSets":[{"name":"driver","count":1,)"
    R"("template":{"spec":{"containers":[{"name":"c","image":"img","resources":{"requests":{"cpu":"1",)"
    R"("memory":"2Gi"}}}]}}},{"name":"workers","count":16,"minCount":4,"template":{"spec":{)"
    R"("initContainers":[{"name":"init","resources":{"requests":{"cpu":"2"}}},{"name":"proxy",)"
    R"("restartPolicy":"Always","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}],)"
    R"("containers":[{"name":"train","resources":{"requests":{"cpu":"8","memory":"32Gi",)"
    R"("nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}}}],"overhead":{"cpu":"50m"},)"
    R"("nodeSelector":{"pool":"gpu"},"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists",)"
    R"("effect":"NoSchedule"}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuring)"
    R"(Execution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In",)"
    R"("values":["a","b"]}]}]}}}}}}]}})";

// The event lines of a synthetic trace that carry a Workload object: the envelope (type, time,
// runtime) and the object, as the replay reads them (BM_EventLine_Parse_Synthetic).
std::vector<std::string> SyntheticLines(int64_t count) {
  replay::SyntheticOptions o;
  o.workloads = count;
  o.resources = 4;
  std::string manifests;
  std::string events;
  replay::GenerateSynthetic(o, &manifests, [&events](std::string_view c) { events.append(c); });
  std::vector<std::string> out;
  for (size_t pos = 0; pos < events.size();) {
    size_t nl = events.find('\n', pos);
    if (nl == std::string::npos) {
      nl = events.size();
    }
    std::string line = events.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.find("\"object\"") != std::string::npos) {
      out.push_back(std::move(line));
    }
  }
  return out;
}

// The `object` of each event line of a synthetic trace.
std::vector<std::string> SyntheticObjects(int64_t count) {
  std::vector<std::string> out;
  simdjson::ondemand::parser parser;
  for (const std::string& text : SyntheticLines(count)) {
    simdjson::padded_string line(text);
    simdjson::ondemand::document doc;
    simdjson::ondemand::object object;
    std::string_view raw;
    if (parser.iterate(line).get(doc) == simdjson::SUCCESS
        && doc["object"].get_object().get(object) == simdjson::SUCCESS
        && object.raw_json().get(raw) == simdjson::SUCCESS) {
      out.emplace_back(raw);
    }
  }
  return out;
}

const std::vector<simdjson::padded_string>& Fixture(bool rich) {
  static const std::vector<simdjson::padded_string> synthetic = [] {
    std::vector<simdjson::padded_string> v;
    for (const std::string& s : SyntheticObjects(1000)) {
      v.emplace_back(s);
    }
    return v;
  }();
  static const std::vector<simdjson::padded_string> one = [] {
    std::vector<simdjson::padded_string> v;
    v.emplace_back(kRich);
    return v;
  }();
  return rich ? one : synthetic;
}

// false (and the benchmark marked failed) unless every fixture object takes the fast path.
bool Verify(benchmark::State& state, const std::vector<simdjson::padded_string>& objects) {
  simdjson::ondemand::parser parser;
  for (const simdjson::padded_string& json : objects) {
    engine::WorkloadSpec wl;
    if (replay::ParseWorkloadJsonFast(parser, json, kFile, wl) != replay::FastParse::kParsed) {
      state.SkipWithError("a fixture object does not take the fast path");
      return false;
    }
  }
  return !objects.empty();
}

// `reuse`: one spec for every object, as the event reader passes it since 2026-11-30 (its storage
// kept, engine::ResetForReuse); otherwise a fresh spec per object, allocated and freed.
void RunFast(benchmark::State& state, bool rich, bool reuse = false) {
  const std::vector<simdjson::padded_string>& objects = Fixture(rich);
  if (!Verify(state, objects)) {
    return;
  }
  simdjson::ondemand::parser parser;
  size_t i = 0;
  engine::WorkloadSpec reused;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    engine::WorkloadSpec fresh;
    engine::WorkloadSpec& wl = reuse ? reused : fresh;
    replay::FastParse r = replay::ParseWorkloadJsonFast(parser, objects[i], kFile, wl);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(wl);
    i = i + 1 == objects.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void RunSlow(benchmark::State& state, bool rich) {
  const std::vector<simdjson::padded_string>& objects = Fixture(rich);
  if (!Verify(state, objects)) {
    return;
  }
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    replay::LoadResult load = replay::LoadManifestString(objects[i], kFile);
    if (!load.ok() || load.spec.workloads.size() != 1) {
      state.SkipWithError("the slow path rejects a fixture object");
      return;
    }
    benchmark::DoNotOptimize(load);
    i = i + 1 == objects.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_WorkloadJson_Parse_Fast_Synthetic(benchmark::State& state) {
  RunFast(state, false);
}
void BM_WorkloadJson_Parse_FastReused_Synthetic(benchmark::State& state) {
  RunFast(state, false, /*reuse=*/true);
}
void BM_WorkloadJson_Parse_Slow_Synthetic(benchmark::State& state) {
  RunSlow(state, false);
}
void BM_WorkloadJson_Parse_Fast_Rich(benchmark::State& state) {
  RunFast(state, true);
}
void BM_WorkloadJson_Parse_Slow_Rich(benchmark::State& state) {
  RunSlow(state, true);
}

// SyntheticLines(1000), each with simdjson's padding after it, as the readers hand lines over.
const std::vector<std::string>& PaddedSyntheticLines() {
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> v = SyntheticLines(1000);
    for (std::string& l : v) {
      l.resize(l.size() + simdjson::SIMDJSON_PADDING, '\0');
    }
    return v;
  }();
  return lines;
}

void BM_EventLine_Parse_Synthetic(benchmark::State& state) {
  const std::vector<std::string>& lines = PaddedSyntheticLines();
  const size_t padding = simdjson::SIMDJSON_PADDING;
  replay::EventLineParser parser;
  const std::string path(kFile);
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const std::string& l = lines[i];
    replay::TraceEvent event;
    replay::EventError error;
    bool timed = false;
    replay::ReadResult r =
        parser.Parse(l.data(), l.size() - padding, l.size(), path, 1, event, error, timed);
    if (r != replay::ReadResult::kEvent) {
      state.SkipWithError("a fixture line is not an event");
      return;
    }
    benchmark::DoNotOptimize(event);
    i = i + 1 == lines.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// The shard planner's first pass over a Workload line (replay/io/routing_line_parser.h):
// `use_route` = RoutingLineParser::Route, the names only, as the replay reads it since
// 2026-11-28; otherwise Parse, which builds a TraceEvent holding a ClusterSpec with the Workload,
// as every line did before. ShardPlanner::AddWorkloadNames / PlanEvent included.
void RunRouting(benchmark::State& state, bool use_route) {
  const std::vector<std::string>& lines = PaddedSyntheticLines();
  const size_t padding = simdjson::SIMDJSON_PADDING;
  replay::RoutingLineParser parser;
  engine::ShardPlanner planner;
  const std::string path(kFile);
  replay::WorkloadRoute route;
  replay::TraceEvent event;
  size_t i = 0;
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const std::string& l = lines[i];
    if (use_route) {
      if (parser.Route(l.data(), l.size() - padding, l.size(), path, 1, route, event)
          != replay::RoutingLineParser::Result::kWorkload) {
        state.SkipWithError("a fixture line is not a plain Workload line");
        return;
      }
      planner.AddWorkloadNames(route.name_space, route.name, route.queue_name, "");
    } else {
      if (!parser.Parse(l.data(), l.size() - padding, l.size(), path, 1, event)) {
        state.SkipWithError("a fixture line ties nothing");
        return;
      }
      replay::PlanEvent(planner, event);
    }
    i = i + 1 == lines.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
void BM_RoutingLine_Parse_Synthetic(benchmark::State& state) {
  RunRouting(state, false);
}
void BM_RoutingLine_Route_Synthetic(benchmark::State& state) {
  RunRouting(state, true);
}

BENCHMARK(BM_WorkloadJson_Parse_Fast_Synthetic);
BENCHMARK(BM_WorkloadJson_Parse_FastReused_Synthetic);
BENCHMARK(BM_WorkloadJson_Parse_Slow_Synthetic);
BENCHMARK(BM_WorkloadJson_Parse_Fast_Rich);
BENCHMARK(BM_WorkloadJson_Parse_Slow_Rich);
BENCHMARK(BM_EventLine_Parse_Synthetic);
BENCHMARK(BM_RoutingLine_Parse_Synthetic);
BENCHMARK(BM_RoutingLine_Route_Synthetic);

}  // namespace
