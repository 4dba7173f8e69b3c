// Label selectors as ClusterQueue.namespaceSelector uses them (§2.2): null selects nothing, `{}`
// everything, matchLabels and matchExpressions are ANDed. MatchesEverything is the shortcut the
// scheduler takes before looking a namespace's labels up; it must agree with Matches.
#include "engine/label_selector.h"

#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace engine {
namespace {

using Labels = std::map<std::string, std::string>;

TEST(LabelSelectorTest, NullSelectsNothingEmptySelectsEverything) {
  LabelSelector null_selector;
  LabelSelector empty;
  empty.is_null = false;
  for (const Labels& labels : {Labels{}, Labels{{"team", "a"}}}) {
    EXPECT_FALSE(Matches(null_selector, labels));
    EXPECT_TRUE(Matches(empty, labels));
  }
  EXPECT_FALSE(MatchesEverything(null_selector));
  EXPECT_TRUE(MatchesEverything(empty));
}

TEST(LabelSelectorTest, LabelsAndExpressionsAreAnded) {
  LabelSelector s;
  s.is_null = false;
  s.match_labels = {{"team", "a"}};
  s.match_expressions.push_back({"tier", "In", {"gold", "silver"}});
  s.match_expressions.push_back({"frozen", "DoesNotExist", {}});
  EXPECT_TRUE(Matches(s, {{"team", "a"}, {"tier", "gold"}}));
  EXPECT_FALSE(Matches(s, {{"team", "b"}, {"tier", "gold"}}));
  EXPECT_FALSE(Matches(s, {{"team", "a"}, {"tier", "bronze"}}));
  EXPECT_FALSE(Matches(s, {{"team", "a"}, {"tier", "gold"}, {"frozen", ""}}));
  EXPECT_FALSE(MatchesEverything(s));
}

// The shortcut is taken exactly when Matches is true for every label set.
TEST(LabelSelectorTest, MatchesEverythingAgreesWithMatches) {
  std::mt19937 rng(3);
  const std::vector<std::string> keys = {"a", "b", "kubernetes.io/metadata.name"};
  const std::vector<std::string> ops = {"In", "NotIn", "Exists", "DoesNotExist"};
  for (int i = 0; i < 500; ++i) {
    LabelSelector s;
    s.is_null = rng() % 4 == 0;
    if (rng() % 2 == 0) {
      s.match_labels[keys[rng() % keys.size()]] = std::to_string(rng() % 2);
    }
    if (rng() % 2 == 0) {
      s.match_expressions.push_back(
          {keys[rng() % keys.size()], ops[rng() % ops.size()], {std::to_string(rng() % 2)}});
    }
    Labels labels;
    for (const std::string& k : keys) {
      if (rng() % 2 == 0) {
        labels[k] = std::to_string(rng() % 2);
      }
    }
    if (MatchesEverything(s)) {
      EXPECT_TRUE(Matches(s, labels));
    }
    EXPECT_EQ(MatchesEverything(s),
              !s.is_null && s.match_labels.empty() && s.match_expressions.empty());
  }
}

}  // namespace
}  // namespace engine
