// The device state under the flavors (engine/device_inventory.h, seed 001): first-fit order,
// flavor label filtering, fragmentation, allocatable / requested after every kind of event, node
// changes evicting owners, and a randomized comparison against a from-scratch oracle.
#include "engine/device_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/resource_selector.h"

namespace engine {
namespace {

using Op = DeviceSelectorOp;
using Labels = std::map<std::string, std::string>;

DeviceSpec Gpu(std::string name, int32_t count, std::string memory) {
  return DeviceSpec{std::move(name), "nvidia-gpu", count, {{"memory", std::move(memory)}}};
}

DeviceSpec Nic(std::string name, int32_t count, std::string speed) {
  return DeviceSpec{std::move(name), "nic", count, {{"speed", std::move(speed)}}};
}

NodeSpec Node(std::string name, Labels labels, std::vector<DeviceSpec> devices) {
  NodeSpec n;
  n.name = std::move(name);
  n.labels = std::move(labels);
  n.devices = std::move(devices);
  return n;
}

ResourceClassSpec Class(std::string name, std::vector<DeviceSelectorRequirement> reqs) {
  ResourceClassSpec rc;
  rc.name = std::move(name);
  rc.resource_selector.push_back(DevicePropertySelector{std::move(reqs)});
  return rc;
}

// The seed's example classes, plus one selecting every GPU.
ResourceClassSpec HighMem() {
  return Class("high", {{"Kind", Op::kIn, {"nvidia-gpu"}}, {"memory", Op::kGtEq, {"30G"}}});
}
ResourceClassSpec AnyGpu() {
  return Class("any-gpu", {{"Kind", Op::kIn, {"nvidia-gpu"}}});
}
ResourceClassSpec FastNic() {
  return Class("fast.nic", {{"Kind", Op::kIn, {"nic"}}, {"speed", Op::kGtEq, {"40GBPS"}}});
}

PodSetDeviceDemand Demand(int32_t pods, std::vector<std::pair<std::string, int64_t>> per_pod,
                          Labels flavor_labels = {}) {
  return PodSetDeviceDemand{std::move(flavor_labels), pods, std::move(per_pod)};
}

// node/device/class x count, pod set and pod: enough to read a placement at a glance.
std::string Describe(const DeviceGrant& g) {
  return fmt::format("{}/{} {}/{} {} x{}", g.pod_set, g.pod, g.node, g.device, g.resource_class,
                     g.count);
}

std::vector<std::string> Describe(const std::vector<DeviceGrant>* grants) {
  std::vector<std::string> out;
  if (grants != nullptr) {
    for (const DeviceGrant& g : *grants) {
      out.push_back(Describe(g));
    }
  }
  return out;
}

ResourceClassStatus StatusOf(const DeviceInventory& inv, std::string_view name) {
  std::optional<ResourceClassStatus> s = inv.StatusOf(name);
  EXPECT_TRUE(s.has_value()) << name;
  return s.value_or(ResourceClassStatus{});
}

// --- First fit
// ------------------------------------------------------------------------------------

// Three nodes, inserted out of name order, each: 2 x 16Gi (not "high"), 2 + 2 x 40Gi.
class FirstFitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    inv_.UpsertClass(HighMem());
    for (const char* name : {"c", "a", "b"}) {
      inv_.UpsertNode(
          Node(name, {},
               {Gpu("gpu-16", 2, "16Gi"), Gpu("gpu-40a", 2, "40Gi"), Gpu("gpu-40b", 2, "40Gi")}));
    }
  }
  DeviceInventory inv_;
};

TEST_F(FirstFitTest, NodesInNameOrderEntriesInDeclaredOrder) {
  std::string why;
  ASSERT_TRUE(inv_.Allocate(1, {Demand(1, {{"high", 3}})}, &why)) << why;
  EXPECT_EQ(Describe(inv_.AllocationOf(1)),
            (std::vector<std::string>{"0/0 a/gpu-40a high x2", "0/0 a/gpu-40b high x1"}));
  // Pod 0 skips a (1 left), pod 1 skips b (1 left after pod 0): each pod on one node.
  ASSERT_TRUE(inv_.Allocate(2, {Demand(2, {{"high", 3}})}, &why)) << why;
  EXPECT_EQ(Describe(inv_.AllocationOf(2)),
            (std::vector<std::string>{"0/0 b/gpu-40a high x2", "0/0 b/gpu-40b high x1",
                                      "0/1 c/gpu-40a high x2", "0/1 c/gpu-40b high x1"}));
  // A 1-device pod now goes back to the first node with room.
  ASSERT_TRUE(inv_.Allocate(3, {Demand(1, {{"high", 1}})}, &why)) << why;
  EXPECT_EQ(Describe(inv_.AllocationOf(3)), (std::vector<std::string>{"0/0 a/gpu-40b high x1"}));
  EXPECT_EQ(inv_.FreeDevices("a", 0), 2);  // 16Gi devices are never taken for "high"
  EXPECT_EQ(inv_.FreeDevices("a", 1), 0);
  EXPECT_EQ(inv_.FreeDevices("a", 2), 0);
  EXPECT_EQ(inv_.FreeDevices("b", 2), 1);
  EXPECT_EQ(inv_.FreeDevices("c", 2), 1);
  EXPECT_EQ(inv_.FreeDevices("c", 3), -1);
  EXPECT_EQ(inv_.FreeDevices("d", 0), -1);
}

TEST_F(FirstFitTest, PodSetsAndPodsInOrderSeeEarlierTakes) {
  std::string why;
  // Pod set 0 fills a and b; pod set 1's pod goes to c.
  ASSERT_TRUE(inv_.Allocate(1, {Demand(2, {{"high", 4}}), Demand(1, {{"high", 2}})}, &why)) << why;
  EXPECT_EQ(Describe(inv_.AllocationOf(1)),
            (std::vector<std::string>{"0/0 a/gpu-40a high x2", "0/0 a/gpu-40b high x2",
                                      "0/1 b/gpu-40a high x2", "0/1 b/gpu-40b high x2",
                                      "1/0 c/gpu-40a high x2"}));
  // Each pod set alone fits in what is left (c has 2), but not both: pod set 1 is short.
  std::optional<std::string> shortage =
      inv_.CheckFit({Demand(1, {{"high", 2}}), Demand(1, {{"high", 1}})});
  ASSERT_TRUE(shortage.has_value());
  EXPECT_NE(shortage->find("0 of 1 pods of pod set 1 placed"), std::string::npos) << *shortage;
  EXPECT_FALSE(inv_.CheckFit({Demand(1, {{"high", 2}})}).has_value());
}

TEST_F(FirstFitTest, AllOfAPodsClassesComeFromOneNode) {
  inv_.UpsertClass(FastNic());
  inv_.UpsertNode(Node("b", {}, {Gpu("gpu-40", 4, "40Gi"), Nic("nic-100", 1, "100Gbps")}));
  std::string why;
  ASSERT_TRUE(inv_.Allocate(1, {Demand(1, {{"high", 2}, {"fast.nic", 1}})}, &why)) << why;
  // a has GPUs but no NIC: the pod lands on b; classes in name order ("fast.nic" < "high").
  EXPECT_EQ(Describe(inv_.AllocationOf(1)),
            (std::vector<std::string>{"0/0 b/nic-100 fast.nic x1", "0/0 b/gpu-40 high x2"}));
}

TEST_F(FirstFitTest, DuplicateClassesAddUpAndNonPositiveCountsAreIgnored) {
  std::string why;
  ASSERT_TRUE(inv_.Allocate(1, {Demand(1, {{"high", 1}, {"high", 2}, {"unknown", 0}})}, &why))
      << why;
  EXPECT_EQ(Describe(inv_.AllocationOf(1)),
            (std::vector<std::string>{"0/0 a/gpu-40a high x2", "0/0 a/gpu-40b high x1"}));
  // Nothing to place: success without a record.
  EXPECT_FALSE(inv_.CheckFit({Demand(0, {{"high", 100}}), Demand(3, {})}).has_value());
  ASSERT_TRUE(inv_.Allocate(2, {Demand(0, {{"high", 100}})}, &why)) << why;
  EXPECT_EQ(inv_.AllocationOf(2), nullptr);
}

TEST_F(FirstFitTest, UnknownClassAndDoubleAllocationFail) {
  std::optional<std::string> shortage = inv_.CheckFit({Demand(1, {{"tpu", 1}})});
  ASSERT_TRUE(shortage.has_value());
  EXPECT_EQ(*shortage, "pod set 0: resource class \"tpu\" does not exist");
  std::string why;
  ASSERT_TRUE(inv_.Allocate(1, {Demand(1, {{"high", 1}})}, &why)) << why;
  EXPECT_FALSE(inv_.Allocate(1, {Demand(1, {{"high", 1}})}, &why));
  EXPECT_EQ(why, "owner 1 already holds devices");
  EXPECT_EQ(StatusOf(inv_, "high").requested, 1);
}

// --- Flavors
// --------------------------------------------------------------------------------------

TEST(DeviceInventoryFlavorTest, OnlyNodesCarryingEveryFlavorLabel) {
  DeviceInventory inv;
  inv.UpsertClass(HighMem());
  inv.UpsertNode(Node("a", {{"pool", "x"}}, {Gpu("g", 4, "40Gi")}));
  inv.UpsertNode(Node("b", {{"pool", "y"}}, {Gpu("g", 4, "40Gi")}));
  inv.UpsertNode(Node("c", {{"pool", "y"}, {"zone", "1"}}, {Gpu("g", 4, "40Gi")}));
  std::string why;
  ASSERT_TRUE(inv.Allocate(1, {Demand(1, {{"high", 1}}, {{"pool", "y"}, {"zone", "1"}})}, &why));
  ASSERT_TRUE(inv.Allocate(2, {Demand(1, {{"high", 1}}, {{"pool", "y"}})}, &why));
  ASSERT_TRUE(inv.Allocate(3, {Demand(1, {{"high", 1}})}, &why));  // no nodeLabels: every node
  EXPECT_EQ(inv.AllocationOf(1)->front().node, "c");
  EXPECT_EQ(inv.AllocationOf(2)->front().node, "b");
  EXPECT_EQ(inv.AllocationOf(3)->front().node, "a");
  // Pool y has 3 + 3 free, but not 4 on one node.
  std::optional<std::string> shortage = inv.CheckFit({Demand(1, {{"high", 4}}, {{"pool", "y"}})});
  ASSERT_TRUE(shortage.has_value());
  EXPECT_EQ(*shortage,
            "resource class \"high\": 0 of 1 pods of pod set 0 placed (need 4 devices per pod on "
            "one node; the flavor's nodes have 6 of 8 such devices free, on 2 of 2 nodes, at most "
            "3 on one node)");
  shortage = inv.CheckFit({Demand(1, {{"high", 1}}, {{"pool", "z"}})});
  ASSERT_TRUE(shortage.has_value());
  EXPECT_EQ(
      *shortage,
      "resource class \"high\": 0 of 1 pods of pod set 0 placed (need 1 device per pod on one "
      "node; no node of the flavor has such devices)");
}

// --- Fragmentation
// ----------------------------------------------------------------------------------

// The brief's example: 2 nodes with 4 free devices and 3 with 2: 3 pods of 4 place only 2.
TEST(DeviceInventoryFragmentationTest, EnoughInTotalButNotOnOneNode) {
  DeviceInventory inv;
  inv.UpsertClass(HighMem());
  for (const char* name : {"n1", "n2"}) {
    inv.UpsertNode(Node(name, {}, {Gpu("g", 4, "80Gi")}));
  }
  for (const char* name : {"n3", "n4", "n5"}) {
    inv.UpsertNode(Node(name, {}, {Gpu("g", 1, "40Gi"), Gpu("h", 1, "32Gi")}));
  }
  const std::vector<PodSetDeviceDemand> demand = {Demand(3, {{"high", 4}})};
  std::optional<std::string> shortage = inv.CheckFit(demand);
  ASSERT_TRUE(shortage.has_value());
  EXPECT_EQ(*shortage,
            "resource class \"high\": 2 of 3 pods of pod set 0 placed (need 4 devices per pod on "
            "one node; after placing them, the flavor's nodes have 6 of 14 such devices free, on "
            "3 of 5 nodes, at most 2 on one node)");
  // CheckFit changed nothing; Allocate fails the same way and changes nothing either.
  EXPECT_EQ(StatusOf(inv, "high").requested, 0);
  std::string why;
  EXPECT_FALSE(inv.Allocate(7, demand, &why));
  EXPECT_EQ(why, *shortage);
  EXPECT_EQ(inv.AllocationOf(7), nullptr);
  EXPECT_EQ(StatusOf(inv, "high").requested, 0);
  for (const char* name : {"n1", "n2"}) {
    EXPECT_EQ(inv.FreeDevices(name, 0), 4);
  }
  EXPECT_FALSE(inv.CheckFit({Demand(2, {{"high", 4}}), Demand(3, {{"high", 2}})}).has_value());
}

// Two classes that each fit somewhere, but share the only entry of the node.
TEST(DeviceInventoryFragmentationTest, ClassesSharingAnEntryOnOneNode) {
  DeviceInventory inv;
  inv.UpsertClass(HighMem());
  inv.UpsertClass(AnyGpu());
  inv.UpsertNode(Node("a", {}, {Gpu("g", 2, "40Gi")}));
  // "any-gpu" (first by name) takes both devices; "high" finds none left on the node.
  std::optional<std::string> shortage = inv.CheckFit({Demand(1, {{"high", 1}, {"any-gpu", 2}})});
  ASSERT_TRUE(shortage.has_value());
  EXPECT_EQ(
      *shortage,
      "0 of 1 pods of pod set 0 placed: no node of the flavor has all of a pod's devices free "
      "at once (per pod: \"any-gpu\" 2 (at most 2 free on one node), \"high\" 1 (at most 2 "
      "free on one node))");
  EXPECT_FALSE(inv.CheckFit({Demand(1, {{"high", 1}, {"any-gpu", 1}})}).has_value());
}

// --- Status
// -----------------------------------------------------------------------------------------

TEST(DeviceInventoryStatusTest, AllocatableAndRequestedFollowEveryEvent) {
  DeviceInventory inv;
  EXPECT_FALSE(inv.HasClasses());
  inv.UpsertNode(
      Node("a", {}, {Gpu("g16", 2, "16Gi"), Gpu("g40", 4, "40Gi"), Nic("n", 2, "100Gbps")}));
  // Class created over existing nodes.
  inv.UpsertClass(HighMem());
  inv.UpsertClass(AnyGpu());
  EXPECT_TRUE(inv.HasClasses());
  EXPECT_TRUE(inv.IsClass("high"));
  EXPECT_FALSE(inv.IsClass("nvidia.com/gpu"));
  ASSERT_NE(inv.FindClass("high"), nullptr);
  EXPECT_EQ(inv.FindClass("high")->resource_selector.size(), 1u);
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 4);
  EXPECT_EQ(StatusOf(inv, "any-gpu").allocatable, 6);
  // Node added.
  inv.UpsertNode(Node("b", {}, {Gpu("g32", 2, "32Gi")}));
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 6);
  EXPECT_EQ(StatusOf(inv, "any-gpu").allocatable, 8);
  // Allocate "high": any-gpu selects those devices too, so its requested rises as well.
  std::string why;
  ASSERT_TRUE(inv.Allocate(1, {Demand(1, {{"high", 3}})}, &why)) << why;
  EXPECT_EQ(StatusOf(inv, "high").requested, 3);
  EXPECT_EQ(StatusOf(inv, "any-gpu").requested, 3);
  // Allocate "any-gpu": the 16Gi devices come first on a; "high" does not select them.
  ASSERT_TRUE(inv.Allocate(2, {Demand(1, {{"any-gpu", 2}})}, &why)) << why;
  EXPECT_EQ(Describe(inv.AllocationOf(2)), (std::vector<std::string>{"0/0 a/g16 any-gpu x2"}));
  EXPECT_EQ(StatusOf(inv, "high").requested, 3);
  EXPECT_EQ(StatusOf(inv, "any-gpu").requested, 5);
  // A class created after the allocations counts the allocated devices it selects.
  inv.UpsertClass(Class("big", {{"memory", Op::kGt, {"32Gi"}}}));
  EXPECT_EQ(StatusOf(inv, "big").allocatable, 4);
  EXPECT_EQ(StatusOf(inv, "big").requested, 3);
  // Status is sorted by name.
  std::vector<ResourceClassStatus> all = inv.Status();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "any-gpu");
  EXPECT_EQ(all[1].name, "big");
  EXPECT_EQ(all[2].name, "high");
  // Release.
  inv.Release(1);
  EXPECT_EQ(inv.AllocationOf(1), nullptr);
  EXPECT_EQ(StatusOf(inv, "high").requested, 0);
  EXPECT_EQ(StatusOf(inv, "big").requested, 0);
  EXPECT_EQ(StatusOf(inv, "any-gpu").requested, 2);
  inv.Release(1);  // unknown owner: no-op
  EXPECT_EQ(StatusOf(inv, "any-gpu").requested, 2);
  // Node changed: a loses its 40Gi devices; owner 2 (on a) is evicted.
  EXPECT_EQ(inv.UpsertNode(Node("a", {}, {Gpu("g16", 2, "16Gi")})), std::vector<uint32_t>{2});
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 2);
  EXPECT_EQ(StatusOf(inv, "any-gpu").allocatable, 4);
  EXPECT_EQ(StatusOf(inv, "any-gpu").requested, 0);
  // Node removed.
  EXPECT_TRUE(inv.DeleteNode("b").empty());
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 0);
  EXPECT_EQ(StatusOf(inv, "any-gpu").allocatable, 2);
  EXPECT_TRUE(inv.DeleteNode("b").empty());  // already gone
  // Class deleted: its allocations stay and still count for the others.
  ASSERT_TRUE(inv.Allocate(3, {Demand(1, {{"any-gpu", 1}})}, &why)) << why;
  inv.DeleteClass("any-gpu");
  EXPECT_FALSE(inv.IsClass("any-gpu"));
  EXPECT_FALSE(inv.StatusOf("any-gpu").has_value());
  EXPECT_EQ(inv.FreeDevices("a", 0), 1);
  inv.UpsertClass(AnyGpu());
  EXPECT_EQ(StatusOf(inv, "any-gpu").requested, 1);
  inv.Release(3);
  EXPECT_EQ(StatusOf(inv, "any-gpu").requested, 0);
  inv.DeleteClass("nothing");  // unknown: no-op
  EXPECT_EQ(inv.Status().size(), 3u);
}

TEST(DeviceInventoryStatusTest, ClassUpsertReselectsOnlyWhenSelectorsChange) {
  DeviceInventory inv;
  inv.UpsertNode(Node("a", {}, {Gpu("g16", 2, "16Gi"), Gpu("g40", 2, "40Gi")}));
  inv.UpsertClass(HighMem());
  std::string why;
  ASSERT_TRUE(inv.Allocate(1, {Demand(1, {{"high", 2}})}, &why)) << why;
  ResourceClassSpec same = HighMem();
  same.source.file = "b.yaml";
  inv.UpsertClass(same);
  EXPECT_EQ(inv.FindClass("high")->source.file, "b.yaml");
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 2);
  // Lower the threshold: 16Gi devices join; the allocation stays and still counts.
  inv.UpsertClass(
      Class("high", {{"Kind", Op::kIn, {"nvidia-gpu"}}, {"memory", Op::kGtEq, {"8G"}}}));
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 4);
  EXPECT_EQ(StatusOf(inv, "high").requested, 2);
  ASSERT_NE(inv.AllocationOf(1), nullptr);
  ASSERT_TRUE(inv.Allocate(2, {Demand(1, {{"high", 2}})}, &why)) << why;
  EXPECT_EQ(Describe(inv.AllocationOf(2)), (std::vector<std::string>{"0/0 a/g16 high x2"}));
}

// --- Node changes
// -----------------------------------------------------------------------------------

TEST(DeviceInventoryNodeTest, DeletionReturnsOwnersAndFreesThemEverywhere) {
  DeviceInventory inv;
  inv.UpsertClass(HighMem());
  for (const char* name : {"a", "b", "c"}) {
    inv.UpsertNode(Node(name, {{"pool", "x"}}, {Gpu("g", 2, "40Gi")}));
  }
  std::string why;
  ASSERT_TRUE(inv.Allocate(5, {Demand(2, {{"high", 2}})}, &why)) << why;  // a and b
  ASSERT_TRUE(inv.Allocate(3, {Demand(1, {{"high", 1}})}, &why)) << why;  // c
  ASSERT_TRUE(inv.Allocate(4, {Demand(1, {{"high", 1}})}, &why)) << why;  // c
  // An upsert that changes nothing (only the source) keeps everything.
  NodeSpec same = Node("c", {{"pool", "x"}}, {Gpu("g", 2, "40Gi")});
  same.source.line = 12;
  EXPECT_TRUE(inv.UpsertNode(same).empty());
  EXPECT_EQ(inv.FindNode("c")->source.line, 12);
  EXPECT_EQ(StatusOf(inv, "high").requested, 6);
  // A label change evicts the owners on the node (ascending).
  EXPECT_EQ(inv.UpsertNode(Node("c", {{"pool", "y"}}, {Gpu("g", 2, "40Gi")})),
            (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(inv.AllocationOf(3), nullptr);
  EXPECT_EQ(inv.AllocationOf(4), nullptr);
  EXPECT_EQ(inv.FreeDevices("c", 0), 2);
  EXPECT_EQ(StatusOf(inv, "high").requested, 4);
  // Deleting a releases owner 5 entirely, including its pod on b.
  EXPECT_EQ(inv.DeleteNode("a"), std::vector<uint32_t>{5});
  EXPECT_EQ(inv.AllocationOf(5), nullptr);
  EXPECT_EQ(inv.FreeDevices("b", 0), 2);
  EXPECT_EQ(inv.FindNode("a"), nullptr);
  EXPECT_EQ(StatusOf(inv, "high").requested, 0);
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 4);
  // A re-added node is first in name order again.
  inv.UpsertNode(Node("a", {}, {Gpu("g", 1, "40Gi")}));
  ASSERT_TRUE(inv.Allocate(6, {Demand(1, {{"high", 1}})}, &why)) << why;
  EXPECT_EQ(inv.AllocationOf(6)->front().node, "a");
}

TEST(DeviceInventoryNodeTest, NegativeCountsHoldNoDevices) {
  DeviceInventory inv;
  inv.UpsertClass(HighMem());
  inv.UpsertNode(Node("a", {}, {Gpu("g", -3, "40Gi"), Gpu("h", 0, "40Gi")}));
  EXPECT_EQ(StatusOf(inv, "high").allocatable, 0);
  EXPECT_TRUE(inv.CheckFit({Demand(1, {{"high", 1}})}).has_value());
}

// --- Property test
// ----------------------------------------------------------------------------------

// The oracle: the specs and the grants, and everything else recomputed from them on demand.
struct Oracle {
  std::map<std::string, ResourceClassSpec> classes;
  std::map<std::string, NodeSpec> nodes;
  std::map<uint32_t, std::vector<DeviceGrant>> grants;

  const DeviceSpec* FindDevice(const std::string& node, const std::string& device) const {
    auto it = nodes.find(node);
    if (it == nodes.end()) {
      return nullptr;
    }
    for (const DeviceSpec& d : it->second.devices) {
      if (d.name == device) {
        return &d;
      }
    }
    return nullptr;
  }

  // Device names are unique per node in the generator, so (node, device) names one entry.
  int64_t Held(const std::string& node, const std::string& device) const {
    int64_t held = 0;
    for (const auto& [owner, list] : grants) {
      for (const DeviceGrant& g : list) {
        held += g.node == node && g.device == device ? g.count : 0;
      }
    }
    return held;
  }

  std::vector<ResourceClassStatus> Status() const {
    std::vector<ResourceClassStatus> out;
    for (const auto& [name, rc] : classes) {
      ResourceClassStatus s{name, 0, 0};
      for (const auto& [node_name, node] : nodes) {
        for (const DeviceSpec& d : node.devices) {
          s.allocatable += Selects(rc, d) ? std::max(d.count, 0) : 0;
        }
      }
      for (const auto& [owner, list] : grants) {
        for (const DeviceGrant& g : list) {
          const DeviceSpec* d = FindDevice(g.node, g.device);
          s.requested += d != nullptr && Selects(rc, *d) ? g.count : 0;
        }
      }
      out.push_back(s);
    }
    return out;
  }

  // First-fit written plainly from the header's description; nullopt when something does not fit.
  std::optional<std::vector<DeviceGrant>> Place(
      const std::vector<PodSetDeviceDemand>& demands) const {
    std::map<std::pair<std::string, std::string>, int64_t> free;
    for (const auto& [name, node] : nodes) {
      for (const DeviceSpec& d : node.devices) {
        free[{name, d.name}] = std::max(d.count, 0) - Held(name, d.name);
      }
    }
    std::vector<DeviceGrant> out;
    for (size_t ps = 0; ps < demands.size(); ++ps) {
      if (demands[ps].pods <= 0) {
        continue;
      }
      std::map<std::string, int64_t> per_pod;
      for (const auto& [name, count] : demands[ps].per_pod) {
        if (count > 0) {
          per_pod[name] += count;
        }
      }
      for (const auto& [name, count] : per_pod) {
        if (classes.count(name) == 0) {
          return std::nullopt;
        }
      }
      if (per_pod.empty()) {
        continue;
      }
      for (int32_t pod = 0; pod < demands[ps].pods; ++pod) {
        bool placed = false;
        for (const auto& [node_name, node] : nodes) {
          bool on_flavor = true;
          for (const auto& [k, v] : demands[ps].flavor_node_labels) {
            auto it = node.labels.find(k);
            on_flavor = on_flavor && it != node.labels.end() && it->second == v;
          }
          if (!on_flavor) {
            continue;
          }
          auto trial = free;
          std::vector<DeviceGrant> pod_grants;
          bool fits = true;
          for (const auto& [cls, count] : per_pod) {
            int64_t remaining = count;
            for (const DeviceSpec& d : node.devices) {
              int64_t& f = trial[{node_name, d.name}];
              if (remaining > 0 && f > 0 && Selects(classes.at(cls), d)) {
                int64_t take = std::min(f, remaining);
                f -= take;
                remaining -= take;
                pod_grants.push_back({static_cast<uint32_t>(ps), pod, node_name, d.name, cls,
                                      static_cast<int32_t>(take)});
              }
            }
            fits = fits && remaining == 0;
          }
          if (fits) {
            free = trial;
            out.insert(out.end(), pod_grants.begin(), pod_grants.end());
            placed = true;
            break;
          }
        }
        if (!placed) {
          return std::nullopt;
        }
      }
    }
    return out;
  }

  std::vector<uint32_t> OwnersOn(const std::string& node) const {
    std::vector<uint32_t> out;
    for (const auto& [owner, list] : grants) {
      if (std::any_of(list.begin(), list.end(),
                      [&](const DeviceGrant& g) { return g.node == node; })) {
        out.push_back(owner);
      }
    }
    return out;
  }
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Uniform(0, static_cast<int>(v.size()) - 1))];
  }

  ResourceClassSpec RandomClass() {
    static const std::vector<std::vector<DeviceSelectorRequirement>> kTemplates = {
        {{"Kind", Op::kIn, {"nvidia-gpu"}}},
        {{"Kind", Op::kIn, {"nvidia-gpu"}}, {"memory", Op::kGtEq, {"30G"}}},
        {{"memory", Op::kLt, {"32Gi"}}},
        {{"Kind", Op::kIn, {"nic"}}, {"speed", Op::kGtEq, {"40GBPS"}}},
        {{"Kind", Op::kNotIn, {"nic"}}},
        {{"speed", Op::kDoesNotExist, {}}, {"memory", Op::kEq, {"32Gi"}}},
        {},  // matches nothing
    };
    ResourceClassSpec rc;
    rc.name = Pick(kClassNames);
    const int selectors = Uniform(1, 2);
    for (int i = 0; i < selectors; ++i) {
      rc.resource_selector.push_back(DevicePropertySelector{Pick(kTemplates)});
    }
    return rc;
  }

  NodeSpec RandomNode() {
    static const std::vector<std::string> kMemory = {"16Gi", "28Gi", "30G", "32Gi", "80Gi"};
    static const std::vector<std::string> kSpeed = {"10GBPS", "40GBPS", "100Gbps", "40G"};
    NodeSpec n;
    n.name = Pick(kNodeNames);
    if (Uniform(0, 2) > 0) {
      n.labels["pool"] = Uniform(0, 1) == 0 ? "x" : "y";
    }
    const int entries = Uniform(0, 4);
    for (int e = 0; e < entries; ++e) {
      DeviceSpec d;
      d.name = fmt::format("d{}", e);
      d.count = Uniform(-1, 6);
      if (Uniform(0, 2) == 0) {
        d.kind = "nic";
        d.properties["speed"] = Pick(kSpeed);
      } else {
        d.kind = "nvidia-gpu";
        if (Uniform(0, 4) > 0) {
          d.properties["memory"] = Pick(kMemory);
        }
      }
      n.devices.push_back(d);
    }
    return n;
  }

  std::vector<PodSetDeviceDemand> RandomDemands() {
    std::vector<PodSetDeviceDemand> out;
    const int pod_sets = Uniform(1, 2);
    for (int i = 0; i < pod_sets; ++i) {
      PodSetDeviceDemand d;
      if (Uniform(0, 2) == 0) {
        d.flavor_node_labels["pool"] = Uniform(0, 1) == 0 ? "x" : "y";
      }
      d.pods = Uniform(0, 2);
      const int classes = Uniform(1, 2);
      for (int c = 0; c < classes; ++c) {
        d.per_pod.emplace_back(Uniform(0, 9) == 0 ? std::string("missing") : Pick(kClassNames),
                               Uniform(0, 2));
      }
      out.push_back(d);
    }
    return out;
  }

 private:
  inline static const std::vector<std::string> kClassNames = {"c0", "c1", "c2", "c3"};
  inline static const std::vector<std::string> kNodeNames = {"n0", "n1", "n2", "n3", "n4", "n5"};
  std::mt19937_64 rng_;
};

bool SameGrants(const std::vector<DeviceGrant>& a, const std::vector<DeviceGrant>& b) {
  std::vector<std::string> da;
  std::vector<std::string> db;
  for (const DeviceGrant& g : a) {
    da.push_back(Describe(g));
  }
  for (const DeviceGrant& g : b) {
    db.push_back(Describe(g));
  }
  return da == db;
}

// Compares every observable count with the oracle's from-scratch values.
void ExpectMatches(const DeviceInventory& inv, const Oracle& oracle, const std::string& where) {
  std::vector<ResourceClassStatus> got = inv.Status();
  std::vector<ResourceClassStatus> want = oracle.Status();
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << where;
    EXPECT_EQ(got[i].allocatable, want[i].allocatable) << where << " " << got[i].name;
    EXPECT_EQ(got[i].requested, want[i].requested) << where << " " << got[i].name;
    EXPECT_LE(got[i].requested, got[i].allocatable) << where << " " << got[i].name;
    EXPECT_GE(got[i].requested, 0) << where << " " << got[i].name;
  }
  for (const auto& [name, node] : oracle.nodes) {
    for (size_t e = 0; e < node.devices.size(); ++e) {
      const int64_t free =
          std::max(node.devices[e].count, 0) - oracle.Held(name, node.devices[e].name);
      EXPECT_GE(free, 0) << where;
      EXPECT_EQ(inv.FreeDevices(name, e), free) << where << " " << name << "/" << e;
    }
  }
  for (const auto& [owner, list] : oracle.grants) {
    const std::vector<DeviceGrant>* held = inv.AllocationOf(owner);
    ASSERT_NE(held, nullptr) << where << " owner " << owner;
    EXPECT_TRUE(SameGrants(*held, list)) << where << " owner " << owner;
  }
}

void RunRandomSequence(uint64_t seed, int steps) {
  Generator gen(seed);
  DeviceInventory inv;
  Oracle oracle;
  // Start from a populated cluster (random names may repeat: then it is an update).
  for (int i = 0; i < 4; ++i) {
    ResourceClassSpec rc = gen.RandomClass();
    inv.UpsertClass(rc);
    oracle.classes[rc.name] = rc;
    NodeSpec n = gen.RandomNode();
    EXPECT_TRUE(inv.UpsertNode(n).empty());
    oracle.nodes[n.name] = n;
  }
  constexpr uint32_t kOwners = 8;
  int allocations = 0;  // successful, with grants
  int shortages = 0;    // CheckFit said no
  int evictions = 0;    // owners released by node changes
  for (int step = 0; step < steps; ++step) {
    const std::string where = fmt::format("seed {} step {}", seed, step);
    // Weights: class upsert 2, class delete 1, node upsert 3, node delete 1, allocate 8,
    // release 5 (out of 20): enough churn to evict, enough allocation to fill nodes up.
    const int roll = gen.Uniform(0, 19);
    const int kind = roll < 2 ? 0 : roll < 3 ? 1 : roll < 6 ? 2 : roll < 7 ? 4 : roll < 15 ? 5 : 8;
    if (kind == 0) {
      ResourceClassSpec rc = gen.RandomClass();
      inv.UpsertClass(rc);
      oracle.classes[rc.name] = rc;
    } else if (kind == 1) {
      ResourceClassSpec rc = gen.RandomClass();
      inv.DeleteClass(rc.name);
      oracle.classes.erase(rc.name);
    } else if (kind == 2) {
      NodeSpec n = gen.RandomNode();
      auto it = oracle.nodes.find(n.name);
      if (it != oracle.nodes.end() && gen.Uniform(0, 2) == 0) {
        n = it->second;  // an unchanged upsert now and then
      }
      bool changed =
          it != oracle.nodes.end()
          && (it->second.labels != n.labels || it->second.devices.size() != n.devices.size()
              || !std::equal(n.devices.begin(), n.devices.end(), it->second.devices.begin(),
                             [](const DeviceSpec& a, const DeviceSpec& b) {
                               return a.name == b.name && a.kind == b.kind && a.count == b.count
                                      && a.properties == b.properties;
                             }));
      std::vector<uint32_t> want = changed ? oracle.OwnersOn(n.name) : std::vector<uint32_t>{};
      EXPECT_EQ(inv.UpsertNode(n), want) << where;
      evictions += static_cast<int>(want.size());
      for (uint32_t owner : want) {
        oracle.grants.erase(owner);
      }
      oracle.nodes[n.name] = n;
    } else if (kind == 4) {
      NodeSpec n = gen.RandomNode();
      std::vector<uint32_t> want = oracle.OwnersOn(n.name);
      EXPECT_EQ(inv.DeleteNode(n.name), want) << where;
      evictions += static_cast<int>(want.size());
      for (uint32_t owner : want) {
        oracle.grants.erase(owner);
      }
      oracle.nodes.erase(n.name);
    } else if (kind == 5) {
      const auto owner = static_cast<uint32_t>(gen.Uniform(1, kOwners));
      std::vector<PodSetDeviceDemand> demands = gen.RandomDemands();
      std::optional<std::vector<DeviceGrant>> want = oracle.Place(demands);
      const bool holds = oracle.grants.count(owner) > 0;
      EXPECT_EQ(!inv.CheckFit(demands).has_value(), want.has_value()) << where;
      shortages += want.has_value() ? 0 : 1;
      std::string why;
      const bool ok = inv.Allocate(owner, demands, &why);
      EXPECT_EQ(ok, want.has_value() && !holds) << where << " " << why;
      EXPECT_EQ(ok, why.empty()) << where;
      if (ok && !want->empty()) {
        oracle.grants[owner] = *want;
        ++allocations;
      }
      if (ok && want->empty()) {
        EXPECT_EQ(inv.AllocationOf(owner), nullptr) << where;
      }
    } else {
      const auto owner = static_cast<uint32_t>(gen.Uniform(1, kOwners));
      inv.Release(owner);
      oracle.grants.erase(owner);
    }
    ExpectMatches(inv, oracle, where);
    if (::testing::Test::HasFailure()) {
      return;  // one divergence is enough to debug
    }
  }
  // The sequence must have exercised allocation, shortage and eviction for the test to mean
  // something (seeds 1..12 give 15..30 allocations, 62..105 shortages, 7..16 evictions).
  EXPECT_GT(allocations, 5) << "seed " << seed;
  EXPECT_GT(shortages, 5) << "seed " << seed;
  EXPECT_GT(evictions, 0) << "seed " << seed;
  for (uint32_t owner = 1; owner <= kOwners; ++owner) {
    inv.Release(owner);
  }
  oracle.grants.clear();
  ExpectMatches(inv, oracle, "after releasing everyone");
  for (const ResourceClassStatus& s : inv.Status()) {
    EXPECT_EQ(s.requested, 0) << s.name;
  }
}

TEST(DeviceInventoryPropertyTest, MatchesFromScratchOracle) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RunRandomSequence(seed, 400);
    if (HasFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace engine
