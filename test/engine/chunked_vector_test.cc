// engine::ChunkedVector (engine/base/chunked_vector.h): grows like a std::vector that only grows,
// against one, through the first chunk's doublings and past it; holds at most one chunk of slack;
// keeps references into full chunks across growth; copies deeply.
#include "engine/base/chunked_vector.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

struct Record {
  int64_t time = -1;  // a default that is not zero: value-initialisation must run it
  std::string name;
  uint32_t pos = 7;
};

TEST(ChunkedVectorTest, GrowsAndReadsAsAVectorThatOnlyGrows) {
  ChunkedVector<Record, 64> chunked;
  std::vector<Record> reference;
  std::mt19937 rng(5);
  for (int step = 0; step < 2'000; ++step) {
    if (rng() % 4 == 0) {
      const size_t n = reference.size() + rng() % 150;
      chunked.resize(n);
      if (n > reference.size()) {
        reference.resize(n);
      }
      chunked.resize(n / 2);  // never shrinks
    } else if (!reference.empty()) {
      const size_t i = rng() % reference.size();
      reference[i].time = step;
      reference[i].name = "record-with-a-name-past-the-short-buffer-" + std::to_string(step);
      chunked[i].time = step;
      chunked[i].name = reference[i].name;
    }
    ASSERT_EQ(chunked.size(), reference.size());
  }
  ASSERT_GT(reference.size(), 64u * 4);  // several chunks
  for (size_t i = 0; i < reference.size(); ++i) {
    EXPECT_EQ(chunked[i].time, reference[i].time) << i;
    EXPECT_EQ(chunked[i].name, reference[i].name) << i;
    EXPECT_EQ(chunked[i].pos, 7u) << i;
  }
}

TEST(ChunkedVectorTest, HoldsAtMostOneChunkOfSlackAndSmallTablesStaySmall) {
  ChunkedVector<Record, 64> chunked;
  chunked.resize(3);
  EXPECT_LE(chunked.allocated_bytes(), 4 * sizeof(Record));  // the first chunk doubles
  for (size_t n = 1; n <= 5'000; n += 37) {
    chunked.resize(n);
    if (n > 64) {
      EXPECT_LT(chunked.allocated_bytes(), (n + 64) * sizeof(Record)) << n;
    }
    EXPECT_GE(chunked.allocated_bytes(), n * sizeof(Record)) << n;
  }
}

TEST(ChunkedVectorTest, ReferencesIntoFullChunksSurviveGrowth) {
  ChunkedVector<Record, 64> chunked;
  chunked.resize(100);
  Record* second_chunk = &chunked[70];
  Record* first_chunk = &chunked[3];
  second_chunk->name = "kept";
  chunked.resize(10'000);
  EXPECT_EQ(&chunked[70], second_chunk);
  EXPECT_EQ(&chunked[3], first_chunk);  // the first chunk is full (64 records): it stays too
  EXPECT_EQ(chunked[70].name, "kept");
  EXPECT_EQ(chunked[9'999].time, -1);
}

TEST(ChunkedVectorTest, CopiesAreDeep) {
  ChunkedVector<Record, 64> a;
  a.resize(130);
  a[129].name = "original";
  ChunkedVector<Record, 64> b = a;
  b[129].name = "copy";
  EXPECT_EQ(a[129].name, "original");
  EXPECT_EQ(b.size(), 130u);
  a = b;
  EXPECT_EQ(a[129].name, "copy");
  ChunkedVector<Record, 64> moved = std::move(a);
  EXPECT_EQ(moved[129].name, "copy");
}

}  // namespace
}  // namespace engine
