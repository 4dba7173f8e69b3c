// File: replay/sim/quad_heap.h
//
// A min-heap with four children per node, for a shard's timers (replay/sim/shard_simulator_impl.h).
// A shard's heap holds every timer not yet due, including those cancelled since (a preempted
// workload's finish timer stays until its time comes, and then does nothing but move the clock):
// on the 16-tree trace up to 800,000 of them, 25 MB. A binary heap's pop then walks about 20
// levels, most of them cache misses; four children per node halve the levels, and the four
// children of a node are next to each other in memory.
//
// The order is the one `earlier` gives; it must be a strict total order (no two elements equal),
// so that the elements come out in the same order as from any other priority queue.
//
//   QuadHeap<Timer, Earlier> heap;
//   heap.push(t);
//   while (!heap.empty()) { Use(heap.top()); heap.pop(); }
//
// Thread safety: none.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace replay {

template <typename T, typename Earlier>
class QuadHeap {
 public:
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const T& top() const { return items_.front(); }

  void push(T item) {
    size_t hole = items_.size();
    items_.emplace_back();
    while (hole > 0) {
      const size_t parent = (hole - 1) / kChildren;
      if (!earlier_(item, items_[parent])) {
        break;
      }
      items_[hole] = std::move(items_[parent]);
      hole = parent;
    }
    items_[hole] = std::move(item);
  }

  // REQUIRES: !empty().
  void pop() {
    T last = std::move(items_.back());
    items_.pop_back();
    const size_t n = items_.size();
    if (n == 0) {
      return;
    }
    size_t hole = 0;
    while (true) {
      const size_t first = hole * kChildren + 1;
      if (first >= n) {
        break;
      }
      size_t best = first;
      const size_t end = first + kChildren < n ? first + kChildren : n;
      for (size_t c = first + 1; c < end; ++c) {
        if (earlier_(items_[c], items_[best])) {
          best = c;
        }
      }
      if (!earlier_(items_[best], last)) {
        break;
      }
      items_[hole] = std::move(items_[best]);
      hole = best;
    }
    items_[hole] = std::move(last);
  }

 private:
  static constexpr size_t kChildren = 4;
  std::vector<T> items_;
  [[no_unique_address]] Earlier earlier_;
};

}  // namespace replay
