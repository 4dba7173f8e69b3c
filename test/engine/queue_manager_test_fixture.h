// File: test/engine/queue_manager_test_fixture.h
//
// Shared by queue_manager_test.cc and queue_manager_backoff_equivalence_test.cc: the helpers and
// fixture both use (one file would be over 800 lines).
#pragma once

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/queue_manager.h"
#include "engine/scheduling_hash.h"
#include "engine/workload_store.h"

namespace engine {

using L = QueueLocation;
using R = RequeueReason;

inline constexpr QueueingStrategy kBestEffort = QueueingStrategy::kBestEffortFifo;
inline constexpr QueueingStrategy kStrict = QueueingStrategy::kStrictFifo;
inline constexpr TimeMicros kSecond = 1'000'000;
inline constexpr TimeMicros kNow = 1'000 * kSecond;

// Concatenation without `const char* + std::string`, which trips GCC 12's -Wrestrict false positive
// (PR 105329) at -O3.
inline std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) {
    out.append(p);
  }
  return out;
}

inline DecimalQuantity Dec(const char* text) {
  return ParseDecimalQuantity(text).value();
}

inline ResourceFlavorSpec Flavor(const std::string& name) {
  ResourceFlavorSpec f;
  f.name = name;
  return f;
}

inline LocalQueueSpec LocalQueue(const std::string& name, const std::string& cq,
                                 const std::string& name_space = "default") {
  LocalQueueSpec lq;
  lq.name_space = name_space;
  lq.name = name;
  lq.cluster_queue = cq;
  return lq;
}

inline ContainerResources Container(const char* cpu) {
  ContainerResources c;
  c.requests = {{"cpu", Dec(cpu)}};
  return c;
}

// Workload options, set fluently: O().Prio(2).At(5).
struct O {
  int32_t priority = 0;
  TimeMicros created = 1;
  const char* cpu = "1";
  std::string uid;
  std::optional<TimeMicros> requeue_at;
  bool requeued_false = false;
  std::string queue;  // LocalQueue name; default "lq-<cq>"

  O& Prio(int32_t v) {
    priority = v;
    return *this;
  }
  O& At(TimeMicros v) {
    created = v;
    return *this;
  }
  O& Cpu(const char* v) {
    cpu = v;
    return *this;
  }
  O& Uid(std::string v) {
    uid = std::move(v);
    return *this;
  }
  O& RequeueAt(TimeMicros v) {
    requeue_at = v;
    return *this;
  }
  O& RequeuedFalse() {
    requeued_false = true;
    return *this;
  }
  O& Queue(std::string v) {
    queue = std::move(v);
    return *this;
  }
};

class QueueManagerTest : public ::testing::Test {
 protected:
  QueueManagerTest() { spec_.flavors.push_back(Flavor("default")); }

  void Cohort(const std::string& name, const std::string& parent = "") {
    CohortSpec cohort;
    cohort.name = name;
    cohort.parent = parent;
    spec_.cohorts.push_back(cohort);
  }
  void Cq(const std::string& name, const std::string& cohort = "",
          QueueingStrategy strategy = kBestEffort, StopPolicy stop = StopPolicy::kNone,
          const std::string& flavor = "default") {
    ClusterQueueSpec cq;
    cq.name = name;
    cq.cohort = cohort;
    cq.queueing_strategy = strategy;
    cq.stop_policy = stop;
    ResourceQuotaSpec quota;
    quota.resource = "cpu";
    quota.nominal = Quantity(10'000);
    FlavorQuotasSpec flavor_quotas;
    flavor_quotas.flavor = flavor;
    flavor_quotas.resources.push_back(quota);
    ResourceGroupSpec group;
    group.covered_resources = {"cpu"};
    group.flavors.push_back(flavor_quotas);
    cq.resource_groups.push_back(group);
    spec_.cluster_queues.push_back(cq);
    spec_.local_queues.push_back(LocalQueue(Cat({"lq-", name}), name));
  }
  void Build() {
    cluster_.Apply(spec_);
    store_ = std::make_unique<WorkloadStore>(cluster_);
    queues_ = std::make_unique<QueueManager>(cluster_, *store_);
  }

  WorkloadSpec Spec(const std::string& name, const std::string& cq, const O& o) {
    WorkloadSpec w;
    w.name_space = "default";
    w.name = name;
    w.uid = o.uid.empty() ? name : o.uid;
    w.creation_time = o.created;
    w.queue_name = o.queue.empty() ? Cat({"lq-", cq}) : o.queue;
    w.priority = o.priority;
    w.requeue_at = o.requeue_at;
    if (o.requeued_false) {
      ConditionSpec requeued;
      requeued.type = "Requeued";
      requeued.status = false;
      requeued.reason = "Deactivated";
      w.conditions.Mutable().push_back(requeued);
    }
    PodSetSpec ps;
    ps.resources.containers.push_back(Container(o.cpu));
    w.pod_sets.push_back(ps);
    return w;
  }
  WorkloadId Add(const std::string& name, const std::string& cq, const O& o = O()) {
    StatusOr<WorkloadId> id = store_->Add(Spec(name, cq, o));
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return *id;
  }
  // Adds and pushes at kNow.
  WorkloadId Push(const std::string& name, const std::string& cq, const O& o = O()) {
    WorkloadId id = Add(name, cq, o);
    queues_->Push(id, kNow);
    return id;
  }
  CqId Id(const std::string& cq) const { return *cluster_.FindClusterQueue(cq); }
  std::vector<std::string> Names(const std::vector<WorkloadId>& ids) const {
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (WorkloadId id : ids) {
      out.push_back(store_->Get(id).spec->name);
    }
    return out;
  }
  std::vector<std::string> Active(const std::string& cq) const {
    return Names(queues_->PendingActive(Id(cq)));
  }
  std::vector<std::string> Inadmissible(const std::string& cq) const {
    return Names(queues_->PendingInadmissible(Id(cq)));
  }
  // Pops all heads and returns the one of `cq`.
  WorkloadId PopOne(const std::string& cq) {
    std::vector<WorkloadId> heads = queues_->PopHeads(++cycle_);
    for (WorkloadId h : heads) {
      if (store_->Get(h).cluster_queue == Id(cq)) {
        return h;
      }
    }
    ADD_FAILURE() << "no head for " << cq;
    return kInvalidId<WorkloadId>;
  }

  ClusterSpec spec_;
  Cluster cluster_;
  std::unique_ptr<WorkloadStore> store_;
  std::unique_ptr<QueueManager> queues_;
  int64_t cycle_ = 0;
};

using V = std::vector<std::string>;

// --- §5.1 heap order, one key at a time --------------------------------------------------------

}  // namespace engine
