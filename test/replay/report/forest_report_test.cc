// The cohort forest report (tally validate) on forests far deeper and wider than real ones:
// robustness findings 05 (a chain thousands of cohorts deep overflowed the stack in the text and
// JSON writers, which recursed per level and collected each node's subtree again) and 18 (a cycle
// of thousands of cohorts). Both must render, with the same content a small forest has.
#include "replay/report/forest_report.h"

#include <string>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/cluster_spec.h"
#include "replay/io/json_writer.h"

namespace replay {
namespace {

std::string CohortName(int i) {
  std::string name = "c";  // appended: GCC 12 warns falsely (-Wrestrict) on "c" + to_string
  name += std::to_string(i);
  return name;
}

engine::ClusterSpec Chain(int depth) {
  engine::ClusterSpec spec;
  for (int i = 0; i < depth; ++i) {
    engine::CohortSpec& c = spec.cohorts.emplace_back();
    c.name = CohortName(i);
    c.parent = i == 0 ? std::string() : CohortName(i - 1);
  }
  return spec;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(ForestReportTest, AChainFiftyThousandDeepRenders) {
  constexpr int kDepth = 50'000;
  engine::Cluster cluster;
  cluster.Apply(Chain(kDepth));
  const std::string text = FormatForestText(cluster);
  std::string too_deep = "\n";
  too_deep.append(33 * 4, ' ');
  EXPECT_EQ(text.find(too_deep), std::string::npos);  // indentation stops growing at 32 levels...
  EXPECT_NE(text.find("\nCohort c0  [height 50000, generation"), std::string::npos);
  EXPECT_NE(text.find("[depth 49999] Cohort c49999  [height 1,"),
            std::string::npos);  // ...depth said
  EXPECT_EQ(Count(text, "] Cohort c"), static_cast<size_t>(kDepth - 33));
  JsonWriter out;
  WriteForestJson(cluster, out);
  EXPECT_EQ(Count(out.str(), "\"kind\":\"Cohort\""), static_cast<size_t>(kDepth));
  EXPECT_EQ(Count(out.str(), "\"children\":[{"), static_cast<size_t>(kDepth - 1));
}

TEST(ForestReportTest, ShallowNodesAreIndentedByDepth) {
  engine::Cluster cluster;
  cluster.Apply(Chain(3));
  const std::string text = FormatForestText(cluster);
  EXPECT_NE(text.find("\nCohort c0 "), std::string::npos);
  EXPECT_NE(text.find("\n    Cohort c1 "), std::string::npos);
  EXPECT_NE(text.find("\n        Cohort c2 "), std::string::npos);
  EXPECT_EQ(text.find("[depth"), std::string::npos);
}

TEST(ForestReportTest, ALongCycleIsListedApart) {
  constexpr int kN = 50'000;
  engine::ClusterSpec spec = Chain(kN);
  spec.cohorts[0].parent = CohortName(kN - 1);
  engine::Cluster cluster;
  cluster.Apply(spec);
  const std::string text = FormatForestText(cluster);
  EXPECT_NE(text.find("Cohort forest: 0 tree(s)"), std::string::npos);
  EXPECT_EQ(Count(text, " -> parent "), static_cast<size_t>(kN));
  JsonWriter out;
  WriteForestJson(cluster, out);
  EXPECT_EQ(Count(out.str(), "\"kind\":\"Cohort\""), static_cast<size_t>(kN));
}

}  // namespace
}  // namespace replay
