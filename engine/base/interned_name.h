// File: engine/base/interned_name.h
//
// InternedName: a read-only string in 8 bytes, for the low-cardinality names every Workload spec
// carries (its namespace, LocalQueue, priority class and workload class). A std::string is 32
// bytes inline; a trace of a million Workloads has a few hundred distinct such names, and a live
// Workload kept four of them: 96 of the 496 bytes of the store's block (issue 22, ≤ 600 bytes per
// live Workload; docs/replay.md, the memory model).
//
// The text lives once, in a process-wide table, and every InternedName of that text points to it.
// The table only grows (its entries are never freed, so a pointer read on one thread stays valid
// while another interns), and it is bounded against a hostile trace of endless distinct names:
// past kMaxNames names or kMaxBytes of text, a new text is held by its InternedName alone, on the
// heap, freed with it (what a std::string past its inline buffer costs). Which names are shared
// depends on the order threads saw them, and nothing observable does: InternedNames compare,
// order and hash by their text.
//
// Interning costs a hash and a look in a small per-thread cache of recently interned names; only
// a name the cache does not hold takes the table's lock.
//
// Thread safety: an InternedName is a value type (as std::string); interning is thread-safe.
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "engine/base/name_intern_table.h"

namespace engine {

class InternedName {
 public:
  // The table's bounds (docs/replay.md, the memory model).
  static constexpr size_t kMaxNames = size_t{1} << 16;
  static constexpr size_t kMaxBytes = size_t{4} << 20;

  InternedName() = default;
  // Implicit, as std::string's: a spec's field is set from text.
  // NOLINTNEXTLINE(google-explicit-constructor)
  InternedName(std::string_view text) : text_(Make(text)) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  InternedName(const std::string& text) : text_(Make(text)) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  InternedName(const char* text) : text_(Make(text)) {}
  InternedName(const InternedName& other) : text_(Copy(other.text_)) {}
  InternedName(InternedName&& other) noexcept : text_(std::exchange(other.text_, nullptr)) {}
  ~InternedName() { Free(text_); }

  InternedName& operator=(const InternedName& other) {
    if (this != &other) {
      Reset(Copy(other.text_));
    }
    return *this;
  }
  InternedName& operator=(InternedName&& other) noexcept {
    if (this != &other) {
      Reset(std::exchange(other.text_, nullptr));
    }
    return *this;
  }
  InternedName& operator=(std::string_view text) {
    Reset(Make(text));
    return *this;
  }
  InternedName& operator=(const std::string& text) {
    Reset(Make(text));
    return *this;
  }
  InternedName& operator=(const char* text) {
    Reset(Make(text));
    return *this;
  }
  void assign(std::string_view text) { Reset(Make(text)); }
  void clear() { Reset(nullptr); }

  // --- Reads, as std::string's ---
  const std::string& str() const { return text_ == nullptr ? EmptyText() : text_->text; }
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return str(); }    // NOLINT(google-explicit-constructor)
  std::string_view view() const { return str(); }
  const char* c_str() const { return str().c_str(); }
  const char* data() const { return str().data(); }
  size_t size() const { return str().size(); }
  bool empty() const { return text_ == nullptr; }
  std::string::const_iterator begin() const { return str().begin(); }
  std::string::const_iterator end() const { return str().end(); }

  // By text (two InternedNames too: one of them may be a heap copy). The overloads for two
  // InternedNames are templates that only an InternedName matches: as plain functions they would
  // take `name == "text"` too, through the converting constructor, and make it ambiguous.
  friend bool operator==(const InternedName& a, std::string_view b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(const InternedName& a, std::string_view b) {
    return a.view() <=> b;
  }
  template <std::same_as<InternedName> Other>
  friend bool operator==(const InternedName& a, const Other& b) {
    return a.view() == b.view();
  }
  template <std::same_as<InternedName> Other>
  friend std::strong_ordering operator<=>(const InternedName& a, const Other& b) {
    return a.view() <=> b.view();
  }
  // Joined with text, as std::string's operator+ (a key "namespace/name" is made so).
  friend std::string operator+(const InternedName& a, std::string_view b) {
    std::string out;
    out.reserve(a.size() + b.size());
    return out.append(a.view()).append(b);
  }
  friend std::string operator+(std::string_view a, const InternedName& b) {
    std::string out;
    out.reserve(a.size() + b.size());
    return out.append(a).append(b.view());
  }
  friend void swap(InternedName& a, InternedName& b) noexcept { std::swap(a.text_, b.text_); }

  // The text is the table's (shared), not this name's own heap copy: for tests of the bounds.
  bool shared() const { return text_ == nullptr || !text_->owned; }
  // How many texts the process-wide table holds.
  static size_t SharedCount();

 private:
  // nullptr for "", else the table's entry, else a heap copy (`owned`) this name frees.
  static const InternedText* Make(std::string_view text);
  static const InternedText* Copy(const InternedText* text) {
    return text == nullptr || !text->owned ? text : Make(text->text);
  }
  static void Free(const InternedText* text) {
    if (text != nullptr && text->owned) {
      delete text;
    }
  }
  void Reset(const InternedText* text) {
    Free(text_);
    text_ = text;
  }
  static const std::string& EmptyText();

  const InternedText* text_ = nullptr;
};

}  // namespace engine
