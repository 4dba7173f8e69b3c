// File: replay/io/text_file.h
//
// Writes a whole output file, saying on stderr which file could not be written (or closed: a full
// disk shows there).
#pragma once

#include <cstdio>
#include <filesystem>
#include <string_view>

namespace replay {

inline bool WriteTextFile(const std::filesystem::path& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "error: writing %s failed\n", path.c_str());
  }
  return ok;
}

}  // namespace replay
