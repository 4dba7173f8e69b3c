// File: replay/sim/flavor_supply.h
//
// The replay's model of flavor capacity outside Kueue (FlavorSupply objects, docs/fallback.md):
// stockout windows per flavor, and a seeded pods-ready delay per flavor. The draw depends only on
// (seed, workload, attempt start), so it is the same whatever the shard or thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/cluster_spec.h"

namespace replay {

class FlavorSupplyModel {
 public:
  FlavorSupplyModel() = default;
  explicit FlavorSupplyModel(const std::vector<engine::FlavorSupplySpec>& specs);

  bool empty() const { return by_flavor_.empty(); }
  // A FlavorSupply object added or modified mid-trace: replaces the model of its flavor (and any
  // entry the object named before, should its spec.flavor have changed).
  void Upsert(const engine::FlavorSupplySpec& spec);
  // A FlavorSupply object deleted mid-trace (by metadata.name): its flavor delivers normally.
  void Erase(std::string_view name);
  // The stockout window of `flavor` containing `t`, or nullptr.
  const engine::TimeWindow* StockoutAt(std::string_view flavor, engine::TimeMicros t) const;
  // The first instant >= t outside every stockout window of `flavor`.
  engine::TimeMicros AfterStockouts(std::string_view flavor, engine::TimeMicros t) const;
  // The modelled pods-ready delay of an attempt of `workload` on `flavor` started at
  // `attempt_start`; nullopt when the flavor has no delay model.
  std::optional<engine::TimeMicros> PodsReadyDelay(std::string_view flavor,
                                                   std::string_view workload,
                                                   engine::TimeMicros attempt_start) const;

 private:
  const engine::FlavorSupplySpec* Find(std::string_view flavor) const;
  std::unordered_map<std::string, engine::FlavorSupplySpec> by_flavor_;  // windows sorted
};

}  // namespace replay
