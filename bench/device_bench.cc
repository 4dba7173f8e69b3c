// Device selection microbenchmarks (engine/device_inventory.h, seed 001) on the fixture the
// issue names: 10,000 nodes x 8 devices. Nodes are in 4 flavors (pool=p0..p3, 2,500 nodes each);
// each node has 8 GPU entries of count 1 ("gpu0".."gpu7"), 40Gi on even nodes and 80Gi on odd
// ones, so the class `gpu.big` (memory >= 70G) selects half the nodes and `gpu.any` all of them.
//
//   BM_Device_CheckFit/<fill%>     CheckFit of one pod set (4 pods x 2 gpu.big) in flavor p3,
//                                  with <fill%> of every pool's nodes already full: first-fit
//                                  scans past the full nodes (0 % = the first nodes fit; 99 % =
//                                  only the last 1 % of p3's nodes have devices left)
//   BM_Device_AllocateRelease/<fill%>  Allocate + Release of the same pod set (per pair)
//   BM_Device_CheckFit_Short       CheckFit that fails (every node full): the full scan plus
//                                  the shortage message (the NoFit path of a fragmented flavor)
//   BM_Device_UpsertClass          creating a class: its selector over all 80,000 devices
//   BM_Device_NodeChurn            DeleteNode + UpsertNode of one node (node failure and return)
//
// "time_per_op" is the wall time per counted operation.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "engine/base/check.h"
#include "engine/device_inventory.h"

namespace engine {
namespace {

constexpr int kNodes = 10'000;
constexpr int kDevicesPerNode = 8;
constexpr int kPools = 4;

ResourceClassSpec GpuClass(const std::string& name, std::optional<std::string> min_memory) {
  ResourceClassSpec spec;
  spec.name = name;
  DevicePropertySelector& selector = spec.resource_selector.emplace_back();
  selector.match_expressions.push_back({"Kind", DeviceSelectorOp::kIn, {"nvidia-gpu"}});
  if (min_memory.has_value()) {
    selector.match_expressions.push_back({"memory", DeviceSelectorOp::kGtEq, {*min_memory}});
  }
  return spec;
}

NodeSpec Node(int i) {
  NodeSpec spec;
  spec.name = fmt::format("node-{:05d}", i);
  spec.labels["pool"] = fmt::format("p{}", i % kPools);
  for (int d = 0; d < kDevicesPerNode; ++d) {
    DeviceSpec& device = spec.devices.emplace_back();
    device.name = fmt::format("gpu{}", d);
    device.kind = "nvidia-gpu";
    device.count = 1;
    device.properties["memory"] = (i % 2 == 0) ? "40Gi" : "80Gi";
  }
  return spec;
}

std::vector<PodSetDeviceDemand> Demand(const std::string& pool, const std::string& cls,
                                       int32_t pods, int64_t per_pod) {
  PodSetDeviceDemand demand;
  demand.flavor_node_labels["pool"] = pool;
  demand.pods = pods;
  demand.per_pod.emplace_back(cls, per_pod);
  return {demand};
}

// The inventory with `fill_percent` % of every pool's nodes fully allocated (the first ones by
// name, so first-fit has to scan past them).
DeviceInventory Fixture(int fill_percent) {
  DeviceInventory inventory;
  inventory.UpsertClass(GpuClass("gpu.any", std::nullopt));
  inventory.UpsertClass(GpuClass("gpu.big", "70G"));
  for (int i = 0; i < kNodes; ++i) {
    inventory.UpsertNode(Node(i));
  }
  const int full_per_pool = kNodes / kPools * fill_percent / 100;
  uint32_t owner = 1;
  for (int p = 0; p < kPools; ++p) {
    std::vector<PodSetDeviceDemand> fill =
        Demand(fmt::format("p{}", p), "gpu.any", full_per_pool, kDevicesPerNode);
    if (full_per_pool > 0) {
      std::string why;
      const bool ok = inventory.Allocate(owner++, fill, &why);
      TALLY_CHECK(ok);
    }
  }
  return inventory;
}

void BM_Device_CheckFit(benchmark::State& state) {
  const DeviceInventory inventory = Fixture(static_cast<int>(state.range(0)));
  const std::vector<PodSetDeviceDemand> demand = Demand("p3", "gpu.big", 4, 2);
  for (auto _ : state) {
    std::optional<std::string> shortage = inventory.CheckFit(demand);
    benchmark::DoNotOptimize(shortage);
  }
  TALLY_CHECK(!inventory.CheckFit(demand).has_value());
}
BENCHMARK(BM_Device_CheckFit)->Arg(0)->Arg(50)->Arg(99)->Unit(benchmark::kMicrosecond);

void BM_Device_AllocateRelease(benchmark::State& state) {
  DeviceInventory inventory = Fixture(static_cast<int>(state.range(0)));
  const std::vector<PodSetDeviceDemand> demand = Demand("p3", "gpu.big", 4, 2);
  constexpr uint32_t kOwner = 1'000'000;
  for (auto _ : state) {
    std::string why;
    const bool ok = inventory.Allocate(kOwner, demand, &why);
    TALLY_CHECK(ok);
    inventory.Release(kOwner);
  }
}
BENCHMARK(BM_Device_AllocateRelease)->Arg(0)->Arg(50)->Arg(99)->Unit(benchmark::kMicrosecond);

void BM_Device_CheckFit_Short(benchmark::State& state) {
  const DeviceInventory inventory = Fixture(100);
  const std::vector<PodSetDeviceDemand> demand = Demand("p3", "gpu.big", 4, 2);
  for (auto _ : state) {
    std::optional<std::string> shortage = inventory.CheckFit(demand);
    benchmark::DoNotOptimize(shortage);
  }
  TALLY_CHECK(inventory.CheckFit(demand).has_value());
}
BENCHMARK(BM_Device_CheckFit_Short)->Unit(benchmark::kMicrosecond);

void BM_Device_UpsertClass(benchmark::State& state) {
  DeviceInventory inventory = Fixture(0);
  int version = 0;
  for (auto _ : state) {
    // Alternate two selectors: each upsert changes the class, so it re-selects every device.
    inventory.UpsertClass(GpuClass("bench.class", version % 2 == 0 ? "70G" : "30G"));
    ++version;
  }
  TALLY_CHECK(inventory.StatusOf("bench.class").has_value());
}
BENCHMARK(BM_Device_UpsertClass)->Unit(benchmark::kMillisecond);

void BM_Device_NodeChurn(benchmark::State& state) {
  DeviceInventory inventory = Fixture(50);
  const NodeSpec node = Node(kNodes / 2 + 1);
  for (auto _ : state) {
    std::vector<uint32_t> evicted = inventory.DeleteNode(node.name);
    benchmark::DoNotOptimize(evicted);
    inventory.UpsertNode(node);
  }
}
BENCHMARK(BM_Device_NodeChurn)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engine
