// File: replay/io/pod_sets_by_text.h
//
// One event parser's last few pod-set lists, each kept with the JSON text it was read from
// (an event's `object.spec.podSets`), so that a Workload whose pod sets are written exactly as an
// earlier one's shares that list instead of reading the text again.
//
// Why: a trace repeats a handful of pod-set lists (3 to 5 distinct ones in the Kueue perf configs
// and the synthetic traces; engine/pod_set_pool.h). Reading one (names, containers, quantities)
// was about a fifth of a moderate Workload line's parse, and the shard that stores the Workload
// then hashed and compared the freshly written list against its pool's, touching memory the
// parser had written thousands of lines before (perf: 7 % of the moderate 1,000,000-workload
// trace in HashPodSets and PodSetPool::Intern, most of it cache misses). A list shared from here
// is recognised by the pool by its buffer (PodSetPool::Intern), without reading it.
//
// Exactness: the fast path's reading of a podSets array (replay/io/workload_json.cc, PodSets)
// depends on its text alone, so equal bytes give an equal list. Only lists the fast path read
// in full are kept; a text it declined is read (and declined) again each time.
//
// Threads: one memo per parser, used by its thread only. The lists it hands out are shared with
// the shards' stores on other threads through CowVector's reference count; nobody writes a list
// while the memo holds it (a CowVector is written only by a sole owner), and the memo never reads
// a list's elements after keeping it (it compares texts), so its thread and the store's do not
// touch the same elements.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "engine/workload_spec.h"

namespace replay {

class PodSetsByText {
 public:
  static constexpr size_t kSlots = 8;

  // The list read before from exactly `text`, or nullptr. `hash` is Hash(text).
  const engine::PodSetList* Find(std::string_view text, uint64_t hash) const;

  // Keeps `list` (sharing its buffer) under `text`, in place of the oldest kept list.
  void Keep(std::string_view text, uint64_t hash, const engine::PodSetList& list);

  static uint64_t Hash(std::string_view text);

  // A parser for the texts not found: the caller's own parser has gone past them.
  simdjson::ondemand::parser& parser() { return parser_; }

  // Lookups answered and not, since construction (tests and --profile's curiosity).
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    std::string text;
    engine::PodSetList list;  // empty: an unused slot
  };
  std::array<Slot, kSlots> slots_;
  size_t next_ = 0;  // the slot Keep writes next (round robin: the oldest)
  mutable int64_t hits_ = 0;
  mutable int64_t misses_ = 0;
  simdjson::ondemand::parser parser_;
};

}  // namespace replay
