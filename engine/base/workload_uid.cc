#include "engine/base/workload_uid.h"

#include <array>
#include <ostream>

namespace engine {
namespace {

constexpr bool IsHyphenAt(size_t i) {
  return i == 8 || i == 13 || i == 18 || i == 23;
}

// A lower-case hex digit's value; 0xFF for any other byte (upper case too: "A" would not print
// back as written, and the text is what orders).
constexpr std::array<uint8_t, 256> kHexValues = [] {
  std::array<uint8_t, 256> values{};
  values.fill(0xFF);
  for (int c = '0'; c <= '9'; ++c) {
    values[static_cast<size_t>(c)] = static_cast<uint8_t>(c - '0');
  }
  for (int c = 'a'; c <= 'f'; ++c) {
    values[static_cast<size_t>(c)] = static_cast<uint8_t>(c - 'a' + 10);
  }
  return values;
}();

// Appends `n` hex digits at `text` to `bits`; ORs every digit's table value into `bad` (whose
// high bits are set by any byte that is not one).
inline void AppendHex(const char* text, int n, uint64_t& bits, uint8_t& bad) {
  for (int i = 0; i < n; ++i) {
    const uint8_t value = kHexValues[static_cast<unsigned char>(text[i])];
    bad |= value;
    bits = (bits << 4) | (value & 0xFU);
  }
}

// The 128 bits of a canonical UUID text (8-4-4-4-12 lower-case hex digits), or false. A replay
// parses one per Workload line: a table look-up per digit, no branch per character.
bool ParseUuid(std::string_view text, uint64_t& high, uint64_t& low) {
  if (text.size() != WorkloadUid::kUuidLength || text[8] != '-' || text[13] != '-'
      || text[18] != '-' || text[23] != '-') {
    return false;
  }
  const char* p = text.data();
  uint64_t h = 0;
  uint64_t l = 0;
  uint8_t bad = 0;
  AppendHex(p, 8, h, bad);
  AppendHex(p + 9, 4, h, bad);
  AppendHex(p + 14, 4, h, bad);
  AppendHex(p + 19, 4, l, bad);
  AppendHex(p + 24, 12, l, bad);
  if ((bad & 0xF0U) != 0) {
    return false;
  }
  high = h;
  low = l;
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
    assign(other.text_ == nullptr ? std::string_view() : std::string_view{*other.text_});
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
  return text_ == nullptr ? std::string_view() : std::string_view{*text_};
}

std::string WorkloadUid::str() const {
  UuidText buffer;
  return std::string(View(buffer));
}

int WorkloadUid::CompareMixed(const WorkloadUid& other) const {
  UuidText mine;
  UuidText theirs;
  return Sign(View(mine).compare(other.View(theirs)));
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
