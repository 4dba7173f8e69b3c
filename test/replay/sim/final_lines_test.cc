// replay/sim/final_lines.h: the writer gets a shard's lines only once every shard has handed over
// past them (the frontier), each shard's lines in the order written, every line once; lines handed
// over after the frontier wait for a later take. With shard threads handing over while the writer
// takes, the same holds (run under TSan in CI: label parallel).
#include "replay/sim/final_lines.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace replay {
namespace {

std::vector<std::pair<int64_t, std::string>> Lines(const ShardLog& log) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (size_t i = 0; i < log.size(); ++i) {
    out.emplace_back(log.Time(i), std::string(log.Line(i)));
  }
  return out;
}

TEST(FinalLinesTest, LinesWaitForTheSlowestShard) {
  FinalLines final_lines(2);
  std::vector<ShardLog> taken;
  EXPECT_FALSE(final_lines.TakeFinal(taken));  // no shard has handed over
  ShardLog a;
  ShardLog b;
  a.Write(1, "a1");
  a.Write(5, "a5");
  a.Write(9, "a9");
  final_lines.HandOver(0, a, 9);  // a9 is at the instant shard 0 paused at: not final
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(final_lines.Frontier(), std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(final_lines.TakeFinal(taken));
  b.Write(2, "b2");
  final_lines.HandOver(1, b, 4);
  EXPECT_EQ(final_lines.Frontier(), 4);
  ASSERT_TRUE(final_lines.TakeFinal(taken));
  ASSERT_EQ(taken.size(), 2u);
  using L = std::vector<std::pair<int64_t, std::string>>;
  EXPECT_EQ(Lines(taken[0]), (L{{1, "a1"}}));  // a5 waits: shard 1 may still write at 4..5
  EXPECT_EQ(Lines(taken[1]), (L{{2, "b2"}}));
  EXPECT_FALSE(final_lines.TakeFinal(taken));  // the frontier has not moved
  EXPECT_FALSE(final_lines.empty());
  b.Write(6, "b6");
  final_lines.HandOver(1, b, 20);
  EXPECT_EQ(final_lines.Frontier(), 9);
  ASSERT_TRUE(final_lines.TakeFinal(taken));
  EXPECT_EQ(Lines(taken[0]), (L{{5, "a5"}}));
  EXPECT_EQ(Lines(taken[1]), (L{{6, "b6"}}));
  a.Write(12, "a12");
  final_lines.HandOver(0, a, 30);
  ASSERT_TRUE(final_lines.TakeFinal(taken));  // frontier 20
  EXPECT_EQ(Lines(taken[0]), (L{{9, "a9"}, {12, "a12"}}));
  EXPECT_TRUE(Lines(taken[1]).empty());
  EXPECT_TRUE(final_lines.empty());
}

TEST(FinalLinesTest, ShardThreadsHandOverWhileTheWriterTakes) {
  constexpr int kShards = 3;
  constexpr int64_t kLines = 20'000;
  FinalLines final_lines(kShards);
  std::atomic<int> finished{0};
  std::vector<std::thread> shards;
  shards.reserve(kShards);
  for (int k = 0; k < kShards; ++k) {
    shards.emplace_back([&final_lines, &finished, k] {
      ShardLog log;
      for (int64_t i = 0; i < kLines; ++i) {
        const int64_t time = i / (k + 1);  // several lines per instant
        log.Write(time, std::to_string(k) + ":" + std::to_string(i));
        if (i % (97 + k) == 0) {
          final_lines.HandOver(k, log, time);
        }
      }
      final_lines.HandOver(k, log, std::numeric_limits<int64_t>::max());
      finished.fetch_add(1);
    });
  }
  std::vector<int64_t> next(kShards, 0);
  std::vector<ShardLog> taken;
  int64_t frontier = std::numeric_limits<int64_t>::min();
  while (true) {
    const bool all_handed_over = finished.load() == kShards;
    if (!final_lines.TakeFinal(taken)) {
      if (all_handed_over) {
        break;  // the take after the last hand-over found nothing new
      }
      std::this_thread::yield();
      continue;
    }
    const int64_t now = final_lines.Frontier();  // at least the take's frontier
    ASSERT_GE(now, frontier);
    for (int k = 0; k < kShards; ++k) {
      for (size_t i = 0; i < taken[static_cast<size_t>(k)].size(); ++i) {
        const std::string expected = std::to_string(k) + ":" + std::to_string(next[k]);
        ASSERT_EQ(taken[static_cast<size_t>(k)].Line(i), expected);
        ASSERT_LT(taken[static_cast<size_t>(k)].Time(i), now);
        ++next[k];
      }
    }
    frontier = now;
  }
  for (std::thread& t : shards) {
    t.join();
  }
  for (int k = 0; k < kShards; ++k) {
    EXPECT_EQ(next[k], kLines) << "shard " << k;
  }
  EXPECT_TRUE(final_lines.empty());
}

}  // namespace
}  // namespace replay
