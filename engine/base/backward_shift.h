// File: engine/base/backward_shift.h
//
// Deletion from an open-addressing table with linear probing, without tombstones: the later
// members of the probe run move back into the hole, each unless its home slot lies cyclically in
// (hole, its slot]. Shared by the engine's flat tables (engine/hash_group_index.h,
// engine/workload_key_index.h).
//
//   BackwardShiftErase(slots, i, [](const Slot& s) { return s.used; },
//                      [&](const Slot& s) { return HomeOf(s); });
#pragma once

#include <cstddef>
#include <vector>

namespace engine {

// Empties slot `i` (occupied) of `slots` (a power-of-two size). `occupied(slot)`: whether a slot
// holds a member; `home(slot)`: the slot its key hashes to. Slots are reset with `Slot()`.
template <typename Slot, typename Occupied, typename Home>
void BackwardShiftErase(std::vector<Slot>& slots, size_t i, Occupied occupied, Home home) {
  const size_t mask = slots.size() - 1;
  for (size_t j = (i + 1) & mask; occupied(slots[j]); j = (j + 1) & mask) {
    if (((j - home(slots[j])) & mask) >= ((j - i) & mask)) {
      slots[i] = slots[j];
      i = j;
    }
  }
  slots[i] = Slot();
}

}  // namespace engine
