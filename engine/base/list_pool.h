// File: engine/base/list_pool.h
//
// Distinct lists, each kept once and handed out as a SharedList (engine/base/shared_list.h) to
// every holder of an equal list. A WorkloadStore pools its reservations' lists this way
// (Workload::admitted and Workload::usage): the Workloads of one ClusterQueue with the same pod
// sets are admitted to the same flavors with the same usage, so a trace's hundreds of thousands
// of reservations hold a few hundred distinct lists. Each Workload's own lists were four
// allocations, about 170 of the 1,000 bytes a live admitted workload cost (docs/replay.md,
// "Memory").
//
//   ListPool<SlotAmount, UsageHash> pool;
//   w.usage = pool.Intern(scratch);   // the pooled list equal to `scratch`, or a new one
//
// Memory: an open-addressing table (linear probing, load <= 1/2) of (hash, list). Lists nobody
// else holds any more (use_count() == 1) are dropped whenever the table would grow, and the
// table is sized for four times those left: the pool holds at most about four times the lists
// in use (counted at its last sweep), plus kMinSlots / 2.
//
// Hash: a functor hashing a std::span<const T>; equal lists must hash alike (T's operator==).
//
// Thread safety: none; owned by one WorkloadStore (its lists may be read anywhere).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "engine/base/shared_list.h"

namespace engine {

template <typename T, typename Hash>
class ListPool {
 public:
  static constexpr size_t kMinSlots = 16;

  // The pooled list equal to `items`, or a new pooled one holding a copy of them. An empty
  // `items` gives an empty list (never pooled).
  SharedList<T> Intern(std::span<const T> items) {
    if (items.empty()) {
      return {};
    }
    const uint64_t hash = Hash{}(items) | 1;  // 0 marks an empty slot
    if (slots_.empty()) {
      SweepOrGrow();
    }
    size_t i = Probe(items, hash);
    if (slots_[i].hash == hash) {
      ++hits_;
      return slots_[i].list;
    }
    if (2 * (size_ + 1) > slots_.size()) {
      SweepOrGrow();
      i = Probe(items, hash);
    }
    slots_[i] = {hash, SharedList<T>::Own(std::vector<T>(items.begin(), items.end()))};
    ++size_;
    return slots_[i].list;
  }

  // Lists pooled (some may be held by nobody else until the next sweep).
  size_t size() const { return size_; }
  // Interns that found their list pooled.
  uint64_t hits() const { return hits_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    SharedList<T> list;
  };

  // The slot holding a list equal to `items`, or the empty slot ending the probe run.
  size_t Probe(std::span<const T> items, uint64_t hash) const {
    const size_t mask = slots_.size() - 1;
    size_t i = static_cast<size_t>(hash >> 20) & mask;
    while (slots_[i].hash != 0
           && !(slots_[i].hash == hash
                && std::equal(items.begin(), items.end(), slots_[i].list.begin(),
                              slots_[i].list.end()))) {
      i = (i + 1) & mask;
    }
    return i;
  }

  // Drops the lists only the pool holds, and sizes the table for twice what is left (at least
  // kMinSlots, at least twice the live lists plus one).
  void SweepOrGrow() {
    std::vector<Slot> old = std::move(slots_);
    size_t kept = 0;
    for (const Slot& s : old) {
      kept += s.hash != 0 && s.list.use_count() > 1 ? 1 : 0;
    }
    slots_.assign(std::max(kMinSlots, std::bit_ceil(4 * (kept + 1))), Slot{});
    size_ = 0;
    const size_t mask = slots_.size() - 1;
    for (Slot& s : old) {
      if (s.hash == 0 || s.list.use_count() <= 1) {
        continue;
      }
      size_t i = static_cast<size_t>(s.hash >> 20) & mask;
      while (slots_[i].hash != 0) {
        i = (i + 1) & mask;
      }
      slots_[i] = std::move(s);
      ++size_;
    }
  }

  std::vector<Slot> slots_;  // power-of-two size, or empty
  size_t size_ = 0;
  uint64_t hits_ = 0;
};

}  // namespace engine
