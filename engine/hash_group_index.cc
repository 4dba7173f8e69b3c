#include "engine/hash_group_index.h"

#include <utility>

#include "engine/base/backward_shift.h"
#include "engine/base/check.h"

namespace engine {
namespace {
constexpr size_t kInitialGroupSlots = 64;
}  // namespace

size_t HashGroupIndex::Home(CqId cq, uint64_t hash) const {
  const uint64_t mixed =
      (hash ^ (static_cast<uint64_t>(Index(cq)) * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
  return static_cast<size_t>(mixed >> 32) & (slots_.size() - 1);
}

size_t HashGroupIndex::Probe(CqId cq, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  size_t i = Home(cq, hash);
  while (slots_[i].group != kNone && (slots_[i].hash != hash || slots_[i].cq != cq)) {
    i = (i + 1) & mask;
  }
  return i;
}

void HashGroupIndex::Insert(CqId cq, uint64_t hash, uint32_t group) {
  TALLY_DCHECK(group != kNone);
  if (2 * (size_ + 1) > slots_.size()) [[unlikely]] {
    Grow();
  }
  Slot& slot = slots_[Probe(cq, hash)];
  TALLY_DCHECK(slot.group == kNone);
  slot = {hash, cq, group};
  ++size_;
}

void HashGroupIndex::Erase(CqId cq, uint64_t hash) {
  const size_t i = Probe(cq, hash);
  TALLY_DCHECK(slots_[i].group != kNone);
  BackwardShiftErase(
      slots_, i, [](const Slot& slot) { return slot.group != kNone; },
      [this](const Slot& slot) { return Home(slot.cq, slot.hash); });
  --size_;
}

void HashGroupIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialGroupSlots : 2 * old.size(), Slot());
  for (const Slot& slot : old) {
    if (slot.group != kNone) {
      slots_[Probe(slot.cq, slot.hash)] = slot;
    }
  }
}

}  // namespace engine
