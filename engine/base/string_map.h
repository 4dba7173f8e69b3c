// File: engine/base/string_map.h
//
// Hash maps keyed by std::string that are looked up by std::string_view without building a
// string (C++20 heterogeneous lookup), and a "namespace/name" key built on the stack for such a
// lookup. Every workload added looks up its own key and its LocalQueue's several times; each
// lookup through a temporary std::string cost an allocation once the key passed 15 bytes.
//
//   StringMap<WorkloadId> by_key;
//   by_key.find(std::string_view("team-a/job-1"));
//   SlashKey key("team-a", "main");
//   local_queues.find(key.view());
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/base/string_hash.h"

namespace engine {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return HashString(s); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

// "a/b" (engine/base/slash_join.h) in a stack buffer, or on the heap past 255 bytes.
class SlashKey {
 public:
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): the buffer is written before it is read
  SlashKey(std::string_view a, std::string_view b) {
    const size_t size = a.size() + 1 + b.size();
    char* out = buffer_;
    if (size > sizeof(buffer_)) {
      long_.resize(size);
      out = long_.data();
    }
    if (!a.empty()) {  // an empty view's data() may be null, which memcpy must not get
      std::memcpy(out, a.data(), a.size());
    }
    out[a.size()] = '/';
    if (!b.empty()) {
      std::memcpy(out + a.size() + 1, b.data(), b.size());
    }
    view_ = std::string_view(out, size);
  }
  SlashKey(const SlashKey&) = delete;
  SlashKey& operator=(const SlashKey&) = delete;
  SlashKey(SlashKey&&) = delete;
  SlashKey& operator=(SlashKey&&) = delete;
  ~SlashKey() = default;

  std::string_view view() const { return view_; }

 private:
  char buffer_[256];
  std::string long_;
  std::string_view view_;
};

}  // namespace engine
