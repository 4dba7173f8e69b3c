// replay/sim/shard_log.h: a shard writes N decision lines of about 230 bytes, then the driver
// takes them all and writes them (here: sums their sizes), over and over, as a replay does
// between two flushes. Against the previous design, measured in the same run: one std::string
// the lines were appended to, moved out and freed at every take (a fresh string per flush, so
// its growth by doubling faulted in new pages each time).
//
// Two more cases of a replay on several threads and on one:
// - BM_ShardLog_TakeAFewFromALongLog: a shard far ahead of the slowest one holds many lines past
//   the frontier and gives away 1,024 at a time from its front (final_lines.h). The cost of a take
//   must not grow with the lines held (before 95f6012 every take copied all of them back).
// - BM_MergeByTime: the writer merges the lines of 20 shards (the moderate trace's trees) by time.
// - BM_FinalLines_AppendToWaiting: a shard ahead of the slowest one hands N lines over (a take
//   into a spare log, FinalLines::HandOver) and the writer appends them to the shard's waiting
//   log, which holds lines already, then takes the part that became final (FinalLines::TakeFinal).
//   Before c30cba2 the append copied every line into the waiting log's chunks.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "replay/sim/shard_log.h"

namespace {

std::string Line(int64_t n) {
  std::string line =
      R"({"borrowed":{},"clusterQueue":"cq-98","podSets":[{"count":4,"flavors":{"cpu":"flavor-0",)"
      R"("memory":"flavor-0"},"name":"main","resourceUsage":{"cpu":8000,"memory":34359738368}}],)"
      R"("time":"2026-01-01T00:00:01.996492Z","type":"Admitted","workload":"ns-98/wl-)";
  line += std::to_string(n);
  line += "\"}";
  return line;
}

void BM_ShardLog_WriteThenTake(benchmark::State& state) {
  const auto lines = static_cast<int64_t>(state.range(0));
  const std::string line = Line(12345);
  replay::ShardLog log;
  replay::ShardLog taken;
  int64_t now = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < lines; ++i) {
      log.Write(now++, line);
    }
    log.TakeBefore(now, taken);
    size_t bytes = 0;
    for (size_t i = 0; i < taken.size(); ++i) {
      bytes += taken.Line(i).size();
    }
    benchmark::DoNotOptimize(bytes);
    taken.Clear();
  }
  state.SetItemsProcessed(state.iterations() * lines);
}

// The previous ShardLog: lines back to back in one string, a fresh one after every take.
class StringLog {
 public:
  void Write(int64_t time, std::string_view line) {
    text_.append(line);
    times_.push_back(time);
    ends_.push_back(static_cast<uint32_t>(text_.size()));
  }
  StringLog TakeAll() { return std::exchange(*this, StringLog()); }
  size_t size() const { return ends_.size(); }
  std::string_view Line(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(text_).substr(begin, ends_[i] - begin);
  }

 private:
  std::string text_;
  std::vector<int64_t> times_;
  std::vector<uint32_t> ends_;
};

void BM_StringLog_WriteThenTake(benchmark::State& state) {
  const auto lines = static_cast<int64_t>(state.range(0));
  const std::string line = Line(12345);
  StringLog log;
  int64_t now = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < lines; ++i) {
      log.Write(now++, line);
    }
    StringLog taken = log.TakeAll();
    size_t bytes = 0;
    for (size_t i = 0; i < taken.size(); ++i) {
      bytes += taken.Line(i).size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * lines);
}

void BM_ShardLog_TakeAFewFromALongLog(benchmark::State& state) {
  const auto held = static_cast<int64_t>(state.range(0));
  constexpr int64_t kTaken = 1'024;
  const std::string line = Line(12345);
  replay::ShardLog log;
  replay::ShardLog taken;
  int64_t now = 0;
  for (; now < held; ++now) {
    log.Write(now, line);
  }
  int64_t frontier = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < kTaken; ++i) {
      log.Write(now++, line);
    }
    frontier += kTaken;
    log.TakeBefore(frontier, taken);
    size_t bytes = 0;
    for (size_t i = 0; i < taken.size(); ++i) {
      bytes += taken.Line(i).size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * kTaken);
}

void BM_MergeByTime(benchmark::State& state) {
  const auto lines_per_log = static_cast<int64_t>(state.range(0));
  constexpr size_t kLogs = 20;
  const std::string line = Line(12345);
  std::vector<replay::ShardLog> logs(kLogs);
  for (size_t k = 0; k < kLogs; ++k) {
    for (int64_t i = 0; i < lines_per_log; ++i) {
      // Runs of a few lines per shard, interleaved, as the shards' decisions are.
      logs[k].Write(i / 4 * 4 + static_cast<int64_t>(k % 4), line);
    }
  }
  std::vector<replay::MergeHead> heads;
  for (auto _ : state) {
    size_t bytes = 0;
    replay::MergeByTime(logs, heads, [&](std::string_view l) { bytes += l.size(); });
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * lines_per_log * static_cast<int64_t>(kLogs));
}

void BM_FinalLines_AppendToWaiting(benchmark::State& state) {
  const auto lines = static_cast<int64_t>(state.range(0));
  const std::string line = Line(12345);
  replay::ShardLog shard;    // the shard's own log
  replay::ShardLog handed;   // a hand-over (reused, as FinalLines keeps spare logs)
  replay::ShardLog waiting;  // the writer's per-shard log
  replay::ShardLog taken;
  int64_t now = 0;
  for (; now < lines; ++now) {
    waiting.Write(now, line);  // the shard is one hand-over ahead of the frontier
  }
  int64_t frontier = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < lines; ++i) {
      shard.Write(now++, line);
    }
    shard.TakeBefore(now, handed);
    waiting.Append(handed);
    frontier += lines;
    waiting.TakeBefore(frontier, taken);
    size_t bytes = 0;
    for (size_t i = 0; i < taken.size(); ++i) {
      bytes += taken.Line(i).size();
    }
    benchmark::DoNotOptimize(bytes);
    taken.Clear();
  }
  state.SetItemsProcessed(state.iterations() * lines);
}

BENCHMARK(BM_ShardLog_WriteThenTake)->Arg(2'048)->Arg(65'536)->Arg(524'288);
BENCHMARK(BM_StringLog_WriteThenTake)->Arg(2'048)->Arg(65'536)->Arg(524'288);
BENCHMARK(BM_ShardLog_TakeAFewFromALongLog)->Arg(16'384)->Arg(524'288);
BENCHMARK(BM_MergeByTime)->Arg(1'024);
BENCHMARK(BM_FinalLines_AppendToWaiting)->Arg(8'192)->Arg(131'072);

}  // namespace

BENCHMARK_MAIN();
