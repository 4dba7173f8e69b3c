// WriteTextFile (replay/io/text_file.h): the target holds the old text or the whole new one, and
// no temporary file is left beside it, whether the write succeeds or fails.
#include "replay/io/text_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace replay {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TextFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tally-text-file-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t Entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  fs::path dir_;
};

TEST_F(TextFileTest, ReplacesTheOldFileWhole) {
  const fs::path target = dir_ / "sweep.json";
  ASSERT_TRUE(WriteTextFile(target, "old\n"));
  ASSERT_TRUE(WriteTextFile(target, std::string(1 << 20, 'x')));
  EXPECT_EQ(Read(target), std::string(1 << 20, 'x'));
  EXPECT_EQ(Entries(), 1u);  // no temporary left
}

TEST_F(TextFileTest, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  // The target is a non-empty directory: the rename fails after the text was written.
  const fs::path target = dir_ / "report.json";
  fs::create_directories(target / "inside");
  EXPECT_FALSE(WriteTextFile(target, "new\n"));
  EXPECT_TRUE(fs::is_directory(target / "inside"));
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(TextFileTest, AMissingDirectoryIsAnError) {
  EXPECT_FALSE(WriteTextFile(dir_ / "no-such-dir" / "x.json", "x"));
  EXPECT_EQ(Entries(), 0u);
}

}  // namespace
}  // namespace replay
