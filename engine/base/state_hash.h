// File: engine/base/state_hash.h
//
// StateTerm: one term of an order-free hash of a set of (key, value) pairs, kept incrementally by
// adding a pair's term when it appears and subtracting it when it goes (sums modulo 2^64). Two
// moments whose sets are equal get equal sums however they got there: the nomination memo
// (engine/nomination_memo.h) recognises a quota tree, or a set of reservations, that came back
// to an earlier state — a preemption ping-pong repeats two states thousands of times at one
// instant — where a version counter only ever grows.
//
// The terms are splitmix64's finaliser over both words: every bit of key and value reaches every
// bit of the term. Two different sets collide with probability about 2^-64 per comparison.
#pragma once

#include <cstdint>

#include "engine/base/string_hash.h"

namespace engine {

inline uint64_t StateMix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return x;
}

// A cheaper mixer for the hot path: HashString's step (one 64x64->128-bit multiply, its halves
// folded; engine/base/string_hash.h) by a fixed odd constant. ResourceTree adds up its key with it.
inline uint64_t StateFold(uint64_t x) {
  return string_hash_internal::Mix(x, 0xA0761D6478BD642FULL);
}

// Adds word `x` to a running hash `h`: one multiply, for hashes folded once at the end (StateFold,
// StateMix) over many words (a reservation's pod sets and usage, WorkloadStore).
inline void MixWord(uint64_t& h, uint64_t x) {
  h = (h ^ x) * 0x9E3779B97F4A7C15ULL;
}

// The term of the pair (key, value). Keys of different kinds of pair should differ in their high
// bits (callers shift a kind tag in), so that no two kinds share a term.
inline uint64_t StateTerm(uint64_t key, uint64_t value) {
  return StateMix(StateMix(key + 0x9E3779B97F4A7C15ULL) ^ value);
}

}  // namespace engine
