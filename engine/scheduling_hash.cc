#include "engine/scheduling_hash.h"

#include <string_view>

#include "engine/cluster.h"
#include "engine/workload.h"

namespace engine {
namespace {

// A chained 64-bit mix over a length-prefixed, tagged stream: each 8-byte word (a tag, a number,
// or 8 bytes of a string) goes through splitmix64's finaliser, a bijection, so that different
// field sequences cannot produce the same state unless the 64-bit state itself collides. Word at a
// time: byte-wise FNV-1a cost a multiply per byte, 2-3 % of a replay's CPU (one hash per arriving
// workload).
class Hasher {
 public:
  void Word(uint64_t v) {
    uint64_t x = state_ ^ v;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    state_ = x + kStep;
  }
  void Bytes(const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (; size >= 8; p += 8, size -= 8) {
      Word(Load(p, 8));
    }
    if (size > 0) {
      Word(Load(p, size));  // the length prefix tells a short tail from zero bytes
    }
  }
  void Tag(char tag) { Word(uint64_t{0x100} | static_cast<unsigned char>(tag)); }
  void U64(uint64_t v) { Word(v); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Str(std::string_view s) {
    U64(s.size());
    Bytes(s.data(), s.size());
  }
  // An exact decimal in normal form (trailing zeros of the mantissa moved to the exponent), so
  // "1", "1000m" and "1e0" hash alike, as Kubernetes' canonical serialisation makes them.
  void Decimal(const DecimalQuantity& d) {
    unsigned __int128 mantissa = d.mantissa;
    int32_t exponent = d.exponent;
    if (mantissa == 0) {
      exponent = 0;
    }
    while (mantissa != 0 && mantissa % 10 == 0) {
      mantissa /= 10;
      ++exponent;
    }
    U64(static_cast<uint64_t>(mantissa >> 64));
    U64(static_cast<uint64_t>(mantissa));
    I64(exponent);
    Tag(static_cast<char>((mantissa != 0 && d.negative ? 1 : 0) | (d.sticky ? 2 : 0)));
  }
  uint64_t value() const { return state_; }

 private:
  // Little-endian, whatever the host's: the value is the same on every platform.
  static uint64_t Load(const unsigned char* p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
      v |= uint64_t{p[i]} << (8 * i);
    }
    return v;
  }
  static constexpr uint64_t kStep = 0x9e3779b97f4a7c15ULL;
  uint64_t state_ = 0xcbf29ce484222325ULL;
};

void HashList(Hasher& h, char tag, const ResourceList& list) {
  h.Tag(tag);
  h.U64(list.size());
  for (const auto& [name, amount] : list) {
    h.Str(name);
    h.Decimal(amount);
  }
}

// A container's requests after Kueue's AdjustResources (§3.1): a limit stands in for a missing
// request. Both lists are sorted by name, so one merge walk gives a sorted result.
void HashContainer(Hasher& h, const ContainerResources& c) {
  h.Tag('c');
  h.Tag(c.restartable_sidecar ? 1 : 0);
  auto req = c.requests.begin();
  auto lim = c.limits.begin();
  while (req != c.requests.end() || lim != c.limits.end()) {
    if (lim == c.limits.end() || (req != c.requests.end() && req->first <= lim->first)) {
      if (lim != c.limits.end() && lim->first == req->first) {
        ++lim;
      }
      h.Str(req->first);
      h.Decimal(req->second);
      ++req;
    } else {
      h.Str(lim->first);
      h.Decimal(lim->second);
      ++lim;
    }
  }
  h.Tag('.');
}

void HashPodSpec(Hasher& h, const PodSetSpec& spec) {
  h.Tag('S');
  h.U64(spec.resources.containers.size());
  for (const ContainerResources& c : spec.resources.containers) {
    HashContainer(h, c);
  }
  h.U64(spec.resources.init_containers.size());
  for (const ContainerResources& c : spec.resources.init_containers) {
    HashContainer(h, c);
  }
  HashList(h, 'o', spec.resources.overhead);
  HashList(h, 'q', spec.resources.pod_requests);
  HashList(h, 'l', spec.resources.pod_limits);

  h.Tag('n');  // std::map: sorted by key
  h.U64(spec.node_selector.size());
  for (const auto& [key, value] : spec.node_selector) {
    h.Str(key);
    h.Str(value);
  }
  h.Tag('a');  // term and expression order is kept: it is the spec's order, as in Kueue's JSON
  h.U64(spec.required_affinity.size());
  for (const NodeSelectorTerm& term : spec.required_affinity) {
    h.U64(term.match_expressions.size());
    for (const NodeSelectorRequirement& r : term.match_expressions) {
      h.Str(r.key);
      h.Str(r.op);
      h.U64(r.values.size());
      for (const std::string& v : r.values) {
        h.Str(v);
      }
    }
  }
  h.Tag('t');
  h.U64(spec.tolerations.size());
  for (const Toleration& t : spec.tolerations) {
    h.Str(t.key);
    h.Str(t.op);
    h.Str(t.value);
    h.Str(t.effect);
  }
  h.Tag('p');
  h.Str(spec.priority_class_name);
}

}  // namespace

uint64_t PodSetsSchedulingHash(const PodSetRequestList& pod_sets, const Cluster& cluster) {
  Hasher h;
  h.U64(pod_sets.size());
  for (const PodSetRequest& ps : pod_sets) {
    h.Tag('s');
    h.Str(ps.name);
    h.I64(ps.count);
    h.Tag(ps.min_count.has_value() ? 1 : 0);
    h.I64(ps.min_count.value_or(0));
    h.Tag('r');
    h.U64(ps.per_pod.size());
    for (const ResourceAmount& r : ps.per_pod) {
      if (IsValid(r.resource)) {
        h.Str(cluster.Name(r.resource));
      } else {
        h.Str("");  // a resource that was never interned
      }
      h.I64(r.amount.value());
    }
    if (ps.spec != nullptr) {
      HashPodSpec(h, *ps.spec);
    } else {
      h.Tag('-');
    }
  }
  return h.value();
}

uint64_t CombineSchedulingHash(int32_t priority, uint64_t pod_sets_hash) {
  Hasher h;
  h.Tag('P');
  h.I64(priority);
  h.U64(pod_sets_hash);
  const uint64_t hash = h.value();
  return hash == kSchedulingHashUnknown ? 1 : hash;
}

uint64_t ComputeSchedulingHash(const Workload& workload, const Cluster& cluster) {
  return CombineSchedulingHash(workload.priority,
                               PodSetsSchedulingHash(workload.pod_sets, cluster));
}

uint64_t SchedulingHasher::Compute(const Workload& workload, const Cluster& cluster) {
  for (const Slot& slot : slots_) {
    if (slot.pod_sets.SharesWith(workload.pod_sets)) {
      return CombineSchedulingHash(workload.priority, slot.hash);
    }
  }
  const uint64_t pod_sets_hash = PodSetsSchedulingHash(workload.pod_sets, cluster);
  Slot& slot = slots_[next_];
  next_ = (next_ + 1) % kSlots;
  slot.pod_sets = workload.pod_sets;
  slot.hash = pod_sets_hash;
  return CombineSchedulingHash(workload.priority, pod_sets_hash);
}

}  // namespace engine
