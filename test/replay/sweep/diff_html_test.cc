// `tally diff -o html`, the "what changed" page (replay/sweep/diff_html.cc), built from a
// hand-made ReplayDiff: its sections, colours, escaping, the change distribution and the order of
// the per-ClusterQueue and per-quota tables.
#include <string>

#include <gtest/gtest.h>

#include "replay/sweep/diff.h"

namespace replay {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

WaitDelta Waits(std::string name, double mean_a, double mean_b) {
  WaitDelta w;
  w.name = std::move(name);
  w.count = {10, 10};
  w.mean = {mean_a, mean_b};
  w.p50 = {mean_a, mean_b};
  w.p90 = {mean_a * 2, mean_b * 2};
  w.p99 = {mean_a * 3, mean_b * 3};
  w.max = {mean_a * 4, mean_b * 4};
  return w;
}

ReplayDiff Sample() {
  ReplayDiff d;
  d.dir_a = "runs/<a>";
  d.dir_b = "runs/b";
  d.mode_a = d.mode_b = "policy-only";
  d.start_a = d.start_b = "2026-01-01T00:00:00Z";
  d.trace_a = d.trace_b = "events.jsonl";
  d.outcomes = {{"admissions", {100, 90}}, {"preemptions", {4, 9}}, {"pendingAtEnd", {3, 1}}};
  d.overall = Waits("", 60, 120);
  d.by_cluster_queue = {Waits("cq-better", 300, 30), Waits("cq-worse", 10, 600),
                        Waits("cq-same", 50, 50)};
  UsageDelta same{"cq-same", "default", "cpu", {4000, 4000}, {0.5, 0.5}};
  UsageDelta moved{"cq-worse", "default", "cpu", {4000, 4000}, {0.2, 0.9}};
  UsageDelta edited{"cq-better", "a100", "nvidia.com/gpu", {8, 16}, {0.9, 0.6}};
  d.usage = {same, moved, edited};
  d.workloads_compared = 5;
  d.admitted_both = 4;
  d.admission_time_changed = 3;
  WorkloadChange c;
  c.workload = "ns/train-<1>";
  c.cluster_queue = "cq-worse";
  c.admitted_a = 1767225600000000 + 60'000'000;   // 1 min after the start
  c.admitted_b = 1767225600000000 + 660'000'000;  // 11 min after
  c.flavors_a = c.flavors_b = "default";
  c.fate_a = c.fate_b = "finished";
  d.top_changed = {c};
  d.admission_changes_seconds = {600, 120, -30};
  return d;
}

TEST(DiffHtml, OneSelfContainedPageWithEverySection) {
  const std::string html = FormatDiffHtml(Sample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>\n"), std::string::npos);
  for (const char* section : {"<h2>Outcomes</h2>", "<h2>Time to admission</h2>",
                              "<h3>by ClusterQueue (largest increase in mean first)</h3>",
                              "<h2>Quota and utilisation</h2>", "<h2>Workloads</h2>",
                              "<h3>largest changes in time to admission (1 listed)</h3>"}) {
    EXPECT_NE(html.find(section), std::string::npos) << section;
  }
  // Offline: no URL, no external resource; the sort script is inline.
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_NE(html.find("<script>"), std::string::npos);
  // Names from the input are escaped.
  EXPECT_NE(html.find("runs/&lt;a&gt;"), std::string::npos);
  EXPECT_NE(html.find("ns/train-&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<a>"), std::string::npos);
}

TEST(DiffHtml, WorseIsRedAndBetterIsGreen) {
  const std::string html = FormatDiffHtml(Sample());
  // More preemptions: worse; fewer pending at the end: better; admissions are not judged.
  EXPECT_NE(html.find("<span class=\"worse\">+5</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"better\">-2</span>"), std::string::npos);
  EXPECT_EQ(html.find("<span class=\"better\">-10</span>"), std::string::npos);
  EXPECT_EQ(html.find("<span class=\"worse\">-10</span>"), std::string::npos);
  EXPECT_NE(html.find(">-10</td>"), std::string::npos);
  // The overall mean doubled (60s to 2m).
  EXPECT_NE(html.find("<span class=\"worse\">+60s</span>"), std::string::npos) << html;
}

TEST(DiffHtml, ClusterQueuesWorstFirstAndEditedQuotasFirst) {
  const std::string html = FormatDiffHtml(Sample());
  const size_t worse = html.find(">cq-worse<");
  const size_t same = html.find(">cq-same<");
  const size_t better = html.find(">cq-better<");
  ASSERT_NE(worse, std::string::npos);
  EXPECT_LT(worse, same);
  EXPECT_LT(same, better);
  // In the quota table the edited quota (8 -> 16 GPUs) comes first, then the largest move.
  const size_t table = html.find("<h2>Quota and utilisation</h2>");
  const size_t edited = html.find(">a100<", table);
  const size_t moved = html.find(">cq-worse<", table);
  const size_t unmoved = html.find(">cq-same<", table);
  EXPECT_LT(edited, moved);
  EXPECT_LT(moved, unmoved);
  EXPECT_NE(html.find("16 GPUs", table), std::string::npos);
  EXPECT_NE(html.find("+70.0", table), std::string::npos);
}

TEST(DiffHtml, ChangeDistributionHasEarlierAndLaterLines) {
  const std::string html = FormatDiffHtml(Sample());
  EXPECT_EQ(Count(html, "<svg"), 1u);
  EXPECT_NE(html.find("admitted earlier in B (1)"), std::string::npos);
  EXPECT_NE(html.find("admitted later in B (2)"), std::string::npos);
  EXPECT_EQ(Count(html, "<path class=\"line\""), 2u);

  ReplayDiff unchanged = Sample();
  unchanged.admission_changes_seconds.clear();
  EXPECT_EQ(FormatDiffHtml(unchanged).find("<svg"), std::string::npos);
}

TEST(DiffHtml, GroupsInOneReportOnlyAreMarked) {
  ReplayDiff d = Sample();
  WaitDelta added = Waits("cq-new", 0, 40);
  added.in_a = false;
  d.by_cluster_queue.push_back(added);
  const std::string html = FormatDiffHtml(d);
  EXPECT_NE(html.find("cq-new <span class=\"note\">(B only)</span>"), std::string::npos);
}

}  // namespace
}  // namespace replay
