// The shard planner's first reading of a trace (replay/io/routing_line_parser.h) against the full
// event parser it stands in for: the same kind, name, namespace and queue for every Workload line
// of generated traces, the full parser's result for everything else, and the same shard plan.
#include "replay/io/routing_line_parser.h"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/generate/synthetic_generator.h"
#include "replay/io/manifest_loader.h"
#include "replay/sim/sharded_replay.h"

namespace replay {
namespace {

const std::string kPath = "trace.jsonl";

// One line with simdjson's padding after it, as the readers hand lines over.
struct PaddedLine {
  explicit PaddedLine(std::string_view text) : buffer(text) {
    buffer.append(simdjson::SIMDJSON_PADDING, '\0');
    size = text.size();
  }
  std::string buffer;
  size_t size;
};

bool Routing(std::string_view text, TraceEvent& event) {
  static RoutingLineParser parser;
  PaddedLine l(text);
  return parser.Parse(l.buffer.data(), l.size, l.buffer.size(), kPath, 7, event);
}

ReadResult Full(std::string_view text, TraceEvent& event) {
  static EventLineParser parser;
  PaddedLine l(text);
  EventError error;
  bool timed = false;
  return parser.Parse(l.buffer.data(), l.size, l.buffer.size(), kPath, 7, event, error, timed);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.find("\"format\"") == std::string::npos) {
      lines.push_back(line);
    }
  }
  return lines;
}

struct Trace {
  std::string manifests;
  std::vector<std::string> lines;
};

Trace Synthetic(int trees, uint64_t seed) {
  SyntheticOptions o;
  o.workloads = 800;
  o.cluster_queues = 4 * trees;
  o.trees = trees;
  o.seed = seed;
  std::string events;
  Trace t;
  GenerateSynthetic(o, &t.manifests, [&events](std::string_view chunk) { events.append(chunk); });
  t.lines = Lines(events);
  return t;
}

TEST(RoutingLineParserTest, WorkloadLinesGiveTheFullParsersRoutingFields) {
  Trace t = Synthetic(5, 3);
  ASSERT_EQ(t.lines.size(), 800u);
  for (const std::string& line : t.lines) {
    TraceEvent quick;
    TraceEvent full;
    ASSERT_TRUE(Routing(line, quick)) << line;
    ASSERT_EQ(Full(line, full), ReadResult::kEvent) << line;
    ASSERT_EQ(quick.kind, "Workload");
    ASSERT_EQ(quick.object.workloads.size(), 1u);
    const engine::WorkloadSpec& q = quick.object.workloads[0];
    const engine::WorkloadSpec& f = full.object.workloads[0];
    EXPECT_EQ(q.name, f.name);
    EXPECT_EQ(q.name_space, f.name_space);
    EXPECT_EQ(q.queue_name, f.queue_name);
    EXPECT_FALSE(q.admission.has_value());
  }
}

TEST(RoutingLineParserTest, TheSamePlanAsFromFullyParsedEvents) {
  for (int trees : {1, 3, 8}) {
    Trace t = Synthetic(trees, 11);
    // Tie two trees through a workload that moves queue (same name, another namespace's queue).
    t.lines.push_back(
        R"({"type":"MODIFIED","time":"2027-01-01T00:00:00Z","object":{"kind":"Workload",)"
        R"("metadata":{"name":"wl-0","namespace":"ns-1"},"spec":{"queueName":"queue",)"
        R"("podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[]}}}]}}})");
    LoadResult load = LoadManifestString(t.manifests, "m.yaml");
    ASSERT_TRUE(load.ok());
    engine::ShardPlanner by_routing;
    engine::ShardPlanner by_full;
    by_routing.AddManifests(load.spec);
    by_full.AddManifests(load.spec);
    for (const std::string& line : t.lines) {
      TraceEvent e;
      if (Routing(line, e)) {
        PlanEvent(by_routing, e);
      }
      if (Full(line, e) == ReadResult::kEvent) {
        PlanEvent(by_full, e);
      }
    }
    // As the replay's first pass makes it (replay/sim/trace_ties.cc): Route, a Workload line's
    // names straight into the planner, and the manifests added after the trace.
    engine::ShardPlanner by_route;
    RoutingLineParser parser;
    int routed = 0;
    for (const std::string& line : t.lines) {
      PaddedLine l(line);
      WorkloadRoute route;
      TraceEvent e;
      switch (parser.Route(l.buffer.data(), l.size, l.buffer.size(), kPath, 7, route, e)) {
        case RoutingLineParser::Result::kWorkload:
          ++routed;
          by_route.AddWorkloadNames(route.name_space, route.name, route.queue_name, "");
          break;
        case RoutingLineParser::Result::kEvent:
          PlanEvent(by_route, e);
          break;
        case RoutingLineParser::Result::kNothing:
          break;
      }
    }
    by_route.AddManifests(load.spec);
    EXPECT_GE(routed, 800);
    engine::ShardPlan a = by_routing.Build(false);
    engine::ShardPlan b = by_full.Build(false);
    engine::ShardPlan c = by_route.Build(false);
    EXPECT_EQ(a.labels(), b.labels()) << trees;
    EXPECT_EQ(c.labels(), b.labels()) << trees;
    for (const engine::LocalQueueSpec& lq : load.spec.local_queues) {
      engine::WorkloadSpec w;
      w.name_space = lq.name_space;
      w.queue_name = lq.name;
      EXPECT_EQ(c.Route("Workload", "x", nullptr), b.Route("Workload", "x", nullptr));
      engine::ClusterSpec one;
      one.workloads.push_back(w);
      EXPECT_EQ(c.Route("Workload", "x", &one), b.Route("Workload", "x", &one)) << lq.name;
    }
    EXPECT_GE(a.num_shards(), 1);
  }
}

TEST(RoutingLineParserTest, OtherLinesGoThroughTheFullParser) {
  TraceEvent e;
  // A Workload with a status: its admission's ClusterQueue ties too.
  ASSERT_TRUE(Routing(
      R"({"type":"ADDED","time":"2026-01-01T00:00:00Z","object":{"apiVersion":"kueue.x-k8s.io/v1beta2",)"
      R"("kind":"Workload","metadata":{"name":"w","namespace":"a"},"spec":{"queueName":"q",)"
      R"("podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c",)"
      R"("resources":{"requests":{"cpu":"1"}}}]}}}]},"status":{"admission":{"clusterQueue":"cq",)"
      R"("podSetAssignments":[{"name":"main","count":1,"flavors":{"cpu":"f"},)"
      R"("resourceUsage":{"cpu":"1"}}]}}}})",
      e));
  ASSERT_EQ(e.object.workloads.size(), 1u);
  ASSERT_TRUE(e.object.workloads[0].admission.has_value());
  EXPECT_EQ(e.object.workloads[0].admission->cluster_queue, "cq");
  // Another kind.
  ASSERT_TRUE(Routing(
      R"({"type":"ADDED","time":"2026-01-01T00:00:00Z","object":{"apiVersion":"kueue.x-k8s.io/v1beta1",)"
      R"("kind":"LocalQueue","metadata":{"name":"lq","namespace":"a"},"spec":{"clusterQueue":"cq"}}})",
      e));
  EXPECT_EQ(e.kind, "LocalQueue");
  ASSERT_EQ(e.object.local_queues.size(), 1u);
  EXPECT_EQ(e.object.local_queues[0].cluster_queue, "cq");
  // A namespace defaults to "default", as in the full parser.
  ASSERT_TRUE(
      Routing(R"({"type":"ADDED","time":"2026-01-01T00:00:00Z","object":{"kind":"Workload",)"
              R"("metadata":{"name":"w"},"spec":{"queueName":"q","podSets":[]}}})",
              e));
  EXPECT_EQ(e.object.workloads[0].name_space, "default");
}

TEST(RoutingLineParserTest, WhatTiesNothingGivesNothing) {
  TraceEvent e;
  EXPECT_FALSE(Routing("not json", e));
  EXPECT_FALSE(Routing("[1,2]", e));
  EXPECT_FALSE(Routing(R"({"type":"ADDED"})", e));
  EXPECT_FALSE(
      Routing(R"({"type":"DELETED","time":"2026-01-01T00:00:00Z","object":{"kind":"Workload",)"
              R"("metadata":{"name":"w","namespace":"a"}}})",
              e));
  // Without a queue name the line falls back to the full parser, which rejects it.
  EXPECT_FALSE(
      Routing(R"({"type":"ADDED","time":"2026-01-01T00:00:00Z","object":{"kind":"Workload",)"
              R"("metadata":{"name":"w","namespace":"a"},"spec":{"podSets":[]}}})",
              e));
}

// The documented difference: a Workload line the replay rejects for its contents (here a bad
// quantity) still names its queue, and ties it like an event the simulator rejects.
TEST(RoutingLineParserTest, ARejectedWorkloadStillNamesItsQueue) {
  const std::string line =
      R"({"type":"ADDED","time":"2026-01-01T00:00:00Z","object":{"kind":"Workload",)"
      R"("metadata":{"name":"w","namespace":"a"},"spec":{"queueName":"q","podSets":[{"name":"main",)"
      R"("count":1,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":)"
      R"({"cpu":"one"}}}]}}}]}}})";
  TraceEvent full;
  EXPECT_EQ(Full(line, full), ReadResult::kError);
  TraceEvent e;
  ASSERT_TRUE(Routing(line, e));
  EXPECT_EQ(e.object.workloads[0].queue_name, "q");
}

}  // namespace
}  // namespace replay
