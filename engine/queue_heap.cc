// File: engine/queue_heap.cc
//
// QueueManager's storage per ClusterQueue: the active workloads in groups of one scheduling hash
// (§9.6), each group a heap ordered by Before (a total order: the sticky preemptor, priority,
// queue-order time, uid, id), and the ClusterQueue's groups in a heap ordered by their heads; the
// head of the head group is the head of the ClusterQueue. Because Before is total, the order in
// which heads pop depends only on the set of members, never on the heaps' layout: a group may be
// rebuilt from scratch (Floyd, O(n)) whenever many members come at once, with no effect on
// decisions.
//
// The §9.6 bulk move parks a whole group (out of the group heap, O(log groups)); an
// inadmissible-requeue brings it back whole when every member's backoff has expired and its
// namespace needs no check. Kueue moves each member both ways (pkg/cache/queue/cluster_queue.go,
// requeueIfNotPresent and QueueInadmissibleWorkloads); so did tally, 1.5 million moves for the
// 15,000 workloads of its `baseline` perf config.
//
// A popped head stays in place until its ClusterQueue is touched (Settle, below; the reasons in
// engine/queue_manager.h).
#include <algorithm>
#include <bit>

#include "engine/base/check.h"
#include "engine/queue_manager.h"
#include "engine/workload_store.h"

namespace engine {

// --- Members of a group --------------------------------------------------------------------

bool QueueManager::Before(const HeapNode& a, const HeapNode& b, WorkloadId sticky) const {
  if (a.id == sticky || b.id == sticky) [[unlikely]] {
    if (a.id != b.id) {
      return a.id == sticky;
    }
  }
  if (a.priority != b.priority) {
    return a.priority > b.priority;
  }
  if (a.order_time != b.order_time) {
    return a.order_time < b.order_time;
  }
  int c = store_.Get(a.id).uid().compare(store_.Get(b.id).uid());
  if (c != 0) {
    return c < 0;
  }
  return Index(a.id) < Index(b.id);
}

// Both levels sift the same way; `set_pos(node, i)` records where a node now is (a member's
// Entry::pos, a group's slot).
template <typename SetPos>
void QueueManager::SiftUpIn(std::vector<HeapNode>& heap, uint32_t i, WorkloadId sticky,
                            SetPos set_pos) {
  const HeapNode node = heap[i];
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (!Before(node, heap[parent], sticky)) {
      break;
    }
    heap[i] = heap[parent];
    set_pos(heap[i], i);
    i = parent;
  }
  heap[i] = node;
  set_pos(node, i);
}

template <typename SetPos>
void QueueManager::SiftDownIn(std::vector<HeapNode>& heap, uint32_t i, WorkloadId sticky,
                              SetPos set_pos) {
  const auto n = static_cast<uint32_t>(heap.size());
  const HeapNode node = heap[i];
  while (true) {
    uint32_t child = 2 * i + 1;
    if (child >= n) {
      break;
    }
    if (child + 1 < n && Before(heap[child + 1], heap[child], sticky)) {
      ++child;
    }
    if (!Before(heap[child], node, sticky)) {
      break;
    }
    heap[i] = heap[child];
    set_pos(heap[i], i);
    i = child;
  }
  heap[i] = node;
  set_pos(node, i);
}

void QueueManager::SiftUp(Group& g, uint32_t i, WorkloadId sticky) {
  SiftUpIn(g.heap, i, sticky,
           [this](const HeapNode& node, uint32_t pos) { entries_[Index(node.id)].pos = pos; });
}

void QueueManager::SiftDown(Group& g, uint32_t i, WorkloadId sticky) {
  SiftDownIn(g.heap, i, sticky,
             [this](const HeapNode& node, uint32_t pos) { entries_[Index(node.id)].pos = pos; });
}

// --- Groups of a ClusterQueue --------------------------------------------------------------

void QueueManager::SetSlot(const GroupNode& node, uint32_t i) {
  Entry& e = entries_[Index(node.id)];
  if (e.group == kSingleton) {
    e.pos = i;
  } else {
    groups_[e.group].slot = i;
  }
}

void QueueManager::GroupSiftUp(CqQueue& q, uint32_t i) {
  SiftUpIn(q.heap, i, Sticky(q),
           [this](const HeapNode& node, uint32_t pos) { SetSlot(node, pos); });
}

void QueueManager::GroupSiftDown(CqQueue& q, uint32_t i) {
  SiftDownIn(q.heap, i, Sticky(q),
             [this](const HeapNode& node, uint32_t pos) { SetSlot(node, pos); });
}

void QueueManager::CqHeapFixAt(CqQueue& q, uint32_t i) {
  if (i > 0 && Before(q.heap[i], q.heap[(i - 1) / 2], Sticky(q))) {
    GroupSiftUp(q, i);
  } else {
    GroupSiftDown(q, i);
  }
}

void QueueManager::CqHeapInsert(CqQueue& q, CqId cq, const GroupNode& node) {
  const auto i = static_cast<uint32_t>(q.heap.size());
  q.heap.push_back(node);
  if (i == 0) {
    nonempty_heaps_.Set(Index(cq), true);
  }
  GroupSiftUp(q, i);
}

void QueueManager::CqHeapEraseAt(CqQueue& q, CqId cq, uint32_t i) {
  const GroupNode last = q.heap.back();
  q.heap.pop_back();
  if (q.heap.empty()) {
    nonempty_heaps_.Set(Index(cq), false);
  }
  if (i < q.heap.size()) {
    q.heap[i] = last;
    SetSlot(last, i);
    CqHeapFixAt(q, i);
  }
}

void QueueManager::GroupFix(CqQueue& q, uint32_t group) {
  Group& g = groups_[group];
  if (g.slot == kNoGroup) {
    CqHeapInsert(q, g.cq, g.heap.front());
    return;
  }
  q.heap[g.slot] = g.heap.front();  // the group's head may have changed
  CqHeapFixAt(q, g.slot);
}

void QueueManager::GroupHeapErase(CqQueue& q, uint32_t group) {
  Group& g = groups_[group];
  TALLY_DCHECK(g.slot != kNoGroup);
  const uint32_t i = g.slot;
  g.slot = kNoGroup;
  CqHeapEraseAt(q, g.cq, i);
}

uint32_t QueueManager::NewGroup(CqId cq, uint64_t hash) {
  uint32_t group;
  if (free_groups_.empty()) {
    group = static_cast<uint32_t>(groups_.size());
    TALLY_CHECK(group < kSingletonTag);
    groups_.emplace_back();
  } else {
    group = free_groups_.back();
    free_groups_.pop_back();
  }
  Group& g = groups_[group];
  g.hash = hash;
  g.cq = cq;
  g.slot = kNoGroup;
  g.parked = false;
  g.max_backoff_until = std::numeric_limits<TimeMicros>::min();
  return group;
}

uint32_t QueueManager::Materialize(WorkloadId single) {
  Entry& e = entries_[Index(single)];
  TALLY_DCHECK(e.location == QueueLocation::kActive && e.group == kSingleton);
  const uint32_t group = NewGroup(e.cq, e.hash);
  Group& g = groups_[group];
  g.heap.push_back({e.order_time, e.priority, single});
  g.max_backoff_until = e.backoff_until;
  g.slot = e.pos;
  group_index_.Update(e.cq, e.hash, group);
  e.group = group;
  e.pos = 0;
  return group;
}

uint32_t QueueManager::GroupFor(CqId cq, uint64_t hash) {
  const uint32_t found = group_index_.Find(cq, hash);
  if (found == HashGroupIndex::kNone) {
    const uint32_t group = NewGroup(cq, hash);
    group_index_.Insert(cq, hash, group);
    return group;
  }
  if ((found & kSingletonTag) != 0) {
    return Materialize(MakeId<WorkloadId>(found & ~kSingletonTag));
  }
  return found;
}

void QueueManager::FreeGroup(uint32_t group) {
  Group& g = groups_[group];
  TALLY_DCHECK(g.heap.empty() && g.slot == kNoGroup);
  if (!g.parked) {
    group_index_.Erase(g.cq, g.hash);
  }
  g.heap.clear();
  g.parked = false;
  free_groups_.push_back(group);
}

void QueueManager::Fix(WorkloadId id) {
  const Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kActive);
  CqQueue& q = cqs_[Index(e.cq)];
  if (e.group == kSingleton) {
    CqHeapFixAt(q, e.pos);
    return;
  }
  Group& g = groups_[e.group];
  const WorkloadId sticky = Sticky(q);
  const uint32_t i = e.pos;
  if (i > 0 && Before(g.heap[i], g.heap[(i - 1) / 2], sticky)) {
    SiftUp(g, i, sticky);
  } else {
    SiftDown(g, i, sticky);
  }
  if (!g.parked) {
    GroupFix(q, e.group);
  }
}

// --- Members in and out --------------------------------------------------------------------

void QueueManager::HeapPush(CqId cq, WorkloadId id) {
  CqQueue& q = EnsureCq(cq);
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kNone);
  e.location = QueueLocation::kActive;
  e.cq = cq;
  ++q.active;
  ++active_count_;
  if (group_index_.Find(cq, e.hash) == HashGroupIndex::kNone) {
    // The first with its hash: in the CQ's heap by itself, no group made (distinct hashes are
    // common, and a group per workload cost a third more instructions per push and pop).
    TALLY_CHECK(Index(id) < kSingletonTag);
    group_index_.Insert(cq, e.hash, kSingletonTag | Index(id));
    e.group = kSingleton;
    CqHeapInsert(q, cq, {e.order_time, e.priority, id});
    return;
  }
  const uint32_t group = GroupFor(cq, e.hash);
  Group& g = groups_[group];
  e.group = group;
  g.max_backoff_until = std::max(g.max_backoff_until, e.backoff_until);
  g.heap.push_back({e.order_time, e.priority, id});
  SiftUp(g, static_cast<uint32_t>(g.heap.size() - 1), Sticky(q));
  GroupFix(q, group);
}

void QueueManager::HeapErase(WorkloadId id) {
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kActive);
  CqQueue& q = cqs_[Index(e.cq)];
  if (e.group == kSingleton) {
    CqHeapEraseAt(q, e.cq, e.pos);
    group_index_.Erase(e.cq, e.hash);
    e.location = QueueLocation::kNone;
    e.group = kNoGroup;
    --q.active;
    --active_count_;
    return;
  }
  const uint32_t group = e.group;
  Group& g = groups_[group];
  const uint32_t i = e.pos;
  const HeapNode last = g.heap.back();
  g.heap.pop_back();
  if (i < g.heap.size()) {
    g.heap[i] = last;
    entries_[Index(last.id)].pos = i;
    const WorkloadId sticky = Sticky(q);
    if (i > 0 && Before(g.heap[i], g.heap[(i - 1) / 2], sticky)) {
      SiftUp(g, i, sticky);
    } else {
      SiftDown(g, i, sticky);
    }
  }
  e.location = QueueLocation::kNone;
  e.group = kNoGroup;
  if (g.parked) {
    --q.parked_members;  // an empty parked group is dropped at the next requeue
    return;
  }
  --q.active;
  --active_count_;
  if (g.heap.empty()) {
    GroupHeapErase(q, group);
    FreeGroup(group);
  } else {
    GroupFix(q, group);
  }
}

// --- Heads left in their heaps ------------------------------------------------------------

void QueueManager::Settle(CqQueue& q) {
  const WorkloadId id = q.held;
  if (!IsValid(id)) {
    return;
  }
  q.held = kInvalidId<WorkloadId>;
  --held_count_;
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kInflight);
  TALLY_DCHECK(e.group == kSingleton || !groups_[e.group].parked);
  // HeapErase takes a heap member out of the counts; PopHeads already did.
  ++q.active;
  ++active_count_;
  e.location = QueueLocation::kActive;
  HeapErase(id);
  e.location = QueueLocation::kInflight;
}

void QueueManager::SettleAll() {
  if (held_count_ != 0) {
    for (CqId cq : held_cqs_) {
      Settle(cqs_[Index(cq)]);
    }
  }
  held_cqs_.clear();
}

// --- Inadmissible set ------------------------------------------------------------------------

void QueueManager::InadmissibleInsert(CqId cq, WorkloadId id) {
  CqQueue& q = EnsureCq(cq);
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kNone);
  e.location = QueueLocation::kInadmissible;
  e.cq = cq;
  e.group = kNoGroup;
  e.pos = static_cast<uint32_t>(q.inadmissible.size());
  q.inadmissible.push_back(id);
  MarkRequeueWork(cq);
}

void QueueManager::InadmissibleErase(CqQueue& q, WorkloadId id) {
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kInadmissible);
  WorkloadId last = q.inadmissible.back();
  q.inadmissible[e.pos] = last;
  entries_[Index(last)].pos = e.pos;
  q.inadmissible.pop_back();
  e.location = QueueLocation::kNone;
}

void QueueManager::BulkMoveHash(CqId cq, uint64_t hash) {
  uint32_t group = group_index_.Find(cq, hash);
  if (group == HashGroupIndex::kNone) {
    return;  // no heap member has it
  }
  if ((group & kSingletonTag) != 0) {
    group = Materialize(MakeId<WorkloadId>(group & ~kSingletonTag));
  }
  group_index_.Erase(cq, hash);  // later arrivals with this hash start a group of their own
  CqQueue& q = cqs_[Index(cq)];
  Group& g = groups_[group];
  GroupHeapErase(q, group);
  g.parked = true;
  const auto members = static_cast<uint32_t>(g.heap.size());
  q.active -= members;
  active_count_ -= members;
  q.parked_members += members;
  q.parked.push_back(group);
  MarkRequeueWork(cq);
}

void QueueManager::UnparkGroup(CqId cq, uint32_t group, TimeMicros now, bool filter) {
  CqQueue& q = cqs_[Index(cq)];
  Group& g = groups_[group];
  if (filter || g.max_backoff_until > now) {
    // Some member may have to stay: those that do leave the group for the inadmissible vector.
    scratch_.clear();
    for (const HeapNode& n : g.heap) {
      if (!BackoffExpired(entries_[Index(n.id)], now)
          || (filter && !namespace_filter_(cq, store_.Get(n.id)))) {
        scratch_.push_back(n.id);
      }
    }
    for (WorkloadId id : scratch_) {
      HeapErase(id);
      InadmissibleInsert(cq, id);
    }
  }
  const auto members = static_cast<uint32_t>(g.heap.size());
  q.parked_members -= members;
  if (members == 0) {
    FreeGroup(group);
    return;
  }
  if (group_index_.Find(cq, g.hash) == HashGroupIndex::kNone) {
    group_index_.Insert(cq, g.hash, group);
    // The usual case: nothing with this hash arrived since it was parked.
    g.parked = false;
    q.active += members;
    active_count_ += members;
    GroupFix(q, group);
    return;
  }
  // Members with this hash arrived meanwhile: the parked ones join their group.
  scratch_.clear();
  for (const HeapNode& n : g.heap) {
    scratch_.push_back(n.id);
  }
  for (WorkloadId id : scratch_) {
    Entry& e = entries_[Index(id)];
    e.location = QueueLocation::kNone;
    e.group = kNoGroup;
  }
  g.heap.clear();
  FreeGroup(group);
  HeapPushMany(cq, scratch_);
}

// --- Bulk changes --------------------------------------------------------------------------

// k sifts cost about k·log2(n) comparisons, a rebuild about 2n: the requeue of a long
// inadmissible list is often most of a group.
bool QueueManager::RebuildPays(size_t changed, size_t size) {
  return changed * static_cast<size_t>(std::bit_width(size)) > 2 * size;
}

void QueueManager::Heapify(Group& g, WorkloadId sticky) {
  const auto n = static_cast<uint32_t>(g.heap.size());
  for (uint32_t i = 0; i < n; ++i) {
    entries_[Index(g.heap[i].id)].pos = i;
  }
  for (uint32_t i = n / 2; i-- > 0;) {
    SiftDown(g, i, sticky);
  }
}

void QueueManager::HeapPushMany(CqId cq, const std::vector<WorkloadId>& ids) {
  if (ids.size() < 8) {
    for (WorkloadId id : ids) {
      HeapPush(cq, id);
    }
    return;
  }
  CqQueue& q = EnsureCq(cq);
  const WorkloadId sticky = Sticky(q);
  touched_.clear();
  for (WorkloadId id : ids) {
    Entry& e = entries_[Index(id)];
    TALLY_DCHECK(e.location == QueueLocation::kNone);
    const uint32_t group = GroupFor(cq, e.hash);
    Group& g = groups_[group];
    if (!g.touched) {
      g.touched = true;
      touched_.emplace_back(group, static_cast<uint32_t>(g.heap.size()));
    }
    e.location = QueueLocation::kActive;
    e.cq = cq;
    e.group = group;
    e.pos = static_cast<uint32_t>(g.heap.size());
    g.max_backoff_until = std::max(g.max_backoff_until, e.backoff_until);
    g.heap.push_back({e.order_time, e.priority, id});
  }
  for (const auto& [group, old_size] : touched_) {
    Group& g = groups_[group];
    g.touched = false;
    const size_t added = g.heap.size() - old_size;
    if (RebuildPays(added, g.heap.size())) {
      Heapify(g, sticky);
    } else {
      for (auto i = static_cast<uint32_t>(old_size); i < g.heap.size(); ++i) {
        SiftUp(g, i, sticky);
      }
    }
    GroupFix(q, group);
  }
  q.active += static_cast<uint32_t>(ids.size());
  active_count_ += ids.size();
}

}  // namespace engine
