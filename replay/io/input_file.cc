#include "replay/io/input_file.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "replay/io/input_limits.h"

namespace replay {

size_t ReadBlockFor(const std::string& path) {
  constexpr size_t kMinBlock = size_t{4} << 10;
  constexpr size_t kMaxBlock = size_t{1} << 20;
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size >= kMaxBlock) {
    return kMaxBlock;
  }
  return std::clamp(std::bit_ceil(static_cast<size_t>(size) + 1), kMinBlock, kMaxBlock);
}

engine::StatusOr<std::string> ReadPlainOrGzip(const std::string& path, std::string* damage) {
  // gzread passes a file that is not gzip through unchanged.
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return engine::NotFound(fmt::format(
        "{}: cannot open: {}", path, std::generic_category().message(errno != 0 ? errno : ENOENT)));
  }
  const size_t block = ReadBlockFor(path);
  gzbuffer(file, static_cast<unsigned>(block));
  std::string text;
  // Reads grow with the text (one block, then as much as was read, up to 1 MiB): resize zeroes
  // what it adds, and a small file should not pay for a megabyte.
  const size_t min_chunk = block;
  constexpr size_t kMaxChunk = size_t{1} << 20;
  while (true) {
    const size_t filled = text.size();
    const size_t chunk = std::clamp(filled, min_chunk, kMaxChunk);
    text.resize(filled + chunk);
    const int n = gzread(file, text.data() + filled, static_cast<unsigned>(chunk));
    if (n < 0) {
      int errnum = 0;
      std::string message = fmt::format("{}: {}", path, gzerror(file, &errnum));
      gzclose(file);
      text.resize(filled);
      if (damage == nullptr) {
        return engine::InvalidArgument(message);
      }
      *damage = std::move(message);
      return text;
    }
    text.resize(filled + static_cast<size_t>(n));
    if (n == 0) {
      break;
    }
    if (const size_t limit = CurrentInputLimits().max_input_bytes; text.size() > limit) {
      gzclose(file);
      return engine::InvalidArgument(fmt::format(
          "{}: more than {} bytes (decompressed): not read (--max-input-bytes)", path, limit));
    }
  }
  if (gzclose(file) != Z_OK) {
    std::string message = fmt::format("{}: truncated or corrupt gzip data", path);
    if (damage == nullptr) {
      return engine::InvalidArgument(message);
    }
    *damage = std::move(message);
  }
  return text;
}

}  // namespace replay
