#include "engine/pod_set_pool.h"

#include <algorithm>
#include <utility>

namespace engine {
namespace {

// One multiply and a rotation per word: the hash only spreads the lists over buckets, equality
// decides. It reads what tells a trace's lists apart (counts and quantities), not the strings.
uint64_t Combine(uint64_t seed, uint64_t value) {
  const uint64_t mixed = (seed ^ value) * 0x9e3779b97f4a7c15ULL;
  return (mixed << 29) | (mixed >> 35);
}

uint64_t HashList(uint64_t h, const ResourceList& list) {
  h = Combine(h, list.size());
  for (const auto& entry : list) {
    const DecimalQuantity& q = entry.second;
    h = Combine(h, static_cast<uint64_t>(q.mantissa) ^ static_cast<uint64_t>(q.mantissa >> 64));
    h = Combine(h, static_cast<uint64_t>(static_cast<uint32_t>(q.exponent)) << 2
                       | (q.negative ? 2U : 0U) | (q.sticky ? 1U : 0U));
  }
  return h;
}

uint64_t HashContainers(uint64_t h, const std::vector<ContainerResources>& containers) {
  h = Combine(h, containers.size());
  for (const ContainerResources& c : containers) {
    h = HashList(HashList(h, c.requests), c.limits);
  }
  return h;
}

}  // namespace

uint64_t HashPodSets(const std::vector<PodSetSpec>& pod_sets) {
  uint64_t h = pod_sets.size();
  for (const PodSetSpec& ps : pod_sets) {
    h = Combine(h, static_cast<uint64_t>(static_cast<uint32_t>(ps.count)) << 32
                       | (ps.min_count ? static_cast<uint32_t>(*ps.min_count) + 1U : 0U));
    h = HashContainers(h, ps.resources.containers);
    if (!ps.resources.init_containers.empty()) {
      h = HashContainers(h, ps.resources.init_containers);
    }
  }
  return h;
}

PodSetPool::Entry& PodSetPool::Intern(PodSetList& list) {
  if (list.empty()) {
    return no_pod_sets_;  // nothing to share; no pod set, no invalid request
  }
  for (const BufferAlias& alias : aliases_) {
    if (alias.list.SharesWith(list)) {
      return *alias.entry;
    }
  }
  const uint64_t hash = HashPodSets(list);
  auto [first, last] = lists_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    if (it->second.list == list) {
      Alias(list, it->second);
      return it->second;
    }
  }
  if (lists_.size() >= sweep_at_) {
    Sweep();
  }
  // The pool keeps the caller's list; the caller gets a spare's storage (or nothing). A list that
  // another owner shares (an event parser's memo of pod-set texts, which hands the same buffer
  // out line after line, on the reading thread) is copied instead, and the caller keeps it: every
  // Workload stored with the pooled list takes a reference to its buffer and drops it when erased,
  // and with the parser's buffer pooled those counts were on the same cache line as the parser's,
  // moved back and forth between the two cores at every line (issue 22: 2.3 % of a two-thread
  // replay's samples). The alias still finds the caller's buffer by its pointer.
  const auto fill = [this, &list](Entry& entry) -> Entry& {
    if (list.use_count() > 1) {
      entry.list = PodSetList::OnOwnCacheLines(list.view());
      Alias(list, entry);
    } else {
      std::swap(entry.list, list);
      Alias(entry.list, entry);
    }
    entry.invalid_resources = !ValidateResources(entry.list).empty();
    // entry.canonical and entry.requests keep their storage for the store, which works both out
    // again for this list before reading them: a canonical_version that matches no configuration
    // makes it (WorkloadStore::Add).
    entry.canonical_version = kNoVersion;
    return entry;
  };
  if (spares_.empty()) {
    return fill(lists_.emplace(hash, Entry{})->second);
  }
  Lists::node_type node = std::move(spares_.back());
  spares_.pop_back();
  node.key() = hash;
  fill(node.mapped());
  return lists_.insert(std::move(node))->second;
}

void PodSetPool::Alias(const PodSetList& list, Entry& entry) {
  BufferAlias& alias = aliases_[next_alias_];
  next_alias_ = (next_alias_ + 1) % kAliases;
  alias.list = list;
  alias.entry = &entry;
}

void PodSetPool::Sweep() {
  // The aliases' references would keep their lists from being swept, and their entries may leave.
  for (BufferAlias& alias : aliases_) {
    alias = BufferAlias{};
  }
  for (auto it = lists_.begin(); it != lists_.end();) {
    if (it->second.list.use_count() <= 1) {
      auto next = std::next(it);
      spares_.push_back(lists_.extract(it));
      it = next;
    } else {
      ++it;
    }
  }
  sweep_at_ = std::max(kMinSweep, 2 * lists_.size());
  // Spares beyond what the pool may take before the next sweep would only hold memory.
  spares_.resize(std::min(spares_.size(), sweep_at_ - lists_.size()));
}

}  // namespace engine
