// Storage reuse of workload specs and stored workloads (issue 22): engine::ResetForReuse leaves a
// spec with the values of a new one and its storage in place, and WorkloadStore recycles the
// blocks of erased workloads (Erase, AddSwapping) without a new workload inheriting anything of
// the old one.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/pod_requests.h"
#include "engine/workload.h"
#include "engine/workload_spec.h"
#include "engine/workload_store.h"

namespace engine {
namespace {

DecimalQuantity Q(const char* text) {
  return *ParseDecimalQuantity(text);
}

// A pod set with every field away from its default.
PodSetSpec FullPodSet(const std::string& name) {
  PodSetSpec ps;
  ps.name = name;
  ps.count = 7;
  ps.min_count = 3;
  ContainerResources& c = ps.resources.containers.emplace_back();
  AddTo(c.requests, "cpu", Q("2"));
  AddTo(c.requests, "memory", Q("1Gi"));
  AddTo(c.limits, "cpu", Q("3"));
  c.restartable_sidecar = true;
  ContainerResources& init = ps.resources.init_containers.emplace_back();
  AddTo(init.requests, "cpu", Q("1"));
  AddTo(ps.resources.overhead, "cpu", Q("100m"));
  AddTo(ps.resources.pod_requests, "cpu", Q("4"));
  AddTo(ps.resources.pod_limits, "cpu", Q("5"));
  ps.node_selector["zone"] = "a";
  ps.required_affinity.emplace_back().match_expressions.push_back({"k", "In", {"v"}});
  ps.tolerations.push_back({"gpu", "Exists", "", "NoSchedule"});
  ps.priority_class_name = "a-pod-priority-class-name-beyond-the-short-buffer";
  return ps;
}

// A spec with every field away from its default.
WorkloadSpec FullSpec() {
  WorkloadSpec w;
  w.name_space = "a-namespace-longer-than-fifteen";
  w.name = "a-workload-name-longer-than-fifteen";
  w.uid = "a-uid-that-is-no-uuid-so-kept-as-text";  // a UUID would take no storage to keep
  w.creation_time = 123;
  w.workload_class = "a-class-name-longer-than-fifteen";
  w.expected_runtime = 456;
  w.queue_name = "a-queue-name-longer-than-fifteen";
  w.priority_class_name = "a-priority-class-longer-than-fifteen";
  w.priority = 9;
  w.priority_class_kind = PriorityClassKind::kWorkloadPriorityClass;
  w.active = false;
  w.maximum_execution_time_seconds = 60;
  w.pod_sets.push_back(FullPodSet("driver"));
  w.pod_sets.push_back(FullPodSet("workers"));
  w.admission = AdmissionSpec{"cq", {}};
  w.conditions.Mutable().push_back({"Finished", true, "Done", 789});
  w.reclaimable_pods.Mutable()["workers"] = 2;
  w.admission_checks.Mutable().push_back({"check", CheckState::kReady});
  w.requeue_at = 1000;
  w.requeue_count = 4;
  w.flavor_history.Mutable().push_back({"f", 5, 6, true, true});
  w.source = SourceRef{"a/path/longer/than/fifteen/bytes.jsonl", 3, 4};
  return w;
}

// Every field of a reset pod set has the value of PodSetSpec{} (containers aside: kept, empty).
void ExpectFreshPodSet(const PodSetSpec& ps, const std::string& what) {
  const PodSetSpec fresh;
  EXPECT_EQ(ps.name, fresh.name) << what;
  EXPECT_EQ(ps.count, fresh.count) << what;
  EXPECT_EQ(ps.min_count, fresh.min_count) << what;
  for (const ContainerResources& c : ps.resources.containers) {
    EXPECT_TRUE(c.requests.empty()) << what;
    EXPECT_TRUE(c.limits.empty()) << what;
    EXPECT_FALSE(c.restartable_sidecar) << what;
  }
  EXPECT_TRUE(ps.resources.init_containers.empty()) << what;
  EXPECT_TRUE(ps.resources.overhead.empty()) << what;
  EXPECT_TRUE(ps.resources.pod_requests.empty()) << what;
  EXPECT_TRUE(ps.resources.pod_limits.empty()) << what;
  EXPECT_TRUE(ps.node_selector.empty()) << what;
  EXPECT_TRUE(ps.required_affinity.empty()) << what;
  EXPECT_TRUE(ps.tolerations.empty()) << what;
  EXPECT_EQ(ps.priority_class_name, fresh.priority_class_name) << what;
}

// Every field of `got` has the value it has in `want`.
void ExpectSameSpec(const WorkloadSpec& got, const WorkloadSpec& want, const std::string& what) {
  EXPECT_EQ(got.name_space, want.name_space) << what;
  EXPECT_EQ(got.name, want.name) << what;
  EXPECT_EQ(got.uid, want.uid) << what;
  EXPECT_EQ(got.creation_time, want.creation_time) << what;
  EXPECT_EQ(got.workload_class, want.workload_class) << what;
  EXPECT_EQ(got.expected_runtime, want.expected_runtime) << what;
  EXPECT_EQ(got.queue_name, want.queue_name) << what;
  EXPECT_EQ(got.priority_class_name, want.priority_class_name) << what;
  EXPECT_EQ(got.priority, want.priority) << what;
  EXPECT_EQ(got.priority_class_kind, want.priority_class_kind) << what;
  EXPECT_EQ(got.active, want.active) << what;
  EXPECT_EQ(got.requeue_count, want.requeue_count) << what;
  EXPECT_EQ(got.maximum_execution_time_seconds, want.maximum_execution_time_seconds) << what;
  EXPECT_TRUE(got.pod_sets == want.pod_sets) << what;
  ASSERT_EQ(got.admission.has_value(), want.admission.has_value()) << what;
  if (got.admission.has_value()) {
    EXPECT_EQ(got.admission->cluster_queue, want.admission->cluster_queue) << what;
  }
  ASSERT_EQ(got.conditions->size(), want.conditions->size()) << what;
  for (size_t i = 0; i < got.conditions->size(); ++i) {
    EXPECT_EQ((*got.conditions)[i].type, (*want.conditions)[i].type) << what;
    EXPECT_EQ((*got.conditions)[i].last_transition, (*want.conditions)[i].last_transition) << what;
  }
  EXPECT_EQ(*got.reclaimable_pods, *want.reclaimable_pods) << what;
  ASSERT_EQ(got.admission_checks->size(), want.admission_checks->size()) << what;
  for (size_t i = 0; i < got.admission_checks->size(); ++i) {
    EXPECT_EQ((*got.admission_checks)[i].name, (*want.admission_checks)[i].name) << what;
  }
  EXPECT_EQ(got.requeue_at, want.requeue_at) << what;
  ASSERT_EQ(got.flavor_history->size(), want.flavor_history->size()) << what;
  for (size_t i = 0; i < got.flavor_history->size(); ++i) {
    EXPECT_EQ((*got.flavor_history)[i].flavor, (*want.flavor_history)[i].flavor) << what;
    EXPECT_EQ((*got.flavor_history)[i].used, (*want.flavor_history)[i].used) << what;
  }
  EXPECT_EQ(got.source->file, want.source->file) << what;
  EXPECT_EQ(got.source->document, want.source->document) << what;
  EXPECT_EQ(got.source->line, want.source->line) << what;
}

// engine::swap (WorkloadStore::AddSwapping's exchange) trades every field, storage and all.
TEST(WorkloadSpecReuseTest, SwapTradesEveryField) {
  WorkloadSpec full = FullSpec();
  WorkloadSpec fresh;
  const std::string* uid_storage = full.uid.text_storage();
  swap(full, fresh);
  ExpectSameSpec(fresh, FullSpec(), "the full spec's values, swapped in");
  ExpectSameSpec(full, WorkloadSpec{}, "the default spec's values, swapped in");
  EXPECT_EQ(fresh.uid.text_storage(), uid_storage) << "the string's storage moved with it";
}

// ResetForReuse resets field by field (a size check in workload_spec.cc stops a new field from
// being left out); this checks each field it lists against a default-constructed spec.
TEST(WorkloadSpecReuseTest, AResetSpecHasEveryDefaultValueAndKeepsItsStorage) {
  WorkloadSpec w = FullSpec();
  const std::string* uid_storage = w.uid.text_storage();
  const PodSetSpec* pod_sets_storage = w.pod_sets.data();
  const auto* requests_storage = w.pod_sets[0].resources.containers[0].requests.data();
  ResetForReuse(w);

  const WorkloadSpec fresh;
  EXPECT_EQ(w.name_space, fresh.name_space);
  EXPECT_EQ(w.name, fresh.name);
  EXPECT_EQ(w.uid, fresh.uid);
  EXPECT_EQ(w.creation_time, fresh.creation_time);
  EXPECT_EQ(w.workload_class, fresh.workload_class);
  EXPECT_EQ(w.expected_runtime, fresh.expected_runtime);
  EXPECT_EQ(w.queue_name, fresh.queue_name);
  EXPECT_EQ(w.priority_class_name, fresh.priority_class_name);
  EXPECT_EQ(w.priority, fresh.priority);
  EXPECT_EQ(w.priority_class_kind, fresh.priority_class_kind);
  EXPECT_EQ(w.active, fresh.active);
  EXPECT_EQ(w.maximum_execution_time_seconds, fresh.maximum_execution_time_seconds);
  EXPECT_FALSE(w.admission.has_value());
  EXPECT_TRUE(w.conditions->empty());
  EXPECT_TRUE(w.reclaimable_pods->empty());
  EXPECT_TRUE(w.admission_checks->empty());
  EXPECT_EQ(w.requeue_at, fresh.requeue_at);
  EXPECT_EQ(w.requeue_count, fresh.requeue_count);
  EXPECT_TRUE(w.flavor_history->empty());
  EXPECT_EQ(w.source->file, fresh.source->file);
  EXPECT_EQ(w.source->document, fresh.source->document);
  EXPECT_EQ(w.source->line, fresh.source->line);
  // The pod sets stay in place, each reset, for a writer to fill by index and truncate.
  ASSERT_EQ(w.pod_sets.size(), 2u);
  ExpectFreshPodSet(w.pod_sets[0], "pod set 0");
  ExpectFreshPodSet(w.pod_sets[1], "pod set 1");
  ASSERT_EQ(w.pod_sets[0].resources.containers.size(), 1u);

  // What was allocated stays allocated: writing the same shape again allocates nothing.
  EXPECT_EQ(w.pod_sets.data(), pod_sets_storage);
  EXPECT_EQ(w.pod_sets[0].resources.containers[0].requests.data(), requests_storage);
  w.uid.assign("another-uid-that-is-no-uuid");
  EXPECT_EQ(w.uid.text_storage(), uid_storage);
}

class StoreRecyclingTest : public ::testing::Test {
 protected:
  StoreRecyclingTest() : store_(cluster_), fresh_store_(fresh_cluster_) {
    ClusterSpec spec;
    spec.flavors.emplace_back().name = "f";
    ClusterQueueSpec& cq = spec.cluster_queues.emplace_back();
    cq.name = "cq";
    ResourceGroupSpec& g = cq.resource_groups.emplace_back();
    g.covered_resources = {"cpu", "memory"};
    FlavorQuotasSpec& f = g.flavors.emplace_back();
    f.flavor = "f";
    f.resources.push_back({"cpu", Quantity(64000), std::nullopt, std::nullopt});
    f.resources.push_back({"memory", Quantity(int64_t{1} << 40), std::nullopt, std::nullopt});
    LocalQueueSpec& lq = spec.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = "q";
    lq.cluster_queue = "cq";
    cluster_.Apply(spec);
    fresh_cluster_.Apply(spec);
  }

  static WorkloadSpec Spec(const std::string& name, int pod_sets, const char* cpu) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = name;
    w.queue_name = "q";
    w.priority = static_cast<int32_t>(name.size());
    for (int i = 0; i < pod_sets; ++i) {
      PodSetSpec& ps = w.pod_sets.emplace_back();
      ps.name = "ps" + std::to_string(i);
      ps.count = 2 + i;
      ContainerResources& c = ps.resources.containers.emplace_back();
      AddTo(c.requests, "cpu", Q(cpu));
      if (i == 0) {
        AddTo(c.requests, "memory", Q("1Gi"));
      }
    }
    return w;
  }

  Cluster cluster_;
  WorkloadStore store_;
  Cluster fresh_cluster_;
  WorkloadStore fresh_store_;
};

// What a nomination reads of a stored workload is the same whether it was built in a recycled
// block or a new one: a workload with fewer pod sets, other requests and no reservation takes the
// block of one with more pod sets that held a reservation.
TEST_F(StoreRecyclingTest, AWorkloadInARecycledBlockIsTheOneAFreshStoreBuilds) {
  WorkloadSpec first = Spec("first-with-a-long-name", 3, "3");
  const WorkloadId old_id = *store_.AddSwapping(first);
  const Workload& old_w = store_.Get(old_id);
  const WorkloadSpec* block = old_w.spec;
  const FrSlot slot = *cluster_.FindSlot("f", "cpu");
  std::vector<AdmittedPodSet> admitted(1);
  admitted[0].name = "ps0";
  admitted[0].count = 2;
  admitted[0].flavors.emplace_back(cluster_.SlotKey(slot).resource, cluster_.SlotKey(slot).flavor);
  admitted[0].usage.push_back({slot, Quantity(6000)});
  store_.Reserve(old_id, old_w.cluster_queue, admitted, {{slot, Quantity(6000)}}, 5);
  ASSERT_TRUE(store_.Get(old_id).quota_reserved);
  store_.Release(old_id);
  store_.Erase(old_id);

  WorkloadSpec second = Spec("b", 1, "500m");
  // Built apart, not copied: a copy would share `second`'s pod-set buffer, and the pool copies a
  // list another owner shares instead of taking it (engine/pod_set_pool.h).
  WorkloadSpec second_copy = Spec("b", 1, "500m");
  const WorkloadId id = *store_.AddSwapping(second);
  const WorkloadId fresh_id = *fresh_store_.Add(second_copy);
  const Workload& w = store_.Get(id);
  const Workload& f = fresh_store_.Get(fresh_id);
  EXPECT_EQ(w.spec, block) << "the erased workload's block is reused";
  // The caller gets the erased workload's spec back, for its next spec, but not its pod sets:
  // they were the store's pooled list (engine/pod_set_pool.h). The store had no list equal to
  // `second`'s, so it pooled that one and the caller gets none.
  EXPECT_EQ(second.name, "first-with-a-long-name");
  EXPECT_TRUE(second.pod_sets.empty());
  ASSERT_EQ(w.spec->pod_sets.size(), 1u);
  EXPECT_EQ(w.spec->pod_sets[0].resources.containers[0].requests[0].second, Q("500m"));

  EXPECT_EQ(w.key, f.key);
  EXPECT_EQ(w.uid(), f.uid());
  EXPECT_EQ(w.priority, f.priority);
  EXPECT_EQ(w.cluster_queue, f.cluster_queue);
  EXPECT_EQ(w.creation_time, f.creation_time);
  EXPECT_EQ(w.queue_order_time, f.queue_order_time);
  EXPECT_EQ(w.quota_reserved, f.quota_reserved);
  EXPECT_EQ(w.quota_reserved_time, f.quota_reserved_time);
  EXPECT_EQ(w.invalid_resources, f.invalid_resources);
  EXPECT_TRUE(w.admitted.empty());
  EXPECT_TRUE(w.usage.empty());
  EXPECT_EQ(w.admitted_mask, f.admitted_mask);
  EXPECT_EQ(w.reservation_term, f.reservation_term);
  EXPECT_EQ(w.scheduling_hash, f.scheduling_hash);
  EXPECT_EQ(w.scan->valid, f.scan->valid);
  EXPECT_TRUE(w.scan->last_tried.empty());
  EXPECT_TRUE(w.fallback->empty());
  ASSERT_EQ(w.pod_sets.size(), f.pod_sets.size());
  for (size_t i = 0; i < w.pod_sets.size(); ++i) {
    const PodSetRequest& a = w.pod_sets[i];
    const PodSetRequest& b = f.pod_sets[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.min_count, b.min_count);
    EXPECT_EQ(a.spec, &w.spec->pod_sets[i]);
    ASSERT_EQ(a.per_pod.size(), b.per_pod.size());
    ASSERT_EQ(a.total.size(), b.total.size());
    for (size_t r = 0; r < a.per_pod.size(); ++r) {
      EXPECT_EQ(a.per_pod[r].resource, b.per_pod[r].resource);
      EXPECT_EQ(a.per_pod[r].amount, b.per_pod[r].amount);
      EXPECT_EQ(a.total[r].amount, b.total[r].amount);
    }
  }
  EXPECT_EQ(store_.Find("ns/first-with-a-long-name"), std::nullopt);
  EXPECT_EQ(store_.Find("ns/b"), id);
}

}  // namespace
}  // namespace engine
