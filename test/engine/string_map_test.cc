// engine/base/string_map.h: the stack-built "a/b" key equals SlashJoin's at every length, the
// heap fallback past the buffer included, and maps are found by string_view.
#include "engine/base/string_map.h"

#include <string>

#include <gtest/gtest.h>

#include "engine/base/slash_join.h"

namespace engine {
namespace {

TEST(StringMapTest, SlashKeyEqualsSlashJoinOnAndPastItsBuffer) {
  for (size_t a_size : {0, 1, 7, 100, 254, 255, 300}) {
    for (size_t b_size : {0, 1, 63, 253}) {
      const std::string a(a_size, 'n');
      const std::string b(b_size, 'q');
      const SlashKey key(a, b);
      EXPECT_EQ(key.view(), SlashJoin(a, b)) << a_size << " + " << b_size;
    }
  }
}

TEST(StringMapTest, KeysAreFoundByViewAndByStackKey) {
  StringMap<int> map;
  map.emplace("team-a/main", 1);
  map.emplace(std::string(200, 'x') + "/" + std::string(200, 'y'), 2);
  EXPECT_EQ(map.find(std::string_view("team-a/main"))->second, 1);
  EXPECT_EQ(map.find(SlashKey("team-a", "main").view())->second, 1);
  EXPECT_EQ(map.find(SlashKey(std::string(200, 'x'), std::string(200, 'y')).view())->second, 2);
  EXPECT_EQ(map.find(SlashKey("team-a", "mai").view()), map.end());
  EXPECT_EQ(map.find(SlashKey("team-a/main", "").view()), map.end());
}

}  // namespace
}  // namespace engine
