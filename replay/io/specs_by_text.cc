#include "replay/io/specs_by_text.h"

#include <cstring>

namespace replay {

SpecsByText::Reading SpecsByText::Reading::Of(const engine::WorkloadSpec& wl,
                                              const PriorityClassFields<std::string_view>& pf) {
  Reading r;
  r.queue_name = wl.queue_name;
  r.priority = wl.priority;
  r.active = wl.active;
  r.maximum_execution_time_seconds = wl.maximum_execution_time_seconds;
  r.pod_sets = wl.pod_sets;
  r.priority_text = pf.As<std::string>();
  return r;
}

void SpecsByText::Reading::ApplyTo(engine::WorkloadSpec& wl,
                                   PriorityClassFields<std::string_view>& pf) const {
  wl.queue_name = queue_name;
  wl.priority = priority;
  wl.active = active;
  wl.maximum_execution_time_seconds = maximum_execution_time_seconds;
  wl.pod_sets = pod_sets;
  pf = priority_text.As<std::string_view>();
}

bool SpecsByText::Active() {
  if (paused_ > 0) {
    --paused_;
    return false;
  }
  if (probe_lookups_ == kProbe) {
    const bool worth_it = probe_hits_ >= kMinHits;
    probe_lookups_ = 0;
    probe_hits_ = 0;
    if (!worth_it) {
      paused_ = kPause - 1;  // this lookup is the first sat out
      return false;
    }
  }
  ++probe_lookups_;
  return true;
}

const SpecsByText::Reading* SpecsByText::Find(const char* start, const char* input_end) {
  const auto available = static_cast<size_t>(input_end - start);
  for (const Slot& slot : slots_) {
    // The first byte is always '{': the second differs first between most texts.
    if (!slot.text.empty() && slot.text.size() <= available
        && std::memcmp(slot.text.data(), start, slot.text.size()) == 0) {
      ++hits_;
      ++probe_hits_;
      return &slot.reading;
    }
  }
  ++misses_;
  return nullptr;
}

void SpecsByText::Keep(std::string_view text, const Reading& reading) {
  if (text.empty()) {
    return;  // an empty text means an unused slot
  }
  Slot& slot = slots_[next_];
  next_ = (next_ + 1) % kSlots;
  slot.text.assign(text);
  slot.reading = reading;
}

}  // namespace replay
