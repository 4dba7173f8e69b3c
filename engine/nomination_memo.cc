#include "engine/nomination_memo.h"

#include <fmt/format.h>

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

}  // namespace

const CycleEntry* NominationMemo::Find(const Workload& w, const NominationVersions& versions,
                                       bool scan_outdated) const {
  const size_t i = Index(w.id);
  if (i >= by_id_.size() || by_id_[i] == nullptr) {
    return nullptr;
  }
  const Slot& s = *by_id_[i];
  if (!(s.versions == versions) || s.spec != w.spec || s.priority != w.priority
      || s.queue_order_time != w.queue_order_time || s.cq != w.cluster_queue || s.key != w.key
      || !SameStarts(s.starts, w.scan, scan_outdated)) {
    return nullptr;
  }
  return &s.entry;
}

void NominationMemo::Store(const Workload& w, const NominationVersions& versions,
                           bool scan_outdated, const CycleEntry& entry) {
  if (!(versions == epoch_)) {
    Clear();  // entries of older versions can never be found again (see the header)
    epoch_ = versions;
  }
  const size_t i = Index(w.id);
  if (i >= by_id_.size()) {
    by_id_.resize(i + 1, nullptr);
  }
  if (by_id_[i] == nullptr) {
    if (used_ == pool_.size()) {
      pool_.push_back(std::make_unique<Slot>());
    }
    by_id_[i] = pool_[used_++].get();
  }
  Slot& s = *by_id_[i];
  s.id_index = i;
  s.versions = versions;
  s.spec = w.spec;
  s.key = w.key;
  s.priority = w.priority;
  s.queue_order_time = w.queue_order_time;
  s.cq = w.cluster_queue;
  s.starts.clear();
  ForEachStart(w.scan, scan_outdated, [&s](const ScanStart& start) { s.starts.push_back(start); });
  s.entry = entry;
}

void NominationMemo::Clear() {
  for (size_t k = 0; k < used_; ++k) {
    by_id_[pool_[k]->id_index] = nullptr;
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
