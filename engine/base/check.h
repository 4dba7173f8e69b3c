// File: engine/base/check.h
//
// CHECK aborts on a broken invariant (a programmer error), in every build. DCHECK is compiled out
// of release builds: it is on without NDEBUG, or with -DTALLY_DCHECKS (the sanitizer presets of
// scripts/build, which keep NDEBUG for the libraries' own assertions). TALLY_DCHECK_IS_ON says
// which, for checks that need more than one expression. Neither validates input: input errors
// are Status values.
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

#if defined(NDEBUG) && !defined(TALLY_DCHECKS)
#define TALLY_DCHECK_IS_ON 0
#define TALLY_DCHECK(cond) \
  do {                     \
  } while (false && (cond))
#else
#define TALLY_DCHECK_IS_ON 1
#define TALLY_DCHECK(cond) TALLY_CHECK(cond)
#endif
