// Google Benchmark: recording waits into many wait groups (replay/sim/wait_samples.h), as a
// replay's admissions do: each recorded wait goes into 5 groups drawn from N, all in the
// histogram form (beyond kExactUpTo samples), their 15 KiB histograms spread over memory. With
// N = 4,000 groups the histograms (60 MB) are far beyond the caches, as in a replay whose other
// state evicts them between admissions; N = 8 fits. items/s = waits recorded (5 groups each).
//
//   build/release/bench/wait_samples_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "replay/sim/wait_samples.h"

namespace {

void BM_WaitSamples_RecordIntoFiveGroups(benchmark::State& state) {
  const auto groups = static_cast<size_t>(state.range(0));
  std::vector<replay::WaitSamples> samples(groups);
  std::mt19937_64 rng(7);
  // Waits from 0 to about 3 hours, log-spread: every group's histogram reaches its full width.
  const auto wait = [&rng] { return static_cast<int64_t>(rng() % (uint64_t{1} << (rng() % 34))); };
  for (replay::WaitSamples& s : samples) {
    for (size_t i = 0; i <= replay::WaitSamples::kExactUpTo + 64; ++i) {
      s.Record(wait());
    }
  }
  constexpr size_t kDraws = 1 << 16;
  std::vector<uint32_t> picks(kDraws * 5);
  std::vector<int64_t> waits(kDraws);
  for (uint32_t& p : picks) {
    p = static_cast<uint32_t>(rng() % groups);
  }
  for (int64_t& w : waits) {
    w = wait();
  }
  size_t next = 0;
  for (auto _ : state) {
    const int64_t w = waits[next];
    const uint32_t* p = &picks[next * 5];
    for (int g = 0; g < 5; ++g) {
      samples[p[g]].Record(w);
    }
    next = (next + 1) % kDraws;
  }
  benchmark::DoNotOptimize(samples.front().count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WaitSamples_RecordIntoFiveGroups)->Arg(8)->Arg(4000);

}  // namespace

BENCHMARK_MAIN();
