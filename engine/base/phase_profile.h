// File: engine/base/phase_profile.h
//
// Where a replay's CPU time goes (`tally replay --profile`, issue 21): every thread keeps, per
// phase, the time spent with that phase on top of its phase stack and how often the phase was
// entered. Time is exclusive: entering the flavor assigner from a nomination stops the
// nomination's clock until the assigner returns, so the phases of all threads add up to the time
// those threads spent inside any phase.
//
//   PhaseProfile::Enable();                         // once, before any thread works
//   { PhaseScope scope(Phase::kNominate); ... }     // anywhere, any thread
//   PhaseTotals totals = PhaseProfile::Collect();   // after the work, all threads summed
//
// Off (the default), a PhaseScope is one relaxed atomic load and a branch. On, it reads the
// time-stamp counter twice (about 20 ns per scope on x86; steady_clock elsewhere); ticks are
// converted to nanoseconds with a rate measured between Enable() and Collect(). Ticks are wall
// time: each thread also reads its CPU clock when its outermost scope opens and closes, and its
// phases are scaled by CPU / wall, so that time spent preempted by other processes is not
// counted (on an idle machine the factor is 1). Outermost scopes should therefore be coarse
// (a batch, a task), not per item.
//
// Thread safety: scopes on any thread at any time; Enable/Collect while no scope is open on any
// thread (before the run starts, after it ends). Each thread's counters are its own; Collect
// reads them all under a mutex.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace engine {

enum class Phase : uint8_t {
  kParse,             // reading and parsing trace lines
  kRoute,             // deciding each event's shard
  kSimulate,          // applying events and timers to a shard (arrivals, finishes, evictions)
  kQueue,             // queue manager: push, pop heads, requeue, inadmissible moves
  kCycle,             // a scheduling cycle's own work: ordering, fits checks, bookkeeping
  kNominate,          // a head's nomination outside the two phases below
  kFlavorAssignment,  // the flavor assigner outside preemption searches
  kPreemptionSearch,  // preemption targets and what-ifs (bound check and search)
  kAdmit,             // charging an admission: reservation, tree, queue removal
  kOutput,            // decision lines, reports, metrics
  kOther,             // the rest of the run (set-up, manifests, merging)
  kCount,
};
inline constexpr size_t kPhaseCount = static_cast<size_t>(Phase::kCount);
const char* ToString(Phase phase);

struct PhaseTotals {
  std::array<int64_t, kPhaseCount> nanos{};
  std::array<int64_t, kPhaseCount> calls{};
  int threads = 0;  // threads that entered a phase

  int64_t TotalNanos() const;
};

class PhaseProfile {
 public:
  static void Enable();
  static bool Enabled();
  // Sums every thread's counters (threads that have ended included).
  static PhaseTotals Collect();
};

class PhaseScope {
 public:
  explicit PhaseScope(Phase phase);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;
  PhaseScope(PhaseScope&&) = delete;
  PhaseScope& operator=(PhaseScope&&) = delete;

 private:
  struct ThreadState* state_ = nullptr;  // null when profiling is off
};

}  // namespace engine
