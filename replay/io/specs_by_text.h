// File: replay/io/specs_by_text.h
//
// One event parser's last few Workload `spec` objects, each kept with the JSON text it was read
// from and what the fast path read from it (replay/io/workload_json.cc, Spec), so that a Workload
// whose spec is written exactly as an earlier one's takes that reading instead of walking it
// again.
//
// Why: a trace repeats a handful of specs: the moderate synthetic trace of issue 22 has 9
// distinct ones (3 priority classes times its pod-set shapes), the 16-tree trace 11. Walking one
// (queue name, priority class reference, priority, pod sets, each key compared and each name
// checked) was about 1,900 instructions of a 10,000-instruction Workload line; comparing its
// bytes with a kept text and letting the line's iteration skip the object costs a fifth of that.
//
// Exactness: the fast path's reading of a spec depends on its bytes alone, so equal bytes give
// equal fields. A kept text is a whole object the fast path read to its closing brace: an input
// whose bytes from the spec's first byte on are those bytes holds that very object there (it
// closes at the same brace). Only texts the fast path read in full are kept.
//
// Traces whose specs do not repeat (Kueue's large-scale perf config names another LocalQueue in
// nearly every line) would pay for comparisons that never match and for keeping texts never
// found: after kProbe lookups with fewer than kMinHits hits, the memo stays out of the way for
// the next kPause lookups, then tries again.
//
// Threads: one memo per parser, used by its thread only; the pod-set lists it hands out are
// shared as PodSetsByText's are (replay/io/pod_sets_by_text.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/workload_spec.h"

namespace replay {

// The priority-class fields of a spec as written, resolved once apiVersion is known (keys come
// in any order): views into the input as the fast path reads them (replay/io/workload_json.cc),
// owned strings as a memo keeps them.
template <typename Text>
struct PriorityClassFields {
  bool has_ref = false;
  Text group;
  Text kind;
  Text name;
  bool has_class_name = false;
  Text class_name;
  bool has_source = false;
  Text source;

  // The same fields held as `Other` (copies of views, or views of the owned strings).
  template <typename Other>
  PriorityClassFields<Other> As() const {
    PriorityClassFields<Other> out;
    out.has_ref = has_ref;
    out.group = Other{group};
    out.kind = Other{kind};
    out.name = Other{name};
    out.has_class_name = has_class_name;
    out.class_name = Other{class_name};
    out.has_source = has_source;
    out.source = Other{source};
    return out;
  }
};

class SpecsByText {
 public:
  static constexpr size_t kSlots = 16;
  static constexpr int kProbe = 256;
  static constexpr int kMinHits = 32;
  static constexpr int kPause = 4096;

  using PriorityText = PriorityClassFields<std::string>;

  // What the fast path read from one spec object.
  struct Reading {
    engine::InternedName queue_name;
    std::optional<int32_t> priority;
    bool active = true;
    engine::Boxed<int64_t> maximum_execution_time_seconds;
    engine::PodSetList pod_sets;
    PriorityText priority_text;

    // What the fast path read into `wl` and `pf` (the views copied), to keep.
    static Reading Of(const engine::WorkloadSpec& wl,
                      const PriorityClassFields<std::string_view>& pf);
    // This reading into `wl` and `pf` (whose views then point into this reading).
    void ApplyTo(engine::WorkloadSpec& wl, PriorityClassFields<std::string_view>& pf) const;
  };

  // False while the memo stays out of the way (see above): the caller then neither looks up nor
  // keeps. Counts the lookup.
  bool Active();

  // The reading kept for the object starting at `start`, or nullptr: a kept text equal to the
  // bytes from `start` on (never read at or past `input_end`, one past the input's last byte).
  const Reading* Find(const char* start, const char* input_end);

  // Keeps `reading` under `text` (a whole object, its closing brace last), in place of the
  // oldest kept one. Shares reading.pod_sets's buffer.
  void Keep(std::string_view text, const Reading& reading);

  // Lookups answered and not, since construction (tests and --profile's curiosity).
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Slot {
    std::string text;  // empty: an unused slot
    Reading reading;
  };
  std::array<Slot, kSlots> slots_;
  size_t next_ = 0;  // the slot Keep writes next (round robin: the oldest)
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int probe_lookups_ = 0;  // in the current probe window
  int probe_hits_ = 0;
  int paused_ = 0;  // lookups left to sit out
};

}  // namespace replay
