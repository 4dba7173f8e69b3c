// WorkloadUid (engine/base/workload_uid.h): a canonical UUID kept as 128 bits, any other text as
// text; both read, compare and order exactly as the std::string they replaced.
#include "engine/base/workload_uid.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

constexpr const char* kUuid = "63cbe1e4-0000-4000-8000-00000000002a";

TEST(WorkloadUidTest, ACanonicalUuidIsKeptAsItsBitsAndReadsBackAsWritten) {
  WorkloadUid uid = kUuid;
  EXPECT_TRUE(uid.is_uuid());
  EXPECT_EQ(uid.text_storage(), nullptr) << "no heap text for a UUID";
  EXPECT_EQ(uid.str(), kUuid);
  EXPECT_EQ(uid.size(), 36u);
  EXPECT_FALSE(uid.empty());
  EXPECT_EQ(uid, kUuid);
  WorkloadUid::UuidText buffer;
  EXPECT_EQ(uid.View(buffer), kUuid);

  const std::string all_digits = "0123abcd-ef45-6789-abcd-ef0123456789";
  EXPECT_TRUE(WorkloadUid(all_digits).is_uuid());
  EXPECT_EQ(WorkloadUid(all_digits).str(), all_digits);
  EXPECT_EQ(WorkloadUid("ffffffff-ffff-ffff-ffff-ffffffffffff").str(),
            "ffffffff-ffff-ffff-ffff-ffffffffffff");
  EXPECT_EQ(WorkloadUid("00000000-0000-0000-0000-000000000000").str(),
            "00000000-0000-0000-0000-000000000000");
}

// Only a text that prints back exactly as written is a UUID here: upper case, braces, a missing
// or moved hyphen, one digit too many or too few stay text.
TEST(WorkloadUidTest, AnythingElseIsKeptAsText) {
  for (const std::string text :
       {"63CBE1E4-0000-4000-8000-00000000002A", "{63cbe1e4-0000-4000-8000-00000000002a}",
        "63cbe1e4000040008000000000000000002a", "63cbe1e4-0000-4000-8000-00000000002",
        "63cbe1e4-0000-4000-8000-00000000002a0", "63cbe1e40-000-4000-8000-00000000002a",
        "63cbe1e4-0000-4000-8000-00000000002g", "63cbe1e4 0000 4000 8000 00000000002a", "uid-a",
        "ns/name"}) {
    WorkloadUid uid = text;
    EXPECT_FALSE(uid.is_uuid()) << text;
    EXPECT_EQ(uid.str(), text);
    EXPECT_EQ(uid.size(), text.size());
    EXPECT_EQ(uid, text);
  }
  EXPECT_TRUE(WorkloadUid().empty());
  EXPECT_TRUE(WorkloadUid("").empty());
  EXPECT_EQ(WorkloadUid().text_storage(), nullptr);
  EXPECT_EQ(WorkloadUid(""), "");
}

// Every byte value at every position of a UUID: a UUID exactly when the text is canonical (the
// parse reads eight characters at a time; the boundaries '/', ':', '`', 'g' and bytes past ASCII
// are where such a parse would go wrong).
bool IsCanonicalUuid(const std::string& text) {
  if (text.size() != 36) {
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool hyphen_place = i == 8 || i == 13 || i == 18 || i == 23;
    const bool ok = hyphen_place ? c == '-' : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!ok) {
      return false;
    }
  }
  return true;
}

TEST(WorkloadUidTest, EveryByteAtEveryPlaceIsAUuidOnlyWhenCanonical) {
  const std::string base = "0123abcd-ef45-6789-abcd-ef0123456789";
  int uuids = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    for (int byte = 0; byte < 256; ++byte) {
      std::string text = base;
      text[i] = static_cast<char>(byte);
      const WorkloadUid uid = text;
      ASSERT_EQ(uid.is_uuid(), IsCanonicalUuid(text)) << "byte " << byte << " at " << i;
      ASSERT_EQ(uid.str(), text) << "byte " << byte << " at " << i;
      uuids += uid.is_uuid() ? 1 : 0;
    }
  }
  EXPECT_EQ(uuids, 32 * 16 + 4) << "16 digits at each of 32 places, the hyphen at each of 4";
}

// A random text near a UUID: a UUID, one with a character changed (so sometimes not a UUID), a
// prefix of one, or a short text. Mixed forms must order as their texts.
std::string NearUuid(std::mt19937_64& rng) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "00000000-0000-0000-0000-000000000000";
  for (char& c : text) {
    if (c != '-') {
      // Few distinct digits, so that UUIDs often share long prefixes.
      c = kHex[rng() % 3 == 0 ? rng() % 16 : rng() % 2];
    }
  }
  switch (rng() % 6) {
    case 0:
      text[rng() % text.size()] = "-aZ/0"[rng() % 5];
      break;
    case 1:
      text.resize(rng() % text.size());
      break;
    case 2:
      text = std::string(1, kHex[rng() % 16]) + "/x";
      break;
    default:
      break;
  }
  return text;
}

int Sign(int c) {
  return (c > 0) - (c < 0);
}

TEST(WorkloadUidTest, OrdersAndComparesAsTheTexts) {
  std::mt19937_64 rng(22);
  int uuid_pairs = 0;
  int mixed_pairs = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string a = NearUuid(rng);
    const std::string b = (rng() % 8 == 0) ? a : NearUuid(rng);
    const WorkloadUid ua = a;
    const WorkloadUid ub = b;
    const int want = Sign(a.compare(b));
    ASSERT_EQ(Sign(ua.compare(ub)), want) << a << " vs " << b;
    ASSERT_EQ(Sign(ub.compare(ua)), -want) << b << " vs " << a;
    ASSERT_EQ(Sign(ua.compare(b)), want) << a << " vs text " << b;
    ASSERT_EQ(ua == ub, a == b);
    ASSERT_EQ(ua < ub, a < b);
    ASSERT_EQ(ua == b, a == b);
    uuid_pairs += ua.is_uuid() && ub.is_uuid() ? 1 : 0;
    mixed_pairs += ua.is_uuid() != ub.is_uuid() ? 1 : 0;
  }
  // Both paths (bits against bits, text against text) were taken many times.
  EXPECT_GT(uuid_pairs, 5000);
  EXPECT_GT(mixed_pairs, 5000);
}

TEST(WorkloadUidTest, SortsAsStrings) {
  std::mt19937_64 rng(7);
  std::vector<std::string> texts;
  texts.reserve(500);
  for (int i = 0; i < 500; ++i) {
    texts.push_back(NearUuid(rng));
  }
  std::vector<WorkloadUid> uids(texts.begin(), texts.end());
  std::sort(texts.begin(), texts.end());
  std::sort(uids.begin(), uids.end());
  for (size_t i = 0; i < texts.size(); ++i) {
    ASSERT_EQ(uids[i].str(), texts[i]) << i;
  }
}

TEST(WorkloadUidTest, ClearKeepsTheTextStorageForTheNextText) {
  WorkloadUid uid = "a-uid-that-is-longer-than-any-short-buffer";
  const std::string* storage = uid.text_storage();
  ASSERT_NE(storage, nullptr);
  uid.clear();
  EXPECT_TRUE(uid.empty());
  EXPECT_EQ(uid, "");
  EXPECT_EQ(uid.text_storage(), storage);
  uid = kUuid;  // a UUID in between: bits, the storage kept aside
  EXPECT_TRUE(uid.is_uuid());
  EXPECT_EQ(uid.str(), kUuid);
  uid.assign("text-again");
  EXPECT_FALSE(uid.is_uuid());
  EXPECT_EQ(uid.text_storage(), storage);
  EXPECT_EQ(uid, "text-again");
  uid = kUuid;
  uid.clear();
  EXPECT_TRUE(uid.empty()) << "a cleared UUID is empty";
  EXPECT_EQ(uid.size(), 0u);
}

TEST(WorkloadUidTest, AssignSlashJoinedWritesTheLoadersDefault) {
  WorkloadUid uid;
  uid.AssignSlashJoined("team-a", "train-7");
  EXPECT_EQ(uid, "team-a/train-7");
  EXPECT_FALSE(uid.is_uuid());
  uid = kUuid;
  uid.AssignSlashJoined("ns", "n");
  EXPECT_EQ(uid.str(), "ns/n") << "no longer the UUID";
}

TEST(WorkloadUidTest, CopiesMovesAndSwapsCarryTheValue) {
  const WorkloadUid uuid = kUuid;
  const WorkloadUid text = "uid-b";
  WorkloadUid a = uuid;
  WorkloadUid b = text;
  EXPECT_EQ(a, uuid);
  EXPECT_EQ(b, text);
  EXPECT_NE(b.text_storage(), text.text_storage()) << "a copy has its own text";
  swap(a, b);
  EXPECT_EQ(a, "uid-b");
  EXPECT_EQ(b, kUuid);
  WorkloadUid moved = std::move(a);
  EXPECT_EQ(moved, "uid-b");
  a = b;  // a moved-from uid takes a new value
  EXPECT_EQ(a, kUuid);
  WorkloadUid& self = a;
  a = self;
  EXPECT_EQ(a, kUuid);
  b = text;
  EXPECT_EQ(b, "uid-b");
  EXPECT_FALSE(b.is_uuid());
}

TEST(WorkloadUidTest, PrintsItsText) {
  std::ostringstream out;
  out << WorkloadUid(kUuid) << ' ' << WorkloadUid("uid-a") << ' ' << WorkloadUid() << '.';
  EXPECT_EQ(out.str(), std::string(kUuid) + " uid-a .");
}

}  // namespace
}  // namespace engine
