// The parallel replay (docs/replay.md, "Parallel replay"): the output does not depend on the
// number of threads nor on the size of the batches the trace is read in; a shard replays exactly
// as its tree would alone. Run under TSan in CI (scripts/test --tsan). How the shards are
// planned is tested in shard_planning_test.cc.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/replay/sim/tree_traces_fixture.h"

namespace replay {
namespace {

using namespace tree_traces;  // NOLINT(google-build-using-namespace): the traces' vocabulary

TEST_F(ParallelReplayTest, ManyShardsGiveTheSameBytesWithAnyThreadCountAndBatchSize) {
  Trace trace = ManyTrees(12, 60, /*ties=*/true);
  ReplayRun first = Replay(trace, 1, 8192);
  // 12 trees + solo, and root-1 joins root-0 mid-trace: 12 shards.
  EXPECT_EQ(first.shards, 12);
  EXPECT_EQ(first.report.shards, 12);
  EXPECT_GT(first.report.preemptions, 0);
  EXPECT_GT(first.report.deleted, 0);
  EXPECT_EQ(first.report.events_read, static_cast<int64_t>(trace.events.size()));
  EXPECT_EQ(first.report.events_read, first.report.events_applied + first.report.events_rejected);
  EXPECT_EQ(first.report.events_rejected, first.report.rejected_by_reason["unknownWorkload"]);
  for (auto [threads, batch] : {std::pair<int, size_t>{2, 8192}, {8, 8192}, {2, 7}, {8, 1}}) {
    ReplayRun other = Replay(trace, threads, batch);
    EXPECT_EQ(other.decisions, first.decisions) << threads << " threads, batches of " << batch;
    EXPECT_EQ(other.report_json, first.report_json) << threads << " threads, batches of " << batch;
  }
}

// Shards run free within a window of batches (replay/sim/shard_pipeline.h): how far one may run
// ahead of another changes nothing written. Small batches make many steps per shard.
TEST_F(ParallelReplayTest, HowFarShardsRunAheadChangesNothing) {
  Trace trace = ManyTrees(12, 60, /*ties=*/true);
  ReplayRun first = Replay(trace, 1, 8192);
  struct Case {
    int threads;
    size_t batch;
    size_t in_flight;
  };
  for (Case c : {Case{2, 5, 5}, Case{2, 5, 50}, Case{2, 3, 3000}, Case{8, 2, 64}, Case{8, 1, 7},
                 Case{3, 11, 1}}) {
    ReplayRun other = Replay(trace, c.threads, c.batch, c.in_flight);
    EXPECT_EQ(other.decisions, first.decisions)
        << c.threads << " threads, batches of " << c.batch << ", " << c.in_flight << " in flight";
    EXPECT_EQ(other.report_json, first.report_json)
        << c.threads << " threads, batches of " << c.batch << ", " << c.in_flight << " in flight";
  }
}

// One thread replays a batch in slices of virtual time and writes the lines of each slice
// before the next (simulator.cc, replay_sliced): a batch that covers the whole trace holds a few
// slices' lines at a time, not the whole replay's, and writes the same bytes as smaller batches
// and as two threads with batches in flight (one step per batch per shard).
TEST_F(ParallelReplayTest, OneThreadWritesABatchSliceBySlice) {
  Trace trace = DeepTree(4500);  // 4,500 workloads over 1.9 hours, then one 10 hours later:
  trace.events.push_back(
      fmt::format(R"({{"type":"ADDED","time":"{}","runtime":"60s","object":{}}})",
                  At(4500 * 1.5 + 36'000), WorkloadJson("ns-0", "late", "q", 1, 0)));
  ReplayRun whole = Replay(trace, 1, 1'000'000);  // one batch, up to the late workload
  const size_t lines =
      static_cast<size_t>(std::count(whole.decisions.begin(), whole.decisions.end(), '\n'));
  ASSERT_GT(lines, 25'000U);
  // In one step the batch's lines before its last event, most of them, would go at once.
  EXPECT_LT(whole.largest_flush, lines / 4) << lines << " lines";
  for (auto [threads, batch] : {std::pair<int, size_t>{1, 16}, {2, 16}}) {
    ReplayRun other = Replay(trace, threads, batch);
    EXPECT_EQ(other.decisions, whole.decisions) << threads << " threads, batches of " << batch;
    EXPECT_EQ(other.report_json, whole.report_json) << threads << " threads, batches of " << batch;
  }
}

// A shard that writes many lines in one slice pauses there (ShardSimulator::AdvanceWithin) and
// the lines before the earliest pause are written: a slice holds about `slice_lines_per_shard`
// lines per shard, however long it is, and the bytes are those of a replay without pauses.
TEST_F(ParallelReplayTest, OneThreadPausesAShardThatWritesManyLinesInASlice) {
  // A quiet hour (one workload every 200 s: the slices grow to minutes), then a burst of 3,000
  // short workloads in 30 s, admitted and finished inside one slice.
  Trace burst = DeepTree(0);
  for (int i = 0; i < 20; ++i) {
    burst.events.push_back(
        fmt::format(R"({{"type":"ADDED","time":"{}","runtime":"30s","object":{}}})", At(i * 200.0),
                    WorkloadJson("ns-0", fmt::format("quiet-{}", i), "q", 1, 0)));
  }
  for (int i = 0; i < 3000; ++i) {
    burst.events.push_back(
        fmt::format(R"({{"type":"ADDED","time":"{}","runtime":"{}s","object":{}}})",
                    At(4000 + i * 0.01), 1 + i % 3,
                    WorkloadJson(fmt::format("ns-{}", i % 5), fmt::format("wl-{}", i), "q",
                                 1 + i % 4, (i % 4) * 10)));
  }
  ReplayRun steps = Replay(burst, 2, 16);  // one step per batch per shard: no slices
  ReplayRun whole = Replay(burst, 1, 1'000'000);
  slice_lines_per_shard_ = 40;
  ReplayRun paused = Replay(burst, 1, 1'000'000);
  EXPECT_EQ(whole.decisions, steps.decisions);
  EXPECT_EQ(paused.decisions, steps.decisions);
  EXPECT_EQ(paused.report_json, steps.report_json);
  // One shard: it stops at 40 new lines, plus what the cycle that passed 40 wrote and the lines
  // of the instant it paused at (not yet final).
  EXPECT_GT(whole.largest_flush, 2000U);
  EXPECT_LE(paused.largest_flush, 200U) << whole.largest_flush << " lines without pauses";
  // Two threads, batches in flight: a step pauses where a slice would and hands its lines over
  // (replay/sim/final_lines.h), so the writer holds about as few lines as one thread does.
  // One batch (2 may be in flight, so the batch is a pipeline step, not sliced).
  ReplayRun steps_paused = Replay(burst, 2, 1'000'000, 2'000'000);
  EXPECT_EQ(steps_paused.decisions, steps.decisions);
  EXPECT_EQ(steps_paused.report_json, steps.report_json);
  // How many lines wait for the writer depends on when the reader's thread runs: what is
  // asserted is that the steps paused (each hands its lines over) and the bytes are the same.
  EXPECT_GE(steps_paused.report.pipeline.steps_paused, 5);
  // Many shards, each pausing on its own: the same bytes.
  Trace trees = ManyTrees(12, 60, /*ties=*/true);
  ReplayRun trees_paused = Replay(trees, 1, 1'000'000);
  ReplayRun trees_steps_paused = Replay(trees, 2, 64);
  slice_lines_per_shard_ = SimulatorOptions{}.slice_lines_per_shard;
  ReplayRun trees_steps = Replay(trees, 2, 16);
  EXPECT_EQ(trees_paused.decisions, trees_steps.decisions);
  EXPECT_EQ(trees_paused.report_json, trees_steps.report_json);
  EXPECT_EQ(trees_steps_paused.decisions, trees_steps.decisions);
  EXPECT_EQ(trees_steps_paused.report_json, trees_steps.report_json);
}

TEST_F(ParallelReplayTest, SingleDeepTreeGivesTheSameBytesWithAnyThreadCount) {
  Trace trace = DeepTree(600);
  ReplayRun first = Replay(trace, 1, 8192);
  EXPECT_EQ(first.shards, 1);
  EXPECT_GT(first.report.admissions, 0);
  for (auto [threads, batch] : {std::pair<int, size_t>{2, 8192}, {8, 8192}, {8, 3}}) {
    ReplayRun other = Replay(trace, threads, batch);
    EXPECT_EQ(other.decisions, first.decisions) << threads << " threads, batches of " << batch;
    EXPECT_EQ(other.report_json, first.report_json) << threads << " threads, batches of " << batch;
  }
}

TEST_F(ParallelReplayTest, AShardReplaysExactlyAsItsTreeAlone) {
  Trace all = ManyTrees(6, 80, /*ties=*/false);
  ReplayRun together = Replay(all, 2, 64);
  EXPECT_EQ(together.shards, 7);
  // Tree 3 alone: its manifests and its events only.
  Trace alone;
  alone.manifests = FlavorYaml() + TreeYaml(3);
  for (const std::string& e : all.events) {
    if (e.find(R"("namespace":"ns-3")") != std::string::npos) {
      alone.events.push_back(e);
    }
  }
  ASSERT_GT(alone.events.size(), 20u);
  ReplayRun single = Replay(alone, 1, 8192);
  std::vector<std::string> expected = LinesOf(single.decisions, "ns-3");
  EXPECT_GT(expected.size(), alone.events.size());
  EXPECT_EQ(LinesOf(together.decisions, "ns-3"), expected);
}

TEST_F(ParallelReplayTest, DecisionLinesAreInTimeOrder) {
  ReplayRun run = Replay(ManyTrees(8, 40, /*ties=*/true), 2, 5);
  std::istringstream in(run.decisions);
  std::string previous;
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    size_t at = line.find(R"("time":")");
    ASSERT_NE(at, std::string::npos) << line;
    std::string time = line.substr(at + 8, line.find('"', at + 8) - at - 8);
    EXPECT_LE(ParseRfc3339(previous.empty() ? time : previous).value(), ParseRfc3339(time).value())
        << line;
    previous = time;
  }
  EXPECT_GT(lines, 300);
}

}  // namespace
}  // namespace replay
