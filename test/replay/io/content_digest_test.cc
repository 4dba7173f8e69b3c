// The run id's digest does not depend on how the bytes are cut (the replay hashes 1 MiB flushes,
// tally diff 4 MiB reads), and tells different contents apart.
#include "replay/io/content_digest.h"

#include <random>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace replay {
namespace {

std::string Digest(std::string_view text) {
  ContentDigest d;
  d.Update(text);
  return d.Hex();
}

TEST(ContentDigestTest, AnyCutGivesTheSameDigest) {
  std::mt19937_64 rng(7);
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text.push_back(static_cast<char>(rng() & 0xff));
  }
  const std::string whole = Digest(text);
  EXPECT_EQ(whole.size(), 16U);
  for (int trial = 0; trial < 200; ++trial) {
    ContentDigest d;
    size_t at = 0;
    while (at < text.size()) {
      const size_t n = std::min<size_t>(rng() % 23, text.size() - at);  // pieces of 0..22 bytes
      d.Update(std::string_view(text).substr(at, n));
      at += n;
    }
    ASSERT_EQ(d.Hex(), whole) << "trial " << trial;
  }
}

TEST(ContentDigestTest, DifferentContentsDiffer) {
  std::set<std::string> seen;
  // Lengths 0..64 of zero bytes: the length counts, not only the bytes.
  for (size_t n = 0; n <= 64; ++n) {
    EXPECT_TRUE(seen.insert(Digest(std::string(n, '\0'))).second) << n;
  }
  // One flipped bit anywhere in a line.
  const std::string line = R"({"time":"2026-01-01T00:00:00Z","type":"Admitted","workload":"ns/a"})";
  for (size_t i = 0; i < line.size(); ++i) {
    std::string flipped = line;
    flipped[i] = static_cast<char>(flipped[i] ^ 1);
    EXPECT_TRUE(seen.insert(Digest(flipped)).second) << i;
  }
  EXPECT_NE(Digest("ab"), Digest("ba"));
}

TEST(ContentDigestTest, ValueGrowsWithUpdatesAfterReading) {
  ContentDigest d;
  d.Update("first ");
  const std::string early = d.Hex();
  d.Update("second");
  EXPECT_NE(d.Hex(), early);
  EXPECT_EQ(d.Hex(), Digest("first second"));
}

}  // namespace
}  // namespace replay
