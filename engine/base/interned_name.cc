// File: engine/base/interned_name.cc
#include "engine/base/interned_name.h"

#include <array>

#include "engine/base/string_hash.h"

namespace engine {

namespace {

NameInternTable& TheTable() {
  // Never destroyed: names in static objects may outlive static destructors.
  static NameInternTable* table =
      new NameInternTable(InternedName::kMaxNames, InternedName::kMaxBytes);
  return *table;
}

// Each thread's last interned names by hash, direct-mapped: a replay interns four names per
// Workload, nearly always ones it saw a moment ago.
constexpr size_t kCacheSlots = 64;
thread_local std::array<const InternedText*, kCacheSlots> t_cache{};

}  // namespace

const InternedText* InternedName::Make(std::string_view text) {
  if (text.empty()) {
    return nullptr;
  }
  const uint64_t hash = HashString(text);
  const InternedText*& cached = t_cache[(hash >> 32) % kCacheSlots];
  if (cached != nullptr && cached->text == text) {
    return cached;
  }
  const InternedText* entry = TheTable().Intern(text, hash);
  if (entry == nullptr) {
    return new InternedText{std::string(text), /*owned=*/true};
  }
  cached = entry;
  return entry;
}

size_t InternedName::SharedCount() {
  return TheTable().size();
}

const std::string& InternedName::EmptyText() {
  static const std::string* empty = new std::string;
  return *empty;
}

}  // namespace engine
