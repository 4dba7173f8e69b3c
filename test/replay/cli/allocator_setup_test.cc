// File: test/replay/cli/allocator_setup_test.cc
//
// replay::cli::ConfigureAllocator (replay/cli/allocator_setup.h): with mimalloc linked, `tally`
// asks for 2 MiB huge pages unless the environment already says what it wants. Built only where
// mimalloc is linked (release builds, not sanitizer builds: there the function has nothing to do).
#include "replay/cli/allocator_setup.h"

#include <cstdlib>

#include <gtest/gtest.h>
#include <mimalloc.h>

namespace replay::cli {
namespace {

// The environment is changed while this test's thread is the only one (NOLINTs below).
TEST(AllocatorSetup, HugePagesAreAskedForUnlessTheEnvironmentSaysOtherwise) {
  ::unsetenv("MIMALLOC_LARGE_OS_PAGES");  // NOLINT(concurrency-mt-unsafe)
  mi_option_set_enabled(mi_option_large_os_pages, false);
  ConfigureAllocator();
  EXPECT_TRUE(mi_option_is_enabled(mi_option_large_os_pages));

  // MIMALLOC_LARGE_OS_PAGES=0 (mimalloc read it when it started): left as it is.
  ::setenv("MIMALLOC_LARGE_OS_PAGES", "0", 1);  // NOLINT(concurrency-mt-unsafe)
  mi_option_set_enabled(mi_option_large_os_pages, false);
  ConfigureAllocator();
  EXPECT_FALSE(mi_option_is_enabled(mi_option_large_os_pages));
  ::unsetenv("MIMALLOC_LARGE_OS_PAGES");  // NOLINT(concurrency-mt-unsafe)
}

}  // namespace
}  // namespace replay::cli
