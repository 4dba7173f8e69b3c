// File: replay/io/content_digest.cc
#include "replay/io/content_digest.h"

#include <bit>
#include <cstring>

#include "fmt/format.h"

namespace replay {
namespace {

constexpr uint64_t kMultiplier = 0xbf58476d1ce4e5b9ULL;

uint64_t Rotate(uint64_t x, int bits) {
  return (x << bits) | (x >> (64 - bits));
}

// splitmix64's finalizer: every input bit reaches every output bit.
uint64_t Finalize(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// One 8-byte word into the state: the digest's step, the same for whole words and the last partial
// one.
uint64_t MixWord(uint64_t state, uint64_t word) {
  return Rotate(state ^ (word * kMultiplier), 29) * 9;
}

uint64_t LoadLittleEndian(const char* p) {
  uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
  if constexpr (std::endian::native == std::endian::big) {
    word = __builtin_bswap64(word);
  }
  return word;
}

}  // namespace

void ContentDigest::Mix(uint64_t word) {
  state_ = MixWord(state_, word);
}

void ContentDigest::Update(std::string_view bytes) {
  length_ += bytes.size();
  size_t i = 0;
  // Finish the word a previous piece left open, byte by byte.
  while (pending_bytes_ > 0 && i < bytes.size()) {
    pending_ |= uint64_t{static_cast<unsigned char>(bytes[i++])} << (8 * pending_bytes_);
    if (++pending_bytes_ == 8) {
      Mix(pending_);
      pending_ = 0;
      pending_bytes_ = 0;
    }
  }
  // The whole words with the state in a local: written through `this` on every word, it was
  // stored back each time (the bytes may alias it as far as the compiler knows), 11 instructions a
  // word; four words a turn of the loop. The same Mix, in the same order.
  uint64_t state = state_;
  const auto mix = [&state](uint64_t word) { state = MixWord(state, word); };
  for (; i + 32 <= bytes.size(); i += 32) {
    mix(LoadLittleEndian(bytes.data() + i));
    mix(LoadLittleEndian(bytes.data() + i + 8));
    mix(LoadLittleEndian(bytes.data() + i + 16));
    mix(LoadLittleEndian(bytes.data() + i + 24));
  }
  for (; i + 8 <= bytes.size(); i += 8) {
    mix(LoadLittleEndian(bytes.data() + i));
  }
  state_ = state;
  for (; i < bytes.size(); ++i) {
    pending_ |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * pending_bytes_);
    ++pending_bytes_;
  }
}

uint64_t ContentDigest::Value() const {
  uint64_t state = state_;
  if (pending_bytes_ > 0) {
    state = MixWord(state, pending_);
  }
  return Finalize(state ^ Finalize(length_));
}

std::string ContentDigest::Hex() const {
  return fmt::format("{:016x}", Value());
}

}  // namespace replay
