// File: replay/io/utf8.cc
#include "replay/io/utf8.h"

#include <simdjson.h>

namespace replay {
namespace {

bool IsContinuation(const std::string_view s, size_t i) {
  return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80;
}

}  // namespace

size_t Utf8SequenceLength(const std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const auto next = [&](size_t k) {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
  };
  if (c < 0x80) {
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    return IsContinuation(s, i + 1) ? 2 : 0;
  }
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;
    return next(1) >= lo && next(1) <= hi && IsContinuation(s, i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
    return next(1) >= lo && next(1) <= hi && IsContinuation(s, i + 2) && IsContinuation(s, i + 3)
               ? 4
               : 0;
  }
  return 0;
}

size_t FirstInvalidUtf8(std::string_view s) {
  if (simdjson::validate_utf8(s.data(), s.size())) {
    return s.size();
  }
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      return i;
    }
    i += n;
  }
  return s.size();
}

}  // namespace replay
