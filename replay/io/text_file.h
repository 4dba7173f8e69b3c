// File: replay/io/text_file.h
//
// Writes a whole output file atomically, saying on stderr which file could not be written (or
// closed: a full disk shows there). The text goes to a hidden file beside the target, which is
// renamed over the target once complete: a run that fails or is killed while writing leaves the
// previous file whole (or no file), never a part of the new one (issue 23, atomic outputs: the
// sweep's sweep.json, the importers' outputs, verify.txt).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace replay {

inline bool WriteTextFile(const std::filesystem::path& path, std::string_view text) {
  std::string name = ".";
  name.append(path.filename().string());
  name.append(".tally-tmp-");
  name.append(std::to_string(static_cast<int64_t>(::getpid())));
  std::filesystem::path temporary = path;
  temporary.replace_filename(name);
  std::FILE* f = std::fopen(temporary.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  std::error_code ec;
  if (ok) {
    std::filesystem::rename(temporary, path, ec);
    ok = !ec;
  }
  if (!ok) {
    std::filesystem::remove(temporary, ec);
    std::fprintf(stderr, "error: writing %s failed\n", path.c_str());
  }
  return ok;
}

}  // namespace replay
