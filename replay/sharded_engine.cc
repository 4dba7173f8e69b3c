#include "replay/sharded_engine.h"

#include "replay/cluster_state.h"
#include "replay/simulator.h"

namespace replay {

ShardedEngine::ShardedEngine(const LoadResult& manifests, ShardPlan plan,
                             const SimulatorOptions& options, bool log_decisions)
    : plan_(std::move(plan)) {
  ClusterStateOptions state_options;
  state_options.scheduler = options.scheduler;
  for (int i = 0; i < plan_.num_shards(); ++i) {
    LoadResult part;
    part.spec = plan_.ManifestsFor(i, manifests.spec);
    auto shard = std::make_unique<Shard>();
    engine::MutexLock lock(shard->mu);
    shard->sim = std::make_unique<ShardSimulator>(BuildClusterState(std::move(part), state_options),
                                                  options, log_decisions);
    shards_.push_back(std::move(shard));
  }
}

}  // namespace replay
