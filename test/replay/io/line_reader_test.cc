// LineReader (replay/io/line_reader.h): lines of a plain or gzip file in bounded memory; a line
// above the limit is returned as too long, unread, and the lines after it keep their numbers.
#include "replay/io/line_reader.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace replay {
namespace {

namespace fs = std::filesystem;

struct ReadLine {
  std::string text;
  int64_t number;
  bool too_long;
  bool operator==(const ReadLine&) const = default;
};

class LineReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tally_line_reader_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Plain(const std::string& name, const std::string& content) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  std::string Gzip(const std::string& name, const std::string& content) {
    const std::string path = (dir_ / name).string();
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
    gzclose(f);
    return path;
  }
  static std::vector<ReadLine> ReadAll(const std::string& path, size_t max, std::string* damage) {
    LineReader reader(max);
    EXPECT_TRUE(reader.Open(path).ok());
    std::vector<ReadLine> out;
    LineReader::Line line;
    while (reader.Next(line)) {
      out.push_back({std::string(line.text), line.number, line.too_long});
    }
    if (damage != nullptr) {
      *damage = reader.damage();
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(LineReaderTest, LinesBlankLinesAndALastLineWithoutNewline) {
  const std::vector<ReadLine> want = {{"a", 1, false}, {"", 2, false}, {"bc", 3, false}};
  std::string damage;
  EXPECT_EQ(ReadAll(Plain("p", "a\n\nbc"), 100, &damage), want);
  EXPECT_EQ(damage, "");
  EXPECT_EQ(ReadAll(Plain("q", "a\n\nbc\n"), 100, nullptr), want);
  EXPECT_EQ(ReadAll(Gzip("g", "a\n\nbc\n"), 100, nullptr), want);
  EXPECT_TRUE(ReadAll(Plain("empty", ""), 100, nullptr).empty());
}

TEST_F(LineReaderTest, LongLinesAreSkippedAndTheRestIsRead) {
  // 3 MiB lines cross the 1 MiB read blocks; the limit is 1 MiB.
  const std::string big(3 << 20, 'x');
  const std::string fits((1 << 20) - 10, 'y');
  const std::string text = "first\n" + big + "\n" + fits + "\nlast\n" + big;
  const std::vector<ReadLine> want = {
      {"first", 1, false}, {"", 2, true}, {fits, 3, false}, {"last", 4, false}, {"", 5, true}};
  EXPECT_EQ(ReadAll(Plain("long", text), size_t{1} << 20, nullptr), want);
  EXPECT_EQ(ReadAll(Gzip("long.gz", text), size_t{1} << 20, nullptr), want);
}

TEST_F(LineReaderTest, ACorruptGzipStreamEndsTheReadingWithDamage) {
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += "line " + std::to_string(i) + " with some text to compress\n";
  }
  const std::string path = Gzip("cut.gz", text);
  fs::resize_file(path, fs::file_size(path) / 2);
  std::string damage;
  const std::vector<ReadLine> lines = ReadAll(path, 1000, &damage);
  EXPECT_FALSE(damage.empty());
  EXPECT_GT(lines.size(), 100U);
  EXPECT_LT(lines.size(), 20001U);
  EXPECT_EQ(lines.front().text, "line 0 with some text to compress");
}

TEST_F(LineReaderTest, AMissingFileIsAnError) {
  LineReader reader(100);
  engine::Status s = reader.Open((dir_ / "missing").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace replay
