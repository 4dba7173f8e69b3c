// File: test/fuzz/fuzz_support.h
//
// What the libFuzzer targets of test/fuzz share: the input as text, a checked property that
// aborts (libFuzzer reports an abort as a crash, with the input saved), and a scratch file for
// the importers, which read paths.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tally_fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void PropertyFailed(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz property failed: %s\n", file, line, what);
  std::abort();
}

// A property every input must keep; a failure is a finding like a crash.
#define FUZZ_CHECK(cond)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      ::tally_fuzz::PropertyFailed(#cond, __FILE__, __LINE__); \
    }                                                          \
  } while (false)

// One file per process and name, rewritten for each input and removed at exit: the importers
// take paths, and a file in $TMPDIR costs a few microseconds per input.
class ScratchFile {
 public:
  explicit ScratchFile(std::string_view suffix) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/tally-fuzz-"
            + std::to_string(::getpid()) + "-" + std::string(suffix);
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Replaces the file's content; returns its path.
  const std::string& Write(std::string_view content) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr) {
      std::perror(path_.c_str());
      std::abort();
    }
    if (!content.empty() && std::fwrite(content.data(), 1, content.size(), f) != content.size()) {
      std::perror(path_.c_str());
      std::abort();
    }
    std::fclose(f);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tally_fuzz
