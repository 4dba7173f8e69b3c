#include "engine/workload_key_index.h"

#include <functional>
#include <utility>

#include "engine/base/backward_shift.h"
#include "engine/base/check.h"
#include "engine/base/string_hash.h"

namespace engine {
namespace {
constexpr size_t kInitialSlots = 64;
}  // namespace

uint32_t WorkloadKeyIndex::Hash(std::string_view key) {
  // HashString's bits already depend on every byte of the key; the multiply mixes all 64 of them
  // into the high 32 kept (the low bits of a product depend only on the low bits of its factors).
  return static_cast<uint32_t>((HashString(key) * 0x9e3779b97f4a7c15ULL) >> 32);
}

size_t WorkloadKeyIndex::Probe(std::string_view key, uint32_t hash) const {
  const size_t mask = slots_.size() - 1;
  size_t i = Home(hash);
  while (IsValid(slots_[i].id)
         && (slots_[i].hash != hash || workloads_[Index(slots_[i].id)]->workload.key != key)) {
    i = (i + 1) & mask;
  }
  return i;
}

std::optional<WorkloadId> WorkloadKeyIndex::Find(std::string_view key) const {
  if (slots_.empty()) {
    return std::nullopt;
  }
  const Slot& slot = slots_[Probe(key, Hash(key))];
  if (!IsValid(slot.id)) {
    return std::nullopt;
  }
  return slot.id;
}

void WorkloadKeyIndex::Prefetch(std::string_view key) const {
  if (!slots_.empty()) {
    __builtin_prefetch(&slots_[Home(Hash(key))]);
  }
}

void WorkloadKeyIndex::Insert(std::string_view key, WorkloadId id) {
  if (2 * (size_ + 1) > slots_.size()) [[unlikely]] {
    Grow();
  }
  const uint32_t hash = Hash(key);
  Slot& slot = slots_[Probe(key, hash)];
  TALLY_DCHECK(!IsValid(slot.id));
  slot = {hash, id};
  ++size_;
}

void WorkloadKeyIndex::Erase(std::string_view key) {
  const size_t i = Probe(key, Hash(key));
  TALLY_DCHECK(IsValid(slots_[i].id));
  BackwardShiftErase(
      slots_, i, [](const Slot& slot) { return IsValid(slot.id); },
      [this](const Slot& slot) { return Home(slot.hash); });
  --size_;
}

void WorkloadKeyIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialSlots : 2 * old.size(), Slot());
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (IsValid(slot.id)) {
      size_t i = Home(slot.hash);
      while (IsValid(slots_[i].id)) {
        i = (i + 1) & mask;
      }
      slots_[i] = slot;
    }
  }
}

}  // namespace engine
