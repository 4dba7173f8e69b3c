// File: replay/cli/allocator_setup.cc
#include "replay/cli/allocator_setup.h"

#include <cstdlib>

#if defined(TALLY_WITH_MIMALLOC)
#include <mimalloc.h>
#endif

namespace replay::cli {

void ConfigureAllocator() {
#if defined(TALLY_WITH_MIMALLOC)
  // mimalloc reads its options from the environment when it starts; an explicit setting there
  // wins over this default. The option is read again for every new segment, so setting it here,
  // after mimalloc started, applies to all but the few segments static initialisers allocated.
  // NOLINTNEXTLINE(concurrency-mt-unsafe): the first thing main does, before any thread exists
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) {
    mi_option_set_enabled(mi_option_large_os_pages, true);
  }
#endif
}

}  // namespace replay::cli
