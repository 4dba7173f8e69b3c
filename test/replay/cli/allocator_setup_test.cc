// File: test/replay/cli/allocator_setup_test.cc
//
// replay::cli::ConfigureAllocator (replay/cli/allocator_setup.h): with mimalloc linked, `tally`
// asks for 2 MiB huge pages and eager segments unless the environment already says what it wants,
// and advises the segment static initialisers mapped before it. Built only where mimalloc is
// linked (release builds, not sanitizer builds: there the function has nothing to do).
#include "replay/cli/allocator_setup.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <mimalloc.h>

namespace replay::cli {
namespace {

// The VmFlags line of the mapping in /proc/self/smaps that holds `address` ("" if none does).
std::string VmFlagsOf(const void* address) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= a && a < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

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

TEST(AllocatorSetup, SegmentsAreCommittedEagerlyUnlessTheEnvironmentSaysOtherwise) {
  ::unsetenv("MIMALLOC_EAGER_COMMIT_DELAY");  // NOLINT(concurrency-mt-unsafe)
  mi_option_set(mi_option_eager_commit_delay, 1);
  ConfigureAllocator();
  EXPECT_EQ(mi_option_get(mi_option_eager_commit_delay), 0);

  ::setenv("MIMALLOC_EAGER_COMMIT_DELAY", "2", 1);  // NOLINT(concurrency-mt-unsafe)
  mi_option_set(mi_option_eager_commit_delay, 2);
  ConfigureAllocator();
  EXPECT_EQ(mi_option_get(mi_option_eager_commit_delay), 2);
  ::unsetenv("MIMALLOC_EAGER_COMMIT_DELAY");  // NOLINT(concurrency-mt-unsafe)
}

// The main thread's small objects come from the segment mapped before main: after the call, the
// kernel has it marked for huge pages ("hg" in its VmFlags), which mimalloc itself never did.
TEST(AllocatorSetup, TheSegmentMappedBeforeMainIsAdvisedForHugePages) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages: there is nothing to advise";
  }
  ::unsetenv("MIMALLOC_LARGE_OS_PAGES");  // NOLINT(concurrency-mt-unsafe)
  void* early = mi_malloc(16);
  ASSERT_NE(early, nullptr);
  ConfigureAllocator();
  const std::string flags = VmFlagsOf(early);
  mi_free(early);
  ASSERT_FALSE(flags.empty()) << "no mapping holds a block mimalloc just returned";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
}

}  // namespace
}  // namespace replay::cli
