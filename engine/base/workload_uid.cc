#include "engine/base/workload_uid.h"

#include <ostream>

namespace engine {
namespace {

constexpr bool IsHyphenAt(size_t i) {
  return i == 8 || i == 13 || i == 18 || i == 23;
}

// 0..15 for a lower-case hex digit, -1 otherwise (upper case too: "A" would not print back as
// written, and the text is what orders).
int HexValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  return -1;
}

// The 128 bits of a canonical UUID text, or false.
bool ParseUuid(std::string_view text, uint64_t& high, uint64_t& low) {
  if (text.size() != WorkloadUid::kUuidLength) {
    return false;
  }
  uint64_t halves[2] = {0, 0};
  int digits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsHyphenAt(i)) {
      if (text[i] != '-') {
        return false;
      }
      continue;
    }
    const int value = HexValue(text[i]);
    if (value < 0) {
      return false;
    }
    uint64_t& half = halves[digits / 16];
    half = (half << 4) | static_cast<uint64_t>(value);
    ++digits;
  }
  high = halves[0];
  low = halves[1];
  return true;
}

void FormatUuid(uint64_t high, uint64_t low, WorkloadUid::UuidText& out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  int digit = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (IsHyphenAt(i)) {
      out[i] = '-';
      continue;
    }
    const uint64_t half = digit < 16 ? high : low;
    const int shift = 4 * (15 - digit % 16);
    out[i] = kDigits[(half >> shift) & 0xF];
    ++digit;
  }
}

int Sign(int c) {
  return (c > 0) - (c < 0);
}

}  // namespace

WorkloadUid::WorkloadUid(const WorkloadUid& other)
    : high_(other.high_), low_(other.low_), is_uuid_(other.is_uuid_) {
  if (!other.is_uuid_ && other.text_ != nullptr && !other.text_->empty()) {
    text_ = std::make_unique<std::string>(*other.text_);
  }
}

WorkloadUid& WorkloadUid::operator=(const WorkloadUid& other) {
  if (this == &other) {
    return *this;
  }
  if (other.is_uuid_) {
    high_ = other.high_;
    low_ = other.low_;
    is_uuid_ = true;
  } else {
    assign(other.text_ == nullptr ? std::string_view() : std::string_view(*other.text_));
  }
  return *this;
}

void WorkloadUid::assign(std::string_view text) {
  if (ParseUuid(text, high_, low_)) {
    is_uuid_ = true;
    return;
  }
  is_uuid_ = false;
  if (text_ == nullptr) {
    if (text.empty()) {
      return;  // nothing to keep yet
    }
    text_ = std::make_unique<std::string>(text);
    return;
  }
  text_->assign(text);
}

void WorkloadUid::AssignSlashJoined(std::string_view a, std::string_view b) {
  is_uuid_ = false;  // a text with a '/' is no UUID
  if (text_ == nullptr) {
    text_ = std::make_unique<std::string>();
  }
  text_->assign(a).append("/").append(b);
}

std::string_view WorkloadUid::View(UuidText& buffer) const {
  if (is_uuid_) {
    FormatUuid(high_, low_, buffer);
    return {buffer.data(), buffer.size()};
  }
  return text_ == nullptr ? std::string_view() : std::string_view(*text_);
}

std::string WorkloadUid::str() const {
  UuidText buffer;
  return std::string(View(buffer));
}

int WorkloadUid::compare(const WorkloadUid& other) const {
  if (is_uuid_ && other.is_uuid_) {
    if (high_ != other.high_) {
      return high_ < other.high_ ? -1 : 1;
    }
    return low_ == other.low_ ? 0 : (low_ < other.low_ ? -1 : 1);
  }
  UuidText buffer;
  return other.compare(View(buffer)) * -1;
}

int WorkloadUid::compare(std::string_view other) const {
  UuidText buffer;
  return Sign(View(buffer).compare(other));
}

std::ostream& operator<<(std::ostream& out, const WorkloadUid& uid) {
  WorkloadUid::UuidText buffer;
  return out << uid.View(buffer);
}

}  // namespace engine
