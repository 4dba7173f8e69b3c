// File: engine/base/workload_uid.h
//
// WorkloadUid: a Workload's metadata.uid, which orders equal queue heads and preemption
// candidates (Kueue breaks those ties by uid). Kubernetes writes every uid as a canonical UUID,
// 36 characters: as a std::string that is a 48-byte heap block beside the 32 bytes inline, for
// each live Workload (issue 22, ≤ 600 bytes per live Workload; docs/replay.md, the memory model).
// Here a canonical UUID (lower-case hex, hyphens at 8, 13, 18 and 23) is kept as its 128 bits;
// any other text (a hand-written trace's "uid-a", the loader's "<namespace>/<name>" when there is
// none) as a string on the heap, whose storage a cleared uid keeps for the next text (a replay
// reuses a spec's storage, engine/workload_spec.h).
//
// Nothing observable depends on the form: uids compare, order and print by their text. Two UUIDs
// compare by their bits, which orders as their text does (hex digits in ASCII order as their
// values, hyphens at the same places); a UUID and a text compare as texts.
//
// Thread safety: a value type, as std::string.
#pragma once

#include <array>
#include <compare>
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace engine {

class WorkloadUid {
 public:
  static constexpr size_t kUuidLength = 36;
  using UuidText = std::array<char, kUuidLength>;

  WorkloadUid() = default;
  // Implicit, as std::string's: a spec's uid is set from text.
  // NOLINTNEXTLINE(google-explicit-constructor)
  WorkloadUid(std::string_view text) { assign(text); }
  // NOLINTNEXTLINE(google-explicit-constructor)
  WorkloadUid(const std::string& text) { assign(text); }
  // NOLINTNEXTLINE(google-explicit-constructor)
  WorkloadUid(const char* text) { assign(text); }
  WorkloadUid(const WorkloadUid& other);
  WorkloadUid(WorkloadUid&& other) noexcept = default;
  ~WorkloadUid() = default;
  WorkloadUid& operator=(const WorkloadUid& other);
  WorkloadUid& operator=(WorkloadUid&& other) noexcept = default;
  WorkloadUid& operator=(std::string_view text) {
    assign(text);
    return *this;
  }
  WorkloadUid& operator=(const std::string& text) {
    assign(text);
    return *this;
  }
  WorkloadUid& operator=(const char* text) {
    assign(text);
    return *this;
  }

  // Sets the text; a canonical UUID is kept as its bits, anything else in the kept storage.
  void assign(std::string_view text);
  // "<a>/<b>" (the loaders' uid for a Workload without one), written in the kept storage.
  void AssignSlashJoined(std::string_view a, std::string_view b);
  // Empty, with the text storage kept.
  void clear() {
    is_uuid_ = false;
    if (text_ != nullptr) {
      text_->clear();
    }
  }

  bool empty() const { return !is_uuid_ && (text_ == nullptr || text_->empty()); }
  size_t size() const { return is_uuid_ ? kUuidLength : (text_ == nullptr ? 0 : text_->size()); }
  bool is_uuid() const { return is_uuid_; }
  // The text: `buffer` holds it when the uid is a UUID (so it lives as long as `buffer`).
  std::string_view View(UuidText& buffer) const;
  std::string str() const;
  // The heap storage a text uid is written in (nullptr: none allocated): for tests of reuse.
  const std::string* text_storage() const { return text_.get(); }

  // < 0, 0, > 0 as std::string::compare on the texts (the sign only, not its value). Inline for
  // the two forms alike: the queue heap and the scheduler's sort break ties through it.
  int compare(const WorkloadUid& other) const {
    if (is_uuid_ && other.is_uuid_) {
      if (high_ != other.high_) {
        return high_ < other.high_ ? -1 : 1;
      }
      return low_ == other.low_ ? 0 : (low_ < other.low_ ? -1 : 1);
    }
    if (!is_uuid_ && !other.is_uuid_) {
      return TextView().compare(other.TextView());
    }
    return CompareMixed(other);
  }
  int compare(std::string_view other) const;
  int compare(const std::string& other) const { return compare(std::string_view{other}); }
  int compare(const char* other) const { return compare(std::string_view{other}); }

  friend bool operator==(const WorkloadUid& a, const WorkloadUid& b) { return a.compare(b) == 0; }
  friend std::strong_ordering operator<=>(const WorkloadUid& a, const WorkloadUid& b) {
    return a.compare(b) <=> 0;
  }
  // Against text; constrained so that two WorkloadUids take the overloads above (a string_view
  // one would be ambiguous with its reversed form under clang).
  template <typename Text>
  requires std::convertible_to<const Text&, std::string_view> &&(
      !std::same_as<Text, WorkloadUid>)friend bool
  operator==(const WorkloadUid& a, const Text& b) {
    return a.compare(std::string_view{b}) == 0;
  }

  friend void swap(WorkloadUid& a, WorkloadUid& b) noexcept {
    std::swap(a.high_, b.high_);
    std::swap(a.low_, b.low_);
    std::swap(a.text_, b.text_);
    std::swap(a.is_uuid_, b.is_uuid_);
  }

 private:
  // The UUID's 128 bits, most significant first (valid when is_uuid_).
  uint64_t high_ = 0;
  uint64_t low_ = 0;
  std::unique_ptr<std::string> text_;  // a text uid; allocated at the first one, then kept
  bool is_uuid_ = false;

  std::string_view TextView() const {
    return text_ == nullptr ? std::string_view() : std::string_view{*text_};
  }
  // A UUID against a text (as texts).
  int CompareMixed(const WorkloadUid& other) const;
  // Sets a text known not to be a canonical UUID (no parse); allocates only for a non-empty one.
  void SetText(std::string_view text);
  // The text storage, allocated at the first use, the uid made a text.
  std::string& MutableText();
};

std::ostream& operator<<(std::ostream& out, const WorkloadUid& uid);

}  // namespace engine
