// File: replay/io/uninitialized_buffer.h
//
// A byte buffer whose resize() leaves new bytes as they are: the readers' multi-MiB blocks are
// written by gzread before anything reads them, and a std::vector<char> zeroed 4 MiB for every
// file opened (a third of the time of a small input; the fuzz targets open thousands per second).
// Only what EventReader needs: data, size, resize keeping the first bytes.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>

namespace replay {

class UninitializedBuffer {
 public:
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }

  // Keeps the first min(size(), n) bytes; the others are unspecified.
  void resize(size_t n) {
    if (n <= capacity_) {
      size_ = n;
      return;
    }
    std::unique_ptr<char[]> grown(new char[n]);  // default-initialized: not zeroed
    if (size_ > 0) {
      std::memcpy(grown.get(), data_.get(), size_);
    }
    data_ = std::move(grown);
    size_ = n;
    capacity_ = n;
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace replay
