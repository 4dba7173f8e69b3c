// File: replay/sim/timer_queue.h
//
// A shard's timers (replay/sim/shard_simulator_impl.h): a QuadHeap for the timers due later, and
// a first-in first-out list for those due at the instant they are scheduled at.
//
// Why: in policy-only mode most timers are due at once — a workload admitted gets its pods-ready
// timer at the same instant (no --pods-ready-delay), a preempted or finished one its release
// (no --finish-to-release) — and each went through the heap, a push and a pop of about log4(n)
// levels of four comparisons, against the finish timers of every running workload and the
// cancelled ones (on the 16-tree trace's first 20,000 workloads the heap's work was 2.4 % of all
// instructions, its ping-pong instants scheduling a release and a pods-ready timer every cycle).
// A timer due at once goes to the back of the list and leaves from its front.
//
// Exactness: the list is kept in the order `earlier` gives (push_now puts an item there only if
// it is not earlier than the list's last item, else in the heap), and top() is the earlier of
// the list's front and the heap's top. With a strict total order every element comes out in the
// same order as from one heap: the decisions do not move.
//
//   TimerQueue<Timer, Earlier> timers;
//   timers.push_now(t);  // t due at the current instant
//   timers.push(u);      // u due later (or anything)
//   while (!timers.empty()) { Use(timers.top()); timers.pop(); }
//
// Thread safety: none.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "replay/sim/quad_heap.h"

namespace replay {

template <typename T, typename Earlier>
class TimerQueue {
 public:
  bool empty() const { return head_ == now_.size() && later_.empty(); }
  size_t size() const { return now_.size() - head_ + later_.size(); }
  // REQUIRES: !empty().
  const T& top() const { return FromNow() ? now_[head_] : later_.top(); }

  void push(T item) { later_.push(std::move(item)); }
  // An item due at the current instant: the list's back when that keeps the list in order (the
  // caller's items at one instant come in order), else the heap.
  void push_now(T item) {
    if (head_ == now_.size() || !earlier_(item, now_.back())) {
      now_.push_back(std::move(item));
    } else {
      later_.push(std::move(item));
    }
  }

  // REQUIRES: !empty().
  void pop() {
    if (!FromNow()) {
      later_.pop();
      return;
    }
    if (++head_ == now_.size()) {
      now_.clear();  // keeps its storage
      head_ = 0;
    } else if (head_ >= kCompactAt && 2 * head_ >= now_.size()) {
      // A list never empty for long (an item pushed for each popped) drops what it has given.
      now_.erase(now_.begin(), now_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  // Removes every element for which `pred` is true (QuadHeap::RemoveIf; the list keeps its
  // order).
  template <typename Pred>
  void RemoveIf(Pred pred) {
    now_.erase(now_.begin(), now_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
    std::erase_if(now_, pred);
    later_.RemoveIf(pred);
  }

 private:
  // Whether the next element is the list's.
  bool FromNow() const {
    return head_ != now_.size() && (later_.empty() || !earlier_(later_.top(), now_[head_]));
  }

  static constexpr size_t kCompactAt = 1024;

  std::vector<T> now_;  // from head_ on: in order
  size_t head_ = 0;
  QuadHeap<T, Earlier> later_;
  [[no_unique_address]] Earlier earlier_;
};

}  // namespace replay
