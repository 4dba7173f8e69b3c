// File: replay/io/parallel_for.h
//
// The parallel loops of the replay. ParallelFor(arena, n, grain, fn) calls fn(slot, i) for
// every i in [0, n), in chunks of `grain`, on the arena's threads; `slot` in
// [0, arena.max_concurrency()) names the thread running the call (for per-thread scratch such as a
// parser), and no two concurrent calls share a slot.
//
// With oneTBB (simple_partitioner: chunks of exactly the grain). Under ThreadSanitizer the same
// loop runs on plain std::threads instead: libtbb is not instrumented, so TSan cannot see the
// synchronisation inside TBB's scheduler and reports its work hand-offs as races, which would
// drown any real one; with std::thread (instrumented) TSan checks the replay's own accesses with
// real parallelism. Results never depend on which threads ran what.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "engine/base/parallel_loop.h"
#include "engine/base/phase_profile.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TALLY_THREAD_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define TALLY_THREAD_SANITIZER 1
#endif

namespace replay {

// `phase`: what `fn` is, for `tally replay --profile` (one scope per chunk, on its thread).
template <typename Fn>
void ParallelFor(tbb::task_arena& arena, size_t n, size_t grain, Fn&& fn,
                 engine::Phase phase = engine::Phase::kOther) {
  grain = std::max<size_t>(grain, 1);
#if defined(TALLY_THREAD_SANITIZER)
  const size_t workers = std::min(static_cast<size_t>(std::max(arena.max_concurrency(), 1)),
                                  std::max<size_t>((n + grain - 1) / grain, 1));
  std::atomic<size_t> next{0};
  auto work = [&](size_t slot) {
    for (size_t begin = next.fetch_add(grain); begin < n; begin = next.fetch_add(grain)) {
      engine::PhaseScope profile(phase);
      for (size_t i = begin; i < std::min(n, begin + grain); ++i) {
        fn(slot, i);
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t slot = 1; slot < workers; ++slot) {
    threads.emplace_back(work, slot);
  }
  work(0);
  for (std::thread& t : threads) {
    t.join();
  }
#else
  // Isolated: a thread waiting for this loop's chunks runs only this loop's chunks, never a
  // long task of an outer level (a RunWithHelpers helper) that would keep it from returning.
  arena.execute([&] {
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(
          tbb::blocked_range<size_t>(0, n, grain),
          [&](const tbb::blocked_range<size_t>& r) {
            engine::PhaseScope profile(phase);
            const size_t slot = static_cast<size_t>(tbb::this_task_arena::current_thread_index());
            for (size_t i = r.begin(); i != r.end(); ++i) {
              fn(slot, i);
            }
          },
          tbb::simple_partitioner());
    });
  });
#endif
}

namespace internal {

// main() on the calling thread, helper() on `helpers` plain threads (the ThreadSanitizer build).
template <typename Main, typename Helper>
void RunOnThreads(size_t helpers, Main&& main, Helper&& helper) {
  std::vector<std::thread> threads;
  for (size_t i = 0; i < helpers; ++i) {
    threads.emplace_back([&] { helper(); });
  }
  main();
  for (std::thread& t : threads) {
    t.join();
  }
}

// main() on the calling thread, helper() as `helpers` tasks of the current arena.
template <typename Main, typename Helper>
void RunOnTasks(size_t helpers, Main&& main, Helper&& helper) {
  tbb::task_group group;
  for (size_t i = 0; i < helpers; ++i) {
    group.run([&] { helper(); });
  }
  main();
  group.wait();
}

}  // namespace internal

// Runs `main()` on the calling thread and `helper()` on each other thread of the arena, and
// returns when all have returned. A helper waits for main's work (ShardPipeline::Work) and must
// return once main has; main must not throw. Without free threads (a 1-thread arena) main does
// everything and the helpers run after it, finding nothing left.
template <typename Main, typename Helper>
void RunWithHelpers(tbb::task_arena& arena, Main&& main, Helper&& helper) {
  const auto helpers = static_cast<size_t>(std::max(arena.max_concurrency(), 1) - 1);
#if defined(TALLY_THREAD_SANITIZER)
  internal::RunOnThreads(helpers, main, helper);
#else
  arena.execute([&] { internal::RunOnTasks(helpers, main, helper); });
#endif
}

// RunWithHelpers with `helpers` helpers in the arena the caller runs in, isolated: a thread that
// waits here runs only these helpers, never a task of an enclosing loop (ForEachYamlDocument may
// run inside one).
template <typename Main, typename Helper>
void RunWithHelpersHere(size_t helpers, Main&& main, Helper&& helper) {
#if defined(TALLY_THREAD_SANITIZER)
  internal::RunOnThreads(helpers, main, helper);
#else
  tbb::this_task_arena::isolate([&] { internal::RunOnTasks(helpers, main, helper); });
#endif
}

// The engine's ParallelLoop (parallel nomination inside one shard) on the replay's arena. Nested
// inside a parallel loop over shards, TBB's work stealing shares the same threads between both.
class ArenaLoop final : public engine::ParallelLoop {
 public:
  explicit ArenaLoop(tbb::task_arena& arena) : arena_(arena) {}
  size_t slots() const override {
    return static_cast<size_t>(std::max(arena_.max_concurrency(), 1));
  }
  void Run(size_t n, const std::function<void(size_t slot, size_t i)>& fn) override {
    // About four chunks per thread: balance without a task per item.
    ParallelFor(arena_, n, std::max<size_t>(1, n / (4 * slots())), fn, engine::Phase::kCycle);
  }

 private:
  tbb::task_arena& arena_;
};

}  // namespace replay
