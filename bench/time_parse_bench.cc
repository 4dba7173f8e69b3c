// Google Benchmark: reading an event's RFC 3339 time (replay/io/time_parse.h). ParseRfc3339 on
// the layout tally's traces use ("2026-01-01T00:00:09.982462Z", read by position) against the
// general parser on the same texts, and ParseRfc3339 on a layout only the general parser reads
// (a numeric offset). Fixture: 1,024 times a few seconds apart, with 0, 3, 6 and 9 fraction digits;
// items/s = times/s. Likewise a Go duration (an event's runtime): ParseGoDuration on the
// generators' form ("65968ms", read in one pass) against the general loop on the same 1,024 texts.
//
//   build/release/bench/time_parse_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "replay/io/time_parse.h"

namespace {

// Times in the fixed layout, or with "+02:00" in place of the "Z" when `offset`.
std::vector<std::string> Times(bool offset) {
  std::vector<std::string> out;
  int64_t micros = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z
  for (int i = 0; i < 1024; ++i) {
    std::string text = replay::FormatRfc3339(micros);  // 0 or 6 fraction digits
    const size_t dot = text.find('.');
    if (i % 4 == 1 && dot != std::string::npos) {
      text.erase(dot + 4, 3);  // 3 digits
    } else if (i % 4 == 2 && dot != std::string::npos) {
      text.insert(text.size() - 1, "123");  // 9 digits
    }
    if (offset) {
      text.replace(text.size() - 1, 1, "+02:00");
    }
    out.push_back(std::move(text));
    micros += 3'141'593 + (i % 2) * 500'000'000;
  }
  return out;
}

template <typename Parse>
void Run(benchmark::State& state, const std::vector<std::string>& times, Parse parse) {
  for (const std::string& t : times) {
    if (!parse(t).ok()) {
      state.SkipWithError(("fixture does not parse: " + t).c_str());
      return;
    }
  }
  for (auto _ : state) {
    for (const std::string& t : times) {
      benchmark::DoNotOptimize(parse(t));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(times.size()));
}

// Run, on texts every one of which the fast path `common` reads.
template <typename Common, typename Parse>
void RunFastPath(benchmark::State& state, const std::vector<std::string>& texts, Common common,
                 Parse parse) {
  for (const std::string& t : texts) {
    if (!common(t).has_value()) {
      state.SkipWithError(("fixture misses the fast path: " + t).c_str());
      return;
    }
  }
  Run(state, texts, parse);
}

void BM_ParseRfc3339_FixedLayout(benchmark::State& state) {
  RunFastPath(
      state, Times(false),
      [](const std::string& t) { return replay::internal::ParseRfc3339Common(t); },
      [](const std::string& t) { return replay::ParseRfc3339(t); });
}
BENCHMARK(BM_ParseRfc3339_FixedLayout);

void BM_ParseRfc3339_GeneralParser(benchmark::State& state) {
  Run(state, Times(false),
      [](const std::string& t) { return replay::internal::ParseRfc3339General(t); });
}
BENCHMARK(BM_ParseRfc3339_GeneralParser);

void BM_ParseRfc3339_WithOffset(benchmark::State& state) {
  Run(state, Times(true), [](const std::string& t) { return replay::ParseRfc3339(t); });
}
BENCHMARK(BM_ParseRfc3339_WithOffset);

// Runtimes as the generators write them: whole milliseconds, 1 to 9 digits.
std::vector<std::string> Durations() {
  std::vector<std::string> out;
  int64_t ms = 7;
  for (int i = 0; i < 1024; ++i) {
    out.push_back(std::to_string(ms) + "ms");
    ms = ms * 7 % 999'999'937 + 1;
  }
  return out;
}

void BM_ParseGoDuration_WholeNumber(benchmark::State& state) {
  RunFastPath(
      state, Durations(),
      [](const std::string& t) { return replay::internal::ParseGoDurationCommon(t); },
      [](const std::string& t) { return replay::ParseGoDuration(t); });
}
BENCHMARK(BM_ParseGoDuration_WholeNumber);

void BM_ParseGoDuration_GeneralLoop(benchmark::State& state) {
  Run(state, Durations(),
      [](const std::string& t) { return replay::internal::ParseGoDurationGeneral(t); });
}
BENCHMARK(BM_ParseGoDuration_GeneralLoop);

}  // namespace
