// File: replay/sim/tick_clock.h
//
// A cheap monotonic clock for timing each scheduling cycle (ShardSimulator's decision latency).
// A replay times every cycle, and a cycle of a busy trace is a few hundred nanoseconds:
// steady_clock::now() cost 27 ns a call on this project's machines (kvm-clock through the vDSO),
// two per cycle, 3 % of the 16-tree trace's time. On x86-64 the clock is the time-stamp counter
// (11 ns a read there), converted to nanoseconds with a rate measured once per process against
// steady_clock; elsewhere it is steady_clock itself.
//
//   const uint64_t start = TickClock::Now();
//   Work();
//   const int64_t ns = TickClock::NanosSince(start);
//
// Thread safety: thread-safe. The ticks of one thread and another compare only where the
// counter is synchronised across cores (an invariant TSC, as on every x86-64 machine of the
// last decade); a cycle is timed on one thread.
#pragma once

#include <cstdint>

namespace replay {

class TickClock {
 public:
  static uint64_t Now();
  // Nanoseconds from `start` (a Now()) to now; 0 if the counter went backwards.
  static int64_t NanosSince(uint64_t start);
  // Nanoseconds per tick (1 where the clock is steady_clock). The first call measures it, for
  // about 200 microseconds.
  static double NanosPerTick();
};

}  // namespace replay
