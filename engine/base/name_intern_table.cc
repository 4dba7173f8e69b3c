// File: engine/base/name_intern_table.cc
#include "engine/base/name_intern_table.h"

#include "engine/base/string_hash.h"

namespace engine {

namespace {

void Place(std::vector<const InternedText*>& slots, const InternedText* entry, uint64_t hash) {
  const size_t mask = slots.size() - 1;
  size_t i = hash & mask;
  while (slots[i] != nullptr) {
    i = (i + 1) & mask;
  }
  slots[i] = entry;
}

}  // namespace

const InternedText* NameInternTable::Intern(std::string_view text, uint64_t hash) {
  MutexLock lock(mu_);
  if (slots_.empty()) {
    slots_.assign(kInitialSlots, nullptr);
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i] != nullptr; i = (i + 1) & mask) {
    if (slots_[i]->text == text) {
      return slots_[i];
    }
  }
  if (texts_.size() >= max_names_ || text.size() > max_bytes_ - bytes_) {
    return nullptr;
  }
  const InternedText* entry = &texts_.emplace_back(InternedText{std::string(text)});
  bytes_ += text.size();
  if (2 * texts_.size() > slots_.size()) {
    slots_.assign(2 * slots_.size(), nullptr);
    for (const InternedText& t : texts_) {
      Place(slots_, &t, HashString(t.text));
    }
  } else {
    Place(slots_, entry, hash);
  }
  return entry;
}

size_t NameInternTable::size() const {
  MutexLock lock(mu_);
  return texts_.size();
}

size_t NameInternTable::bytes() const {
  MutexLock lock(mu_);
  return bytes_;
}

}  // namespace engine
