// engine/base/string_map.h: the stack-built "a/b" key equals SlashJoin's at every length, the
// heap fallback past the buffer included, and maps are found by string_view. HashString
// (engine/base/string_hash.h), the maps' hash: equal keys hash equal wherever their bytes lie, and
// the replay's kind of keys neither collide nor crowd a few buckets.
#include "engine/base/string_map.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

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

// Every length from 0 to 80 (the short-key branches and the 16-byte loop with its tails), the key
// at every offset in a buffer (unaligned loads), and each byte position changed on its own.
TEST(StringMapTest, HashStringReadsEveryByteOfTheKeyAndOnlyThose) {
  std::string buffer(200, '\0');
  for (size_t i = 0; i < buffer.size(); ++i) {
    buffer[i] = static_cast<char>('a' + (i * 7) % 26);
  }
  for (size_t length = 0; length <= 80; ++length) {
    const std::string key = buffer.substr(3, length);
    const uint64_t hash = HashString(key);
    for (size_t offset = 0; offset < 16; ++offset) {
      std::string copy = std::string(offset, '#') + key + std::string(9, '#');
      EXPECT_EQ(HashString(std::string_view(copy).substr(offset, length)), hash) << length;
    }
    for (size_t at = 0; at < length; ++at) {
      std::string changed = key;
      changed[at] = static_cast<char>(changed[at] ^ 0x20);
      EXPECT_NE(HashString(changed), hash) << "length " << length << ", byte " << at;
    }
    if (length > 0) {
      EXPECT_NE(HashString(key.substr(0, length - 1)), hash) << length;  // a prefix
    }
  }
}

TEST(StringMapTest, HashStringSpreadsReplayKeysOverBuckets) {
  std::vector<std::string> keys;
  for (int ns = 0; ns < 200; ++ns) {
    keys.push_back("ns-" + std::to_string(ns));
    for (int wl = 0; wl < 1000; ++wl) {
      keys.push_back("ns-" + std::to_string(ns) + "/wl-" + std::to_string(ns * 1000 + wl));
    }
  }
  std::unordered_set<uint64_t> hashes;
  constexpr size_t kBuckets = 1 << 12;
  std::vector<int> low(kBuckets);
  std::vector<int> high(kBuckets);
  for (const std::string& key : keys) {
    const uint64_t h = HashString(key);
    hashes.insert(h);
    ++low[h % kBuckets];
    ++high[h >> 52];
  }
  EXPECT_EQ(hashes.size(), keys.size());  // no collision among 200,200 keys
  // About 49 keys per bucket: a uniform hash keeps every bucket within a few standard deviations
  // (7) of it, in the low bits (what std::unordered_map uses) and in the high ones.
  const double mean = static_cast<double>(keys.size()) / kBuckets;
  EXPECT_GT(*std::min_element(low.begin(), low.end()), mean - 42);
  EXPECT_LT(*std::max_element(low.begin(), low.end()), mean + 42);
  EXPECT_GT(*std::min_element(high.begin(), high.end()), mean - 42);
  EXPECT_LT(*std::max_element(high.begin(), high.end()), mean + 42);
}

}  // namespace
}  // namespace engine
