#include "engine/nomination_memo.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace engine {
namespace {

// What a nomination reads of the scan it resumes from: for each (pod set, resource) the index the
// flavor assigner starts at, FlavorScanState::NextFlavorIndex, and only when the scan is valid and
// not outdated (else every group starts at 0: engine/flavor_assigner.cc FindFlavor). Listed in
// the scan's order, zeros left out, so that an outdated scan, a fresh one and one whose every
// group ran to its last flavor (-1) compare equal: they make the same nomination.
template <typename Visit>
void ForEachStart(const FlavorScanState& scan, bool outdated, Visit&& visit) {
  if (outdated || !scan.valid) {
    return;
  }
  for (uint32_t p = 0; p < scan.last_tried.size(); ++p) {
    for (const auto& [resource, index] : scan.last_tried[p]) {
      if (index != -1) {
        visit(NominationMemo::ScanStart{p, resource, index + 1});
      }
    }
  }
}

bool SameStarts(const std::vector<NominationMemo::ScanStart>& stored, const FlavorScanState& scan,
                bool outdated) {
  size_t i = 0;
  bool same = true;
  ForEachStart(scan, outdated, [&](const NominationMemo::ScanStart& start) {
    same = same && i < stored.size() && stored[i] == start;
    ++i;
  });
  return same && i == stored.size();
}

size_t HeadHome(uint32_t i, size_t size) {
  return static_cast<size_t>((uint64_t{i} * 0x9e3779b97f4a7c15ULL) >> 32) & (size - 1);
}

}  // namespace

NominationMemo::Slot* NominationMemo::Epoch::First(uint32_t i) const {
  if (heads.empty()) {
    return nullptr;
  }
  const size_t mask = heads.size() - 1;
  for (size_t h = HeadHome(i, heads.size()); heads[h].generation == generation;
       h = (h + 1) & mask) {
    if (heads[h].id_index == i) {
      return heads[h].first;
    }
  }
  return nullptr;
}

NominationMemo::Slot*& NominationMemo::Epoch::FirstOrAdd(uint32_t i) {
  if (2 * (num_heads + 1) > heads.size()) {
    std::vector<Head> old = std::move(heads);
    heads.assign(old.empty() ? 8 : 2 * old.size(), Head{});
    num_heads = 0;
    const uint32_t current = generation;
    generation = 1;
    for (const Head& head : old) {
      if (head.generation == current) {
        FirstOrAdd(head.id_index) = head.first;
      }
    }
  }
  const size_t mask = heads.size() - 1;
  size_t h = HeadHome(i, heads.size());
  while (heads[h].generation == generation && heads[h].id_index != i) {
    h = (h + 1) & mask;
  }
  if (heads[h].generation != generation) {
    heads[h] = {i, generation, nullptr};
    ++num_heads;
  }
  return heads[h].first;
}

void NominationMemo::Epoch::ClearHeads() {
  num_heads = 0;
  if (++generation == 0) {  // wrapped: entries of generation 1 would read as in use
    std::fill(heads.begin(), heads.end(), Head{});
    generation = 1;
  }
}

size_t NominationMemo::FindEpoch(const NominationVersions& versions) const {
  for (size_t e = 0; e < kEpochs; ++e) {
    if (epochs_[e].used && epochs_[e].versions == versions) {
      return e;
    }
  }
  return kEpochs;
}

size_t NominationMemo::TakeEpoch(const NominationVersions& versions) {
  size_t pick = 0;
  for (size_t e = 0; e < kEpochs; ++e) {
    if (!epochs_[e].used) {
      pick = e;
      break;
    }
    if (epochs_[e].stored_at < epochs_[pick].stored_at) {
      pick = e;
    }
  }
  Epoch& epoch = epochs_[pick];
  for (Slot* s : epoch.slots) {
    s->next = nullptr;
    free_.push_back(s);
  }
  used_ -= epoch.slots.size();
  epoch.slots.clear();
  epoch.ClearHeads();
  epoch.used = true;
  epoch.versions = versions;
  return pick;
}

const CycleEntry* NominationMemo::Find(const Workload& w, const NominationVersions& versions,
                                       bool scan_outdated, TimeMicros now, bool* kept_key) const {
  const size_t e = FindEpoch(versions);
  if (e == kEpochs) {
    return nullptr;
  }
  for (const Slot* s = epochs_[e].First(Index(w.id)); s != nullptr; s = s->next) {
    if (SameHead(*s, w, scan_outdated)) {
      if (s->reads_now && s->now != now) {
        return nullptr;
      }
      if (!s->has_entry) {
        if (kept_key != nullptr) {
          *kept_key = true;
        }
        return nullptr;
      }
      return &s->entry;
    }
  }
  return nullptr;
}

void NominationMemo::Observe(bool reusable) {
  // An exponential moving average over about 1,024 heads, in fixed point (no float in a path
  // every nomination takes); hysteresis between 1/128 and 1/64 so that a rate near the line does
  // not switch at every head.
  const uint32_t target = reusable ? kReuseOne : 0;
  if (target >= reuse_average_) {
    reuse_average_ += (target - reuse_average_) >> 10;
  } else {
    reuse_average_ -= (reuse_average_ - target) >> 10;
  }
  if (keep_entries_ && !always_keep_ && reuse_average_ < kReuseOne / 128) {
    keep_entries_ = false;
  } else if (!keep_entries_ && reuse_average_ >= kReuseOne / 64) {
    keep_entries_ = true;
  }
  if (++probed_heads_ >= kProbeHeads && !keep_entries_ && reuse_average_ < kReuseOne / 512) {
    sit_out_left_ = kSitOutHeads;
    probed_heads_ = 0;
  }
}

void NominationMemo::SatOut() {
  ++stats_.sat_out;
  if (sit_out_left_ > 0) {
    --sit_out_left_;
  }
}

bool NominationMemo::SameHead(const Slot& s, const Workload& w, bool scan_outdated) {
  return s.spec == w.spec && s.priority == w.priority && s.queue_order_time == w.queue_order_time
         && s.cq == w.cluster_queue && s.key == w.key
         && SameStarts(s.starts, w.scan, scan_outdated);
}

void NominationMemo::Store(const Workload& w, const NominationVersions& versions,
                           bool scan_outdated, TimeMicros now, bool reads_now,
                           const CycleEntry& entry) {
  size_t e = FindEpoch(versions);
  if (e == kEpochs) {
    e = TakeEpoch(versions);
  }
  epochs_[e].stored_at = ++store_clock_;
  const uint32_t i = Index(w.id);
  Slot*& first = epochs_[e].FirstOrAdd(i);
  // The slot already held for this head's input, else a new one at the front of the chain, else
  // (kPerHead inputs held) the chain's last.
  Slot* slot = nullptr;
  Slot* last = nullptr;
  size_t held = 0;
  for (Slot* s = first; s != nullptr && slot == nullptr; s = s->next) {
    slot = SameHead(*s, w, scan_outdated) ? s : nullptr;
    last = s;
    ++held;
  }
  if (slot == nullptr && held >= kPerHead) {
    slot = last;
  }
  if (slot == nullptr) {
    if (free_.empty()) {
      pool_.push_back(std::make_unique<Slot>());
      free_.push_back(pool_.back().get());
    }
    slot = free_.back();
    free_.pop_back();
    slot->next = first;
    first = slot;
    epochs_[e].slots.push_back(slot);
    ++used_;
  }
  Slot& s = *slot;
  s.reads_now = reads_now;
  s.now = now;
  s.spec = w.spec;
  s.key = w.key;
  s.priority = w.priority;
  s.queue_order_time = w.queue_order_time;
  s.cq = w.cluster_queue;
  s.starts.clear();
  ForEachStart(w.scan, scan_outdated, [&s](const ScanStart& start) { s.starts.push_back(start); });
  s.has_entry = keep_entries_;
  if (keep_entries_) {
    // The pod sets and the scan's lists copied into the slot's own lists, not shared with the
    // cycle's entry: that entry is nominated into again, and lists it shared would make each such
    // nomination allocate lists of its own (a hit shares the slot's lists instead:
    // Assignment::pod_sets, FlavorScanState::last_tried). On the moderate trace, where few heads
    // come back, sharing here cost 0.5 % more instructions.
    CowVector<PodSetAssignment> pod_sets = std::move(s.entry.assignment.pod_sets);
    auto tried = std::move(s.entry.assignment.last_state.last_tried);
    s.entry = entry;
    pod_sets.CopyOwned(entry.assignment.pod_sets);
    tried.CopyOwned(entry.assignment.last_state.last_tried);
    s.entry.assignment.pod_sets = std::move(pod_sets);
    s.entry.assignment.last_state.last_tried = std::move(tried);
  } else {
    ++stats_.key_only_stores;  // the slot's old entry stays as storage for a later copy
  }
}

void NominationMemo::Clear() {
  for (size_t e = 0; e < kEpochs; ++e) {
    for (Slot* s : epochs_[e].slots) {
      s->next = nullptr;
      free_.push_back(s);
    }
    epochs_[e] = Epoch{};
  }
  used_ = 0;
}

std::string EntryFingerprint(const CycleEntry& e) {
  std::string out =
      fmt::format("w{} cq{} {} r{} m[{}] mis{} p{} c{} b{} f{} d{}\n", Index(e.workload),
                  Index(e.cq), ToString(e.outcome), static_cast<int>(e.reason), e.message,
                  e.misconfigured, e.partial, e.checks_pending, e.assignment.borrowing,
                  e.assignment.forced_mode ? static_cast<int>(*e.assignment.forced_mode) : -1,
                  e.assignment.devices_short);
  for (const PreemptionTarget& t : e.targets) {
    out += fmt::format("t{}:{} ", Index(t.workload), static_cast<int>(t.reason));
  }
  for (const SlotAmount& u : e.assignment.usage) {
    out += fmt::format("u{}={} ", Index(u.slot), u.amount.value());
  }
  for (const PodSetAssignment& ps : e.assignment.pod_sets) {
    out += fmt::format("\nps {} n{} miss{} reasons[{}]", ps.name, ps.count, ps.missing_flavor,
                       fmt::join(ps.reasons, "|"));
    for (const FlavorChoice& c : ps.flavors) {
      out += fmt::format(" c{}/{}/{}:{}:{}:{}:{}:{}", Index(c.resource), Index(c.flavor),
                         Index(c.slot), static_cast<int>(c.mode), static_cast<int>(c.granular),
                         c.borrow, c.tried_index, c.amount.value());
    }
    for (const ResourceAmount& r : ps.requests) {
      out += fmt::format(" q{}={}", Index(r.resource), r.amount.value());
    }
  }
  const FlavorScanState& s = e.assignment.last_state;
  out += fmt::format("\nscan v{} g{} l{} cyc{} [{}]", s.valid, s.cluster_queue_generation,
                     s.flavor_lists, s.scheduling_cycle, fmt::join(s.cohort_generations, ","));
  for (const auto& per_pod_set : s.last_tried) {
    out += " |";
    for (const auto& [resource, index] : per_pod_set) {
      out += fmt::format(" {}:{}", Index(resource), index);
    }
  }
  return out;
}

}  // namespace engine
