// File: replay/io/unique_file.h
//
// A stdio FILE that closes itself: on every return of the function that opened it, after
// whatever writes through it (declare it first) is gone.
//
//   UniqueFile f(std::fopen(path.c_str(), "wb"));
//   if (f == nullptr) fail();
//   std::fputs("...", f.get());
//   // an explicit close whose result matters: std::fclose(f.release())
#pragma once

#include <cstdio>
#include <memory>

namespace replay {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using UniqueFile = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace replay
