#include "replay/sim/flavor_supply.h"

#include <algorithm>

namespace replay {

namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

FlavorSupplyModel::FlavorSupplyModel(const std::vector<engine::FlavorSupplySpec>& specs) {
  for (const engine::FlavorSupplySpec& s : specs) {
    Upsert(s);  // a later object for the same flavor replaces an earlier one
  }
}

void FlavorSupplyModel::Upsert(const engine::FlavorSupplySpec& spec) {
  Erase(spec.name);
  engine::FlavorSupplySpec& out = by_flavor_[spec.flavor];
  out = spec;
  std::sort(
      out.stockouts.begin(), out.stockouts.end(),
      [](const engine::TimeWindow& a, const engine::TimeWindow& b) { return a.from < b.from; });
}

void FlavorSupplyModel::Erase(std::string_view name) {
  std::erase_if(by_flavor_, [&](const auto& entry) { return entry.second.name == name; });
}

const engine::FlavorSupplySpec* FlavorSupplyModel::Find(std::string_view flavor) const {
  auto it = by_flavor_.find(std::string(flavor));
  return it == by_flavor_.end() ? nullptr : &it->second;
}

const engine::TimeWindow* FlavorSupplyModel::StockoutAt(std::string_view flavor,
                                                        engine::TimeMicros t) const {
  const engine::FlavorSupplySpec* s = Find(flavor);
  if (s == nullptr) {
    return nullptr;
  }
  for (const engine::TimeWindow& w : s->stockouts) {
    if (w.from <= t && t < w.to) {
      return &w;
    }
  }
  return nullptr;
}

engine::TimeMicros FlavorSupplyModel::AfterStockouts(std::string_view flavor,
                                                     engine::TimeMicros t) const {
  // Windows are sorted by start; overlapping or touching windows chain.
  for (const engine::TimeWindow* w = StockoutAt(flavor, t); w != nullptr;
       w = StockoutAt(flavor, t)) {
    t = w->to;
  }
  return t;
}

std::optional<engine::TimeMicros> FlavorSupplyModel::PodsReadyDelay(
    std::string_view flavor, std::string_view workload, engine::TimeMicros attempt_start) const {
  const engine::FlavorSupplySpec* s = Find(flavor);
  if (s == nullptr || !s->pods_ready_min.has_value() || !s->pods_ready_max.has_value()) {
    return std::nullopt;
  }
  const engine::TimeMicros span = *s->pods_ready_max - *s->pods_ready_min;
  if (span == 0) {
    return *s->pods_ready_min;
  }
  uint64_t h = 1469598103934665603ULL;  // FNV-1a over the workload key
  for (char c : workload) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  h = Mix(h ^ Mix(s->seed) ^ Mix(static_cast<uint64_t>(attempt_start)));
  // Whole seconds keep the draw readable in decision logs.
  const uint64_t seconds = static_cast<uint64_t>(span / 1'000'000) + 1;
  const engine::TimeMicros drawn = static_cast<engine::TimeMicros>(h % seconds) * 1'000'000;
  return *s->pods_ready_min + std::min(drawn, span);
}

}  // namespace replay
