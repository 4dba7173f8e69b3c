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
// else holds any more (use_count() == 1) leave the table whenever it would grow, and the table
// is sized for four times those left. Up to half the new table's size of the lists that left
// are kept as spares: a list new to the pool is written over a spare's storage (and its
// elements'), not allocated. A trace whose reservations rarely repeat misses the pool at nearly
// every admission, and each miss copied the lists into new ones (four allocations, 350 ns more
// per Reserve and Release than the store's old reuse of a released reservation's vectors,
// bench/workload_store_bench.cc). The pool holds at most about four times the lists in use
// (counted at its last sweep) in its table and twice that as spares, plus kMinSlots.
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
    slots_[i] = {hash, NewList(items)};
    ++size_;
    return slots_[i].list;
  }

  // Lists pooled (some may be held by nobody else until the next sweep).
  size_t size() const { return size_; }
  // Lists kept to be written over.
  size_t spares() const { return spares_.size(); }
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

  // A spare written over with `items`, or a new list.
  SharedList<T> NewList(std::span<const T> items) {
    while (!spares_.empty()) {
      SharedList<T> list = std::move(spares_.back());
      spares_.pop_back();
      if (list.OverwriteIfSole(items)) {
        return list;
      }
    }
    return SharedList<T>::Own(std::vector<T>(items.begin(), items.end()));
  }

  // Takes the lists only the pool holds out of the table (up to half the new table's size of
  // them become spares, the rest are freed), and sizes the table for four times what is left (at
  // least kMinSlots). One pass over the old table: a list's use count is a read of its control
  // block, a cache miss per list (two passes were a third of a Reserve and Release that missed
  // the pool, bench/workload_store_bench.cc).
  void SweepOrGrow() {
    for (Slot& s : slots_) {
      if (s.hash == 0) {
        continue;
      }
      if (s.list.use_count() > 1) {
        kept_.push_back(std::move(s));
      } else {
        unused_.push_back(std::move(s.list));
      }
    }
    slots_.assign(std::max(kMinSlots, std::bit_ceil(4 * (kept_.size() + 1))), Slot{});
    const size_t max_spares = slots_.size() / 2;
    if (spares_.size() > max_spares) {
      spares_.resize(max_spares);
    }
    for (size_t i = 0; i < unused_.size() && spares_.size() < max_spares; ++i) {
      spares_.push_back(std::move(unused_[i]));
    }
    unused_.clear();  // the lists not kept as spares are freed here
    const size_t mask = slots_.size() - 1;
    for (Slot& s : kept_) {
      size_t i = static_cast<size_t>(s.hash >> 20) & mask;
      while (slots_[i].hash != 0) {
        i = (i + 1) & mask;
      }
      slots_[i] = std::move(s);
    }
    size_ = kept_.size();
    kept_.clear();
  }

  std::vector<Slot> slots_;            // power-of-two size, or empty
  std::vector<SharedList<T>> spares_;  // each held by the pool alone
  // SweepOrGrow's scratch (empty between calls; kept for their storage).
  std::vector<Slot> kept_;
  std::vector<SharedList<T>> unused_;
  size_t size_ = 0;
  uint64_t hits_ = 0;
};

}  // namespace engine
