// engine::NamespaceLabels (engine/namespace_labels.h): the Namespaces' labels as a
// namespaceSelector reads them, one table shared by several holders (a replay's shards) and copied
// by a holder before its first write, so that no write is seen by another holder.
#include "engine/namespace_labels.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

using Labels = NamespaceLabels::Labels;

NamespaceSpec Ns(const std::string& name, Labels labels = {}) {
  NamespaceSpec ns;
  ns.name = name;
  ns.labels = std::move(labels);
  return ns;
}

// The labels as the scheduler must see them: the object's, plus the name label Kubernetes sets.
Labels WithName(const std::string& name, Labels labels) {
  labels["kubernetes.io/metadata.name"] = name;
  return labels;
}

TEST(NamespaceLabelsTest, EveryNamespaceHasItsNameLabelAndTheLastOfARepeatedNameWins) {
  NamespaceLabels labels({Ns("a", {{"team", "x"}}), Ns("b"), Ns("a", {{"team", "y"}})});
  ASSERT_NE(labels.Find("a"), nullptr);
  EXPECT_EQ(*labels.Find("a"), WithName("a", {{"team", "y"}}));
  ASSERT_NE(labels.Find("b"), nullptr);
  EXPECT_EQ(*labels.Find("b"), WithName("b", {}));
  EXPECT_EQ(labels.Find("c"), nullptr);
  EXPECT_EQ(NamespaceLabels().Find("a"), nullptr);
}

TEST(NamespaceLabelsTest, HoldersShareOneTableUntilOneWritesAndThenOnlyItSeesTheWrite) {
  NamespaceLabels all({Ns("a", {{"team", "x"}}), Ns("b")});
  const std::shared_ptr<const NamespaceLabels::Table> table = all.Share();
  NamespaceLabels first = NamespaceLabels::Sharing(table);
  NamespaceLabels second = NamespaceLabels::Sharing(table);
  // Reading shares: the very same labels, no copy.
  EXPECT_EQ(first.Find("a"), second.Find("a"));
  EXPECT_EQ(first.Find("a"), &table->at("a"));
  EXPECT_FALSE(first.owns_table());

  first.Set(Ns("a", {{"team", "z"}}));
  first.Erase("b");
  EXPECT_TRUE(first.owns_table());
  EXPECT_EQ(*first.Find("a"), WithName("a", {{"team", "z"}}));
  EXPECT_EQ(first.Find("b"), nullptr);
  // The other holder and the shared table did not move.
  EXPECT_EQ(*second.Find("a"), WithName("a", {{"team", "x"}}));
  EXPECT_NE(second.Find("b"), nullptr);
  EXPECT_EQ(second.Find("a"), &table->at("a"));
  EXPECT_EQ(table->size(), 2u);

  second.Set(Ns("c"));
  EXPECT_EQ(*second.Find("c"), WithName("c", {}));
  EXPECT_EQ(first.Find("c"), nullptr);
  EXPECT_EQ(table->count("c"), 0u);
}

// The holder that built the table shares it too: its own next write copies, so the table handed
// out stays as it was.
TEST(NamespaceLabelsTest, TheBuilderWritesACopyOnceItHasSharedItsTable) {
  NamespaceLabels all({Ns("a")});
  EXPECT_TRUE(all.owns_table());
  const std::shared_ptr<const NamespaceLabels::Table> table = all.Share();
  EXPECT_FALSE(all.owns_table());
  all.Set(Ns("a", {{"team", "x"}}));
  EXPECT_TRUE(all.owns_table());
  EXPECT_EQ(*all.Find("a"), WithName("a", {{"team", "x"}}));
  EXPECT_EQ(table->at("a"), WithName("a", {}));
  // Sharing an empty holder gives an empty table, not a null one.
  NamespaceLabels empty;
  ASSERT_NE(empty.Share(), nullptr);
  EXPECT_TRUE(empty.Share()->empty());
}

// Random writes to four holders of one table (set, erase, share anew), each against its own
// std::map oracle: every holder reads exactly its oracle after every step.
TEST(NamespaceLabelsTest, RandomWritesToHoldersOfOneTableMatchAPrivateCopyEach) {
  uint64_t state = 42;
  auto next = [&](uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((state >> 33) % bound);
  };
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  NamespaceLabels all({Ns("a"), Ns("b", {{"team", "x"}}), Ns("c")});
  std::map<std::string, Labels> base;
  for (const char* n : {"a", "b", "c"}) {
    base[n] = *all.Find(n);
  }
  std::shared_ptr<const NamespaceLabels::Table> table = all.Share();
  std::vector<NamespaceLabels> holders;
  holders.reserve(4);
  std::vector<std::map<std::string, Labels>> oracles(4, base);
  for (int i = 0; i < 4; ++i) {
    holders.push_back(NamespaceLabels::Sharing(table));
  }
  int copies_shared = 0;
  for (int step = 0; step < 4000; ++step) {
    const size_t h = next(4);
    const std::string& name = names[next(static_cast<uint32_t>(names.size()))];
    switch (next(8)) {
      case 0:
      case 1:
        holders[h].Erase(name);
        oracles[h].erase(name);
        break;
      case 2: {
        // Another holder starts reading this one's table: both must keep their own view.
        const size_t other = (h + 1 + next(3)) % 4;
        holders[other] = NamespaceLabels::Sharing(holders[h].Share());
        oracles[other] = oracles[h];
        ++copies_shared;
        break;
      }
      default: {
        Labels labels;
        for (uint32_t k = next(3); k > 0; --k) {
          labels["k" + std::to_string(next(4))] = "v" + std::to_string(next(4));
        }
        holders[h].Set(Ns(name, labels));
        oracles[h][name] = WithName(name, labels);
        break;
      }
    }
    for (size_t k = 0; k < 4; ++k) {
      for (const std::string& n : names) {
        const Labels* got = holders[k].Find(n);
        auto want = oracles[k].find(n);
        ASSERT_EQ(got != nullptr, want != oracles[k].end()) << "step " << step << " holder " << k;
        if (got != nullptr) {
          ASSERT_EQ(*got, want->second) << "step " << step << " holder " << k << " " << n;
        }
      }
    }
  }
  EXPECT_GT(copies_shared, 300);
  // The first table was never written.
  EXPECT_EQ(table->size(), 3u);
  EXPECT_EQ(table->at("b"), WithName("b", {{"team", "x"}}));
}

}  // namespace
}  // namespace engine
