// engine::NameInternTable (engine/base/name_intern_table.h): one entry per distinct text, at an
// address that stays put while the table grows, found again by any thread, and no entry added
// past either bound.
#include "engine/base/name_intern_table.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/base/string_hash.h"

namespace engine {
namespace {

const InternedText* Intern(NameInternTable& table, std::string_view text) {
  return table.Intern(text, HashString(text));
}

TEST(NameInternTableTest, ATextIsOneEntryWhoseAddressSurvivesGrowth) {
  NameInternTable table(1 << 20, 1 << 30);
  const InternedText* first = Intern(table, "ns-1");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->text, "ns-1");
  for (int i = 0; i < 10'000; ++i) {  // the index is rebuilt many times over
    ASSERT_NE(Intern(table, "name-" + std::to_string(i)), nullptr);
  }
  EXPECT_EQ(Intern(table, "ns-1"), first);
  EXPECT_EQ(first->text, "ns-1");
  EXPECT_EQ(Intern(table, "name-9999"), Intern(table, std::string("name-") + "9999"));
  EXPECT_NE(Intern(table, "name-1"), Intern(table, "name-2"));
  EXPECT_EQ(table.size(), 10'001u);
}

TEST(NameInternTableTest, TextsOfOneHashStayApart) {
  NameInternTable table(16, 1 << 10);
  const InternedText* a = table.Intern("a", 7);
  const InternedText* b = table.Intern("b", 7);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(table.Intern("a", 7), a);
  EXPECT_EQ(table.Intern("b", 7), b);
}

TEST(NameInternTableTest, NothingIsAddedPastTheCountBound) {
  NameInternTable table(3, 1 << 10);
  const InternedText* a = Intern(table, "a");
  ASSERT_NE(Intern(table, "b"), nullptr);
  ASSERT_NE(Intern(table, "c"), nullptr);
  EXPECT_EQ(Intern(table, "d"), nullptr);
  EXPECT_EQ(Intern(table, "a"), a) << "what it holds is still found";
  EXPECT_EQ(table.size(), 3u);
}

TEST(NameInternTableTest, NothingIsAddedPastTheByteBound) {
  NameInternTable table(100, 10);
  ASSERT_NE(Intern(table, "123456"), nullptr);
  EXPECT_EQ(Intern(table, "12345"), nullptr) << "11 bytes";
  EXPECT_NE(Intern(table, "1234"), nullptr) << "exactly 10 bytes";
  EXPECT_EQ(Intern(table, "x"), nullptr);
  EXPECT_EQ(table.bytes(), 10u);
}

TEST(NameInternTableTest, ThreadsInterningTheSameTextsGetTheSameEntries) {
  NameInternTable table(1 << 20, 1 << 30);
  constexpr int kTexts = 5'000;
  std::vector<std::vector<const InternedText*>> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&table, &got, t] {
      for (int i = 0; i < kTexts; ++i) {
        // Each thread in its own order: the first to see a text adds it.
        const int k = t % 2 == 0 ? i : kTexts - 1 - i;
        got[t].push_back(Intern(table, "q-" + std::to_string(k)));
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_EQ(table.size(), static_cast<size_t>(kTexts));
  for (int i = 0; i < kTexts; ++i) {
    ASSERT_NE(got[0][i], nullptr);
    EXPECT_EQ(got[0][i]->text, "q-" + std::to_string(i));
    EXPECT_EQ(got[2][i], got[0][i]);
    EXPECT_EQ(got[1][kTexts - 1 - i], got[0][i]);
    EXPECT_EQ(got[3][kTexts - 1 - i], got[0][i]);
  }
}

}  // namespace
}  // namespace engine
