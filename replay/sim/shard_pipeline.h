// File: replay/sim/shard_pipeline.h
//
// Shards that run free (issue 22). The reader hands out numbered batches of routed events; every
// shard replays every batch, in batch order, as soon as a thread is free to, without waiting for
// the other shards. A batch is complete once every shard has replayed it. Batches complete in
// order (each shard replays them in order), and the reader takes the complete ones back for what
// must follow the trace's order: counters, errors, decision lines. What is written therefore
// depends neither on which thread replayed which shard nor on how far shards ran ahead.
//
// A step may pause part-way through its batch (it returns false): it is queued again, for the
// same batch, and the reader's waits return so that it can write the decision lines that have
// become final (replay/sim/simulator.cc). A shard in a storm then holds a slice of its lines,
// not a whole batch's (a 2,048-event batch of the 16-tree trace can cover an hour of virtual
// time and a hundred megabytes of lines).
//
// At most `limit()` batches are incomplete at a time: that bounds the events held in memory. A
// thread that waits (the reader on a full window, a helper with nothing pushed) replays steps
// itself, the oldest first: the shard the oldest batch waits for is the one worth running.
//
// The limit adapts between `start_window` and `window`. Parsed events held longer cost memory
// and cache (Kueue's `baseline` ran 6 % faster with 2 batches in flight than with 8), but shards
// of unequal cost need room to run ahead of a slow one (a 16-tree trace ran 15 % slower with 2).
// So the limit doubles when a thread finds nothing to replay while the window is full (every
// shard but a lagging one has caught up), and halves after 32 batches pushed without that.
//
//   ShardPipeline pipeline(num_shards, window, [&](int shard, int64_t batch) { ...; return done;
//   }); helpers:    pipeline.Work();                       // returns after Close() once all is
//   replayed the reader: fill slot b % window; pipeline.Push();          // b = batches pushed so
//   far
//               while (!pipeline.WaitComplete(b)) write what is final; take batch b back;
//               (or, with an adaptive limit: while pushed - oldest >= limit(),
//                if (pipeline.WaitRoom(oldest)) take batch oldest++ back; else write what is final)
//               pipeline.Close(); ... pipeline.Rethrow();
//
// Thread safety: Push, WaitRoom, WaitComplete, Close and Rethrow from one thread (the reader);
// Work from any thread. Steps of one shard never overlap and come in increasing batch order. An
// exception thrown by a step is kept (the step counts as replayed, so nothing waits forever) and
// rethrown by Rethrow.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <queue>
#include <utility>
#include <vector>

namespace replay {

class ShardPipeline {
 public:
  // True when the shard is done with the batch; false when it paused and is to be called again
  // for the same batch.
  using Step = std::function<bool(int shard, int64_t batch)>;

  // `start_window` (0: `window`) is the first limit; slots are needed for `window` batches.
  ShardPipeline(int shards, int64_t window, Step step, int64_t start_window = 0);

  int64_t window() const { return window_; }
  // The batches that may be incomplete at a time now (see the file comment).
  int64_t limit();
  // Replays steps on the calling thread until batch `oldest` is complete (true), or the limit has
  // grown to leave room for another batch, or a step has paused since the reader's last wait
  // returned (false). Called by the reader only.
  bool WaitRoom(int64_t oldest);
  // Times the limit grew and shrank.
  int64_t grown() const { return grown_; }
  int64_t shrunk() const { return shrunk_; }
  // Times a thread blocked with nothing to replay, and for how long (wall nanoseconds): the
  // reader in WaitRoom and WaitComplete, helpers in Work. A wait is counted when it begins.
  struct Waits {
    int64_t reader_waits = 0;
    int64_t reader_nanos = 0;
    int64_t helper_waits = 0;
    int64_t helper_nanos = 0;
  };
  Waits waits();
  // Batch number `pushed` (0, 1, ...) is ready for every shard. The caller has checked that the
  // window has room (WaitComplete(b - window) and taken batch b - window back).
  void Push();
  // Replays steps on the calling thread until batch `batch` is complete (true), or a step has
  // paused since the reader's last wait returned (false). Called by the reader only.
  bool WaitComplete(int64_t batch);
  // Steps that paused so far.
  int64_t pauses();
  // No more batches: Work returns once every pushed batch is complete.
  void Close();
  // Replays steps until Close() has been called and every pushed batch is complete.
  void Work();
  // Rethrows the first exception a step threw, if any.
  void Rethrow();

 private:
  using Ready = std::pair<int64_t, int>;  // (next batch of the shard, shard)

  // Replays the oldest ready step with `lock` released; false when no step is ready.
  bool RunOne(std::unique_lock<std::mutex>& lock);
  // Called with nothing to replay: grows the limit when the window is full. True if it grew.
  bool GrowIfStarved();
  // True (once) when a step paused since the reader last saw one.
  bool ReaderSeesPause();
  // changed_.wait(lock), counted and timed for the reader or for a helper.
  void Block(std::unique_lock<std::mutex>& lock, bool reader);

  const int shards_;
  const int64_t window_;
  const Step step_;
  const int64_t start_window_;
  int64_t limit_;
  int64_t pushed_at_last_check_ = 0;  // shrinking: batches pushed since the limit last moved
  bool starved_since_check_ = false;
  int64_t grown_ = 0;
  int64_t shrunk_ = 0;
  Waits waits_;
  std::mutex mu_;
  std::condition_variable changed_;  // a batch pushed or completed, a step ready, closed
  int64_t pushed_ = 0;
  int64_t complete_ = 0;
  int64_t pauses_ = 0;
  int64_t pauses_seen_by_reader_ = 0;
  bool closed_ = false;
  std::vector<int64_t> next_;   // per shard: the next batch it replays
  std::vector<int> remaining_;  // per window slot: shards that have not replayed that batch
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready_;  // oldest first
  std::vector<int> caught_up_;  // shards idle with every pushed batch replayed
  std::exception_ptr error_;
};

}  // namespace replay
