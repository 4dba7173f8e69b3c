// File: engine/base/name_table.h
//
// Interns names once, giving dense ids 0..size()-1 in first-seen order. Lookups by name happen at
// load time only; the engine keeps the ids.
//
// Thread safety: not synchronised; build it before sharing it read-only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/string_hash.h"

namespace engine {

template <typename Id>
class NameTable {
 public:
  NameTable() = default;

  // Returns the id of `name`, adding it if new.
  Id Intern(std::string_view name) {
    auto it = index_.find(name);
    if (it != index_.end()) {
      return it->second;
    }
    Id id = static_cast<Id>(names_.size());
    names_.emplace_back(name);
    index_.emplace(names_.back(), id);
    return id;
  }

  std::optional<Id> Find(std::string_view name) const {
    auto it = index_.find(name);
    if (it == index_.end()) {
      return std::nullopt;
    }
    return it->second;
  }

  // REQUIRES: id was returned by Intern().
  const std::string& Name(Id id) const { return names_[static_cast<uint32_t>(id)]; }
  uint32_t size() const { return static_cast<uint32_t>(names_.size()); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return HashString(s); }
  };
  // std::deque-free: names_ may reallocate, so the map owns its own key copies.
  std::vector<std::string> names_;
  std::unordered_map<std::string, Id, Hash, std::equal_to<>> index_;
};

}  // namespace engine
