// File: engine/shard/shard_plan.h
//
// How a replay splits into shards (docs/replay.md, "Parallel replay"). Cohort trees that share no
// quota are independent: each connected component — a root Cohort with everything under it, or a
// ClusterQueue without a cohort — is a shard with its own engine, clock and lock, and shards
// replay in parallel.
//
// The components are those of the union, over the whole replay, of every relation that ties two
// objects together: Cohort → parent Cohort, ClusterQueue → Cohort, LocalQueue → ClusterQueue,
// Workload → LocalQueue and Workload → ClusterQueue of its admission, as the manifests and every
// event of the trace state them. So a configuration change that joins two trees mid-trace puts
// them in one shard from the start (their replay is then exactly the replay of the joined
// forest), and a split simply leaves one shard with two trees. The planner reads the trace once
// before the replay for this.
//
// The plan knows the Kueue kinds (engine/cluster_spec.h), not where they come from: the replay
// feeds it the manifests and every event's object (replay/sim/sharded_replay.h), a test or a
// benchmark can feed it specs directly.
//
// Workloads are not nodes of their own (a replay of millions would make the plan as big as the
// trace): a Workload's LocalQueue and admission ClusterQueue are joined, and so are the queues of
// every event of the same Workload name (keyed by a 64-bit hash of the name: a collision can only
// join two shards, never split one). A Workload event goes to the shard of its queue; a DELETED
// Workload event, which names no queue, goes to every shard and is applied by the one that holds
// the Workload.
//
// Shards are numbered by the smallest "Cohort/name" or "ClusterQueue/name" they contain, so the
// numbering — and everything merged in shard order — depends only on the input. Objects that
// reach no Cohort or ClusterQueue (a Workload of a LocalQueue that never exists) go to shard 0,
// where the replay rejects them as it would without shards. Kinds that belong to no tree
// (ResourceFlavor, Namespace, WorkloadPriorityClass, AdmissionCheck, FlavorSupply, ResourceClass,
// Node) go to every shard. Devices are the exception to "trees share nothing": every
// ClusterQueue that gives quota to a ResourceClass draws on the same nodes, so all of them are in
// one shard.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/string_map.h"
#include "engine/cluster_spec.h"

namespace engine {

class ShardPlan {
 public:
  static constexpr int kEveryShard = -1;

  int num_shards() const { return static_cast<int>(labels_.size()); }
  // A readable name per shard: its smallest "Cohort/x" or "ClusterQueue/x".
  const std::vector<std::string>& labels() const { return labels_; }

  // The shard a change of the object `kind`/`name` is applied in, or kEveryShard (then it is
  // applied if any shard applies it, else rejected with shard 0's error). `object` holds the
  // object as its event states it (one entry in the list of its kind); null for a deletion, which
  // names an object but not its queue.
  int Route(std::string_view kind, std::string_view name, const ClusterSpec* object) const;
  // Route's answer for a Workload event whose Workload is in LocalQueue `name_space`/`queue_name`
  // and has no status.admission ClusterQueue (replay/sim/local_queue_routes.h keeps it per queue).
  int RouteToLocalQueue(std::string_view name_space, std::string_view queue_name) const;
  // The part of the manifests shard `shard` holds: its Cohorts, ClusterQueues, LocalQueues and
  // Workloads, and every object that belongs to no tree but the Namespaces: the shards read one
  // table of their labels, shared (engine/namespace_labels.h), not a copy each.
  ClusterSpec ManifestsFor(int shard, const ClusterSpec& all) const;

  // The same shards, numbered alike, and every name in the same one: Route and ManifestsFor
  // give the same answers (a plan made from the manifests alone is checked this way against
  // the one the whole trace gives: replay/sim/simulator.cc).
  bool operator==(const ShardPlan& other) const {
    return labels_ == other.labels_ && shard_of_ == other.shard_of_;
  }

 private:
  friend class ShardPlanner;
  int ShardOf(std::string_view kind, std::string_view name) const;
  int ShardOfWorkload(const WorkloadSpec& w) const;
  int ShardOfLocalQueue(std::string_view name_space, std::string_view queue_name) const;

  std::vector<std::string> labels_;
  StringMap<int> shard_of_;  // "<kind>/<name>" → shard, looked up without building the key
};

class ShardPlanner {
 public:
  // When the Workload names kept first fold their repeats (DedupWorkloadHashes), then whenever
  // they have doubled: 8 MiB of names. A trace up to that many Workload events is never sorted
  // before Build (the moderate 1,000,000-workload trace of issue 22 is not).
  static constexpr size_t kFirstDedup = size_t{1} << 20;
  // `first_dedup`: kFirstDedup, or fewer for a test of the folds.
  explicit ShardPlanner(size_t first_dedup = kFirstDedup) : next_dedup_(first_dedup) {}

  void AddManifests(const ClusterSpec& spec);
  // Every object of the trace's events is added with AddManifests too, rejected ones included
  // (their names do no harm: the replay reads Workload lines for this with
  // replay/io/routing_line_parser.h, which does not check their contents); a deletion ties
  // nothing and is not added.
  // `single`: one shard whatever the trees (a model couples them: see docs/replay.md).
  ShardPlan Build(bool single) const;
  // What a Workload named `name_space`/`name` ties: its LocalQueue `name_space`/`queue_name` and,
  // when not empty, the ClusterQueue `admitted_cluster_queue` of its status.admission (as
  // AddManifests of a spec holding only that Workload does, without building the spec).
  void AddWorkloadNames(std::string_view name_space, std::string_view name,
                        std::string_view queue_name, std::string_view admitted_cluster_queue);
  // AddWorkloadNames(name_space, name, queue_name, "") in two parts, the first of which a caller
  // may keep per LocalQueue (replay/sim/local_queue_routes.h): the node of the LocalQueue, then
  // the Workload name under it. Node numbers never change.
  uint32_t LocalQueueNode(std::string_view name_space, std::string_view queue_name);
  void AddWorkloadName(uint32_t local_queue_node, std::string_view name_space,
                       std::string_view name);

 private:
  uint32_t Node(std::string_view kind, std::string_view name);
  void Join(uint32_t a, uint32_t b);
  void Unite(uint32_t a, uint32_t b) const;  // Join's body; const for Build's last joins
  uint32_t Find(uint32_t x) const;
  void AddCohort(const CohortSpec& cohort);
  void AddClusterQueue(const ClusterQueueSpec& cq);
  void AddLocalQueue(const LocalQueueSpec& lq);
  void AddWorkload(const WorkloadSpec& w);

  // Devices are shared by every ClusterQueue that gives quota to a resource class (seed 001):
  // those queues are joined into one shard when the plan is built.
  void JoinResourceClassUsers() const;

  StringMap<uint32_t> ids_;  // "<kind>/<name>" -> node, looked up without building the key
  // Joins the queues named by every event of the same Workload (Build's last joins).
  void JoinWorkloadQueues() const;
  // Sorts every queue's list of Workload name hashes and drops repeats.
  void DedupWorkloadHashes() const;

  // The Workload events that name one LocalQueue node: the hashes of their "ns/name", sorted and
  // deduplicated whenever they have doubled, 8 bytes per Workload of the trace, in 512-byte
  // chunks (no reallocation doubling the peak). It was one list of (hash, node) pairs, 16 bytes:
  // the pass over a 10,000,000-workload trace peaked at 183 MiB, above the replay's own 72 MiB.
  struct QueueNames {
    uint32_t name_space = 0;  // the LocalQueue's namespace, an index in namespaces_
    std::deque<uint64_t> hashes;
  };
  // Sorts `names`' hashes and drops repeats; returns how many were dropped.
  static size_t Dedup(QueueNames& names);
  mutable std::unordered_map<uint32_t, QueueNames> workload_hashes_;  // by LocalQueue node
  StringMap<uint32_t> namespaces_;                                    // namespace -> index
  mutable size_t workload_entries_ = 0;
  size_t next_dedup_;
  std::vector<std::string> keys_;
  mutable std::vector<uint32_t> parent_;
  std::unordered_map<std::string, std::vector<uint32_t>> queues_covering_;  // resource → CQ nodes
  std::set<std::string> resource_classes_;
};

}  // namespace engine
