// The caches of a replay's admission lines (replay/sim/decision_output.h).
// PodSetJsonCache appends the pod-set objects from the text of the last shapes written. Over
// random pod sets that repeat, outnumber its entries, differ in one field only, name a resource
// twice or need escaping, it appends exactly what AppendPodSetAssignmentJson appends.
// BorrowedJsonCache appends the members of the "borrowed" object from the text kept per slot:
// exactly what formatting them afresh appends, with amounts that repeat and change and names
// that need escaping.
#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/cluster.h"
#include "engine/quantity.h"
#include "replay/io/json_writer.h"
#include "replay/sim/decision_output.h"

namespace replay {
namespace {

TEST(PodSetJsonCacheTest, AppendsWhatTheFormatterAppends) {
  engine::Cluster cluster;
  const std::vector<std::string> flavors = {"default", "spot", "f\"quoted", "gpu-a100"};
  const std::vector<std::string> resources = {"cpu", "memory", "nvidia.com/gpu", "ünicode"};
  std::vector<engine::FrSlot> slots;
  for (const std::string& f : flavors) {
    for (const std::string& r : resources) {
      slots.push_back(cluster.InternSlot(f, r));
    }
  }
  const std::vector<std::string> names = {"main", "worker", "a\\b"};
  const std::vector<int64_t> amounts = {0, 1, 1000, 2147483648, 64000};

  std::mt19937 rng(11);
  auto pick = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  // A pool of shapes larger than the cache, drawn with repeats, plus near copies.
  std::vector<engine::PodSetAssignment> pool;
  for (int i = 0; i < 24; ++i) {
    engine::PodSetAssignment ps;
    ps.name = names[pick(names.size())];
    ps.count = static_cast<int32_t>(1 + pick(16));
    const size_t choices = 1 + pick(3);
    for (size_t c = 0; c < choices; ++c) {
      engine::FlavorChoice choice;
      choice.slot = slots[pick(slots.size())];
      choice.flavor = cluster.SlotKey(choice.slot).flavor;
      choice.resource = cluster.SlotKey(choice.slot).resource;
      choice.amount = engine::Quantity(amounts[pick(amounts.size())]);
      ps.flavors.push_back(choice);
    }
    pool.push_back(ps);
    engine::PodSetAssignment near = ps;  // one field apart
    switch (pick(3)) {
      case 0:
        ++near.count;
        break;
      case 1:
        near.flavors.back().amount = engine::Quantity(near.flavors.back().amount.value() + 1);
        break;
      default:
        near.name += "x";
    }
    pool.push_back(near);
  }

  PodSetJsonCache cache;
  int repeats = 0;
  for (int i = 0; i < 5000; ++i) {
    // Mostly the first few shapes (a cache hit), now and then any of the pool.
    const size_t index = i % 7 == 0 ? pick(pool.size()) : pick(6);
    repeats += index < 6 ? 1 : 0;
    LineBuilder cached;
    cached.Append("prefix,");
    std::string direct = "prefix,";
    cache.Append(cluster, pool[index], cached);
    AppendPodSetAssignmentJson(cluster, pool[index], direct);
    ASSERT_EQ(cached.view(), direct) << "draw " << i << ", shape " << index;
  }
  EXPECT_GT(repeats, 4000);
}

// What LogAdmission appended for a member before the cache.
std::string BorrowedMember(const engine::Cluster& cluster, engine::FrSlot slot,
                           engine::Quantity amount) {
  const engine::FlavorResource key = cluster.SlotKey(slot);
  std::string out;
  AppendJsonString(fmt::format("{}/{}", cluster.Name(key.flavor), cluster.Name(key.resource)), out);
  out += ':';
  AppendJsonString(engine::FormatQuantity(amount, cluster.Name(key.resource)), out);
  return out;
}

TEST(BorrowedJsonCacheTest, AppendsWhatFormattingAfreshAppends) {
  engine::Cluster cluster;
  const std::vector<std::string> flavors = {"default", "spot", "f\"quoted"};
  const std::vector<std::string> resources = {"cpu", "memory", "nvidia.com/gpu", "ünicode"};
  std::vector<engine::FrSlot> slots;
  for (const std::string& f : flavors) {
    for (const std::string& r : resources) {
      slots.push_back(cluster.InternSlot(f, r));
    }
  }
  const std::vector<int64_t> amounts = {1, 500, 1000, 16000, 137438953472, 274877906944};

  std::mt19937 rng(5);
  auto pick = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  BorrowedJsonCache cache;
  int same_amount = 0;
  std::vector<int64_t> last(slots.size(), -1);
  for (int i = 0; i < 4000; ++i) {
    const size_t s = pick(4) == 0 ? pick(slots.size()) : pick(3);  // mostly a few slots
    const int64_t amount = pick(3) == 0 ? amounts[pick(amounts.size())] : amounts[s % 2];
    same_amount += last[s] == amount ? 1 : 0;
    last[s] = amount;
    LineBuilder cached;
    cached.Append('{');
    cache.Append(cluster, slots[s], engine::Quantity(amount), cached);
    std::string expected = "{";
    expected += BorrowedMember(cluster, slots[s], engine::Quantity(amount));
    ASSERT_EQ(cached.view(), expected) << "draw " << i << ", slot " << s;
  }
  EXPECT_GT(same_amount, 1000);
}

}  // namespace
}  // namespace replay
