// engine::InternedName (engine/base/interned_name.h): it reads, compares and joins as the
// std::string it replaced in WorkloadSpec; equal texts share one table entry; copies and moves
// keep the text; and past the table's bound a name holds its own copy (this binary fills the
// process-wide table, so it has no other tests).
#include "engine/base/interned_name.h"

#include <map>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace engine {
namespace {

TEST(InternedNameTest, ReadsAndComparesAsItsText) {
  InternedName empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty, "");
  EXPECT_STREQ(empty.c_str(), "");

  InternedName ns = "ns-122";
  EXPECT_FALSE(ns.empty());
  EXPECT_EQ(ns.size(), 6u);
  EXPECT_EQ(ns, "ns-122");
  EXPECT_EQ(ns, std::string("ns-122"));
  EXPECT_EQ(std::string("ns-122"), ns);
  EXPECT_NE(ns, "ns-12");
  EXPECT_LT(ns, InternedName("ns-13"));
  EXPECT_GT(ns, std::string_view("ns-1"));
  EXPECT_EQ(ns + "/" + "wl-1", "ns-122/wl-1");
  EXPECT_EQ("x/" + ns, "x/ns-122");
  const std::string& text = ns;
  EXPECT_EQ(text, "ns-122");
  std::map<std::string, int> by_name = {{"ns-122", 7}};
  EXPECT_EQ(by_name.at(ns), 7);

  ns = std::string("other");
  EXPECT_EQ(ns, "other");
  ns.assign("");
  EXPECT_TRUE(ns.empty());
  ns = "again";
  ns.clear();
  EXPECT_TRUE(ns.empty());
}

TEST(InternedNameTest, EqualTextsShareOneEntry) {
  const InternedName a = "queue";
  const std::string built = std::string("que") + "ue";
  const InternedName b = built;
  EXPECT_TRUE(a.shared());
  EXPECT_EQ(a.data(), b.data()) << "one entry";
  EXPECT_NE(a.data(), InternedName("queue2").data());
}

TEST(InternedNameTest, CopiesMovesAndSwapsKeepTheText) {
  InternedName a = "low";
  InternedName copy = a;
  EXPECT_EQ(copy, "low");
  InternedName moved = std::move(copy);
  EXPECT_EQ(moved, "low");
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty, as specified
  InternedName b = "high";
  swap(a, b);
  EXPECT_EQ(a, "high");
  EXPECT_EQ(b, "low");
  a = b;
  EXPECT_EQ(a, "low");
  const InternedName& self = a;
  a = self;  // self-assignment keeps the text
  EXPECT_EQ(a, "low");
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a != b);
  EXPECT_LT(b, InternedName("lox"));
}

// Runs last in this binary: it fills the table.
TEST(InternedNameTest, PastTheTableBoundANameHoldsItsOwnCopy) {
  const InternedName before = "interned-before-the-table-filled";
  for (size_t i = InternedName::SharedCount(); i < InternedName::kMaxNames + 10; ++i) {
    const InternedName filler = "filler-" + std::to_string(i);
    ASSERT_EQ(filler, "filler-" + std::to_string(i));
  }
  EXPECT_EQ(InternedName::SharedCount(), InternedName::kMaxNames);

  InternedName alone = "new-after-the-table-filled";
  EXPECT_FALSE(alone.shared());
  EXPECT_EQ(alone, "new-after-the-table-filled");
  InternedName copy = alone;  // a copy of its own (both freed: the sanitizer build checks)
  EXPECT_FALSE(copy.shared());
  EXPECT_NE(copy.data(), alone.data());
  EXPECT_EQ(copy, alone);
  copy = "interned-before-the-table-filled";
  EXPECT_TRUE(copy.shared()) << "a text the table holds is still shared";
  EXPECT_EQ(copy.data(), before.data());
  InternedName moved = std::move(alone);
  EXPECT_EQ(moved, "new-after-the-table-filled");
  moved = InternedName("another-new-one");
  EXPECT_EQ(moved, "another-new-one");
  EXPECT_EQ(moved + "/x", "another-new-one/x");
}

}  // namespace
}  // namespace engine
