// File: replay/cli/allocator_setup.cc
#include "replay/cli/allocator_setup.h"

#include <cstdint>
#include <cstdlib>

#if defined(TALLY_WITH_MIMALLOC)
#include <sys/mman.h>

#include <mimalloc.h>
#endif

namespace replay::cli {

#if defined(TALLY_WITH_MIMALLOC)
namespace {

// mimalloc 2.0 carves its small and medium objects out of 32 MiB segments aligned to their size
// (MI_SEGMENT_SIZE in its src/../types.h; Debian's 2.0.9). Only used to round an address down
// to the start of its segment: were the size different, the advice would cover part of a segment
// or a neighbouring mapping too, which changes only which pages are huge, never what they hold.
constexpr uintptr_t kSegmentBytes = uintptr_t{32} << 20;

// The main thread's first segment was mapped by static initialisers, before main could enable
// huge pages, so mimalloc never advised it; the main thread keeps filling it, so a replay's first
// 32 MiB came in 4 KiB faults (8,000 of the 8,400 faults of a Kueue large-scale replay). Advising
// it now turns the faults of its untouched part into 2 MiB ones.
void AdviseFirstSegment() {
  void* probe = mi_malloc(1);
  if (probe == nullptr) {
    return;
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(probe) & ~(kSegmentBytes - 1);
  mi_free(probe);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the address of memory mimalloc mapped
  ::madvise(reinterpret_cast<void*>(base), kSegmentBytes, MADV_HUGEPAGE);  // a hint: no error
}

}  // namespace
#endif

void ConfigureAllocator() {
#if defined(TALLY_WITH_MIMALLOC)
  // mimalloc reads its options from the environment when it starts; an explicit setting there
  // wins over these defaults. Both are read again for every new segment, so setting them here,
  // after mimalloc started, applies to every segment mapped from now on.
  // NOLINTNEXTLINE(concurrency-mt-unsafe): the first thing main does, before any thread exists
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) {
    mi_option_set_enabled(mi_option_large_os_pages, true);
    AdviseFirstSegment();
  }
  // A thread's first segment is mapped lazily and without huge pages by default ("eager commit
  // delay" 1): every replay worker's first 32 MiB came in 4 KiB faults.
  // NOLINTNEXTLINE(concurrency-mt-unsafe): as above
  if (std::getenv("MIMALLOC_EAGER_COMMIT_DELAY") == nullptr) {
    mi_option_set(mi_option_eager_commit_delay, 0);
  }
#endif
}

}  // namespace replay::cli
