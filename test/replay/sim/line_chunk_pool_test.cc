// replay/sim/line_chunk_pool.h: a chunk given back is the next one taken, only takes with no free
// chunk allocate, Trim frees what is free, and takes and gives from two threads lose no chunk.
// With ShardLog (shard_log.h): logs emptied again and again reuse the same full-size chunks
// instead of allocating new ones, and a log's small first chunks stay with it.
#include "replay/sim/line_chunk_pool.h"

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "replay/sim/shard_log.h"

namespace replay {
namespace {

TEST(LineChunkPoolTest, AChunkGivenBackIsTheNextTakenWithoutAllocating) {
  LineChunkPool pool;
  std::unique_ptr<char[]> chunk = pool.Take();
  ASSERT_NE(chunk, nullptr);
  EXPECT_EQ(pool.allocated(), 1U);
  chunk[LineChunkPool::kChunkBytes - 1] = 'x';  // the whole chunk is usable
  char* const bytes = chunk.get();
  pool.Give(std::move(chunk));
  EXPECT_EQ(pool.free_chunks(), 1U);
  std::unique_ptr<char[]> again = pool.Take();
  EXPECT_EQ(again.get(), bytes);
  EXPECT_EQ(pool.allocated(), 1U);
  EXPECT_EQ(pool.free_chunks(), 0U);
  std::unique_ptr<char[]> second = pool.Take();  // none free: a new one
  EXPECT_NE(second.get(), bytes);
  EXPECT_EQ(pool.allocated(), 2U);
  pool.Give(std::move(again));
  pool.Give(std::move(second));
  pool.Give(nullptr);  // ignored
  EXPECT_EQ(pool.free_chunks(), 2U);
  pool.Trim();
  EXPECT_EQ(pool.free_chunks(), 0U);
  std::unique_ptr<char[]> after_trim = pool.Take();
  EXPECT_EQ(pool.allocated(), 3U);
  pool.Give(std::move(after_trim));
}

TEST(LineChunkPoolTest, TwoThreadsTakingAndGivingLoseNoChunk) {
  LineChunkPool pool;
  auto churn = [&pool](int seed) {
    std::vector<std::unique_ptr<char[]>> held;
    for (int i = 0; i < 2000; ++i) {
      if (held.size() < 4 && (i + seed) % 3 != 0) {
        held.push_back(pool.Take());
        held.back()[0] = static_cast<char>(i);
      } else if (!held.empty()) {
        pool.Give(std::move(held.back()));
        held.pop_back();
      }
    }
    for (std::unique_ptr<char[]>& chunk : held) {
      pool.Give(std::move(chunk));
    }
  };
  std::thread other(churn, 1);
  churn(2);
  other.join();
  // Every chunk allocated is free again, and no more were allocated than two threads held.
  EXPECT_EQ(pool.free_chunks(), pool.allocated());
  EXPECT_LE(pool.allocated(), 8U);
  EXPECT_GE(pool.allocated(), 4U);
}

// A shard's log written with a few MiB of lines, taken whole into the writer's log and cleared,
// round after round (as the writer takes a shard's lines every batch): the full-size chunks go
// round through the shared pool. Freed by Clear instead, every round would allocate its chunks.
TEST(LineChunkPoolTest, LogsEmptiedEveryRoundReuseTheSameChunks) {
  LineChunkPool& pool = LineChunkPool::Shared();
  const std::string line(300, 'l');
  ShardLog log;
  ShardLog taken;
  size_t allocated_after_first_round = 0;
  int64_t time = 0;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 10'000; ++i) {  // 3 MB: several full-size chunks
      log.Write(time++, line);
    }
    log.TakeBefore(time, taken);
    ASSERT_EQ(taken.size(), 10'000U);
    ASSERT_EQ(taken.Line(9'999), line);
    taken.Clear();
    if (round == 0) {
      allocated_after_first_round = pool.allocated();
      EXPECT_GE(pool.free_chunks(), 2U);  // given back by Clear, not freed
    }
  }
  EXPECT_EQ(pool.allocated(), allocated_after_first_round);
}

}  // namespace
}  // namespace replay
