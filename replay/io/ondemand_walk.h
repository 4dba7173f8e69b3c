// File: replay/io/ondemand_walk.h
//
// Walking a simdjson On-Demand document without exceptions, shared by the Workload fast path
// (replay/io/workload_json.cc) and the parse-floor benchmark (bench/trace_parse_floor_bench.cc),
// which must read the trace the same way to be its floor.
//
//   ForEachField(value, [&](std::string_view key, od::value field) { ...; return ok; });
//
// Thread safety: none needed (stateless); the values belong to one parser.
#pragma once

#include <bit>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <simdjson.h>

namespace replay::ondemand_walk {

namespace od = simdjson::ondemand;

// The bytes of a JSON string token up to its closing quote, without unescaping: for text that is
// known to hold no escapes (the fast path checks plain ASCII first). The quote is looked for 16
// bytes at a time: keys and names are 4 to 30 bytes, and the byte loop was 2.2 % of the moderate
// trace's instructions (issue 22). A load may read up to 15 bytes past the quote, which stays
// inside what simdjson reads itself: stage 1 found the quote inside the document, and a document
// is iterated only with SIMDJSON_PADDING (64) readable bytes after it.
inline std::string_view RawView(od::raw_json_string raw) {
  const char* begin = raw.raw();
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  for (const char* p = begin;; p += 16) {
    const auto found = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), quote)));
    if (found != 0) {
      return {begin, static_cast<size_t>(p - begin) + static_cast<size_t>(std::countr_zero(found))};
    }
  }
#else
  const char* end = begin;
  while (*end != '"') {
    ++end;
  }
  return {begin, static_cast<size_t>(end - begin)};
#endif
}

// Calls f(key, value) for each field of the object `value`; false if it is not one or f fails.
template <typename F>
bool ForEachField(od::value value, F&& f) {
  od::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) {
    return false;
  }
  for (auto result : object) {
    od::field field;
    if (std::move(result).get(field) != simdjson::SUCCESS
        || !f(RawView(field.key()), field.value())) {
      return false;
    }
  }
  return true;
}

// Calls f(item) for each element of the array `value`; false if it is not one or f fails.
template <typename F>
bool ForEachItem(od::value value, F&& f) {
  od::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) {
    return false;
  }
  for (auto result : array) {
    od::value item;
    // get() takes an rvalue in simdjson's API, whatever clang-tidy says of the move.
    if (std::move(result).get(item) != simdjson::SUCCESS  // NOLINT(performance-move-const-arg)
        || !f(item)) {
      return false;
    }
  }
  return true;
}

}  // namespace replay::ondemand_walk
