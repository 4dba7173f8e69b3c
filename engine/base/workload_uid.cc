#include "engine/base/workload_uid.h"

#include <array>
#include <cstring>
#include <ostream>

namespace engine {
namespace {

constexpr bool IsHyphenAt(size_t i) {
  return i == 8 || i == 13 || i == 18 || i == 23;
}

constexpr uint64_t kEachByte = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = kEachByte * 0x80;

uint64_t Load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t Load4Pair(const char* first, const char* second) {
  uint32_t a;
  uint32_t b;
  std::memcpy(&a, first, sizeof a);
  std::memcpy(&b, second, sizeof b);
  return uint64_t{a} | (uint64_t{b} << 32);
}

// Eight characters, the first in the lowest byte (a little-endian load), as the 32-bit value of
// their hex digits, the first the most significant; false unless every one is a lower-case hex
// digit (upper case too: "A" would not print back as written, and the text is what orders).
// Byte-parallel in one register: a replay parses a uid per Workload line, and a look-up per
// character was most of what the 16-byte form cost it.
bool HexDigits8(uint64_t v, uint32_t& out) {
  if ((v & kHighBits) != 0) {
    return false;  // past ASCII; below, no byte's sum carries into the next byte
  }
  // A byte's high bit after adding 0x80 - c: set when the byte is at least c.
  const auto at_least = [v](char c) { return (v + kEachByte * (0x80U - static_cast<uint8_t>(c))); };
  const uint64_t digit = at_least('0') & ~at_least('9' + 1);
  const uint64_t letter = at_least('a') & ~at_least('f' + 1);
  if (((digit | letter) & kHighBits) != kHighBits) {
    return false;
  }
  // '0'..'9' -> 0..9 (low nibble), 'a'..'f' -> 1..6 + 9 (bit 6 marks a letter).
  uint64_t n = (v & (kEachByte * 0x0F)) + 9 * ((v >> 6) & kEachByte);
  n = ((n << 4) | (n >> 8)) & 0x00FF00FF00FF00FFULL;  // pairs of digits into bytes
  n = ((n << 8) | (n >> 16)) & 0x0000FFFF0000FFFFULL;
  n = ((n << 16) | (n >> 32)) & 0x00000000FFFFFFFFULL;
  out = static_cast<uint32_t>(n);
  return true;
}

// The 128 bits of a canonical UUID text (8-4-4-4-12 lower-case hex digits), or false.
bool ParseUuid(std::string_view text, uint64_t& high, uint64_t& low) {
  if (text.size() != WorkloadUid::kUuidLength || text[8] != '-' || text[13] != '-'
      || text[18] != '-' || text[23] != '-') {
    return false;
  }
  const char* p = text.data();
  uint32_t parts[4];
  if (!HexDigits8(Load8(p), parts[0]) || !HexDigits8(Load4Pair(p + 9, p + 14), parts[1])
      || !HexDigits8(Load4Pair(p + 19, p + 24), parts[2]) || !HexDigits8(Load8(p + 28), parts[3])) {
    return false;
  }
  high = (uint64_t{parts[0]} << 32) | parts[1];
  low = (uint64_t{parts[2]} << 32) | parts[3];
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
    SetText(other.TextView());  // not a UUID: no parse
  }
  return *this;
}

void WorkloadUid::assign(std::string_view text) {
  if (ParseUuid(text, high_, low_)) {
    is_uuid_ = true;
    return;
  }
  SetText(text);
}

void WorkloadUid::AssignSlashJoined(std::string_view a, std::string_view b) {
  MutableText().assign(a).append("/").append(b);  // a text with a '/' is no UUID
}

void WorkloadUid::SetText(std::string_view text) {
  if (text.empty() && text_ == nullptr) {
    is_uuid_ = false;  // empty, and nothing to keep yet
    return;
  }
  MutableText().assign(text);
}

std::string& WorkloadUid::MutableText() {
  is_uuid_ = false;
  if (text_ == nullptr) {
    text_ = std::make_unique<std::string>();
  }
  return *text_;
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
