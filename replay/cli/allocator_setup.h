// File: replay/cli/allocator_setup.h
//
// Process-wide allocator settings, made once at the start of main before any large allocation.
#pragma once

namespace replay::cli {

// With mimalloc linked (release builds; sanitizer builds keep their own malloc): its segments are
// backed by 2 MiB transparent huge pages, unless the environment says otherwise
// (MIMALLOC_LARGE_OS_PAGES=0), the one static initialisers mapped before main included; and every
// thread's first segment is mapped eagerly like the others (MIMALLOC_EAGER_COMMIT_DELAY=1 to undo).
// A replay touches most of what it allocates once: with 4 KiB pages one page fault per 4 KiB cost
// 10-13 % of a Kueue large-scale replay on a quiet VM, a quarter of it on a busy one; what huge
// pages gave, day by day, is in docs/replay.md ("Parallel replay"). Without mimalloc: nothing.
void ConfigureAllocator();

}  // namespace replay::cli
