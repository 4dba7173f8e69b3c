// Tests of CsvReader (replay/import/csv_reader.h), the streamed reading of the CSV importers:
// rows across read blocks, the header rule, rows above the line limit, a corrupt gzip stream and
// the input size limit, and that the Philly importer counts a too-long row (read = used +
// skipped) instead of holding it.
#include "replay/import/csv_reader.h"

#include <zlib.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/import/philly_import.h"
#include "replay/io/input_limits.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::ReplayHarness;

constexpr const char* kHeader = "a,b";

struct Read {
  engine::Status open;
  std::vector<CsvRow> rows;  // text copied into `texts`
  std::vector<std::string> texts;
  engine::Status finish;
};

Read ReadAll(const std::string& path, size_t max_line_bytes = CsvReader::kDefaultMaxLineBytes) {
  Read r;
  CsvReader csv(path, kHeader, max_line_bytes);
  r.open = csv.Open();
  if (!r.open.ok()) {
    return r;
  }
  CsvRow row;
  while (csv.Next(row)) {
    r.rows.push_back(row);
    r.texts.emplace_back(row.text);
  }
  r.finish = csv.Finish();
  return r;
}

std::string Gzip(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(CsvReaderTest, RowsAcrossReadBlocksComeWhole) {
  ReplayHarness h;
  // About 3.4 MiB: rows straddle the reader's 1 MiB blocks.
  std::string text = "a,b\r\n";
  constexpr int kRows = 200'000;
  for (int i = 0; i < kRows; ++i) {
    text += std::to_string(i) + ",row-" + std::to_string(i) + "\r\n";
    if (i % 50'000 == 0) {
      text += "  \n";  // blank lines are skipped, but keep their numbers
    }
  }
  Read r = ReadAll(h.Write("big.csv", text));
  ASSERT_TRUE(r.open.ok()) << r.open.message();
  ASSERT_TRUE(r.finish.ok()) << r.finish.message();
  ASSERT_EQ(r.rows.size(), static_cast<size_t>(kRows));
  for (int i = 0; i < kRows; i += 9'973) {
    EXPECT_EQ(r.texts[i], std::to_string(i) + ",row-" + std::to_string(i));  // '\r' dropped
  }
  EXPECT_EQ(r.rows[0].line, 2);
  EXPECT_EQ(r.rows[1].line, 4);  // line 3 is blank
  EXPECT_EQ(r.texts.back(), std::to_string(kRows - 1) + ",row-" + std::to_string(kRows - 1));
}

TEST(CsvReaderTest, GzipIsReadAsPlainText) {
  ReplayHarness h;
  Read r = ReadAll(h.Write("t.csv.gz", Gzip("\n\na,b\n1,2\n3,4")));  // no final newline
  ASSERT_TRUE(r.open.ok()) << r.open.message();
  ASSERT_TRUE(r.finish.ok()) << r.finish.message();
  ASSERT_EQ(r.texts, (std::vector<std::string>{"1,2", "3,4"}));
  EXPECT_EQ(r.rows[0].line, 4);
}

TEST(CsvReaderTest, AWrongMissingOrBomPrefixedHeaderIsAnErrorWithItsLine) {
  ReplayHarness h;
  Read typo = ReadAll(h.Write("typo.csv", "\n a,b\n1,2\n"));
  ASSERT_FALSE(typo.open.ok());
  EXPECT_NE(typo.open.message().find("typo.csv:2: header \" a,b\" is not \"a,b\""),
            std::string::npos)
      << typo.open.message();
  Read bom = ReadAll(h.Write("bom.csv",
                             "\xEF\xBB\xBF"
                             "a,b\n1,2\n"));
  ASSERT_FALSE(bom.open.ok());
  EXPECT_NE(bom.open.message().find("bom.csv:1: header"), std::string::npos) << bom.open.message();
  Read empty = ReadAll(h.Write("empty.csv", "\n \n"));
  ASSERT_FALSE(empty.open.ok());
  EXPECT_NE(empty.open.message().find("empty.csv: empty file (no header \"a,b\")"),
            std::string::npos)
      << empty.open.message();
  Read missing = ReadAll((h.dir() / "no-such.csv").string());
  EXPECT_FALSE(missing.open.ok());
}

TEST(CsvReaderTest, ARowAboveTheLineLimitIsReturnedTooLongAndTheNextRowsStillCome) {
  ReplayHarness h;
  const std::string longer(5'000, 'x');
  Read r = ReadAll(h.Write("long.csv", "a,b\n1,2\n" + longer + "\n3,4\n"), 1'000);
  ASSERT_TRUE(r.open.ok()) << r.open.message();
  ASSERT_TRUE(r.finish.ok()) << r.finish.message();
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_FALSE(r.rows[0].too_long);
  EXPECT_TRUE(r.rows[1].too_long);
  EXPECT_EQ(r.rows[1].line, 3);
  EXPECT_TRUE(r.texts[1].empty());
  EXPECT_EQ(r.texts[2], "3,4");
}

TEST(CsvReaderTest, ACorruptGzipStreamIsAnErrorAfterTheRowsThatRead) {
  ReplayHarness h;
  std::string text = "a,b\n";
  for (int i = 0; i < 1000; ++i) {
    text += std::to_string(i) + ",x\n";
  }
  std::string gz = Gzip(text);
  gz.resize(gz.size() - 12);  // cut the end of the stream and its trailer
  Read r = ReadAll(h.Write("cut.csv.gz", gz));
  ASSERT_TRUE(r.open.ok()) << r.open.message();
  EXPECT_FALSE(r.finish.ok());
  EXPECT_NE(r.finish.message().find("cut.csv.gz"), std::string::npos) << r.finish.message();
}

// A gzip bomb of valid rows: the importers keep a record per row, so the decompressed size is
// still bounded (--max-input-bytes), now counted as it streams in.
TEST(CsvReaderTest, MoreThanTheInputLimitStopsTheRowsAndIsAnError) {
  ReplayHarness h;
  std::string text = "a,b\n";
  while (text.size() < (size_t{3} << 20)) {
    text += "1,2\n";
  }
  const std::string path = h.Write("bomb.csv.gz", Gzip(text));
  InputLimits small;
  small.max_input_bytes = size_t{1} << 20;
  SetInputLimits(small);
  Read r = ReadAll(path);
  SetInputLimits(InputLimits{});
  ASSERT_TRUE(r.open.ok()) << r.open.message();
  EXPECT_LT(r.rows.size(), (size_t{1} << 20) / 4);
  ASSERT_FALSE(r.finish.ok());
  EXPECT_NE(
      r.finish.message().find(
          "bomb.csv.gz: more than 1048576 bytes (decompressed): not read (--max-input-bytes)"),
      std::string::npos)
      << r.finish.message();
  EXPECT_TRUE(ReadAll(path).finish.ok());  // the default limit takes it
}

TEST(CsvReaderTest, PhillyCountsATooLongRowAsSkippedWithItsLine) {
  ReplayHarness h;
  PhillyImportOptions options;
  options.max_line_bytes = 100;
  options.path = h.Write("philly.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                       "2017-10-09 07:01:55,100,1,100,vc1\n" +
                                           std::string(500, '9') +
                                           "\n"
                                           "2017-10-09 07:02:55,100,1,100,vc1\n");
  engine::StatusOr<ImportOutput> out = ImportPhilly(options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 3);
  EXPECT_EQ(out->counts.used, 2);
  EXPECT_EQ(out->counts.skipped_by_reason.at("line too long"), 1);
  ASSERT_EQ(out->counts.first_errors.size(), 1u);
  EXPECT_NE(out->counts.first_errors[0].find(
                "philly.csv:3: line longer than 100 bytes, skipped (--max-line-bytes)"),
            std::string::npos)
      << out->counts.first_errors[0];
}

}  // namespace
}  // namespace replay
