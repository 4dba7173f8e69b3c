#include "replay/sim/sharded_replay.h"

#include <memory>
#include <utility>

#include "replay/io/parallel_for.h"
#include "replay/sim/cluster_state.h"
#include "replay/sim/simulator.h"

namespace replay {

namespace {

std::unique_ptr<ShardSimulator> MakeShard(
    const LoadResult& manifests, const engine::ShardPlan& plan, int shard,
    const std::shared_ptr<const engine::NamespaceLabels::Table>& namespaces,
    const SimulatorOptions& options, bool log_decisions) {
  ClusterStateOptions state_options;
  state_options.scheduler = options.scheduler;
  state_options.shared_namespaces = namespaces;
  LoadResult part;
  part.spec = plan.ManifestsFor(shard, manifests.spec);
  return std::make_unique<ShardSimulator>(BuildClusterState(std::move(part), state_options),
                                          options, log_decisions);
}

}  // namespace

ShardedReplay::ShardedReplay(const LoadResult& manifests, engine::ShardPlan plan,
                             const SimulatorOptions& options, bool log_decisions,
                             tbb::task_arena* arena)
    : ShardedReplay(manifests, std::move(plan), options, log_decisions, arena,
                    engine::NamespaceLabels(manifests.spec.namespaces).Share()) {}

ShardedReplay::ShardedReplay(
    const LoadResult& manifests, engine::ShardPlan plan, const SimulatorOptions& options,
    bool log_decisions, tbb::task_arena* arena,
    const std::shared_ptr<const engine::NamespaceLabels::Table>& namespaces)
    : engine::ShardedEngine<ShardSimulator>(
        std::move(plan),
        [&](int shard) {
          // ShardedEngine has moved the plan into itself before calling this.
          return MakeShard(manifests, this->plan(), shard, namespaces, options, log_decisions);
        },
        [arena](size_t n, const auto& make_one) {
          if (arena == nullptr || arena->max_concurrency() <= 1 || n <= 1) {
            for (size_t i = 0; i < n; ++i) {
              make_one(i);
            }
            return;
          }
          ParallelFor(*arena, n, 1, [&](size_t, size_t i) { make_one(i); });
        }) {}

}  // namespace replay
