// Google Benchmark: the three report files of `tally replay` formatted from a finished report of
// 1,000 ClusterQueues, each with its LocalQueue, three usage rows and a 16-hour series, in the
// shape of Kueue's large-scale scenario (FormatReportHtml, FormatPrometheus, FormatReportJson;
// replay/report/report_writers.h). report.html's table rows and metrics.prom's label values were
// the costly parts (docs/replay.md, "Large manifests: the next chunk parsed ..."); bytes/s is
// the output written.
//
//   build/release/bench/report_writers_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "replay/report/report_writers.h"
#include "replay/sim/replay_report.h"
#include "replay/sim/wait_samples.h"

namespace {

constexpr int64_t kStart = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z, µs

replay::WaitStats Waits(int i) {
  replay::WaitSamples samples;
  for (int k = 0; k < 50; ++k) {
    samples.Record(int64_t{1'000'000} * (1 + (k * 37 + i) % 900));
  }
  return samples.Summarize();
}

replay::ReplayReport LargeReport(int queues) {
  replay::ReplayReport r;
  r.start_time = kStart;
  r.end_time = kStart + int64_t{16} * 3600 * 1'000'000;
  for (double t = 0; t <= 16 * 3600; t += 600) {
    r.sample_times.push_back(t);
  }
  for (int i = 0; i < queues; ++i) {
    const std::string cq = fmt::format("cq-{}-{}-cohort-{}", i / 10, i % 10, i % 7);
    r.cluster_queues.push_back({cq, 50 + i % 17, i % 5, i % 3, i % 4});
    r.wait_by_cluster_queue.push_back({cq, Waits(i)});
    r.wait_by_local_queue.push_back({fmt::format("{}/{}", cq, cq), Waits(i + 1)});
    replay::CqSeries s;
    s.name = cq;
    for (size_t k = 0; k < r.sample_times.size(); ++k) {
      s.pending.push_back(static_cast<float>((k + i) % 5));
      s.running.push_back(static_cast<float>(k % 3));
      s.utilisation.push_back(static_cast<float>(0.1 * static_cast<double>((k + i) % 10)));
      s.mean_wait.push_back(static_cast<float>(60 * (i % 13) + k));
    }
    r.series.push_back(std::move(s));
    r.usage.push_back({cq, "default", "cpu", 8000, 2500, 0, 0.3125, 8000, 2000});
    r.usage.push_back({cq, "default", "memory", 17179869184, 1.0e9, 0, 0.0582, 4294967296, 0});
    r.usage.push_back({cq, "default", "nvidia.com/gpu", 8, 4, 1, 0.5, 8, 2});
  }
  r.wait_overall = Waits(0);
  r.wait_by_class = {{"small", Waits(1)}, {"medium", Waits(2)}, {"large", Waits(3)}};
  r.wait_by_priority = {{"100", Waits(4)}, {"50", Waits(5)}};
  r.admissions = 50'000;
  r.timings = false;
  return r;
}

template <std::string (*Format)(const replay::ReplayReport&)>
void BM_Format(benchmark::State& state) {
  const replay::ReplayReport report = LargeReport(1000);
  int64_t bytes = 0;
  for (auto _ : state) {
    std::string text = Format(report);
    bytes += static_cast<int64_t>(text.size());
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK_TEMPLATE(BM_Format, replay::FormatReportHtml)
    ->Name("BM_FormatReportHtml")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Format, replay::FormatPrometheus)
    ->Name("BM_FormatPrometheus")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Format, replay::FormatReportJson)
    ->Name("BM_FormatReportJson")
    ->Unit(benchmark::kMillisecond);

}  // namespace
