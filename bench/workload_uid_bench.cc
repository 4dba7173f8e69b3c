// WorkloadUid (engine/base/workload_uid.h) against the std::string it replaced, in one binary:
// setting a uid from its text (the event parser, once per Workload line) and comparing two (the
// queue heap's and the preemption candidates' last tie-break). The std::string rows are the
// "before" of the same run.
//
//   build/release/bench/workload_uid_bench
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "engine/base/workload_uid.h"

namespace {

constexpr size_t kCount = 1024;  // distinct uids, cycled through

std::vector<std::string> Uuids() {
  std::mt19937_64 rng(7);
  std::vector<std::string> out;
  out.reserve(kCount);
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < kCount; ++i) {
    std::string text = "00000000-0000-4000-8000-000000000000";
    for (char& c : text) {
      if (c != '-') {
        c = kHex[rng() % 16];
      }
    }
    out.push_back(std::move(text));
  }
  return out;
}

// Texts as a trace without uids has them: the loaders' "namespace/name".
std::vector<std::string> Keys() {
  std::vector<std::string> out;
  out.reserve(kCount);
  for (size_t i = 0; i < kCount; ++i) {
    out.push_back("team-" + std::to_string(i % 7) + "/workload-" + std::to_string(i * 7919));
  }
  return out;
}

template <typename Uid>
void Assign(benchmark::State& state, const std::vector<std::string>& texts) {
  Uid uid;
  size_t i = 0;
  for (auto _ : state) {
    uid = texts[i];
    benchmark::DoNotOptimize(uid);
    i = (i + 1) % kCount;
  }
}

template <typename Uid>
void Compare(benchmark::State& state, const std::vector<std::string>& texts) {
  const std::vector<Uid> uids(texts.begin(), texts.end());
  size_t i = 0;
  int64_t less = 0;
  for (auto _ : state) {
    less += uids[i] < uids[(i + 1) % kCount] ? 1 : 0;
    i = (i + 1) % kCount;
  }
  benchmark::DoNotOptimize(less);
}

void BM_AssignUuid_WorkloadUid(benchmark::State& state) {
  Assign<engine::WorkloadUid>(state, Uuids());
}
void BM_AssignUuid_String(benchmark::State& state) {
  Assign<std::string>(state, Uuids());
}
void BM_CompareUuid_WorkloadUid(benchmark::State& state) {
  Compare<engine::WorkloadUid>(state, Uuids());
}
void BM_CompareUuid_String(benchmark::State& state) {
  Compare<std::string>(state, Uuids());
}
void BM_CompareKey_WorkloadUid(benchmark::State& state) {
  Compare<engine::WorkloadUid>(state, Keys());
}
void BM_CompareKey_String(benchmark::State& state) {
  Compare<std::string>(state, Keys());
}

BENCHMARK(BM_AssignUuid_WorkloadUid);
BENCHMARK(BM_AssignUuid_String);
BENCHMARK(BM_CompareUuid_WorkloadUid);
BENCHMARK(BM_CompareUuid_String);
BENCHMARK(BM_CompareKey_WorkloadUid);
BENCHMARK(BM_CompareKey_String);

}  // namespace

BENCHMARK_MAIN();
