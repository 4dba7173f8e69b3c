// File: engine/base/lazy_box.h
//
// A value kept on the heap and allocated at its first write; until then it reads as T{}. One
// pointer in place of sizeof(T), for fields most objects never write in a struct kept by the tens
// of thousands: a Workload's flavor-fallback history (48 bytes; only ClusterQueues with a
// fallback strategy write it), a spec's reclaimable pods (a std::map, 48 bytes). Together with
// two vectors they took the store's block one mimalloc size class down (engine/workload_store.h,
// docs/replay.md's memory model).
//
// Unlike engine::Boxed (an optional), a LazyBox always has a value: reads never check, writes go
// through Mutable() or an assignment. Reset() keeps what was allocated (T::Reset() or clear()
// when T has one, so a vector keeps its storage for the next writer).
//
// Copies are deep. Thread safety: like T.
#pragma once

#include <concepts>
#include <memory>
#include <utility>

namespace engine {

template <typename T>
class LazyBox {
 public:
  LazyBox() = default;
  LazyBox(const T& value)  // NOLINT(google-explicit-constructor): T's stand-in
      : value_(std::make_unique<T>(value)) {}
  LazyBox(T&& value)  // NOLINT(google-explicit-constructor): T's stand-in
      : value_(std::make_unique<T>(std::move(value))) {}
  LazyBox(const LazyBox& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  LazyBox(LazyBox&&) noexcept = default;
  ~LazyBox() = default;

  LazyBox& operator=(const LazyBox& other) {
    if (this != &other) {
      if (other.value_) {
        Mutable() = *other.value_;
      } else {
        value_.reset();
      }
    }
    return *this;
  }
  LazyBox& operator=(LazyBox&&) noexcept = default;
  LazyBox& operator=(const T& value) {
    Mutable() = value;
    return *this;
  }
  LazyBox& operator=(T&& value) {
    Mutable() = std::move(value);
    return *this;
  }

  // --- Reads: T{} until written ---
  const T& get() const { return value_ ? *value_ : Default(); }
  operator const T&() const { return get(); }  // NOLINT(google-explicit-constructor)
  const T& operator*() const { return get(); }
  const T* operator->() const { return &get(); }
  // Whether a write allocated the value (it may have been reset to T{} since).
  bool allocated() const { return value_ != nullptr; }

  // --- Writes ---
  T& Mutable() {
    if (!value_) {
      value_ = std::make_unique<T>();
    }
    return *value_;
  }
  // Back to T{} without allocating; an allocated value keeps its storage where T can.
  void Reset() {
    if (!value_) {
      return;
    }
    if constexpr (requires(T & t) { t.Reset(); }) {
      value_->Reset();
    } else if constexpr (requires(T & t) { t.clear(); }) {
      value_->clear();
    } else {
      *value_ = T{};
    }
  }

  friend bool operator==(const LazyBox& a, const LazyBox& b) requires std::equality_comparable<T> {
    return a.get() == b.get();
  }
  friend bool operator==(const LazyBox& a, const T& b) requires std::equality_comparable<T> {
    return a.get() == b;
  }

 private:
  static const T& Default() {
    static const T value{};
    return value;
  }

  std::unique_ptr<T> value_;
};

}  // namespace engine
