// Tests of `tally import philly` (replay/import/philly_import.h): the mapping of rows to Workloads,
// the derived quotas, bad rows counted by reason, and an import that replays end to end.
#include "replay/import/philly_import.h"

#include <map>
#include <numeric>
#include <string>

#include <gtest/gtest.h>

#include "replay/io/input_limits.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::ReplayHarness;

constexpr const char* kHeaderLine = "timestamp,duration,num_gpus,gpu_time,cluster\n";

engine::StatusOr<ImportOutput> ImportText(ReplayHarness& h, const std::string& csv,
                                          PhillyImportOptions options = {}) {
  options.path = h.Write("philly.csv", csv);
  return ImportPhilly(options);
}

// The event lines after the header.
std::vector<std::string> EventLines(const std::string& events) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < events.size()) {
    const size_t nl = events.find('\n', start);
    lines.push_back(events.substr(start, nl - start));
    start = nl == std::string::npos ? events.size() : nl + 1;
  }
  EXPECT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), kEventsHeader);
  lines.erase(lines.begin());
  return lines;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// An input read whole is limited (--max-input-bytes): above the limit, a clear error instead of
// a process that grows with a gzip bomb (robustness finding 19).
TEST(PhillyImportTest, AnInputAboveTheSizeLimitIsAnError) {
  ReplayHarness h;
  const std::string csv = std::string(kHeaderLine) + "2017-10-09 07:01:55,100,1,100,vc1\n";
  InputLimits small;
  small.max_input_bytes = 40;
  SetInputLimits(small);
  engine::StatusOr<ImportOutput> out = ImportText(h, csv);
  SetInputLimits(InputLimits{});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find(
                "philly.csv: more than 40 bytes (decompressed): not read (--max-input-bytes)"),
            std::string::npos)
      << out.status().message();
  EXPECT_TRUE(ImportText(h, csv).ok());
}

TEST(PhillyImportTest, RowsBecomeWorkloadsSortedBySubmitTime) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out = ImportText(h, std::string(kHeaderLine) +
                                                         "2017-10-02 12:00:00,600,1,600,abc\n"
                                                         "2017-10-01 08:30:00,90.5,16,1448,def\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::vector<std::string> lines = EventLines(out->events);
  ASSERT_EQ(lines.size(), 2u);
  // The second row was submitted first; names keep the input line (3) so duplicates stay apart.
  EXPECT_TRUE(Contains(lines[0], R"("time":"2017-10-01T08:30:00Z")")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], R"("runtime":"90500ms")")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], R"("name":"job-000003","namespace":"vc-def")")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], R"("queueName":"vc-def")")) << lines[0];
  // 16 GPUs: two pods of 8 (a node's worth each).
  EXPECT_TRUE(Contains(lines[0], R"("count":2)")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], R"("nvidia.com/gpu":"8")")) << lines[0];
  EXPECT_TRUE(Contains(lines[1], R"("name":"job-000002","namespace":"vc-abc")")) << lines[1];
  EXPECT_TRUE(Contains(lines[1], R"("count":1)")) << lines[1];
  EXPECT_TRUE(Contains(lines[1], R"("nvidia.com/gpu":"1")")) << lines[1];
  EXPECT_EQ(out->counts.read, 2);
  EXPECT_EQ(out->counts.used, 2);
  EXPECT_EQ(out->counts.skipped(), 0);
}

TEST(PhillyImportTest, GpusThatDoNotSplitEvenlyBecomeSingleGpuPods) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out =
      ImportText(h, std::string(kHeaderLine) + "2017-10-01 00:00:00,60,12,720,abc\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::vector<std::string> lines = EventLines(out->events);
  ASSERT_EQ(lines.size(), 1u);
  // 12 GPUs over nodes of 8: ceil(12/8) = 2 pods divide 12 evenly, 6 GPUs each.
  EXPECT_TRUE(Contains(lines[0], R"("count":2)")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], R"("nvidia.com/gpu":"6")")) << lines[0];

  PhillyImportOptions five_per_node;
  five_per_node.gpus_per_node = 5;
  out =
      ImportText(h, std::string(kHeaderLine) + "2017-10-01 00:00:00,60,7,420,abc\n", five_per_node);
  ASSERT_TRUE(out.ok());
  // ceil(7/5) = 2 pods do not divide 7: seven pods of one GPU.
  EXPECT_TRUE(Contains(out->events, R"("count":7)")) << out->events;
  EXPECT_TRUE(Contains(out->events, R"("nvidia.com/gpu":"1")")) << out->events;
}

TEST(PhillyImportTest, QuotasFollowGpuSecondsAndSumToTheTotal) {
  ReplayHarness h;
  PhillyImportOptions options;
  options.total_gpus = 40;
  // vc aaa: 3 x 1000 GPU-s; vc bbb: 1 x 1000 GPU-s -> 30 and 10.
  engine::StatusOr<ImportOutput> out = ImportText(h,
                                                  std::string(kHeaderLine) +
                                                      "2017-10-01 00:00:00,1000,1,1000,aaa\n"
                                                      "2017-10-01 00:00:01,500,2,1000,aaa\n"
                                                      "2017-10-01 00:00:02,250,4,1000,aaa\n"
                                                      "2017-10-01 00:00:03,1000,1,1000,bbb\n",
                                                  options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(Contains(out->manifests, "name: vc-aaa\nspec:\n  cohortName: philly\n"))
      << out->manifests;
  const size_t aaa = out->manifests.find("name: vc-aaa\nspec:");
  const size_t bbb = out->manifests.find("name: vc-bbb\nspec:");
  ASSERT_NE(aaa, std::string::npos);
  ASSERT_NE(bbb, std::string::npos);
  EXPECT_EQ(out->manifests.find("nominalQuota: \"30\"", aaa) < bbb, true) << out->manifests;
  EXPECT_NE(out->manifests.find("nominalQuota: \"10\"", bbb), std::string::npos) << out->manifests;
}

TEST(PhillyImportTest, DerivedTotalIsMeanDemandTimesHeadroomInWholeNodes) {
  ReplayHarness h;
  // 10 GPUs busy for the whole 1000 s span: mean demand 10, x1.25 = 12.5 -> 2 nodes of 8 = 16.
  engine::StatusOr<ImportOutput> out = ImportText(h, std::string(kHeaderLine) +
                                                         "2017-10-01 00:00:00,1000,8,8000,aaa\n"
                                                         "2017-10-01 00:16:40,1000,2,2000,bbb\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_FALSE(out->notes.empty());
  EXPECT_TRUE(Contains(out->notes[0], "total GPUs: 16 (mean demand 10.0 GPUs")) << out->notes[0];
  EXPECT_TRUE(Contains(out->manifests, "16 GPUs split")) << out->manifests;
}

TEST(PhillyImportTest, BadRowsAreSkippedByReasonAndCountsReconcile) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out = ImportText(h, std::string(kHeaderLine) +
                                                         "2017-10-01 00:00:00,60,1,60,aaa\n"
                                                         "2017-10-01 00:00:00,60,1,aaa\n"
                                                         "2017-13-01 00:00:00,60,1,60,aaa\n"
                                                         "yesterday,60,1,60,aaa\n"
                                                         "2017-10-01 00:00:00,-5,1,60,aaa\n"
                                                         "2017-10-01 00:00:00,sixty,1,60,aaa\n"
                                                         "2017-10-01 00:00:00,60,0,60,aaa\n"
                                                         "2017-10-01 00:00:00,60,1.5,60,aaa\n"
                                                         "2017-10-01 00:00:00,60,1,60,\n"
                                                         "2017-10-01 00:00:00,60,1,60,Upper_Case\n"
                                                         "\n"
                                                         "2017-10-01 00:00:01,60,2,120,bbb\r\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 11);  // the blank line is not a row
  EXPECT_EQ(out->counts.used, 2);
  EXPECT_EQ(out->counts.skipped(), 9);
  EXPECT_EQ(out->counts.read, out->counts.used + out->counts.skipped());
  const std::map<std::string, int64_t> want = {{"wrong number of columns", 1},
                                               {"bad timestamp", 2},
                                               {"bad duration", 2},
                                               {"bad num_gpus", 2},
                                               {"bad cluster", 2}};
  EXPECT_EQ(out->counts.skipped_by_reason, want);
  ASSERT_EQ(out->counts.first_errors.size(), 9u);
  // file:line: field: message.
  EXPECT_TRUE(Contains(out->counts.first_errors[0], "philly.csv:3: 4 columns, want 5"))
      << out->counts.first_errors[0];
  EXPECT_TRUE(Contains(out->counts.first_errors[1], "philly.csv:4: timestamp: "))
      << out->counts.first_errors[1];
  EXPECT_TRUE(Contains(out->counts.first_errors[3], "philly.csv:6: duration: \"-5\""))
      << out->counts.first_errors[3];
  EXPECT_TRUE(Contains(out->counts.first_errors[6], "philly.csv:9: num_gpus: \"1.5\""))
      << out->counts.first_errors[6];
  EXPECT_EQ(EventLines(out->events).size(), 2u);
}

TEST(PhillyImportTest, ErrorsAboutTheWholeFileNameIt) {
  ReplayHarness h;
  engine::StatusOr<ImportOutput> out = ImportText(h, "time,dur,gpus\n1,2,3\n");
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "philly.csv:1: header"))
      << out.status().message();
  out = ImportText(h, "");
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "empty file"));
  PhillyImportOptions missing;
  missing.path = (h.dir() / "no-such.csv").string();
  EXPECT_FALSE(ImportPhilly(missing).ok());
  PhillyImportOptions bad_cohort;
  bad_cohort.cohort = "Not A Name";
  out = ImportText(h, std::string(kHeaderLine), bad_cohort);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "--cohort"));
}

TEST(PhillyImportTest, AJobLargerThanTheCohortIsFlagged) {
  ReplayHarness h;
  PhillyImportOptions options;
  options.total_gpus = 8;
  engine::StatusOr<ImportOutput> out =
      ImportText(h, std::string(kHeaderLine) + "2017-10-01 00:00:00,60,16,960,aaa\n", options);
  ASSERT_TRUE(out.ok());
  bool warned = false;
  for (const std::string& note : out->notes) {
    warned = warned || Contains(note, "warning: the largest job asks 16 GPUs, more than the 8");
  }
  EXPECT_TRUE(warned);
}

// The first rows of the shipped trace (data/philly/philly.csv.gz), imported and replayed: every
// event applies and every job is admitted and finishes, with borrowing between the VCs.
TEST(PhillyImportTest, ShippedTraceImportsAndReplaysEndToEnd) {
  ReplayHarness h;
  PhillyImportOptions options;
  options.path = std::string(TALLY_SOURCE_DIR) + "/data/philly/philly.csv.gz";
  engine::StatusOr<ImportOutput> full = ImportPhilly(options);
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->counts.read, 82247);
  EXPECT_EQ(full->counts.used, 82247);
  EXPECT_EQ(full->counts.skipped(), 0);
  std::vector<std::string> lines = EventLines(full->events);
  ASSERT_EQ(lines.size(), 82247u);
  // Replay the first 2,000 jobs with the full trace's quotas.
  lines.resize(2000);
  std::string events = std::string(kEventsHeader) + "\n";
  for (const std::string& line : lines) {
    events += line + "\n";
  }
  const std::string manifests = h.Write("manifests.yaml", full->manifests);
  const std::string events_path = h.Write("events.jsonl", events);
  const testing::Outcome o = h.ReplayFiles(manifests, events_path, {});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_read, 2000);
  EXPECT_EQ(o.report.events_applied, 2000);
  EXPECT_EQ(o.report.events_rejected, 0);
  EXPECT_EQ(o.report.workloads_created, 2000);
  EXPECT_EQ(o.report.workloads_admitted, 2000);
  EXPECT_EQ(o.live_workloads, 0u);
}

// Issue 23, finding 07: 1e14 and 1e13 seconds are both too large, and both skipped alike
// (1e14 used to wrap into a runtime of 7,766,279,631,452,241 ms).
TEST(PhillyImportTest, HugeDurationsAreSkippedAlike) {
  PhillyImportOptions options;
  options.path = "test/robustness/07-philly-duration-exponent-overflow.csv";
  engine::StatusOr<ImportOutput> out = ImportPhilly(options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 2);
  EXPECT_EQ(out->counts.used, 0);
  EXPECT_EQ(out->counts.skipped_by_reason, (std::map<std::string, int64_t>{{"bad duration", 2}}));
}

// Issue 23, finding 16: a derived total beyond what int64 GPU counts hold is an error naming the
// flag that sets it, not a wrapped total silently replaced by the largest job.
TEST(PhillyImportTest, ATotalBeyondInt64IsAnError) {
  PhillyImportOptions options;
  options.path = "test/robustness/16-philly-quota-overflow.csv";
  engine::StatusOr<ImportOutput> out = ImportPhilly(options);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(Contains(std::string(out.status().message()), "give --total-gpus"))
      << out.status().message();
  options.total_gpus = 100'000;
  out = ImportPhilly(options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.used, 10);
}

}  // namespace
}  // namespace replay
