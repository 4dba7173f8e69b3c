// Google Benchmark: a shard's timers as a policy-only replay schedules them
// (replay/sim/timer_queue.h against the QuadHeap alone, replay/sim/quad_heap.h). The queue holds
// `state.range(0)` timers due later (running workloads' finishes); each step pushes two timers
// due at once (a pods-ready and a release), one due later, and pops three, as a preemption
// ping-pong's cycle does. items/s = timers pushed and popped.
//
//   build/release/bench/timer_queue_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only
#include <cstdint>
#include <random>

#include <benchmark/benchmark.h>

#include "replay/sim/quad_heap.h"
#include "replay/sim/timer_queue.h"

namespace {

struct Timer {
  int64_t time;
  uint64_t order;
};
struct Earlier {
  bool operator()(const Timer& a, const Timer& b) const {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  }
};

// One step: two timers due at `now`, one later, three popped (the earliest).
template <typename Queue, bool kSplit>
void Run(benchmark::State& state) {
  Queue queue;
  std::mt19937_64 rng(7);
  uint64_t order = 0;
  int64_t now = 0;
  const auto later = [&] { return now + 1 + static_cast<int64_t>(rng() % 600'000'000); };
  for (int64_t i = 0; i < state.range(0); ++i) {
    queue.push(Timer{later(), order++});
  }
  for (auto _ : state) {
    for (int k = 0; k < 2; ++k) {
      if constexpr (kSplit) {
        queue.push_now(Timer{now, order++});
      } else {
        queue.push(Timer{now, order++});
      }
    }
    queue.push(Timer{later(), order++});
    for (int k = 0; k < 3; ++k) {
      now = queue.top().time;
      benchmark::DoNotOptimize(queue.top());
      queue.pop();
    }
  }
  state.SetItemsProcessed(state.iterations() * 6);
}

void BM_TimerQueue(benchmark::State& state) {
  Run<replay::TimerQueue<Timer, Earlier>, true>(state);
}
void BM_QuadHeapAlone(benchmark::State& state) {
  Run<replay::QuadHeap<Timer, Earlier>, false>(state);
}

BENCHMARK(BM_TimerQueue)->Arg(1'000)->Arg(100'000);
BENCHMARK(BM_QuadHeapAlone)->Arg(1'000)->Arg(100'000);

}  // namespace

BENCHMARK_MAIN();
