// File: test/replay/sim/timed_item.h
//
// The element the heap tests (quad_heap_test, timer_queue_test) order: a time and a unique
// sequence number, compared as a shard's timers are (replay/sim/shard_simulator_impl.h,
// TimerEarlier), so that the order is strict and total.
#pragma once

#include <cstdint>

namespace replay::heap_testing {

struct Item {
  int64_t time;
  uint64_t order;  // unique: the order is total
};
struct ItemEarlier {
  bool operator()(const Item& a, const Item& b) const {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  }
};
struct ItemLater {
  bool operator()(const Item& a, const Item& b) const { return ItemEarlier{}(b, a); }
};

}  // namespace replay::heap_testing
