// Taking a shard's cancelled timers out of its heap (ShardSimulator::Impl::CompactTimers) changes
// no byte the replay writes. Apart from parallel_replay_test: the busy tree's replays write 100 MB
// of decisions each, too slow for the thread sanitizer's run, and a compaction is one thread's.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/replay/sim/tree_traces_fixture.h"

namespace replay {
namespace {

using namespace tree_traces;  // NOLINT(google-build-using-namespace): the traces' vocabulary

// Equal bytes, or the first line where they differ (EXPECT_EQ's diff of two strings of tens of
// megabytes runs out of memory).
::testing::AssertionResult SameText(const std::string& a, const std::string& b) {
  if (a == b) {
    return ::testing::AssertionSuccess();
  }
  const size_t at = static_cast<size_t>(
      std::mismatch(a.begin(),
                    a.begin() + static_cast<std::ptrdiff_t>(std::min(a.size(), b.size())),
                    b.begin())
          .first
      - a.begin());
  const size_t line =
      static_cast<size_t>(std::count(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(at), '\n'))
      + 1;
  const size_t begin = a.rfind('\n', at == 0 ? 0 : at - 1);
  const size_t from = begin == std::string::npos ? 0 : begin + 1;
  return ::testing::AssertionFailure()
         << a.size() << " and " << b.size() << " bytes, first different at line " << line << ":\n  "
         << a.substr(from, std::min<size_t>(200, a.size() - from)) << "\n  "
         << b.substr(from, std::min<size_t>(200, b.size() - from));
}

// The busiest tree of the 16-tree trace, cut (test/replay/sim/data/cycle-limit-tree/SOURCE.md):
// its preemptions cancel finish timers by the thousand, and 461 times cycles reach the
// per-instant limit.
Trace CycleLimitTree() {
  const std::string dir = std::string(TALLY_SOURCE_DIR) + "/test/replay/sim/data/cycle-limit-tree/";
  Trace trace;
  std::ifstream manifests(dir + "manifests.yaml");
  trace.manifests.assign(std::istreambuf_iterator<char>(manifests),
                         std::istreambuf_iterator<char>());
  gzFile events = gzopen((dir + "events.jsonl.gz").c_str(), "rb");
  EXPECT_NE(events, nullptr);
  std::string line;
  std::array<char, 4096> buffer{};
  while (events != nullptr
         && gzgets(events, buffer.data(), static_cast<int>(buffer.size())) != nullptr) {
    line += buffer.data();
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      trace.events.push_back(std::move(line));
      line.clear();
    }
  }
  if (events != nullptr) {
    gzclose(events);
  }
  return trace;
}

// A preempted workload's finish timer is cancelled but stays in the shard's timer heap until a
// compaction takes it out (ShardSimulator::Impl::CompactTimers). Its instant is kept: cycles held
// by the per-instant limit start again at the next instant the clock reaches, which may be a
// cancelled timer's. Compacting at every doubling from one timer up, or never, writes the same
// bytes; without the kept instants the busy tree's decisions differ from line 40,747 on.
TEST_F(ParallelReplayTest, TakingCancelledTimersOutChangesNothing) {
  struct Case {
    Trace trace;
    bool two_threads =
        false;  // also compacting often on 2 threads (the busy tree: 1 s a replay here)
    int64_t cycle_limit_hits = 0;
  };
  for (const Case& c : {Case{CycleLimitTree(), false, 461}, Case{DeepTree(1500), true, 0},
                        Case{ManyTrees(12, 60, /*ties=*/true), true, 0}}) {
    min_timers_to_compact_ = std::numeric_limits<size_t>::max();
    ReplayRun never = Replay(c.trace, 1, 8192);
    min_timers_to_compact_ = 1;
    ReplayRun often = Replay(c.trace, 1, 8192);
    EXPECT_GT(never.report.preemptions, 0);  // cancelled finish timers
    EXPECT_TRUE(SameText(often.decisions, never.decisions));
    EXPECT_TRUE(SameText(often.report_json, never.report_json));
    if (c.two_threads) {
      ReplayRun often_two_threads = Replay(c.trace, 2, 16);
      EXPECT_TRUE(SameText(often_two_threads.decisions, never.decisions));
      EXPECT_TRUE(SameText(often_two_threads.report_json, never.report_json));
    }
    min_timers_to_compact_ = SimulatorOptions{}.min_timers_to_compact;
    EXPECT_EQ(never.report.cycle_limit_hits, c.cycle_limit_hits);
  }
}

}  // namespace
}  // namespace replay
