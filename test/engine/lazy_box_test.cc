// engine::LazyBox (engine/base/lazy_box.h): reads as T{} until written, allocates at the first
// write, copies deeply, and Reset keeps what was allocated.
#include "engine/base/lazy_box.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

TEST(LazyBoxTest, IsOnePointerAndReadsAsADefaultValueWithoutAllocating) {
  EXPECT_EQ(sizeof(LazyBox<std::map<std::string, int>>), sizeof(void*));
  const LazyBox<std::map<std::string, int>> box;
  EXPECT_TRUE(box->empty());
  EXPECT_EQ(box->find("x"), box->end());
  EXPECT_EQ(box, (std::map<std::string, int>{}));
  EXPECT_FALSE(box.allocated());
}

TEST(LazyBoxTest, TheFirstWriteAllocates) {
  LazyBox<std::map<std::string, int>> box;
  box.Mutable()["a"] = 1;
  EXPECT_TRUE(box.allocated());
  EXPECT_EQ(box->at("a"), 1);
  EXPECT_EQ(box, (std::map<std::string, int>{{"a", 1}}));
  LazyBox<std::vector<int>> assigned;
  assigned = std::vector<int>{1, 2};
  EXPECT_EQ(assigned->size(), 2u);
}

TEST(LazyBoxTest, CopiesAreDeep) {
  LazyBox<std::vector<std::string>> a;
  a.Mutable().push_back("first");
  LazyBox<std::vector<std::string>> b = a;
  b.Mutable()[0] = "second";
  EXPECT_EQ((*a)[0], "first");
  a = b;
  EXPECT_EQ((*a)[0], "second");
  b.Mutable()[0] = "third";
  EXPECT_EQ((*a)[0], "second");
  a = LazyBox<std::vector<std::string>>();  // an unallocated box copies as one
  EXPECT_FALSE(a.allocated());
  EXPECT_TRUE(a->empty());
  EXPECT_NE(a, b);
}

// Reset: back to T{}; a vector keeps its storage for the next writer (a spec reset for reuse),
// and a box never written stays unallocated.
TEST(LazyBoxTest, ResetKeepsWhatWasAllocated) {
  LazyBox<std::vector<int>> box;
  box.Reset();
  EXPECT_FALSE(box.allocated());
  box.Mutable().assign(100, 7);
  const int* storage = box->data();
  box.Reset();
  EXPECT_TRUE(box->empty());
  EXPECT_TRUE(box.allocated());
  box.Mutable().push_back(1);
  EXPECT_EQ(box->data(), storage);
}

// A T with a Reset() of its own is reset by it (FlavorScanState keeps its vectors' storage so).
TEST(LazyBoxTest, ResetCallsTheValuesOwnReset) {
  struct Counted {
    int value = 0;
    int resets = 0;
    void Reset() {
      value = 0;
      ++resets;
    }
  };
  LazyBox<Counted> box;
  box.Mutable().value = 5;
  box.Reset();
  EXPECT_EQ(box->value, 0);
  EXPECT_EQ(box->resets, 1);
}

}  // namespace
}  // namespace engine
