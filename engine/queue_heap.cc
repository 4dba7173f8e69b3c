// File: engine/queue_heap.cc
//
// QueueManager's storage per ClusterQueue: the heap of active workloads (ordered by Before, a
// total order: priority, then queue-order time, then uid, then id) and the inadmissible set, with
// the §9.6 bulk move of equivalent workloads. Because Before is total, the order in which heads
// pop depends only on the set of members, never on the heap's layout: a heap may be rebuilt from
// scratch (Floyd, O(n)) whenever many members come or go at once, with no effect on decisions.
#include <algorithm>
#include <bit>

#include "engine/base/check.h"
#include "engine/queue_manager.h"
#include "engine/workload_store.h"

namespace engine {

// --- Heap ----------------------------------------------------------------------------------

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
  int c = store_.Get(a.id).uid.compare(store_.Get(b.id).uid);
  if (c != 0) {
    return c < 0;
  }
  return Index(a.id) < Index(b.id);
}

void QueueManager::SiftUp(CqQueue& q, uint32_t i) {
  WorkloadId sticky = Sticky(q);
  HeapNode node = q.heap[i];
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (!Before(node, q.heap[parent], sticky)) {
      break;
    }
    q.heap[i] = q.heap[parent];
    entries_[Index(q.heap[i].id)].pos = i;
    i = parent;
  }
  q.heap[i] = node;
  entries_[Index(node.id)].pos = i;
}

void QueueManager::SiftDown(CqQueue& q, uint32_t i) {
  WorkloadId sticky = Sticky(q);
  const auto n = static_cast<uint32_t>(q.heap.size());
  HeapNode node = q.heap[i];
  while (true) {
    uint32_t child = 2 * i + 1;
    if (child >= n) {
      break;
    }
    if (child + 1 < n && Before(q.heap[child + 1], q.heap[child], sticky)) {
      ++child;
    }
    if (!Before(q.heap[child], node, sticky)) {
      break;
    }
    q.heap[i] = q.heap[child];
    entries_[Index(q.heap[i].id)].pos = i;
    i = child;
  }
  q.heap[i] = node;
  entries_[Index(node.id)].pos = i;
}

void QueueManager::Fix(CqQueue& q, uint32_t i) {
  if (i > 0 && Before(q.heap[i], q.heap[(i - 1) / 2], Sticky(q))) {
    SiftUp(q, i);
  } else {
    SiftDown(q, i);
  }
}

void QueueManager::HeapPush(CqId cq, WorkloadId id) {
  CqQueue& q = EnsureCq(cq);
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kNone);
  e.location = QueueLocation::kActive;
  e.cq = cq;
  q.heap.push_back({e.order_time, e.priority, id});
  if (q.heap.size() == 1) {
    MarkHeap(cq, true);
  }
  SiftUp(q, static_cast<uint32_t>(q.heap.size() - 1));
  equivalents_.Link(cq, e.hash, id);
  ++active_count_;
}

void QueueManager::MarkHeap(CqId cq, bool nonempty) {
  const size_t i = Index(cq);
  if (i / 64 >= nonempty_heaps_.size()) {
    nonempty_heaps_.resize(i / 64 + 1, 0);
  }
  const uint64_t bit = uint64_t{1} << (i % 64);
  nonempty_heaps_[i / 64] =
      nonempty ? nonempty_heaps_[i / 64] | bit : nonempty_heaps_[i / 64] & ~bit;
}

void QueueManager::HeapErase(CqQueue& q, WorkloadId id) {
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kActive);
  uint32_t i = e.pos;
  equivalents_.Unlink(e.cq, e.hash, id);
  HeapNode last = q.heap.back();
  q.heap.pop_back();
  if (q.heap.empty()) {
    MarkHeap(e.cq, false);
  }
  if (i < q.heap.size()) {
    q.heap[i] = last;
    entries_[Index(last.id)].pos = i;
    Fix(q, i);
  }
  e.location = QueueLocation::kNone;
  --active_count_;
}

// --- Inadmissible set ------------------------------------------------------------------------

void QueueManager::InadmissibleInsert(CqId cq, WorkloadId id) {
  CqQueue& q = EnsureCq(cq);
  Entry& e = entries_[Index(id)];
  TALLY_DCHECK(e.location == QueueLocation::kNone);
  e.location = QueueLocation::kInadmissible;
  e.cq = cq;
  e.pos = static_cast<uint32_t>(q.inadmissible.size());
  q.inadmissible.push_back(id);
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
  scratch_.clear();
  equivalents_.Collect(cq, hash, scratch_);
  HeapEraseMany(cq, scratch_);
  for (WorkloadId id : scratch_) {
    InadmissibleInsert(cq, id);
  }
}

// --- Bulk changes --------------------------------------------------------------------------

// k sifts cost about k·log2(n) comparisons, a rebuild about 2n: a bulk move of a popular hash or
// the requeue of a long inadmissible list is often most of the heap (Kueue's perf configs submit
// thousands of identical workloads per ClusterQueue).
bool QueueManager::RebuildPays(size_t changed, size_t size) {
  return changed * static_cast<size_t>(std::bit_width(size)) > 2 * size;
}

void QueueManager::Heapify(CqQueue& q) {
  const auto n = static_cast<uint32_t>(q.heap.size());
  for (uint32_t i = 0; i < n; ++i) {
    entries_[Index(q.heap[i].id)].pos = i;
  }
  for (uint32_t i = n / 2; i-- > 0;) {
    SiftDown(q, i);
  }
}

void QueueManager::HeapEraseMany(CqId cq, const std::vector<WorkloadId>& ids) {
  CqQueue& q = cqs_[Index(cq)];
  if (!RebuildPays(ids.size(), q.heap.size())) {
    for (WorkloadId id : ids) {
      HeapErase(q, id);
    }
    return;
  }
  for (WorkloadId id : ids) {
    Entry& e = entries_[Index(id)];
    TALLY_DCHECK(e.location == QueueLocation::kActive && e.cq == cq);
    equivalents_.Unlink(cq, e.hash, id);
    e.location = QueueLocation::kNone;
  }
  active_count_ -= ids.size();
  std::erase_if(q.heap, [this](const HeapNode& node) {
    return entries_[Index(node.id)].location != QueueLocation::kActive;
  });
  if (q.heap.empty()) {
    MarkHeap(cq, false);
  }
  Heapify(q);
}

void QueueManager::HeapPushMany(CqId cq, const std::vector<WorkloadId>& ids) {
  CqQueue& q = EnsureCq(cq);
  if (!RebuildPays(ids.size(), q.heap.size() + ids.size())) {
    for (WorkloadId id : ids) {
      HeapPush(cq, id);
    }
    return;
  }
  for (WorkloadId id : ids) {
    Entry& e = entries_[Index(id)];
    TALLY_DCHECK(e.location == QueueLocation::kNone);
    e.location = QueueLocation::kActive;
    e.cq = cq;
    q.heap.push_back({e.order_time, e.priority, id});
    equivalents_.Link(cq, e.hash, id);
  }
  active_count_ += ids.size();
  if (!q.heap.empty()) {
    MarkHeap(cq, true);
  }
  Heapify(q);
}

}  // namespace engine
