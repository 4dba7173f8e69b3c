// File: replay/io/utf8.h
//
// UTF-8 well-formedness (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), for
// the readers that must refuse other bytes (YAML is Unicode) and the writers that must replace
// them (every JSON output is valid UTF-8).
#pragma once

#include <cstddef>
#include <string_view>

namespace replay {

// The length of the well-formed UTF-8 sequence at s[i] (1 for ASCII), or 0 when the bytes there
// are not one. REQUIRES: i < s.size().
size_t Utf8SequenceLength(std::string_view s, size_t i);

// The offset of the first byte that does not start a well-formed sequence, or s.size() when all
// of `s` is UTF-8. Checks at SIMD speed first (simdjson), byte by byte only when it fails.
size_t FirstInvalidUtf8(std::string_view s);

}  // namespace replay
