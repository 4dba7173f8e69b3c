// File: engine/base/check.h
//
// CHECK aborts on a broken invariant (a programmer error), in every build. DCHECK is compiled out
// of release builds. Neither validates input: input errors are Status values.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace engine::internal {
[[noreturn]] inline void CheckFailed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
  std::abort();
}
}  // namespace engine::internal

#define TALLY_CHECK(cond)                                         \
  do {                                                            \
    if (!(cond)) [[unlikely]] {                                   \
      ::engine::internal::CheckFailed(#cond, __FILE__, __LINE__); \
    }                                                             \
  } while (false)

#ifdef NDEBUG
#define TALLY_DCHECK(cond) \
  do {                     \
  } while (false && (cond))
#else
#define TALLY_DCHECK(cond) TALLY_CHECK(cond)
#endif
