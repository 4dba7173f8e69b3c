#include "replay/io/pod_sets_by_text.h"

#include "engine/base/string_hash.h"

namespace replay {

uint64_t PodSetsByText::Hash(std::string_view text) {
  return engine::HashString(text);
}

const engine::PodSetList* PodSetsByText::Find(std::string_view text, uint64_t hash) const {
  for (const Slot& slot : slots_) {
    if (slot.hash == hash && !slot.list.empty() && slot.text == text) {
      ++hits_;
      return &slot.list;
    }
  }
  ++misses_;
  return nullptr;
}

void PodSetsByText::Keep(std::string_view text, uint64_t hash, const engine::PodSetList& list) {
  if (list.empty()) {
    return;  // an empty slot means unused
  }
  Slot& slot = slots_[next_];
  next_ = (next_ + 1) % kSlots;
  slot.hash = hash;
  slot.text.assign(text);
  slot.list = list;
}

}  // namespace replay
