#include "replay/sim/sharded_replay.h"

#include <memory>
#include <utility>

#include "replay/sim/cluster_state.h"
#include "replay/sim/simulator.h"

namespace replay {

namespace {

std::unique_ptr<ShardSimulator> MakeShard(const LoadResult& manifests,
                                          const engine::ShardPlan& plan, int shard,
                                          const SimulatorOptions& options, bool log_decisions) {
  ClusterStateOptions state_options;
  state_options.scheduler = options.scheduler;
  LoadResult part;
  part.spec = plan.ManifestsFor(shard, manifests.spec);
  return std::make_unique<ShardSimulator>(BuildClusterState(std::move(part), state_options),
                                          options, log_decisions);
}

}  // namespace

ShardedReplay::ShardedReplay(const LoadResult& manifests, engine::ShardPlan plan,
                             const SimulatorOptions& options, bool log_decisions)
    : engine::ShardedEngine<ShardSimulator>(std::move(plan), [&](int shard) {
        // ShardedEngine has moved the plan into itself before calling this.
        return MakeShard(manifests, this->plan(), shard, options, log_decisions);
      }) {}

}  // namespace replay
