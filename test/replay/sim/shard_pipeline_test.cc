// Shards that run free (replay/sim/shard_pipeline.h): every shard replays every batch once, in
// order, never two steps of one shard at once; a batch is complete only once every shard has
// replayed it; an exception in a step reaches the reader instead of hanging it.
#include "replay/sim/shard_pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace replay {
namespace {

struct Record {
  std::vector<int64_t> batches;  // per shard, in the order its steps ran
  std::atomic<int> running{0};
  std::atomic<int64_t> replayed{0};  // steps finished (read by the reader while others run)
  bool overlapped = false;
};

// Runs `batches` batches through `shards` shards with `helpers` helper threads and a window of
// `window`, as the simulator does; returns each shard's record.
std::vector<std::unique_ptr<Record>> Drive(int shards, int64_t batches, int helpers,
                                           int64_t window) {
  std::vector<std::unique_ptr<Record>> records;
  records.reserve(static_cast<size_t>(shards));
  for (int k = 0; k < shards; ++k) {
    records.push_back(std::make_unique<Record>());
  }
  std::atomic<int64_t> pushed{0};
  std::atomic<bool> early{false};  // a step of a batch not pushed yet
  ShardPipeline pipeline(shards, window, [&](int k, int64_t b) {
    Record& r = *records[static_cast<size_t>(k)];
    if (r.running.fetch_add(1) != 0) {
      r.overlapped = true;
    }
    if (b >= pushed.load()) {
      early = true;
    }
    if ((k + b) % 7 == 0) {
      std::this_thread::yield();  // uneven steps, so that shards drift apart
    }
    r.batches.push_back(b);
    r.running.fetch_sub(1);
    r.replayed.fetch_add(1);
    return true;
  });
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(helpers));
  for (int i = 0; i < helpers; ++i) {
    threads.emplace_back([&] { pipeline.Work(); });
  }
  int64_t taken = 0;
  for (int64_t b = 0; b < batches; ++b) {
    if (b - taken == window) {
      EXPECT_TRUE(pipeline.WaitComplete(taken));  // no step pauses
      for (const auto& r : records) {             // complete: every shard is past it
        EXPECT_GT(r->replayed.load(), taken);
      }
      ++taken;
    }
    pushed = b + 1;
    pipeline.Push();
  }
  pipeline.Close();
  if (batches > 0) {
    EXPECT_TRUE(pipeline.WaitComplete(batches - 1));  // no step pauses
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_FALSE(early.load());
  return records;
}

TEST(ShardPipeline, EveryShardReplaysEveryBatchOnceInOrder) {
  for (int helpers : {0, 1, 3}) {
    for (int64_t window : {1, 2, 16}) {
      std::vector<std::unique_ptr<Record>> records = Drive(9, 200, helpers, window);
      for (size_t k = 0; k < records.size(); ++k) {
        const Record& r = *records[k];
        EXPECT_FALSE(r.overlapped) << "shard " << k;
        ASSERT_EQ(r.batches.size(), 200u) << "shard " << k;
        for (int64_t b = 0; b < 200; ++b) {
          EXPECT_EQ(r.batches[static_cast<size_t>(b)], b) << "shard " << k;
        }
      }
    }
  }
}

TEST(ShardPipeline, NoShardsAndNoBatchesEnd) {
  EXPECT_TRUE(Drive(0, 5, 2, 2).empty());
  std::vector<std::unique_ptr<Record>> none = Drive(4, 0, 2, 3);
  for (const auto& r : none) {
    EXPECT_TRUE(r->batches.empty());
  }
}

TEST(ShardPipeline, AStepThatThrowsReachesTheReader) {
  ShardPipeline pipeline(3, 2, [](int k, int64_t b) {
    if (k == 1 && b == 2) {
      throw std::runtime_error("step failed");
    }
    return true;
  });
  std::thread helper([&] { pipeline.Work(); });
  for (int64_t b = 0; b < 6; ++b) {
    if (b >= 2) {
      EXPECT_TRUE(pipeline.WaitComplete(b - 2));  // no step pauses
    }
    pipeline.Push();
  }
  pipeline.Close();
  EXPECT_TRUE(pipeline.WaitComplete(5));  // no step pauses
  helper.join();
  EXPECT_THROW(pipeline.Rethrow(), std::runtime_error);
}

// The adaptive limit (the simulator's use): a slow shard with the window full makes the idle
// thread grow the limit up to the window; the reader never holds more batches than the limit;
// every shard still replays every batch once, in order. With the slow shard gone, 32 batches
// without starvation halve it again.
TEST(ShardPipeline, TheLimitGrowsForALaggingShardAndShrinksWithoutOne) {
  constexpr int kShards = 4;
  constexpr int64_t kWindow = 8;
  std::atomic<bool> slow{true};
  std::vector<std::vector<int64_t>> seen(kShards);
  ShardPipeline pipeline(
      kShards, kWindow,
      [&](int k, int64_t b) {
        if (k == 0 && slow.load()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        seen[static_cast<size_t>(k)].push_back(b);
        return true;
      },
      1);
  ASSERT_EQ(pipeline.limit(), 1);
  std::thread helper([&] { pipeline.Work(); });
  int64_t oldest = 0;
  int64_t max_in_flight = 0;
  int64_t pushed = 0;
  auto push = [&](int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      while (pushed - oldest >= pipeline.limit()) {
        if (pipeline.WaitRoom(oldest)) {
          ++oldest;
        }
      }
      pipeline.Push();
      ++pushed;
      max_in_flight = std::max(max_in_flight, pushed - oldest);
      ASSERT_LE(pushed - oldest, kWindow);
    }
  };
  push(64);
  EXPECT_GT(pipeline.grown(), 0);
  EXPECT_GT(max_in_flight, 1);
  const int64_t grown_limit = pipeline.limit();
  EXPECT_GT(grown_limit, 1);
  // No lagging shard: every step is instant, the reader runs them itself when the window fills.
  slow = false;
  while (oldest < pushed) {
    if (pipeline.WaitRoom(oldest)) {
      ++oldest;
    }
  }
  // The count of 32 restarts whenever the helper finds the window full with nothing ready while
  // this thread runs the oldest batch's last step (a slow machine, a sanitizer): some run of 32
  // batches is free of that, so push until the limit has shrunk (at most 20,000 batches).
  for (int round = 0; round < 100 && pipeline.shrunk() == 0; ++round) {
    push(200);
  }
  pipeline.Close();
  EXPECT_TRUE(pipeline.WaitComplete(pushed - 1));  // no step pauses
  helper.join();
  EXPECT_GT(pipeline.shrunk(), 0);
  for (const std::vector<int64_t>& batches : seen) {
    ASSERT_EQ(batches.size(), static_cast<size_t>(pushed));
    for (size_t i = 0; i < batches.size(); ++i) {
      ASSERT_EQ(batches[i], static_cast<int64_t>(i));
    }
  }
}

// A step that pauses (returns false) is called again for the same batch before the shard's
// next batch, never at the same time as another step of its shard; the batch is complete only
// after its last call. The reader's waits return after a pause (to write what is final then):
// WaitComplete gives false at least once per pause it did not see.
TEST(ShardPipeline, APausedStepGoesOnWithTheSameBatch) {
  constexpr int kShards = 5;
  constexpr int64_t kBatches = 60;
  constexpr int64_t kWindow = 4;
  std::vector<std::unique_ptr<Record>> records;
  std::vector<std::vector<int>> calls(kShards, std::vector<int>(kBatches, 0));
  records.reserve(kShards);
  for (int k = 0; k < kShards; ++k) {
    records.push_back(std::make_unique<Record>());
  }
  // Shard k pauses (k + b) % 3 times in batch b before it is done.
  ShardPipeline pipeline(kShards, kWindow, [&](int k, int64_t b) {
    Record& r = *records[static_cast<size_t>(k)];
    if (r.running.fetch_add(1) != 0) {
      r.overlapped = true;
    }
    r.batches.push_back(b);
    const int call = ++calls[static_cast<size_t>(k)][static_cast<size_t>(b)];
    const bool done = call > (k + b) % 3;
    r.running.fetch_sub(1);
    if (done) {
      r.replayed.fetch_add(1);
    }
    return done;
  });
  std::thread helper([&] { pipeline.Work(); });
  int64_t taken = 0;
  int64_t returns_on_pause = 0;
  auto wait = [&](int64_t batch) {
    while (!pipeline.WaitComplete(batch)) {
      ++returns_on_pause;
    }
    for (const auto& r : records) {
      EXPECT_GT(r->replayed.load(), batch);
    }
  };
  for (int64_t b = 0; b < kBatches; ++b) {
    if (b - taken == kWindow) {
      wait(taken++);
    }
    pipeline.Push();
  }
  pipeline.Close();
  wait(kBatches - 1);
  helper.join();
  int64_t pauses = 0;
  for (int k = 0; k < kShards; ++k) {
    const Record& r = *records[static_cast<size_t>(k)];
    EXPECT_FALSE(r.overlapped) << "shard " << k;
    std::vector<int64_t> expected;
    for (int64_t b = 0; b < kBatches; ++b) {
      const int64_t paused = (k + b) % 3;
      pauses += paused;
      expected.insert(expected.end(), static_cast<size_t>(paused + 1), b);
    }
    EXPECT_EQ(r.batches, expected) << "shard " << k;
  }
  EXPECT_EQ(pipeline.pauses(), pauses);
  EXPECT_GT(returns_on_pause, 0);
  EXPECT_LE(returns_on_pause, pauses);
}

// The waits --profile reports: a helper with nothing pushed blocks, counted as it begins and
// timed when it ends (the 5 ms it was surely blocked, less the slack of a spurious wake-up).
TEST(ShardPipeline, ABlockedHelperIsCountedAndTimed) {
  ShardPipeline pipeline(2, 4, [](int, int64_t) { return true; });
  ASSERT_EQ(pipeline.waits().helper_waits, 0);
  std::thread helper([&] { pipeline.Work(); });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (pipeline.waits().helper_waits == 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GE(pipeline.waits().helper_waits, 1) << "the helper never blocked";
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // blocked all along
  pipeline.Push();
  pipeline.Close();
  EXPECT_TRUE(pipeline.WaitComplete(0));  // no step pauses
  helper.join();
  EXPECT_GE(pipeline.waits().helper_nanos, 4'000'000);
}

}  // namespace
}  // namespace replay
