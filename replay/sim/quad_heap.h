// File: replay/sim/quad_heap.h
//
// A min-heap with four children per node, for a shard's timers (replay/sim/shard_simulator_impl.h).
// A shard's heap holds every timer not yet due, including those cancelled since (a preempted
// workload's finish timer stays until its time comes, and then does nothing but move the clock):
// on the 16-tree trace up to 800,000 of them, 25 MB. A binary heap's pop then walks about 20
// levels, most of them cache misses; four children per node halve the levels, and the four
// children of a node are next to each other in memory.
//
// The order is the one `earlier` gives. Where it is a strict total order (no two elements equal),
// the elements come out in the same order as from any other priority queue; elements that
// compare equal come out in no particular order among themselves.
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
    if (!items_.empty()) {
      SiftDown(0, std::move(last));
    }
  }

  // Removes every element for which `pred` is true, in one pass and a rebuild (Floyd's): for
  // many elements that will never be wanted.
  template <typename Pred>
  void RemoveIf(Pred pred) {
    std::erase_if(items_, pred);
    if (items_.size() < 2) {
      return;
    }
    for (size_t i = (items_.size() - 2) / kChildren + 1; i-- > 0;) {
      SiftDown(i, std::move(items_[i]));
    }
  }

 private:
  static constexpr size_t kChildren = 4;

  // Puts `item` at `hole` or below it, moving the earliest children up.
  void SiftDown(size_t hole, T item) {
    const size_t n = items_.size();
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
      if (!earlier_(items_[best], item)) {
        break;
      }
      items_[hole] = std::move(items_[best]);
      hole = best;
    }
    items_[hole] = std::move(item);
  }

  std::vector<T> items_;
  [[no_unique_address]] Earlier earlier_;
};

}  // namespace replay
