#include "replay/sim/shard_cpu.h"

#include <time.h>

namespace replay {

int64_t ThreadCpuNanos() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::vector<double> ShardCpuSeconds(ShardedReplay& shards) {
  std::vector<double> seconds(static_cast<size_t>(shards.num_shards()));
  for (int k = 0; k < shards.num_shards(); ++k) {
    seconds[static_cast<size_t>(k)] =
        shards.With(k, [](ShardSimulator& s) { return static_cast<double>(s.cpu_nanos()) / 1e9; });
  }
  return seconds;
}

}  // namespace replay
