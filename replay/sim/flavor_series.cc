// Per-flavor quota series of the replay statistics (flavor_series.h).
#include "replay/sim/flavor_series.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace replay {
namespace {

auto Key(const FlavorSeries& s) {
  return std::tie(s.flavor, s.resource);
}

// Every figure of a series, for what is done to all of them alike.
template <typename Series, typename F>
void ForEachVector(Series& s, F f) {
  f(s.nominal);
  f(s.own);
  f(s.borrowed);
  f(s.lent);
  f(s.idle);
}

}  // namespace

void FlavorSeriesRecorder::TakeSnapshot() {
  Snapshot now(sums_.size());
  if (started_.size() < sums_.size()) {
    started_.resize(sums_.size(), false);
  }
  for (size_t k = 0; k < sums_.size(); ++k) {
    const Sums& s = sums_[k];
    const int64_t lent = std::min(s.borrowed, s.unused);
    now[k] = {static_cast<float>(s.nominal), static_cast<float>(s.own),
              static_cast<float>(s.borrowed), static_cast<float>(lent),
              static_cast<float>(s.unused - lent)};
    if (s.declared > 0) {
      started_[k] = true;
    }
  }
  dirty_ = false;
  if (!snapshots_.empty() && snapshots_[current_] == now) {
    return;  // a change that changed no figure (a ClusterQueue synced to what it was)
  }
  current_ = static_cast<uint32_t>(snapshots_.size());
  snapshots_.push_back(std::move(now));
}

void FlavorSeriesRecorder::Sample() {
  if (dirty_) {
    TakeSnapshot();
  }
  at_sample_.push_back(current_);
}

void FlavorSeriesRecorder::Halve() {
  size_t j = 0;
  for (size_t i = 0; i < at_sample_.size(); i += 2) {
    at_sample_[j++] = at_sample_[i];
  }
  at_sample_.resize(j);
  // Drop the snapshots no sample holds any more (bounded memory), keeping the current one.
  std::vector<uint32_t> renumbered(snapshots_.size(), UINT32_MAX);
  renumbered[current_] = 0;
  for (uint32_t id : at_sample_) {
    renumbered[id] = 0;
  }
  uint32_t kept = 0;
  for (size_t id = 0; id < snapshots_.size(); ++id) {
    if (renumbered[id] != UINT32_MAX) {
      renumbered[id] = kept;
      if (kept != id) {
        snapshots_[kept] = std::move(snapshots_[id]);
      }
      ++kept;
    }
  }
  snapshots_.resize(kept);
  for (uint32_t& id : at_sample_) {
    id = renumbered[id];
  }
  current_ = renumbered[current_];
}

std::vector<FlavorSeries> FlavorSeriesRecorder::Finish(const engine::Cluster& cluster,
                                                       size_t samples) const {
  std::vector<FlavorSeries> out;
  for (size_t k = 0; k < started_.size(); ++k) {
    if (!started_[k]) {
      continue;
    }
    FlavorSeries f;
    const engine::FlavorResource key =
        cluster.SlotKey(engine::MakeId<engine::FrSlot>(static_cast<uint32_t>(k)));
    f.flavor = cluster.Name(key.flavor);
    f.resource = cluster.Name(key.resource);
    ForEachVector(f, [&](std::vector<float>& v) { v.assign(samples, 0.0F); });
    for (size_t i = 0; i < samples && i < at_sample_.size(); ++i) {
      const Snapshot& snapshot = snapshots_[at_sample_[i]];
      if (k < snapshot.size()) {
        const Figures& x = snapshot[k];
        f.nominal[i] = x.nominal;
        f.own[i] = x.own;
        f.borrowed[i] = x.borrowed;
        f.lent[i] = x.lent;
        f.idle[i] = x.idle;
      }
    }
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(),
            [](const FlavorSeries& a, const FlavorSeries& b) { return Key(a) < Key(b); });
  return out;
}

void MergeFlavorSeries(const std::vector<FlavorSeries>& part, std::vector<FlavorSeries>& out) {
  for (const FlavorSeries& p : part) {
    auto it = std::lower_bound(
        out.begin(), out.end(), p,
        [](const FlavorSeries& a, const FlavorSeries& b) { return Key(a) < Key(b); });
    if (it == out.end() || Key(*it) != Key(p)) {
      out.insert(it, p);
      continue;
    }
    auto add = [](std::vector<float>& into, const std::vector<float>& from) {
      if (into.size() < from.size()) {
        into.resize(from.size(), 0.0F);
      }
      for (size_t i = 0; i < from.size(); ++i) {
        into[i] += from[i];
      }
    };
    add(it->nominal, p.nominal);
    add(it->own, p.own);
    add(it->borrowed, p.borrowed);
    add(it->lent, p.lent);
    add(it->idle, p.idle);
  }
}

}  // namespace replay
