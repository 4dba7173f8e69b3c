// File: engine/base/shared_list.h
//
// An immutable list that copies share (a reference-counted pointer to a const std::vector): what
// a Workload's reservation holds (Workload::admitted, Workload::usage), one list per distinct
// content for every Workload with that content (engine/base/list_pool.h). 16 bytes, against a
// std::vector's 24 plus its own buffer.
//
// Read-only by design: nothing can write through it, so a reader holding a non-const Workload
// cannot unshare (copy) a list by accident, as a copy-on-write vector's non-const begin() would.
// A new content is set by assigning another SharedList (ListPool::Intern).
//
//   SharedList<int> a = SharedList<int>::Own({1, 2, 3});
//   SharedList<int> b = a;                        // the same buffer
//   for (int x : b) ...;  b.size();  b[0];  std::span<const int> s = b;
//   b.clear();                                    // lets go of it
//
// Thread safety: as std::shared_ptr (copies on different threads are fine; the list never changes).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "engine/base/cache_line_allocator.h"

namespace engine {

template <typename T>
class SharedList {
 public:
  using value_type = T;
  using const_iterator = const T*;

  SharedList() = default;
  // A list of its own (not shared with any other yet). Its reference count has cache lines of its
  // own (engine/base/cache_line_allocator.h): a pooled list is referenced by every Workload with
  // that reservation, on whichever thread runs its shard.
  static SharedList Own(std::vector<T> items) {
    SharedList list;
    if (!items.empty()) {
      list.data_ = std::allocate_shared<std::vector<T>>(CacheLineAllocator<std::vector<T>>{},
                                                        std::move(items));
    }
    return list;
  }

  const T* begin() const { return data_ ? data_->data() : nullptr; }
  const T* end() const { return data_ ? data_->data() + data_->size() : nullptr; }
  const T* data() const { return begin(); }
  size_t size() const { return data_ ? data_->size() : 0; }
  bool empty() const { return size() == 0; }
  const T& operator[](size_t i) const { return (*data_)[i]; }
  const T& front() const { return data_->front(); }
  const T& back() const { return data_->back(); }
  // NOLINTNEXTLINE(google-explicit-constructor): a read-only view, as a vector converts
  operator std::span<const T>() const { return {begin(), size()}; }
  std::span<const T> span() const { return {begin(), size()}; }

  void clear() { data_.reset(); }
  // Writes `items` over this list's buffer if nothing else holds it (no other SharedList, no
  // pool): its storage, and its elements' where T's copy assignment keeps theirs, are reused.
  // False, and nothing written, when the buffer is shared or there is none.
  bool OverwriteIfSole(std::span<const T> items) {
    if (!data_ || data_.use_count() != 1) {
      return false;
    }
    data_->assign(items.begin(), items.end());
    return true;
  }
  // Whether another SharedList (or a pool) holds the same buffer.
  int64_t use_count() const { return data_.use_count(); }
  bool SameBuffer(const SharedList& other) const { return data_ == other.data_; }

  friend bool operator==(const SharedList& a, const SharedList& b) {
    return a.data_ == b.data_ || std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  // Not const, so that OverwriteIfSole may write a buffer no one else reads; every other member
  // only reads it.
  std::shared_ptr<std::vector<T>> data_;
};

}  // namespace engine
