// File: test/engine/preemption_test_fixture.h
//
// Shared by preemption_test.cc and preemption_reclaim_order_test.cc: the helpers and fixture
// both use (one file would be over 800 lines).
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/flavor_assigner.h"
#include "engine/preemption.h"
#include "engine/workload_store.h"

namespace engine {

inline constexpr int64_t kMilli = 1000;  // cpu is counted in milli-units
inline constexpr TimeMicros kNow = 1'000'000;

inline ResourceQuotaSpec Cpu(int64_t cores, std::optional<int64_t> borrowing_limit = std::nullopt,
                             std::optional<int64_t> lending_limit = std::nullopt) {
  ResourceQuotaSpec q;
  q.resource = "cpu";
  q.nominal = Quantity(cores * kMilli);
  if (borrowing_limit) {
    q.borrowing_limit = Quantity(*borrowing_limit * kMilli);
  }
  if (lending_limit) {
    q.lending_limit = Quantity(*lending_limit * kMilli);
  }
  return q;
}

inline PreemptionSpec Policy(PreemptionPolicy within,
                             PreemptionPolicy reclaim = PreemptionPolicy::kNever,
                             PreemptionPolicy borrow = PreemptionPolicy::kNever,
                             std::optional<int32_t> threshold = std::nullopt) {
  PreemptionSpec p;
  p.within_cluster_queue = within;
  p.reclaim_within_cohort = reclaim;
  p.borrow_within_cohort = borrow;
  p.max_priority_threshold = threshold;
  return p;
}

struct AdmitOptions {
  std::string flavor = "default";
  std::optional<TimeMicros> reserved_at = 100;  // nullopt: no QuotaReserved condition
  TimeMicros created = 10;
  std::string uid;  // empty: the store uses "ns/<name>"

  AdmitOptions& Flavor(std::string f) {
    flavor = std::move(f);
    return *this;
  }
  AdmitOptions& ReservedAt(std::optional<TimeMicros> t) {
    reserved_at = t;
    return *this;
  }
  AdmitOptions& Created(TimeMicros t) {
    created = t;
    return *this;
  }
  AdmitOptions& Uid(std::string u) {
    uid = std::move(u);
    return *this;
  }
};
inline AdmitOptions Opt() {
  return {};
}

// One cluster, its workloads and a Preemptor over the cluster's own tree.
class World {
 public:
  World() : store_(cluster_) {}

  void AddFlavor(const std::string& name) { spec_.flavors.emplace_back().name = name; }

  // A CQ with one resource group covering cpu, one entry per flavor (in preference order).
  void AddCq(const std::string& name, const std::string& cohort,
             const std::vector<std::pair<std::string, ResourceQuotaSpec>>& flavors,
             PreemptionSpec preemption = {}) {
    ClusterQueueSpec& cq = spec_.cluster_queues.emplace_back();
    cq.name = name;
    cq.cohort = cohort;
    cq.preemption = preemption;
    cq.namespace_selector.is_null = false;
    ResourceGroupSpec& g = cq.resource_groups.emplace_back();
    g.covered_resources = {"cpu"};
    for (const auto& [flavor, quota] : flavors) {
      FlavorQuotasSpec& f = g.flavors.emplace_back();
      f.flavor = flavor;
      f.resources.push_back(quota);
    }
    LocalQueueSpec& lq = spec_.local_queues.emplace_back();
    lq.name_space = "ns";
    lq.name = "lq-" + name;
    lq.cluster_queue = name;
  }
  void AddCq(const std::string& name, const std::string& cohort, ResourceQuotaSpec quota,
             PreemptionSpec preemption = {}) {
    AddCq(name, cohort, {{"default", quota}}, preemption);
  }
  void AddCohort(const std::string& name, const std::string& parent) {
    CohortSpec& c = spec_.cohorts.emplace_back();
    c.name = name;
    c.parent = parent;
  }
  ClusterQueueSpec& CqSpec(const std::string& name) {
    for (ClusterQueueSpec& cq : spec_.cluster_queues) {
      if (cq.name == name) {
        return cq;
      }
    }
    ADD_FAILURE() << "no CQ " << name;
    return spec_.cluster_queues.front();
  }

  void Build() {
    if (spec_.flavors.empty()) {
      AddFlavor("default");
    }
    cluster_.Apply(spec_);
  }

  // A workload holding a reservation of `cores` cpu in `cq`.
  WorkloadId Admit(const std::string& name, const std::string& cq, int64_t cores, int32_t priority,
                   const AdmitOptions& o = {}) {
    WorkloadSpec w = Base(name, cq, cores, priority, o.created);
    w.uid = o.uid;
    AdmissionSpec& a = w.admission.emplace();
    a.cluster_queue = cq;
    PodSetAssignmentSpec& psa = a.pod_set_assignments.emplace_back();
    psa.name = "main";
    psa.count = 1;
    psa.flavors["cpu"] = o.flavor;
    psa.resource_usage["cpu"] = Quantity(cores * kMilli);
    w.conditions.Mutable().push_back({"QuotaReserved", true, "QuotaReserved", 0});
    if (o.reserved_at) {
      w.conditions.Mutable().back().last_transition = *o.reserved_at;
    } else {
      w.conditions.Reset();
    }
    return Add(std::move(w));
  }

  // A pending workload queued to `cq`.
  WorkloadId Pending(const std::string& name, const std::string& cq, int64_t cores,
                     int32_t priority, TimeMicros created = 500) {
    return Add(Base(name, cq, cores, priority, created));
  }

  Preemptor& preemptor() {
    if (!preemptor_) {
      preemptor_ = std::make_unique<Preemptor>(cluster_, cluster_.mutable_tree(), store_, kNow);
    }
    return *preemptor_;
  }

  Assignment Assign(WorkloadId id) {
    AssignRequest req;
    req.workload = &store_.Get(id);
    req.cq = store_.Get(id).cluster_queue;
    req.cluster = &cluster_;
    req.tree = &cluster_.tree();
    return AssignFlavors(req, &preemptor());
  }

  // Targets for `id` with the assignment AssignFlavors makes, as sorted "name:Reason".
  std::vector<std::string> Targets(WorkloadId id) {
    Assignment a = Assign(id);
    EXPECT_EQ(a.Mode(), AssignmentMode::kPreempt) << a.Message();
    return Names(preemptor().GetTargets(store_.Get(id), store_.Get(id).cluster_queue, a));
  }
  std::vector<std::string> Names(const std::vector<PreemptionTarget>& targets) const {
    std::vector<std::string> out;
    out.reserve(targets.size());
    for (const PreemptionTarget& t : targets) {
      out.push_back(store_.Get(t.workload).spec->name + ":" + ToString(t.reason));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // The candidate list of the preemptor's last search, in iteration order.
  std::vector<std::string> Candidates() {
    std::vector<std::string> out;
    for (const internal::Candidate& c : preemptor().last_candidates().ordered) {
      out.push_back(store_.Get(c.workload).spec->name);
    }
    return out;
  }

  OracleResult Oracle(WorkloadId id, int64_t cores, const std::string& flavor = "default") {
    const Workload& w = store_.Get(id);
    return preemptor().SimulatePreemption(w, w.cluster_queue, Slot(flavor),
                                          Quantity(cores * kMilli));
  }

  FrSlot Slot(const std::string& flavor) const { return *cluster_.FindSlot(flavor, "cpu"); }
  CqId Cq(const std::string& name) const { return *cluster_.FindClusterQueue(name); }
  const Workload& Get(WorkloadId id) const { return store_.Get(id); }
  Cluster& cluster() { return cluster_; }

 private:
  static WorkloadSpec Base(const std::string& name, const std::string& cq, int64_t cores,
                           int32_t priority, TimeMicros created) {
    WorkloadSpec w;
    w.name_space = "ns";
    w.name = name;
    w.creation_time = created;
    w.queue_name = "lq-" + cq;
    w.priority = priority;
    PodSetSpec& ps = w.pod_sets.emplace_back();
    ps.name = "main";
    ps.count = 1;
    ContainerResources& c = ps.resources.containers.emplace_back();
    AddTo(c.requests, "cpu", *ParseDecimalQuantity(std::to_string(cores)));
    return w;
  }
  WorkloadId Add(WorkloadSpec w) {
    StatusOr<WorkloadId> id = store_.Add(std::move(w));
    EXPECT_TRUE(id.ok());
    return *id;
  }

  ClusterSpec spec_;
  Cluster cluster_;
  WorkloadStore store_;
  std::unique_ptr<Preemptor> preemptor_;
};

using Names = std::vector<std::string>;
using P = PreemptionPolicy;

}  // namespace engine
