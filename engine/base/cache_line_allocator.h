// File: engine/base/cache_line_allocator.h
//
// An allocator of whole, aligned cache lines: what it allocates shares no line with anything
// else. For the control block of a reference-counted buffer that many owners take and drop
// references to, on a thread that runs beside others (a store's pooled lists: every Workload
// added takes one, every one erased drops it). In an ordinary allocation the count may share its
// line with data another thread writes, and each reference taken then moves the line between
// the cores (issue 22: a two-thread replay of the moderate trace spent about 1 % of its samples
// in reference counts that one thread alone did not).
//
//   std::allocate_shared<std::vector<int>>(CacheLineAllocator<std::vector<int>>{}, items);
#pragma once

#include <cstddef>
#include <new>

namespace engine {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  // The line of the x86-64 and arm64 cores this runs on;
  // std::hardware_destructive_interference_size says the same but g++ warns that its value may
  // differ between compilers.
  static constexpr size_t kLine = 64;

  CacheLineAllocator() = default;
  template <typename U>
  explicit CacheLineAllocator(const CacheLineAllocator<U>& /*other*/) {}

  static size_t Bytes(size_t n) { return (n * sizeof(T) + kLine - 1) / kLine * kLine; }
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new (Bytes(n), std::align_val_t{kLine}));
  }
  // The unsized form: clang has sized deallocation only with -fsized-deallocation.
  void deallocate(T* p, size_t /*n*/) { ::operator delete (p, std::align_val_t{kLine}); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>& /*other*/) const {
    return true;
  }
};

}  // namespace engine
