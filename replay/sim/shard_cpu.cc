#include "replay/sim/shard_cpu.h"

#include <time.h>

namespace replay {

int64_t ThreadCpuNanos() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::vector<ShardCpuTime> ShardCpuTimes(ShardedReplay& shards) {
  std::vector<ShardCpuTime> times;
  for (int k = 0; k < shards.num_shards(); ++k) {
    const double seconds =
        shards.With(k, [](ShardSimulator& s) { return static_cast<double>(s.cpu_nanos()) / 1e9; });
    times.push_back({shards.plan().labels()[static_cast<size_t>(k)], seconds});
  }
  return times;
}

}  // namespace replay
