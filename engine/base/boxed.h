// File: engine/base/boxed.h
//
// An optional value kept on the heap: std::optional's interface (has_value, *, ->, value,
// value_or, emplace, reset, = nullopt, ==) in one pointer. For fields that are rarely set in a
// struct kept by the tens of thousands: WorkloadSpec's status.admission was 64 bytes in every
// live Workload, set in a few (engine/workload_spec.h, docs/replay.md's memory model). A set
// value costs one allocation, so not for fields that are usually set.
//
// Copies are deep. Thread safety: like std::optional.
#pragma once

#include <concepts>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace engine {

template <typename T>
class Boxed;

namespace boxed_internal {
// (clang-format 14 breaks concept definitions mid-name: these two are laid out by hand.)
// clang-format off
// A value a Boxed<T> can be set from: what T is constructible from, but not a Boxed or nullopt.
template <typename U, typename T>
concept ValueFor = std::constructible_from<T, U&&>
                   && !std::same_as<std::remove_cvref_t<U>, Boxed<T>>
                   && !std::same_as<std::remove_cvref_t<U>, std::nullopt_t>;
// A value a Boxed<T> compares with: not a Boxed, an optional or nullopt (tested first: they would
// make the comparison's own constraint recurse), and a T compares with it.
template <typename U, typename T>
concept ComparableValue = !std::same_as<U, Boxed<T>>
                          && !std::same_as<U, std::optional<T>>
                          && !std::same_as<U, std::nullopt_t>
                          && requires(const T& t, const U& u) {
                               { t == u } -> std::convertible_to<bool>;
                             };
// clang-format on
}  // namespace boxed_internal

template <typename T>
class Boxed {
 public:
  using value_type = T;

  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  // Implicit, as std::optional's. ValueFor excludes Boxed: the copy and move constructors are
  // not hidden (clang-tidy 14 does not read the constraint).
  template <boxed_internal::ValueFor<T> U = T>
  // NOLINTNEXTLINE(google-explicit-constructor,bugprone-forwarding-reference-overload)
  Boxed(U&& value) : value_(std::make_unique<T>(std::forward<U>(value))) {}
  Boxed(const std::optional<T>& value)  // NOLINT(google-explicit-constructor): its stand-in
      : value_(value ? std::make_unique<T>(*value) : nullptr) {}
  Boxed(std::optional<T>&& value)  // NOLINT(google-explicit-constructor): its stand-in
      : value_(value ? std::make_unique<T>(std::move(*value)) : nullptr) {}
  Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  ~Boxed() = default;

  Boxed& operator=(const Boxed& other) {
    if (this != &other) {
      if (!other.value_) {
        value_.reset();
      } else if (value_) {
        *value_ = *other.value_;
      } else {
        value_ = std::make_unique<T>(*other.value_);
      }
    }
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  template <boxed_internal::ValueFor<T> U = T>
  Boxed& operator=(U&& value) {
    if (value_) {
      *value_ = std::forward<U>(value);
    } else {
      value_ = std::make_unique<T>(std::forward<U>(value));
    }
    return *this;
  }

  Boxed& operator=(const std::optional<T>& value) {
    if (value) {
      *this = *value;
    } else {
      value_.reset();
    }
    return *this;
  }
  Boxed& operator=(std::optional<T>&& value) {
    if (value) {
      *this = std::move(*value);
    } else {
      value_.reset();
    }
    return *this;
  }
  // A copy as a std::optional, for code that takes one.
  operator std::optional<T>() const {  // NOLINT(google-explicit-constructor): its stand-in
    return value_ ? std::optional<T>(*value_) : std::nullopt;
  }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }
  T& value() {
    if (!value_) {
      throw std::bad_optional_access();
    }
    return *value_;
  }
  const T& value() const {
    if (!value_) {
      throw std::bad_optional_access();
    }
    return *value_;
  }
  template <typename U>
  T value_or(U&& fallback) const {
    return value_ ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }
  template <typename... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) { return !a.has_value(); }
  friend bool operator==(const Boxed& a, const std::optional<T>& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  // A value: equal when set to it (std::optional's `opt == value`).
  template <boxed_internal::ComparableValue<T> U>
  friend bool operator==(const Boxed& a, const U& b) {
    return a.has_value() && *a == b;
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace engine
