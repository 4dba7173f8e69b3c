// replay/sim/time_slices.h: a batch replayed in slices of virtual time and the drain after the
// last event write each line once it is final, and the lines of a replay without steps.
#include "replay/sim/time_slices.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "engine/shard/shard_plan.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/parallel_reader.h"
#include "replay/sim/routed_batch.h"
#include "replay/sim/shard_log.h"
#include "replay/sim/sharded_replay.h"
#include "replay/sim/simulator.h"
#include "test/replay/sim/tree_traces_fixture.h"

namespace replay {
namespace {

using namespace tree_traces;  // NOLINT(google-build-using-namespace): the traces' vocabulary
using engine::TimeMicros;

constexpr TimeMicros kNever = TimeSlices::kNever;
constexpr size_t kManyLines = size_t{1} << 20;  // slice_lines no step reaches: no pause

// How the events are replayed (Replay).
enum class Mode : uint8_t {
  kOneByOne,  // each event after an AdvanceTo to its time, then one AdvanceTo(kNever): no steps
  kDrain,     // the same events, then DrainBefore, then AdvanceTo(kNever)
  kSlices,    // each batch with ReplayBatch, then as kDrain
};

// What a replay wrote, flush by flush, as Simulator::Impl::FlushLines writes it: each shard's
// lines before `before` (ShardLog::TakeBefore), merged by (time, shard).
struct Written {
  std::vector<std::string> lines;
  std::vector<TimeMicros> befores;  // per flush, in order
  // Lines a flush took that were older than an earlier flush's `before`: not final when that
  // flush was written (or not older than their own flush's `before`).
  size_t not_final = 0;
  size_t drain_flushes = 0;  // the flushes DrainBefore asked for
  size_t drain_lines = 0;    // and the lines they wrote
  // Per shard, per event routed to it in order: "<shard>: applied" or the error it got.
  std::vector<std::string> outcomes;
  int64_t decisions = 0;        // the shards' decisions (cycle entries)
  int64_t latency_samples = 0;  // and the entries their decision-latency histograms counted
};

// The flush TimeSlices is given, recording what it writes in `out`.
class Writer {
 public:
  Writer(ShardedReplay& engine, Written& out)
      : engine_(engine), out_(out), taken_(static_cast<size_t>(engine.num_shards())) {}

  size_t Flush(TimeMicros before) {
    out_.befores.push_back(before);
    size_t lines = 0;
    for (int k = 0; k < engine_.num_shards(); ++k) {
      ShardLog& taken = taken_[static_cast<size_t>(k)];
      engine_.With(k, [&](ShardSimulator& s) { s.log().TakeBefore(before, taken); });
      for (const TimeMicros t : taken.Times()) {
        out_.not_final += t < final_ || t >= before ? 1 : 0;
      }
      lines += taken.size();
    }
    MergeByTime(taken_, heads_, [&](std::string_view line) { out_.lines.emplace_back(line); });
    final_ = std::max(final_, before);
    return lines;
  }

 private:
  ShardedReplay& engine_;
  Written& out_;
  std::vector<ShardLog> taken_;
  std::vector<MergeHead> heads_;
  TimeMicros final_ = std::numeric_limits<TimeMicros>::min();  // every line before it written
};

// A trace of many Cohort trees (one shard each, but root-1 joins root-0) whose queues are still
// long at its last event: hours of admissions and finishes follow it.
class TimeSlicesTest : public ParallelReplayTest {
 protected:
  void SetUp() override {
    ParallelReplayTest::SetUp();
    options_.scheduler = ReplaySchedulerOptions(options_.scheduler);
    options_.timings = false;
  }

  // Loads the manifests, reads the events in batches of `batch_lines` as the replay does
  // (ParallelEventReader) and plans the shards from both.
  void Read(size_t batch_lines) {
    const Trace trace = ManyTrees(8, 60, /*ties=*/true);
    load_ = LoadManifestString(trace.manifests, "manifests.yaml");
    ASSERT_TRUE(load_.ok());
    const fs::path path = dir_ / "events.jsonl";
    {
      std::ofstream events(path);
      for (const std::string& e : trace.events) {
        events << e << "\n";
      }
    }
    tbb::task_arena arena(1);
    ParallelEventReader reader(arena, batch_lines);
    ASSERT_TRUE(reader.Open(path.string()).ok());
    planner_ = engine::ShardPlanner();
    planner_.AddManifests(load_.spec);
    batches_.clear();
    batches_.emplace_back();
    while (reader.NextBatch(batches_.back())) {
      for (const ParsedLine& l : batches_.back()) {
        ASSERT_EQ(l.result, ReadResult::kEvent) << l.error.ToString();
        PlanEvent(planner_, l.event);
      }
      batches_.emplace_back();
    }
    batches_.pop_back();
  }

  // Replays the batches read on `threads` threads, a shard pausing once it has written
  // `slice_lines` lines in a step.
  Written Replay(int threads, Mode mode, size_t slice_lines) {
    tbb::task_arena arena(threads);
    ShardedReplay engine(load_, planner_.Build(false), options_, /*log_decisions=*/true, &arena);
    EXPECT_GT(engine.num_shards(), 4);
    Written out;
    Writer writer(engine, out);
    TimeSlices slices(engine, arena, slice_lines,
                      [&](TimeMicros before) { return writer.Flush(before); });
    ForEachShard(engine, arena,
                 [&](int, ShardSimulator& s) { s.Start(batches_.front().front().event.time); });
    BatchSlots slots(1, engine.num_shards());
    for (size_t i = 0; i < batches_.size(); ++i) {
      RoutedBatch& b = slots.Take(static_cast<int64_t>(i));
      Route(engine.plan(), batches_[i], b);
      if (mode == Mode::kSlices) {
        slices.ReplayBatch(b);
      } else {
        ForEachShard(engine, arena, [&](int k, ShardSimulator& s) {
          const std::vector<size_t>& mine = b.routed[static_cast<size_t>(k)];
          for (size_t j = 0; j < mine.size(); ++j) {
            s.AdvanceTo(b.lines[mine[j]].event.time);
            ApplyEvents(k, s, b, j, j + 1);
          }
          s.AdvanceTo(b.last_time);
        });
      }
      for (size_t k = 0; k < b.outcomes.size(); ++k) {
        for (const Outcome& o : b.outcomes[k]) {
          out.outcomes.push_back(std::to_string(k) + ": "
                                 + (o.applied ? "applied" : b.ErrorOf(k, o).ToString()));
        }
      }
      if (mode != Mode::kOneByOne) {
        writer.Flush(b.last_time);  // every shard got to b.last_time
      }
      slots.Release(static_cast<int64_t>(i));
    }
    if (mode != Mode::kOneByOne) {
      const size_t flushes = out.befores.size();
      const size_t lines = out.lines.size();
      slices.DrainBefore(kNever, [](TimeMicros) {});
      out.drain_flushes = out.befores.size() - flushes;
      out.drain_lines = out.lines.size() - lines;
    }
    ForEachShard(engine, arena, [](int, ShardSimulator& s) { s.AdvanceTo(kNever); });
    writer.Flush(kNever);
    for (int k = 0; k < engine.num_shards(); ++k) {
      engine.With(k, [&](ShardSimulator& s) {
        out.decisions += s.decisions();
        out.latency_samples += s.decision_latency().Count();
      });
    }
    return out;
  }

  // `lines` routed to the shards of `plan` in `b`, as simulator.cc routes a batch.
  static void Route(const engine::ShardPlan& plan, const std::vector<ParsedLine>& lines,
                    RoutedBatch& b) {
    b.lines = lines;
    b.used = lines.size();
    b.route.assign(b.used, 0);
    b.any_event = true;
    for (std::vector<size_t>& r : b.routed) {
      r.clear();
    }
    for (size_t i = 0; i < b.used; ++i) {
      b.route[i] = RouteEvent(plan, lines[i].event);
      if (b.route[i] == engine::ShardPlan::kEveryShard) {
        for (std::vector<size_t>& r : b.routed) {
          r.push_back(i);
        }
      } else {
        b.routed[static_cast<size_t>(b.route[i])].push_back(i);
      }
    }
    b.last_time = lines.back().event.time;
    b.ResetOutcomes();
  }

  LoadResult load_;
  engine::ShardPlanner planner_;
  std::vector<std::vector<ParsedLine>> batches_;
  SimulatorOptions options_;
};

// The same lines, or the first where they differ (EXPECT_EQ would print thousands).
::testing::AssertionResult SameLines(const std::vector<std::string>& a,
                                     const std::vector<std::string>& b) {
  const auto [in_a, in_b] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (in_a == a.end() && in_b == b.end()) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << a.size() << " and " << b.size() << " lines, first different at line "
         << in_a - a.begin() + 1 << ":\n  " << (in_a == a.end() ? "(none)" : *in_a) << "\n  "
         << (in_b == b.end() ? "(none)" : *in_b);
}

// Every flush writes only final lines, at non-decreasing instants: no line of a later flush is
// older than an earlier flush's `before`.
void ExpectFinalLines(const Written& w) {
  EXPECT_EQ(w.not_final, 0U);
  EXPECT_TRUE(std::is_sorted(w.befores.begin(), w.befores.end()));
}

// After the last event the drain steps through the hours of admissions and finishes that follow,
// writing the lines of each step, and the lines are those of one AdvanceTo.
TEST_F(TimeSlicesTest, DrainWritesFinalLinesStepByStepAndTheLinesOfOneAdvance) {
  Read(ParallelEventReader::kDefaultBatchLines);
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    const Written whole = Replay(threads, Mode::kOneByOne, kManyLines);
    const Written drained = Replay(threads, Mode::kDrain, kManyLines);
    ExpectFinalLines(drained);
    EXPECT_GT(drained.drain_flushes, 1U);
    EXPECT_GT(drained.drain_lines, 1000U);
    EXPECT_TRUE(SameLines(drained.lines, whole.lines));
  }
}

// The cycle clock is read only when the report shows the decision latency it measures
// (SimulatorOptions::timings): under --no-timings no cycle is timed, and the lines are the same.
TEST_F(TimeSlicesTest, CyclesAreTimedOnlyWhenTimingsAreReported) {
  Read(ParallelEventReader::kDefaultBatchLines);
  options_.timings = false;
  const Written untimed = Replay(1, Mode::kSlices, kManyLines);
  options_.timings = true;
  const Written timed = Replay(1, Mode::kSlices, kManyLines);
  EXPECT_GT(untimed.decisions, 1000);
  EXPECT_EQ(untimed.latency_samples, 0);
  EXPECT_EQ(timed.decisions, untimed.decisions);
  EXPECT_EQ(timed.latency_samples, timed.decisions);
  EXPECT_TRUE(SameLines(timed.lines, untimed.lines));
}

// A shard pauses once it has written `slice_lines` lines in a step, and only the lines before the
// earliest pause are written: the smaller the limit, the more flushes, and the same lines.
TEST_F(TimeSlicesTest, AShardPausesAtItsLineLimitAndOnlyLinesBeforeThePauseAreWritten) {
  Read(ParallelEventReader::kDefaultBatchLines);
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    const Written whole = Replay(threads, Mode::kOneByOne, kManyLines);
    for (const Mode mode : {Mode::kDrain, Mode::kSlices}) {
      SCOPED_TRACE(mode == Mode::kDrain ? "drain" : "slices");
      const Written unpaused = Replay(threads, mode, kManyLines);
      for (const size_t slice_lines : {size_t{1}, size_t{2}}) {
        SCOPED_TRACE(slice_lines);
        const Written paused = Replay(threads, mode, slice_lines);
        ExpectFinalLines(paused);
        EXPECT_GT(paused.drain_flushes, 2 * unpaused.drain_flushes);
        EXPECT_GT(paused.befores.size(), 2 * unpaused.befores.size());
        EXPECT_TRUE(SameLines(paused.lines, whole.lines));
      }
      ExpectFinalLines(unpaused);
      EXPECT_TRUE(SameLines(unpaused.lines, whole.lines));
    }
  }
}

// The contract the slices rely on (ShardSimulator::AdvanceWithin): a log that already holds the
// limit, as after an event that wrote lines since the step began, pauses at once, advancing
// nothing; a limit above the log's size goes on, with the same lines as one AdvanceTo.
TEST_F(TimeSlicesTest, AShardWhoseLogIsFullPausesAtOnceAndGoesOnWithRoom) {
  Read(ParallelEventReader::kDefaultBatchLines);
  tbb::task_arena arena(1);
  ShardedReplay engine(load_, planner_.Build(false), options_, /*log_decisions=*/true, &arena);
  ShardedReplay reference(load_, planner_.Build(false), options_, /*log_decisions=*/true, &arena);
  // One batch each: applying an event may take its object (the store swaps specs).
  BatchSlots slots(2, engine.num_shards());
  RoutedBatch& b = slots.Take(0);
  RoutedBatch& rb = slots.Take(1);
  Route(engine.plan(), batches_.front(), b);
  Route(reference.plan(), batches_.front(), rb);
  engine.With(0, [&](ShardSimulator& s) {
    reference.With(0, [&](ShardSimulator& r) {
      s.Start(batches_.front().front().event.time);
      r.Start(batches_.front().front().event.time);
      const std::vector<size_t>& mine = b.routed[0];
      ASSERT_FALSE(mine.empty());
      size_t j = 0;
      for (; j < mine.size() && s.log().size() == 0; ++j) {
        s.AdvanceTo(b.lines[mine[j]].event.time);
        ApplyEvents(0, s, b, j, j + 1);
      }
      ASSERT_GT(s.log().size(), 0U) << "no event of shard 0 wrote a line";
      const int64_t now = s.now();
      const size_t size = s.log().size();
      EXPECT_FALSE(s.AdvanceWithin(kNever, size));
      EXPECT_EQ(s.now(), now);
      EXPECT_EQ(s.log().size(), size);
      while (!s.AdvanceWithin(kNever, s.log().size() + 1)) {
      }
      // The reference: the same events, then one AdvanceTo.
      for (size_t i = 0; i < j; ++i) {
        r.AdvanceTo(rb.lines[rb.routed[0][i]].event.time);
        ApplyEvents(0, r, rb, i, i + 1);
      }
      r.AdvanceTo(kNever);
      ShardLog mine_taken;
      ShardLog theirs;
      s.log().TakeBefore(kNever, mine_taken);
      r.log().TakeBefore(kNever, theirs);
      EXPECT_GT(mine_taken.size(), size);
      EXPECT_EQ(mine_taken.size(), theirs.size());
      for (size_t i = 0; i < mine_taken.size() && i < theirs.size(); ++i) {
        ASSERT_EQ(mine_taken.Line(i), theirs.Line(i)) << i;
      }
    });
  });
}

// A batch replayed in slices applies each event after everything due before it: the same
// outcomes and lines as one AdvanceTo per event, in one batch or many, paused or not.
TEST_F(TimeSlicesTest, ReplayBatchWritesWhatOneAdvancePerEventWrites) {
  for (const size_t batch_lines : {size_t{100'000}, size_t{37}}) {
    SCOPED_TRACE(batch_lines);
    Read(batch_lines);
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(threads);
      const Written whole = Replay(threads, Mode::kOneByOne, kManyLines);
      for (const size_t slice_lines : {size_t{1}, size_t{8192}}) {
        SCOPED_TRACE(slice_lines);
        const Written sliced = Replay(threads, Mode::kSlices, slice_lines);
        ExpectFinalLines(sliced);
        // Slices within a batch: more flushes than the batches' ends and the drain's.
        EXPECT_GT(sliced.befores.size(), batches_.size() + sliced.drain_flushes + 1);
        EXPECT_TRUE(SameLines(sliced.outcomes, whole.outcomes));
        EXPECT_TRUE(SameLines(sliced.lines, whole.lines));
      }
    }
  }
}

}  // namespace
}  // namespace replay
