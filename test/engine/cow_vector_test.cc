// engine::CowVector (engine/base/cow_vector.h): copies share one buffer until one is written to.
#include "engine/base/cow_vector.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/base/cache_line_allocator.h"

namespace engine {
namespace {

using Strings = CowVector<std::string>;

TEST(CowVectorTest, ACopySharesUntilEitherSideWrites) {
  Strings a{"x", "y"};
  Strings b = a;
  EXPECT_TRUE(a.SharesWith(b));
  EXPECT_EQ(a.use_count(), 2);
  const Strings& read = b;
  EXPECT_EQ(read[1], "y");
  EXPECT_TRUE(a.SharesWith(b)) << "a read through a const reference does not copy";

  b[0] = "changed";  // non-const access: b takes its own copy first
  EXPECT_FALSE(a.SharesWith(b));
  EXPECT_EQ(a[0], "x");
  EXPECT_EQ(b[0], "changed");
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(b.use_count(), 1);
}

TEST(CowVectorTest, WritingTheOnlyOwnerKeepsItsBuffer) {
  Strings a{"x", "y"};
  const std::string* before = a.data();
  a[0] = "changed";
  EXPECT_EQ(a.data(), before) << "the only owner writes in place";
  a.clear();
  a.emplace_back("w");
  EXPECT_EQ(a.data(), before) << "clear keeps an owned buffer's storage";
  EXPECT_EQ(a.size(), 1u);
}

TEST(CowVectorTest, ClearOnASharedBufferLetsGoWithoutTouchingTheOtherCopy) {
  Strings a{"x", "y"};
  Strings b = a;
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.use_count(), 0) << "let go, not copied";
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a.use_count(), 1);
}

TEST(CowVectorTest, EraseAndBackOnASharedBufferWriteOnlyTheirOwnCopy) {
  Strings a{"x", "y", "z"};
  Strings b = a;
  const Strings& shared = b;
  b.erase(shared.begin() + 1);  // an iterator into the shared buffer
  EXPECT_EQ(b.view(), (std::vector<std::string>{"x", "z"}));
  EXPECT_EQ(a.view(), (std::vector<std::string>{"x", "y", "z"}));
  Strings c = a;
  c.back() = "last";
  EXPECT_EQ(a.back(), "z");
  EXPECT_EQ(c.back(), "last");
}

TEST(CowVectorTest, AnEmptyListAllocatesNothingToBeReadOrIterated) {
  Strings empty;
  EXPECT_EQ(empty.use_count(), 0);
  int seen = 0;
  for (std::string& s : empty) {  // non-const iteration of nothing
    s.clear();
    ++seen;
  }
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(empty.use_count(), 0);
  EXPECT_TRUE(empty.view().empty());
  const std::vector<std::string>& as_vector = empty;
  EXPECT_TRUE(as_vector.empty());
}

TEST(CowVectorTest, EqualityComparesContentNotBuffers) {
  Strings a{"x"};
  Strings b{"x"};
  const Strings& same = a;
  EXPECT_FALSE(a.SharesWith(b));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, same);
  b.push_back("y");
  EXPECT_FALSE(a == b);
  EXPECT_EQ(Strings{}, Strings(std::vector<std::string>{}));
}

TEST(CowVectorTest, AMovedFromListIsEmptyAndTheBufferMovesWithIt) {
  Strings a{"x"};
  const std::string* buffer = a.data();
  Strings b = std::move(a);
  EXPECT_EQ(b.data(), buffer);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the documented moved-from state
}

// ReleaseIfShared, for a caller that overwrites every element: an owned buffer stays with its
// elements (their storage reused), a shared one is let go and the other holder keeps it.
TEST(CowVectorTest, ReleaseIfSharedKeepsAnOwnedBufferAndLetsGoOfASharedOne) {
  Strings owned{"a", "b"};
  const std::string* buffer = owned.data();
  owned.ReleaseIfShared();
  EXPECT_EQ(owned.data(), buffer);
  EXPECT_EQ(owned.view(), (std::vector<std::string>{"a", "b"}));
  Strings shared = owned;
  ASSERT_TRUE(shared.SharesWith(owned));
  shared.ReleaseIfShared();
  EXPECT_TRUE(shared.empty());
  EXPECT_EQ(shared.use_count(), 0);
  EXPECT_EQ(owned.data(), buffer);
  EXPECT_EQ(owned.use_count(), 1);
  Strings empty;
  empty.ReleaseIfShared();
  EXPECT_TRUE(empty.empty());
}

// OnOwnCacheLines: a copy of its own, written and shared like any other, whose buffer (the
// reference count with it) is in whole cache lines that nothing else shares.
TEST(CowVectorTest, OverwriteKeepsAnOwnedBufferAndDropsASharedOneWithoutCopying) {
  Strings owned{"a", "b", "c"};
  const std::string* first = &owned.view()[0];
  std::vector<std::string>& same = owned.Overwrite();
  EXPECT_EQ(&same[0], first);  // its elements are there to be overwritten
  EXPECT_EQ(same.size(), 3u);

  Strings kept{"x", "y"};
  Strings shared = kept;
  std::vector<std::string>& fresh = shared.Overwrite();
  EXPECT_TRUE(fresh.empty());  // not a copy of the shared elements
  fresh.push_back("z");
  EXPECT_FALSE(shared.SharesWith(kept));
  EXPECT_EQ(kept.view(), (std::vector<std::string>{"x", "y"}));
}

TEST(CowVectorTest, CopyOwnedCopiesIntoItsOwnBufferAndNeverShares) {
  Strings from{"p", "q"};
  Strings own{"old1", "old2", "old3"};
  const std::vector<std::string>* buffer = &own.view();
  own.CopyOwned(from);
  EXPECT_EQ(&own.view(), buffer);  // the same buffer, its storage reused
  EXPECT_EQ(own.view(), from.view());
  EXPECT_FALSE(own.SharesWith(from));

  Strings sharing = from;  // shares `from`'s buffer: the copy goes to a buffer of its own
  sharing.CopyOwned(from);
  EXPECT_FALSE(sharing.SharesWith(from));
  EXPECT_EQ(sharing.view(), from.view());
}

TEST(CowVectorTest, ACopyOnItsOwnCacheLinesIsAnOrdinaryCopy) {
  const std::vector<std::string> items{"a", "b", "c"};
  Strings own = Strings::OnOwnCacheLines(items);
  EXPECT_EQ(own.view(), items);
  EXPECT_EQ(own.use_count(), 1);
  Strings shared = own;
  EXPECT_TRUE(shared.SharesWith(own));
  shared.push_back("d");  // copy on write, as from any buffer
  EXPECT_FALSE(shared.SharesWith(own));
  EXPECT_EQ(own.view(), items);
  EXPECT_TRUE(Strings::OnOwnCacheLines({}).empty());
  EXPECT_EQ(Strings::OnOwnCacheLines({}).use_count(), 0);
}

TEST(CacheLineAllocatorTest, AllocatesWholeAlignedLines) {
  struct Small {
    char c[40];
  };
  CacheLineAllocator<Small> alloc;
  EXPECT_EQ(CacheLineAllocator<Small>::Bytes(1), 64u);
  EXPECT_EQ(CacheLineAllocator<Small>::Bytes(2), 128u);
  for (int i = 0; i < 16; ++i) {
    Small* p = alloc.allocate(1);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CacheLineAllocator<Small>::kLine, 0u);
    alloc.deallocate(p, 1);
  }
}

}  // namespace
}  // namespace engine
