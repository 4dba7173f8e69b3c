// File: replay/io/line_builder.h
//
// One output line built in place, for the replay's decision lines (replay/sim/shard_simulator.cc):
// a reused buffer whose appends are inline, a capacity check and a copy. std::string's append
// and push_back are calls into libstdc++ (its basic_string is an extern template), and a
// decision line is some thirty appends: they were 1,300 to 1,800 instructions a line on the
// 16-tree trace of issue 22, a tenth of its replay.
//
//   LineBuilder line;
//   line.Clear();
//   line.Append("{\"workload\":");
//   AppendJsonString(key, line);  // replay/io/json_writer.h
//   line.Append('}');
//   log.Write(now, line.view());
//
// Thread safety: none; one per thread or shard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace replay {

class LineBuilder {
 public:
  LineBuilder() = default;
  LineBuilder(const LineBuilder&) = delete;
  LineBuilder& operator=(const LineBuilder&) = delete;
  LineBuilder(LineBuilder&&) noexcept = default;
  LineBuilder& operator=(LineBuilder&&) noexcept = default;
  ~LineBuilder() = default;

  // Empties the line; the storage stays.
  void Clear() { size_ = 0; }
  void Append(std::string_view text) {
    char* at = Room(text.size());
    Copy(at, text.data(), text.size());
    size_ += text.size();
  }
  void Append(char c) {
    *Room(1) = c;
    ++size_;
  }
  // `text` in double quotes, as is: for text known to need no JSON escaping.
  void AppendQuoted(std::string_view text) {
    char* at = Room(text.size() + 2);
    at[0] = '"';
    Copy(at + 1, text.data(), text.size());
    at[text.size() + 1] = '"';
    size_ += text.size() + 2;
  }
  std::string_view view() const { return {data_.get(), size_}; }
  size_t size() const { return size_; }

 private:
  // memcpy, inline for the short texts of a line (a name, a key): two overlapping loads and
  // stores within the n bytes instead of a call into the C library.
  static void Copy(char* to, const char* from, size_t n) {
    if (n >= 8 && n <= 16) {
      CopyEnds<uint64_t>(to, from, n);
    } else if (n >= 4 && n < 8) {
      CopyEnds<uint32_t>(to, from, n);
    } else if (n < 4) {
      for (size_t i = 0; i < n; ++i) {
        to[i] = from[i];
      }
    } else {
      std::memcpy(to, from, n);
    }
  }
  // The n bytes (sizeof(Word) <= n <= 2 sizeof(Word)) as the first and the last Word.
  template <typename Word>
  static void CopyEnds(char* to, const char* from, size_t n) {
    Word head;
    Word tail;
    std::memcpy(&head, from, sizeof(Word));
    std::memcpy(&tail, from + n - sizeof(Word), sizeof(Word));
    std::memcpy(to, &head, sizeof(Word));
    std::memcpy(to + n - sizeof(Word), &tail, sizeof(Word));
  }
  // Where `n` more bytes go (storage grown when they do not fit).
  char* Room(size_t n) {
    if (capacity_ - size_ < n) [[unlikely]] {
      Grow(n);
    }
    return data_.get() + size_;
  }
  void Grow(size_t n) {
    size_t capacity = capacity_ == 0 ? 1024 : capacity_;
    while (capacity - size_ < n) {
      capacity *= 2;
    }
    std::unique_ptr<char[]> grown(new char[capacity]);
    if (size_ > 0) {
      std::memcpy(grown.get(), data_.get(), size_);
    }
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace replay
