#include "replay/sim/tick_clock.h"

#include <chrono>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace replay {
namespace {

uint64_t SteadyNanos() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

#if defined(__x86_64__)
// The counter's rate against steady_clock over about 200 microseconds: both reads at each end
// are tens of nanoseconds apart, so the rate is within about 0.05 %.
double MeasureNanosPerTick() {
  constexpr uint64_t kSpanNanos = 200'000;
  const uint64_t ns0 = SteadyNanos();
  const uint64_t t0 = __rdtsc();
  uint64_t ns1 = ns0;
  uint64_t t1 = t0;
  while (ns1 - ns0 < kSpanNanos) {
    ns1 = SteadyNanos();
    t1 = __rdtsc();
  }
  return t1 > t0 ? static_cast<double>(ns1 - ns0) / static_cast<double>(t1 - t0) : 1.0;
}
#endif

}  // namespace

uint64_t TickClock::Now() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return SteadyNanos();
#endif
}

double TickClock::NanosPerTick() {
#if defined(__x86_64__)
  static const double rate = MeasureNanosPerTick();
  return rate;
#else
  return 1.0;
#endif
}

int64_t TickClock::NanosSince(uint64_t start) {
  const uint64_t now = Now();
  if (now <= start) {
    return 0;
  }
  return static_cast<int64_t>(static_cast<double>(now - start) * NanosPerTick());
}

}  // namespace replay
