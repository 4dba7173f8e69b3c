// File: replay/io/literal_equals.h
//
// Is(text, "literal"): text == "literal", with the literal's length known when compiling. The
// parsers compare every JSON key they meet with the names they know (about a dozen compares a
// trace line); string_view's operator== calls its out-of-line compare() under -O2, about 26
// instructions each (1 % of a replay's instructions, callgrind, moderate trace). Here a length
// test and a memcmp of constant size, which the compiler turns into a load or two.
#pragma once

#include <cstddef>
#include <string_view>

namespace replay {

template <size_t N>
constexpr bool Is(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && __builtin_memcmp(text.data(), literal, N - 1) == 0;
}

}  // namespace replay
