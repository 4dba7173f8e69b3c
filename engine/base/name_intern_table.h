// File: engine/base/name_intern_table.h
//
// The table behind engine::InternedName (engine/base/interned_name.h): each distinct text once,
// at an address that never changes, found by its hash. It only grows, up to `max_names` texts or
// `max_bytes` of text; past either bound Intern finds the texts it holds but adds none.
//
// Thread safety: Intern and the counts take the table's lock; an entry, once returned, is never
// written or freed, so it may be read without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/mutex.h"

namespace engine {

// A text the table holds (`owned` false), or one an InternedName holds alone on the heap (true).
struct InternedText {
  std::string text;
  bool owned = false;
};

class NameInternTable {
 public:
  NameInternTable(size_t max_names, size_t max_bytes)
      : max_names_(max_names), max_bytes_(max_bytes) {}

  // The entry for `text` (whose HashString is `hash`), added if new; nullptr when it is new and
  // the table is full.
  const InternedText* Intern(std::string_view text, uint64_t hash);

  size_t size() const;
  size_t bytes() const;

 private:
  static constexpr size_t kInitialSlots = 64;

  const size_t max_names_;
  const size_t max_bytes_;
  mutable Mutex mu_;
  std::deque<InternedText> texts_ TALLY_GUARDED_BY(mu_);  // a deque: entries never move
  // Open addressing by hash, load ≤ ½: pointers into texts_.
  std::vector<const InternedText*> slots_ TALLY_GUARDED_BY(mu_);
  size_t bytes_ TALLY_GUARDED_BY(mu_) = 0;
};

}  // namespace engine
