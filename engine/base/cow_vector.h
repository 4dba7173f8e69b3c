// File: engine/base/cow_vector.h
//
// A std::vector whose copies share one buffer until one of them is written to (copy on write).
// WorkloadSpec::pod_sets is one (engine/workload_spec.h): a replay stores tens of thousands of
// live Workloads whose pod sets are, nearly always, a handful of distinct lists (3 to 5 in the
// Kueue perf configs and the synthetic traces), and a WorkloadStore keeps one copy of each
// (engine/pod_set_pool.h) instead of one per Workload (about 450 bytes each).
//
// Reads through a const CowVector never copy. Any non-const access that could write (operator[],
// begin/end, back, emplace_back, ...) first makes the buffer this object's own when another copy
// shares it: hold a const reference for reads. clear() on a shared buffer lets go of it.
//
// Thread safety: like std::vector for one object. Copies held by different threads may share a
// buffer: the buffer is only ever written by an owner that holds the sole reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "engine/base/cache_line_allocator.h"

namespace engine {

template <typename T>
class CowVector {
 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  CowVector() = default;
  CowVector(std::initializer_list<T> init)
      : data_(init.size() == 0 ? nullptr : std::make_shared<std::vector<T>>(init)) {}
  // From a vector: takes it.
  CowVector(std::vector<T> v)  // NOLINT(google-explicit-constructor): a vector's stand-in
      : data_(v.empty() ? nullptr : std::make_shared<std::vector<T>>(std::move(v))) {}

  // --- Reads (never copy) ---
  const std::vector<T>& view() const { return data_ != nullptr ? *data_ : Empty(); }
  operator const std::vector<T>&() const { return view(); }  // NOLINT(google-explicit-constructor)
  size_t size() const { return data_ != nullptr ? data_->size() : 0; }
  bool empty() const { return size() == 0; }
  const T& operator[](size_t i) const { return (*data_)[i]; }
  const T& front() const { return data_->front(); }
  const T& back() const { return data_->back(); }
  const_iterator begin() const { return view().begin(); }
  const_iterator end() const { return view().end(); }
  const_iterator cbegin() const { return view().begin(); }
  const_iterator cend() const { return view().end(); }
  const T* data() const { return view().data(); }

  // Whether the two share one buffer (both empty counts as not sharing).
  bool SharesWith(const CowVector& other) const { return data_ != nullptr && data_ == other.data_; }
  // How many CowVectors share this one's buffer (0 when empty and unallocated).
  int64_t use_count() const { return data_.use_count(); }

  // --- Writes (make the buffer this object's own first) ---
  std::vector<T>& Mutable() {
    if (data_ == nullptr) {
      data_ = std::make_shared<std::vector<T>>();
    } else if (data_.use_count() != 1) {
      data_ = std::make_shared<std::vector<T>>(*data_);
    }
    return *data_;
  }
  T& operator[](size_t i) { return Mutable()[i]; }
  T& front() { return Mutable().front(); }
  T& back() { return Mutable().back(); }
  // An unallocated empty list gives an empty range without allocating.
  iterator begin() { return data_ != nullptr ? Mutable().begin() : iterator{}; }
  iterator end() { return data_ != nullptr ? Mutable().end() : iterator{}; }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    return Mutable().emplace_back(std::forward<Args>(args)...);
  }
  void push_back(const T& value) { Mutable().push_back(value); }
  void push_back(T&& value) { Mutable().push_back(std::move(value)); }
  void pop_back() { Mutable().pop_back(); }
  void resize(size_t n) { Mutable().resize(n); }
  void reserve(size_t n) { Mutable().reserve(n); }
  iterator erase(const_iterator first, const_iterator last) {
    // `first` and `last` may point into a shared buffer: translate them to this one's own.
    const auto from = first - view().begin();
    const auto to = last - view().begin();
    std::vector<T>& own = Mutable();
    return own.erase(own.begin() + from, own.begin() + to);
  }
  iterator erase(const_iterator at) { return erase(at, at + 1); }
  // Lets go of a shared buffer and leaves an owned one as it is, elements and all: for a caller
  // about to overwrite every element, whose strings and vectors keep their storage.
  void ReleaseIfShared() {
    if (data_ != nullptr && data_.use_count() != 1) {
      data_.reset();
    }
  }
  // The buffer for a caller about to overwrite every element: an owned one as it is (its
  // elements' strings and vectors keep their storage), a shared one let go of (not copied).
  std::vector<T>& Overwrite() {
    ReleaseIfShared();
    return Mutable();
  }
  // `from`'s elements copied into this object's own buffer (its storage reused): afterwards the
  // two never share one, whatever they shared before.
  void CopyOwned(const CowVector& from) { Overwrite() = from.view(); }
  // Keeps an owned buffer's storage; lets go of a shared one.
  void clear() {
    if (data_ != nullptr && data_.use_count() == 1) {
      data_->clear();
    } else {
      data_.reset();
    }
  }

  // A copy of `v` in a buffer whose reference count has cache lines of its own
  // (engine/base/cache_line_allocator.h): for a list shared by many owners that take and drop
  // references often, on a thread that runs beside others.
  static CowVector OnOwnCacheLines(const std::vector<T>& v) {
    CowVector out;
    if (!v.empty()) {
      out.data_ = std::allocate_shared<std::vector<T>>(CacheLineAllocator<std::vector<T>>{}, v);
    }
    return out;
  }

  friend bool operator==(const CowVector& a, const CowVector& b) {
    return a.data_ == b.data_ || a.view() == b.view();
  }

 private:
  static const std::vector<T>& Empty() {
    static const std::vector<T> empty;
    return empty;
  }

  std::shared_ptr<std::vector<T>> data_;
};

}  // namespace engine
