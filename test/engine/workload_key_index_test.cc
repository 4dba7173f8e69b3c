// engine/workload_key_index.h against std::unordered_map: random inserts, erases and lookups of
// keys that share long prefixes, through several growths and many backward shifts.
#include "engine/workload_key_index.h"

#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

namespace engine {
namespace {

TEST(WorkloadKeyIndexTest, RandomOperationsMatchAHashMap) {
  std::vector<std::unique_ptr<StoredWorkload>> workloads;
  WorkloadKeyIndex index(workloads);
  std::unordered_map<std::string, WorkloadId> reference;
  std::vector<WorkloadId> free_ids;
  std::mt19937 rng(3);
  auto key_of = [](uint32_t n) {
    return "namespace-with-a-long-name/workload-" + std::to_string(n);
  };
  int erased = 0;
  for (int step = 0; step < 200'000; ++step) {
    const std::string key = key_of(rng() % 5'000);
    auto it = reference.find(key);
    if (rng() % 3 != 0) {
      // Look up, then insert when absent. Prefetch first, as a replay does a few events ahead: it
      // reads the table only (ASan: also while the table is still empty) and changes no answer.
      index.Prefetch(key);
      std::optional<WorkloadId> found = index.Find(key);
      ASSERT_EQ(found.has_value(), it != reference.end()) << key;
      if (found) {
        ASSERT_EQ(*found, it->second);
        continue;
      }
      WorkloadId id;
      if (free_ids.empty()) {
        id = MakeId<WorkloadId>(static_cast<uint32_t>(workloads.size()));
        workloads.emplace_back();
      } else {
        id = free_ids.back();
        free_ids.pop_back();
      }
      workloads[Index(id)] = std::make_unique<StoredWorkload>();
      workloads[Index(id)]->workload.key = key;
      index.Insert(key, id);
      reference.emplace(key, id);
    } else if (it != reference.end()) {
      index.Erase(key);
      workloads[Index(it->second)].reset();
      free_ids.push_back(it->second);
      reference.erase(it);
      ++erased;
    }
    ASSERT_EQ(index.size(), reference.size());
  }
  for (const auto& [key, id] : reference) {
    ASSERT_EQ(index.Find(key), id);
  }
  EXPECT_FALSE(index.Find("namespace-with-a-long-name/workload-5000").has_value());
  EXPECT_GT(erased, 10'000);
}

}  // namespace
}  // namespace engine
