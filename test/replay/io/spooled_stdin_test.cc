// SpooledStdin (replay/io/spooled_stdin.h): standard input copied whole to a temporary file that
// goes away with the object.
#include "replay/io/spooled_stdin.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace replay {
namespace {

// Standard input read from `text` (a temporary file on fd 0) for the test's scope.
class StdinFrom {
 public:
  explicit StdinFrom(const std::string& text) {
    file_ = std::tmpfile();
    std::fwrite(text.data(), 1, text.size(), file_);
    std::fflush(file_);
    std::rewind(file_);
    saved_ = dup(STDIN_FILENO);
    dup2(fileno(file_), STDIN_FILENO);
  }
  StdinFrom(const StdinFrom&) = delete;
  StdinFrom& operator=(const StdinFrom&) = delete;
  StdinFrom(StdinFrom&&) = delete;
  StdinFrom& operator=(StdinFrom&&) = delete;
  ~StdinFrom() {
    dup2(saved_, STDIN_FILENO);
    close(saved_);
    std::fclose(file_);
  }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(SpooledStdin, CopiesStandardInputWholeAndRemovesTheFileWithTheObject) {
  // Larger than the 1 MiB read buffer, so that the copy takes several reads.
  std::string text;
  for (int i = 0; text.size() < (size_t{3} << 20); ++i) {
    text += "{\"line\":" + std::to_string(i) + "}\n";
  }
  std::string path;
  {
    StdinFrom input(text);
    SpooledStdin spool;
    EXPECT_TRUE(spool.path().empty());
    ASSERT_TRUE(spool.Spool().ok());
    path = spool.path();
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(ReadAll(path), text);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(SpooledStdin, EmptyInputGivesAnEmptyFile) {
  StdinFrom input("");
  SpooledStdin spool;
  ASSERT_TRUE(spool.Spool().ok());
  EXPECT_TRUE(std::filesystem::exists(spool.path()));
  EXPECT_EQ(std::filesystem::file_size(spool.path()), 0u);
}

}  // namespace
}  // namespace replay
