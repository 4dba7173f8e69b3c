// File: engine/base/dense_bitset.h
//
// One bit per dense index (a ClusterQueue's, say), grown on demand: a membership flag that a hot
// loop can test without touching the (large) record it stands for, and whose set members can be
// listed word by word.
//
//   DenseBitset busy;
//   busy.Set(7, true);
//   if (busy.Test(7)) { ... }
//   busy.ForEach([](size_t i) { ... });  // ascending
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace engine {

class DenseBitset {
 public:
  bool Test(size_t i) const {
    return i / 64 < words_.size() && ((words_[i / 64] >> (i % 64)) & 1U) != 0;
  }

  void Set(size_t i, bool value) {
    if (i / 64 >= words_.size()) {
      if (!value) {
        return;
      }
      words_.resize(i / 64 + 1, 0);
    }
    const uint64_t bit = uint64_t{1} << (i % 64);
    words_[i / 64] = value ? words_[i / 64] | bit : words_[i / 64] & ~bit;
  }

  // Calls `f(i)` for every set bit, in ascending order.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t word = 0; word < words_.size(); ++word) {
      for (uint64_t bits = words_[word]; bits != 0; bits &= bits - 1) {
        f(word * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
      }
    }
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace engine
