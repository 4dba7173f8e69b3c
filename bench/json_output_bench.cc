// Google Benchmark: what writing decisions.jsonl costs per line, by part (issue 22, "cheap
// output"): quoting names (AppendJsonString: plain ASCII, which a decision line almost always
// holds, then names with bytes to escape and UTF-8), RFC 3339 timestamps (WriteRfc3339), report
// numbers (RoundedNumber, whole and fractional) and a whole Admitted-shaped line through
// JsonWriter and appended directly (LogAdmission's way), and keys written as literals against the
// same keys as views. bytes/s is of the input text.
//
//   build/release/bench/json_output_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>

#include "replay/io/json_writer.h"
#include "replay/io/line_builder.h"
#include "replay/io/time_parse.h"

namespace {

// Names as decision lines hold them: namespace/name keys, ClusterQueue and flavor names.
const std::vector<std::string>& PlainNames() {
  static const std::vector<std::string> names = {"team-vision/vision-train-0001",
                                                 "research-vision",
                                                 "a100-on-demand",
                                                 "nvidia.com/gpu",
                                                 "cq-0-0-cohort-0/small-0-0-0",
                                                 "main",
                                                 "Admitted",
                                                 "cpu",
                                                 std::string(200, 'x') + "-long-label-value"};
  return names;
}

const std::vector<std::string>& NamesToEscape() {
  static const std::vector<std::string> names = {"quote \"inside\" a name", "back\\slash\\path",
                                                 "tab\tand\nnewline", "caf\xC3\xA9-\xE2\x82\xAC",
                                                 "bad byte \xFF here"};
  return names;
}

void Quote(benchmark::State& state, const std::vector<std::string>& names) {
  std::string out;
  int64_t bytes = 0;
  for (auto _ : state) {
    out.clear();
    for (const std::string& n : names) {
      replay::AppendJsonString(n, out);
      bytes += static_cast<int64_t>(n.size());
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(bytes);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(names.size()));
}

void BM_QuotePlainNames(benchmark::State& state) {
  Quote(state, PlainNames());
}
BENCHMARK(BM_QuotePlainNames);

void BM_QuoteNamesToEscape(benchmark::State& state) {
  Quote(state, NamesToEscape());
}
BENCHMARK(BM_QuoteNamesToEscape);

// The same names into a decision line's buffer (replay/io/line_builder.h), as the replay has
// appended them since 2026-11-30.
void BM_QuotePlainNamesInLine(benchmark::State& state) {
  replay::LineBuilder out;
  int64_t bytes = 0;
  for (auto _ : state) {
    out.Clear();
    for (const std::string& n : PlainNames()) {
      replay::AppendJsonString(n, out);
      bytes += static_cast<int64_t>(n.size());
    }
    benchmark::DoNotOptimize(out.view().data());
  }
  state.SetBytesProcessed(bytes);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(PlainNames().size()));
}
BENCHMARK(BM_QuotePlainNamesInLine);

void BM_Rfc3339(benchmark::State& state) {
  int64_t micros = 1'767'225'600'123'456;  // 2026-01-01T00:00:00.123456Z
  char text[32];
  for (auto _ : state) {
    benchmark::DoNotOptimize(replay::WriteRfc3339(micros, false, text));
    micros += 1'000'037;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Rfc3339);

// JsonWriter::RoundedNumber (six significant digits) on report.json's series: whole numbers
// (counts, quotas in canonical units), which take the integer shortcut of d59c9a0, against the
// same values plus a quarter, which take the to_chars path every number took before it.
void RoundedNumbers(benchmark::State& state, double offset) {
  std::vector<double> values;
  for (int64_t i = 0; i < 4096; ++i) {
    values.push_back(static_cast<double>((i * 7919) % 3'000'000) + offset);
  }
  replay::JsonWriter w;
  for (auto _ : state) {
    w.Clear();
    w.BeginArray();
    for (double v : values) {
      w.RoundedNumber(v);
    }
    w.EndArray();
    benchmark::DoNotOptimize(w.str().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(values.size()));
}
void BM_RoundedNumberWhole(benchmark::State& state) {
  RoundedNumbers(state, 0);
}
BENCHMARK(BM_RoundedNumberWhole);
void BM_RoundedNumberFraction(benchmark::State& state) {
  RoundedNumbers(state, 0.25);
}
BENCHMARK(BM_RoundedNumberFraction);

// One Admitted line of the shape LogAdmission writes (replay/sim/shard_simulator.cc).
void BM_AdmittedLine(benchmark::State& state) {
  replay::JsonWriter out;
  int64_t micros = 1'767'225'600'000'000;
  char time_text[32];
  for (auto _ : state) {
    out.Clear();
    out.BeginObject();
    out.Key("borrowed");
    out.BeginObject();
    out.EndObject();
    out.Key("clusterQueue");
    out.String("research-vision");
    out.Key("podSets");
    out.BeginArray();
    out.BeginObject();
    out.Key("count");
    out.Int(2);
    out.Key("flavors");
    out.BeginObject();
    for (const char* r : {"cpu", "memory", "nvidia.com/gpu"}) {
      out.Key(r);
      out.String("a100-on-demand");
    }
    out.EndObject();
    out.Key("name");
    out.String("main");
    out.EndObject();
    out.EndArray();
    out.Key("time");
    out.String(std::string_view(time_text, replay::WriteRfc3339(micros, false, time_text)));
    out.Key("type");
    out.String("Admitted");
    out.Key("workload");
    out.String("team-vision/vision-train-0001");
    out.EndObject();
    benchmark::DoNotOptimize(out.str().data());
    micros += 1'000'037;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AdmittedLine);

// The same line appended directly, keys in order, as LogAdmission has written it since the
// evening of 2026-11-28 (the same bytes; what the writer's bookkeeping cost is the difference).
void BM_AdmittedLineAppended(benchmark::State& state) {
  std::string out;
  int64_t micros = 1'767'225'600'000'000;
  char time_text[32];
  for (auto _ : state) {
    out.clear();
    out += "{\"borrowed\":{},\"clusterQueue\":";
    replay::AppendJsonString("research-vision", out);
    out += ",\"podSets\":[{\"count\":2,\"flavors\":{";
    const char* separator = "";
    for (const char* r : {"cpu", "memory", "nvidia.com/gpu"}) {
      out += separator;
      separator = ",";
      replay::AppendJsonString(r, out);
      out += ':';
      replay::AppendJsonString("a100-on-demand", out);
    }
    out += "},\"name\":";
    replay::AppendJsonString("main", out);
    out += "}],\"time\":";
    replay::AppendJsonString(
        std::string_view(time_text, replay::WriteRfc3339(micros, false, time_text)), out);
    out += ",\"type\":";
    replay::AppendJsonString("Admitted", out);
    out += ",\"workload\":";
    replay::AppendJsonString("team-vision/vision-train-0001", out);
    out += '}';
    benchmark::DoNotOptimize(out.data());
    micros += 1'000'037;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AdmittedLineAppended);

// The same line in a LineBuilder, as LogAdmission writes it since 2026-11-30 (the same bytes:
// inline appends instead of calls into libstdc++; the literal type unscanned).
void BM_AdmittedLineBuilt(benchmark::State& state) {
  replay::LineBuilder out;
  int64_t micros = 1'767'225'600'000'000;
  char time_text[32];
  for (auto _ : state) {
    out.Clear();
    out.Append("{\"borrowed\":{},\"clusterQueue\":");
    replay::AppendJsonString("research-vision", out);
    out.Append(",\"podSets\":[{\"count\":2,\"flavors\":{");
    bool first = true;
    for (const char* r : {"cpu", "memory", "nvidia.com/gpu"}) {
      if (!first) {
        out.Append(',');
      }
      first = false;
      replay::AppendJsonString(r, out);
      out.Append(':');
      replay::AppendJsonString("a100-on-demand", out);
    }
    out.Append("},\"name\":");
    replay::AppendJsonString("main", out);
    out.Append("}],\"time\":");
    replay::AppendJsonString(
        std::string_view(time_text, replay::WriteRfc3339(micros, false, time_text)), out);
    out.Append(",\"type\":");
    out.AppendQuoted("Admitted");
    out.Append(",\"workload\":");
    replay::AppendJsonString("team-vision/vision-train-0001", out);
    out.Append('}');
    benchmark::DoNotOptimize(out.view().data());
    micros += 1'000'037;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AdmittedLineBuilt);

// The keys of a decision line written as string literals (JsonWriter::Key's literal overload:
// the compiler checks them, KeyPlain appends them) against the same keys as views (checked at run
// time, as every key was before 262cefc). Same output.
template <bool kLiteral>
void Keys(benchmark::State& state) {
  replay::JsonWriter out;
  static constexpr std::string_view kViews[] = {"borrowed", "clusterQueue", "count", "flavors",
                                                "name",     "podSets",      "time",  "type",
                                                "workload", "resourceUsage"};
  std::vector<std::string_view> views(std::begin(kViews), std::end(kViews));
  benchmark::DoNotOptimize(views.data());
  for (auto _ : state) {
    out.Clear();
    out.BeginObject();
    if constexpr (kLiteral) {
      out.Key("borrowed");
      out.Int(1);
      out.Key("clusterQueue");
      out.Int(1);
      out.Key("count");
      out.Int(1);
      out.Key("flavors");
      out.Int(1);
      out.Key("name");
      out.Int(1);
      out.Key("podSets");
      out.Int(1);
      out.Key("time");
      out.Int(1);
      out.Key("type");
      out.Int(1);
      out.Key("workload");
      out.Int(1);
      out.Key("resourceUsage");
      out.Int(1);
    } else {
      for (std::string_view k : views) {
        out.Key(k);
        out.Int(1);
      }
    }
    out.EndObject();
    benchmark::DoNotOptimize(out.str().data());
  }
  state.SetItemsProcessed(state.iterations() * 10);
}
void BM_KeysLiteral(benchmark::State& state) {
  Keys<true>(state);
}
BENCHMARK(BM_KeysLiteral);
void BM_KeysView(benchmark::State& state) {
  Keys<false>(state);
}
BENCHMARK(BM_KeysView);

}  // namespace

BENCHMARK_MAIN();
