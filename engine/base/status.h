// File: engine/base/status.h
//
// Errors are values. A `Status` is OK or carries a code and a message; `StatusOr<T>` is a value or
// an error. No exception crosses an engine API. g++ 12 has no std::expected, so this is ours.
//
//   StatusOr<Quantity> q = ParseQuantity("500m", ResourceKind::kCpu);
//   if (!q.ok()) return q.status();
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace engine {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  // malformed input: a quantity string, a manifest field
  kNotFound,         // a referenced name has no object
  kFailedPrecondition,
  kInternal,
};

const char* ToString(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
inline Status NotFound(std::string message) {
  return {StatusCode::kNotFound, std::move(message)};
}

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : data_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : data_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(data_); }
  // REQUIRES: !ok() for a meaningful error; returns OK when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }
  // REQUIRES: ok().
  const T& value() const& { return std::get<T>(data_); }
  T& value() & { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace engine

#define TALLY_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ::engine::Status tally_status_ = (expr); \
    if (!tally_status_.ok()) {               \
      return tally_status_;                  \
    }                                        \
  } while (false)
