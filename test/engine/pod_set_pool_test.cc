// engine::PodSetPool (engine/pod_set_pool.h) inside a WorkloadStore: stored Workloads with equal
// pod-set lists share one, what the list decides (Misconfigured) is worked out once per list, and
// the pool holds no more than the lists in use, and a miss hands the caller storage to reuse.
#include "engine/pod_set_pool.h"

#include <fmt/format.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/pod_requests.h"
#include "engine/workload_store.h"
#include "test/engine/cpu_cluster_spec.h"

namespace engine {
namespace {

class PodSetPoolTest : public ::testing::Test {
 protected:
  PodSetPoolTest() : store_(cluster_) { cluster_.Apply(CpuClusterSpec({"cq"})); }

  // One pod set of `count` pods, one container requesting `cpu` (and limited to `limit`).
  static WorkloadSpec Spec(const std::string& name, int count, const char* cpu,
                           const char* limit = nullptr) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = name;
    w.queue_name = "lq";
    PodSetSpec& ps = w.pod_sets.emplace_back();
    ps.count = count;
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity(cpu));
    if (limit != nullptr) {
      AddTo(c.limits, "cpu", *ParseDecimalQuantity(limit));
    }
    return w;
  }

  WorkloadId Add(WorkloadSpec spec) { return *store_.AddSwapping(spec); }
  const WorkloadSpec& StoredSpec(WorkloadId id) const { return *store_.Get(id).spec; }

  Cluster cluster_;
  WorkloadStore store_;
};

TEST_F(PodSetPoolTest, EqualListsAreStoredOnceAndTheRequestsPointIntoIt) {
  const WorkloadId a = Add(Spec("a", 2, "1"));
  const WorkloadId b = Add(Spec("b", 2, "1"));
  EXPECT_TRUE(StoredSpec(a).pod_sets.SharesWith(StoredSpec(b).pod_sets));
  EXPECT_EQ(store_.Get(a).pod_sets[0].spec, store_.Get(b).pod_sets[0].spec);
  EXPECT_EQ(store_.Get(a).pod_sets[0].spec, &StoredSpec(a).pod_sets[0]);
  EXPECT_EQ(store_.pooled_pod_set_lists(), 1u);
}

// Their requests too (Workload::pod_sets), while no pod is reclaimable: a Workload whose pods
// become reclaimable gets requests of its own, and the others keep theirs.
TEST_F(PodSetPoolTest, EqualListsShareTheirRequestsUntilPodsAreReclaimable) {
  const WorkloadId a = Add(Spec("a", 2, "1"));
  const WorkloadId b = Add(Spec("b", 2, "1"));
  EXPECT_TRUE(store_.Get(a).pod_sets.SharesWith(store_.Get(b).pod_sets));
  WorkloadSpec reclaiming = Spec("c", 2, "1");
  reclaiming.reclaimable_pods.Mutable()["main"] = 1;
  const WorkloadId c = Add(reclaiming);
  EXPECT_TRUE(StoredSpec(c).pod_sets.SharesWith(StoredSpec(a).pod_sets));
  EXPECT_FALSE(store_.Get(c).pod_sets.SharesWith(store_.Get(a).pod_sets));
  EXPECT_EQ(store_.Get(c).pod_sets[0].count, 1);

  ASSERT_TRUE(store_.SetReclaimablePods(b, {{"main", 1}}));
  EXPECT_FALSE(store_.Get(b).pod_sets.SharesWith(store_.Get(a).pod_sets));
  EXPECT_EQ(store_.Get(b).pod_sets[0].count, 1);
  EXPECT_EQ(store_.Get(b).pod_sets[0].total[0].amount, Quantity(1000));
  EXPECT_EQ(store_.Get(a).pod_sets[0].count, 2) << "the write did not reach the shared requests";
  EXPECT_EQ(store_.Get(a).pod_sets[0].total[0].amount, Quantity(2000));
  EXPECT_EQ(store_.Get(Add(Spec("d", 2, "1"))).pod_sets[0].count, 2);
}

TEST_F(PodSetPoolTest, ListsThatDifferInAnyWayAreNotShared) {
  const WorkloadId a = Add(Spec("a", 2, "1"));
  const WorkloadId count = Add(Spec("count", 3, "1"));
  const WorkloadId request = Add(Spec("request", 2, "2"));
  // The same amount written differently: equal requests, but not the same spec as written.
  const WorkloadId written = Add(Spec("written", 2, "1000m"));
  EXPECT_FALSE(StoredSpec(a).pod_sets.SharesWith(StoredSpec(count).pod_sets));
  EXPECT_FALSE(StoredSpec(a).pod_sets.SharesWith(StoredSpec(request).pod_sets));
  EXPECT_FALSE(StoredSpec(a).pod_sets.SharesWith(StoredSpec(written).pod_sets));
  EXPECT_EQ(store_.Get(a).pod_sets[0].total[0].amount,
            store_.Get(written).pod_sets[0].total[0].amount);
  EXPECT_EQ(store_.Get(count).pod_sets[0].count, 3);
  EXPECT_EQ(store_.pooled_pod_set_lists(), 4u);
}

TEST_F(PodSetPoolTest, OnAHitTheCallerKeepsItsOwnListAndItsStorage) {
  Add(Spec("a", 2, "1"));
  WorkloadSpec next = Spec("b", 2, "1");
  const PodSetSpec* storage = next.pod_sets.data();
  const WorkloadId b = *store_.AddSwapping(next);
  ASSERT_EQ(next.pod_sets.size(), 1u) << "handed back for the next spec to be written into";
  EXPECT_EQ(next.pod_sets.data(), storage);
  EXPECT_FALSE(next.pod_sets.SharesWith(StoredSpec(b).pod_sets));
  // The caller writing into it does not reach the stored Workload.
  next.pod_sets[0].count = 9;
  EXPECT_EQ(StoredSpec(b).pod_sets[0].count, 2);
  EXPECT_EQ(store_.Get(b).pod_sets[0].count, 2);
}

TEST_F(PodSetPoolTest, ACopyOfTheCallersSpecStaysItsOwnOnceTheStoreHasIt) {
  WorkloadSpec spec = Spec("a", 2, "1");
  WorkloadSpec copy = spec;  // shares the list with `spec`, which the pool then takes
  const WorkloadId a = Add(std::move(spec));
  copy.pod_sets[0].count = 5;  // copies on write: the pooled list is not touched
  EXPECT_EQ(StoredSpec(a).pod_sets[0].count, 2);
  copy.name = "b";
  const WorkloadId b = Add(copy);
  EXPECT_EQ(store_.Get(b).pod_sets[0].count, 5);
}

TEST_F(PodSetPoolTest, MisconfiguredIsWorkedOutPerListAndMatchesValidateResources) {
  const WorkloadSpec over = Spec("over", 1, "2", "1");  // request above its limit
  ASSERT_FALSE(ValidateResources(over).empty());
  const WorkloadId a = Add(over);
  WorkloadSpec again = over;
  again.name = "again";
  const WorkloadId b = Add(again);  // from the pool
  const WorkloadId ok = Add(Spec("ok", 1, "1", "2"));
  EXPECT_TRUE(store_.Get(a).invalid_resources);
  EXPECT_TRUE(store_.Get(b).invalid_resources);
  EXPECT_FALSE(store_.Get(ok).invalid_resources);
  EXPECT_TRUE(StoredSpec(a).pod_sets.SharesWith(StoredSpec(b).pod_sets));
}

// A pooled list's canonical requests are kept with it, but only for the configuration they were
// worked out under: a Workload added after excludeResourcePrefixes changed is built under the new
// one, like a Workload whose list is new.
TEST_F(PodSetPoolTest, RequestsFollowAResourcesConfigurationChange) {
  WorkloadSpec spec = Spec("a", 2, "1");
  AddTo(spec.pod_sets[0].resources.containers[0].requests, "example.com/foo",
        *ParseDecimalQuantity("3"));
  const WorkloadId a = Add(spec);
  ASSERT_EQ(store_.Get(a).pod_sets[0].per_pod.size(), 2u);

  ConfigurationSpec config = cluster_.configuration();
  config.resources.exclude_resource_prefixes = {"example.com/"};
  cluster_.SetConfiguration(config);
  spec.name = "b";
  const WorkloadId b = Add(spec);
  EXPECT_TRUE(StoredSpec(a).pod_sets.SharesWith(StoredSpec(b).pod_sets));
  EXPECT_FALSE(store_.Get(a).pod_sets.SharesWith(store_.Get(b).pod_sets));
  ASSERT_EQ(store_.Get(b).pod_sets[0].per_pod.size(), 1u) << "the excluded resource is gone";
  EXPECT_EQ(store_.Get(b).pod_sets[0].per_pod[0].resource, *cluster_.FindResource("cpu"));
  EXPECT_EQ(store_.Get(b).pod_sets[0].total[0].amount, Quantity(2000));
}

TEST_F(PodSetPoolTest, ThePoolHoldsAtMostTwiceTheListsInUse) {
  // 3,000 Workloads, each with a list of its own, added and erased with 10 live at a time.
  constexpr int kWorkloads = 3000;
  for (int i = 0; i < kWorkloads; ++i) {
    const WorkloadId id = Add(Spec(fmt::format("w{}", i), i + 1, "1"));
    if (i >= 10) {
      store_.Erase(*store_.Find(fmt::format("ns/w{}", i - 10)));
    }
    ASSERT_LE(store_.pooled_pod_set_lists() + store_.spare_pod_set_lists(),
              size_t{2} * store_.live() + PodSetPool::kMinSweep);
    ASSERT_EQ(store_.Get(id).pod_sets[0].count, i + 1);
  }
  EXPECT_GT(store_.spare_pod_set_lists(), 0u) << "swept lists are kept as spares";
}

// A trace whose Workloads' lists all differ: the pool takes each caller's list, and hands back one
// it swept (no stored spec holds it) for the caller to write its next spec into.
TEST_F(PodSetPoolTest, OnAMissTheCallerGetsASpareListToWriteOver) {
  for (size_t i = 0; i < PodSetPool::kMinSweep; ++i) {
    Add(Spec(fmt::format("gone{}", i), static_cast<int>(i) + 1, "1"));
    store_.Erase(*store_.Find(fmt::format("ns/gone{}", i)));
  }
  const WorkloadId kept = Add(Spec("kept", 1000, "1"));  // this miss sweeps the pool
  ASSERT_GT(store_.spare_pod_set_lists(), 0u);
  WorkloadSpec next = Spec("next", 2000, "1");
  const WorkloadId second = *store_.AddSwapping(next);
  ASSERT_EQ(next.pod_sets.size(), 1u) << "a spare list's storage, not an empty list";
  EXPECT_EQ(next.pod_sets.use_count(), 1) << "held by nothing else";
  EXPECT_FALSE(next.pod_sets.SharesWith(StoredSpec(second).pod_sets));
  // Written over as the replay's event reader does, and added.
  ResetForReuse(next);
  next.name_space = "ns";
  next.name = "third";
  next.queue_name = "lq";
  next.pod_sets[0].count = 3000;
  AddTo(next.pod_sets[0].resources.containers[0].requests, "cpu", *ParseDecimalQuantity("2"));
  const WorkloadId third = *store_.AddSwapping(next);
  EXPECT_EQ(store_.Get(kept).pod_sets[0].count, 1000);
  EXPECT_EQ(store_.Get(second).pod_sets[0].count, 2000);
  EXPECT_EQ(store_.Get(third).pod_sets[0].count, 3000);
  EXPECT_EQ(store_.Get(third).pod_sets[0].total[0].amount, Quantity(6'000'000));
  EXPECT_FALSE(StoredSpec(third).pod_sets.SharesWith(StoredSpec(second).pod_sets));
}

// A list whose buffer another owner holds (a parser's memo, on the reading thread) is copied into
// the pool, not pooled itself: the Workloads stored with it then count their references on the
// pool's buffer, never on the parser's (a two-thread replay moved that count between the cores at
// every line). The caller keeps its list, and the next list sharing the buffer is found by it.
TEST_F(PodSetPoolTest, AListAnotherOwnerSharesIsCopiedIntoThePoolAndLeftToItsOwner) {
  const PodSetList parsers = Spec("memo", 3, "2").pod_sets;
  WorkloadSpec first = Spec("first", 3, "2");
  first.pod_sets = parsers;
  const WorkloadId a = *store_.AddSwapping(first);
  EXPECT_TRUE(first.pod_sets.SharesWith(parsers)) << "the caller keeps the parser's list";
  EXPECT_FALSE(StoredSpec(a).pod_sets.SharesWith(parsers)) << "the pool's own copy";
  EXPECT_EQ(StoredSpec(a).pod_sets[0].count, 3);
  // The parser's buffer: the parser's own reference, the caller's, and the pool's alias.
  EXPECT_EQ(parsers.use_count(), 3);
  WorkloadSpec second = Spec("second", 3, "2");
  second.pod_sets = parsers;
  const WorkloadId b = *store_.AddSwapping(second);
  EXPECT_TRUE(StoredSpec(b).pod_sets.SharesWith(StoredSpec(a).pod_sets));
  EXPECT_EQ(parsers.use_count(), 4) << "adding took no reference on the parser's buffer";
  store_.Erase(a);
  store_.Erase(b);
  EXPECT_EQ(parsers.use_count(), 4);
  EXPECT_EQ(store_.pooled_pod_set_lists(), 1u);
}

// A replay's parser hands out the same buffer for every Workload whose pod sets are written alike
// (replay/io/pod_sets_by_text.h), and two parsers hand out two buffers of one content. The pool
// finds such a list by its buffer. Random adds and erases of lists from 12 such buffers (of 6
// contents; now and then one is let go and replaced) and of lists of their own (which make the pool
// sweep): every stored Workload keeps the content it was added with, Workloads of one content share
// one list, and the pool stays bounded. An alias left pointing at a swept entry, or one that let
// its buffer go (another list could then be allocated at its address), fails the content check.
TEST_F(PodSetPoolTest, ListsSharingABufferAreFoundByItThroughSweeps) {
  std::vector<PodSetList> buffers;
  std::vector<int> buffer_counts;
  for (int i = 0; i < 12; ++i) {
    buffer_counts.push_back(1 + i % 6);
    buffers.push_back(Spec("buffer", buffer_counts.back(), "1").pod_sets);
  }
  std::mt19937 rng(7);
  std::vector<std::pair<std::string, int>> live;  // key, pod count
  int next = 0;
  int own = 0;
  for (int step = 0; step < 6000; ++step) {
    if (!live.empty() && rng() % 2 == 0) {
      const size_t victim = rng() % live.size();
      store_.Erase(*store_.Find(live[victim].first));
      live[victim] = live.back();
      live.pop_back();
      continue;
    }
    if (rng() % 8 == 0) {
      // A parser's memo lets a buffer go and keeps another: the old one may be freed, and the new
      // one allocated at its address (an alias must not take it for the old).
      const size_t k = rng() % buffers.size();
      buffer_counts[k] = 1 + static_cast<int>(rng() % 6);
      buffers[k] = Spec("buffer", buffer_counts[k], "1").pod_sets;
    }
    const std::string name = fmt::format("w{}", next++);
    const size_t pick = rng() % 16;
    int count = 0;
    WorkloadSpec spec;
    if (pick < buffers.size()) {
      count = buffer_counts[pick];
      spec = Spec(name, count, "1");
      spec.pod_sets = buffers[pick];  // shared, as the parser hands it out
    } else {
      count = 100 + own++;
      spec = Spec(name, count, "1");
    }
    Add(std::move(spec));
    live.emplace_back("ns/" + name, count);
    std::map<int, const PodSetList*> by_count;
    for (const auto& [key, pods] : live) {
      const PodSetList& list = StoredSpec(*store_.Find(key)).pod_sets;
      ASSERT_EQ(list.size(), 1u);
      ASSERT_EQ(list[0].count, pods) << key << " at step " << step;
      const auto [it, fresh] = by_count.emplace(pods, &list);
      ASSERT_TRUE(fresh || it->second->SharesWith(list)) << key << ": equal lists not shared";
    }
    ASSERT_LE(store_.pooled_pod_set_lists() + store_.spare_pod_set_lists(),
              size_t{2} * store_.live() + PodSetPool::kMinSweep);
  }
  EXPECT_GT(own, 500) << "enough lists of their own to sweep the pool many times";
}

TEST(PodSetPoolHashTest, EqualListsHashEqual) {
  PodSetSpec ps;
  ps.name = "main";
  ps.count = 4;
  AddTo(ps.resources.containers.emplace_back().requests, "cpu", *ParseDecimalQuantity("500m"));
  ps.node_selector["zone"] = "a";
  const std::vector<PodSetSpec> one{ps};
  const std::vector<PodSetSpec> same{ps};
  EXPECT_EQ(HashPodSets(one), HashPodSets(same));
  PodSetSpec other = ps;
  other.count = 5;
  EXPECT_NE(HashPodSets(one), HashPodSets(std::vector<PodSetSpec>{other}));
}

}  // namespace
}  // namespace engine
