#include "engine/equivalence_index.h"

#include <algorithm>
#include <utility>

namespace engine {
namespace {
constexpr size_t kInitialSlots = 1024;
}  // namespace

size_t EquivalenceIndex::Home(CqId cq, uint64_t hash) const {
  uint64_t mixed =
      (hash ^ (static_cast<uint64_t>(Index(cq)) * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
  return static_cast<size_t>(mixed >> 32) & (slots_.size() - 1);
}

size_t EquivalenceIndex::Probe(CqId cq, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  size_t i = Home(cq, hash);
  while (IsValid(slots_[i].head) && (slots_[i].hash != hash || slots_[i].cq != cq)) {
    i = (i + 1) & mask;
  }
  return i;
}

WorkloadId EquivalenceIndex::Head(CqId cq, uint64_t hash) const {
  return slots_.empty() ? kInvalidId<WorkloadId> : slots_[Probe(cq, hash)].head;
}

void EquivalenceIndex::SetHead(CqId cq, uint64_t hash, WorkloadId head) {
  if (!IsValid(head)) {
    if (!slots_.empty()) {
      size_t i = Probe(cq, hash);
      if (IsValid(slots_[i].head)) {
        EraseSlot(i);
      }
    }
    return;
  }
  if (2 * (size_ + 1) > slots_.size()) [[unlikely]] {
    Grow();
  }
  Slot& slot = slots_[Probe(cq, hash)];
  if (!IsValid(slot.head)) {
    ++size_;
  }
  slot = {hash, cq, head};
}

void EquivalenceIndex::EraseSlot(size_t i) {
  // Backward-shift deletion: a later member of the probe run moves into the hole unless its home
  // slot lies cyclically in (hole, j].
  const size_t mask = slots_.size() - 1;
  for (size_t j = (i + 1) & mask; IsValid(slots_[j].head); j = (j + 1) & mask) {
    size_t home = Home(slots_[j].cq, slots_[j].hash);
    if (((j - home) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot();
  --size_;
}

void EquivalenceIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialSlots : 2 * old.size(), Slot());
  for (const Slot& slot : old) {
    if (IsValid(slot.head)) {
      slots_[Probe(slot.cq, slot.hash)] = slot;
    }
  }
}

void EquivalenceIndex::Link(CqId cq, uint64_t hash, WorkloadId id) {
  if (Index(id) >= links_.size()) [[unlikely]] {
    links_.resize(std::max<size_t>(Index(id) + 1, 2 * links_.size()));
  }
  WorkloadId head = Head(cq, hash);
  links_[Index(id)] = {kInvalidId<WorkloadId>, head};
  if (IsValid(head)) {
    links_[Index(head)].prev = id;
  }
  SetHead(cq, hash, id);
}

void EquivalenceIndex::Unlink(CqId cq, uint64_t hash, WorkloadId id) {
  Links& l = links_[Index(id)];
  if (IsValid(l.next)) {
    links_[Index(l.next)].prev = l.prev;
  }
  if (IsValid(l.prev)) {
    links_[Index(l.prev)].next = l.next;
  } else {
    SetHead(cq, hash, l.next);  // erases the key when the list empties
  }
  l = Links();
}

void EquivalenceIndex::Collect(CqId cq, uint64_t hash, std::vector<WorkloadId>& out) const {
  for (WorkloadId id = Head(cq, hash); IsValid(id); id = links_[Index(id)].next) {
    out.push_back(id);
  }
}

}  // namespace engine
