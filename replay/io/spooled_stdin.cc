#include "replay/io/spooled_stdin.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace replay {

SpooledStdin::~SpooledStdin() {
  if (!path_.empty()) {
    std::error_code ignored;  // a destructor does not throw: a file already gone is fine
    std::filesystem::remove(path_, ignored);
  }
}

engine::Status SpooledStdin::Spool() {
  std::string templ = (std::filesystem::temp_directory_path() / "tally-stdin-XXXXXX").string();
  int fd = mkstemp(templ.data());
  if (fd < 0) {
    return engine::InvalidArgument("-: cannot create a temporary file for standard input");
  }
  path_ = templ;
  std::vector<char> buffer(size_t{1} << 20);
  while (true) {
    ssize_t n = read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0) {
      close(fd);
      return engine::InvalidArgument("-: cannot read standard input");
    }
    if (n == 0) {
      break;
    }
    if (write(fd, buffer.data(), static_cast<size_t>(n)) != n) {
      close(fd);
      return engine::InvalidArgument(fmt::format("{}: cannot write", path_));
    }
  }
  close(fd);
  return engine::Status::Ok();
}

}  // namespace replay
