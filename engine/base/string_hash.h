// File: engine/base/string_hash.h
//
// HashString: the hash of the engine's name tables (engine/base/name_table.h,
// engine/base/string_map.h) and of the workload key index. The keys are short — "ns-122",
// "ns-122/wl-81342", "nvidia.com/gpu" — and a replay looks up about eight of them per workload:
// libstdc++'s std::hash (MurmurHash2, a byte loop around 8-byte steps) was 2.8 % of the
// instructions of the issue-22 moderate trace. This one reads a key of up to 16 bytes with two
// possibly overlapping loads and mixes them with one 64x64->128-bit multiply (the construction of
// wyhash, written here for the few lines it takes); longer keys take 16 bytes per multiply.
//
// Not for anything that orders output: callers use it for lookups only (the values do not
// appear in any output, and iteration orders that depend on them are sorted before use).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace engine {

namespace string_hash_internal {

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t Load8(const char* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline uint64_t Load4(const char* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace string_hash_internal

inline uint64_t HashString(std::string_view s) {
  using string_hash_internal::Load4;
  using string_hash_internal::Load8;
  using string_hash_internal::Mix;
  constexpr uint64_t kSecret0 = 0xa0761d6478bd642fULL;
  constexpr uint64_t kSecret1 = 0xe7037ed1a0b428dbULL;
  constexpr uint64_t kSecret2 = 0x8ebc6af09c88c6e3ULL;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t seed = kSecret0 ^ n;
  uint64_t a = 0;
  uint64_t b = 0;
  if (n <= 16) {
    if (n >= 8) {
      a = Load8(p);
      b = Load8(p + n - 8);
    } else if (n >= 4) {
      a = Load4(p);
      b = Load4(p + n - 4);
    } else if (n > 0) {
      a = (uint64_t{static_cast<uint8_t>(p[0])} << 16)
          | (uint64_t{static_cast<uint8_t>(p[n >> 1])} << 8) | static_cast<uint8_t>(p[n - 1]);
    }
  } else {
    size_t left = n;
    while (left > 16) {
      seed = Mix(Load8(p) ^ kSecret1, Load8(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    // The last 16 bytes of the key, some of them already mixed: n > 16, so they exist.
    a = Load8(p + left - 16);
    b = Load8(p + left - 8);
  }
  return Mix(kSecret2 ^ n, Mix(a ^ kSecret1, b ^ seed));
}

}  // namespace engine
