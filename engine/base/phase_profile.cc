#include "engine/base/phase_profile.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace engine {

const char* ToString(Phase phase) {
  switch (phase) {
    case Phase::kParse:
      return "parse";
    case Phase::kRoute:
      return "route";
    case Phase::kSimulate:
      return "simulate";
    case Phase::kQueue:
      return "queue";
    case Phase::kCycle:
      return "cycle";
    case Phase::kNominate:
      return "nominate";
    case Phase::kFlavorAssignment:
      return "flavor assignment";
    case Phase::kPreemptionSearch:
      return "preemption search";
    case Phase::kAdmit:
      return "admit";
    case Phase::kOutput:
      return "output";
    case Phase::kOther:
      return "other";
    case Phase::kCount:
      break;
  }
  return "?";
}

int64_t PhaseTotals::TotalNanos() const {
  int64_t total = 0;
  for (int64_t n : nanos) {
    total += n;
  }
  return total;
}

namespace {

uint64_t Ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

int64_t ThreadCpuNanos() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

// One thread's counters. Owned by the registry (they outlive their threads: TBB workers may end
// before Collect). The stack is bounded: phases nest a few levels deep at most.
struct ThreadState {
  static constexpr size_t kMaxDepth = 32;
  std::array<uint64_t, kPhaseCount> ticks{};
  std::array<int64_t, kPhaseCount> calls{};
  std::array<Phase, kMaxDepth> stack{};
  size_t depth = 0;
  size_t overflow = 0;  // scopes deeper than kMaxDepth: charged to the deepest kept phase
  uint64_t last = 0;
  // The thread's CPU time inside outermost scopes, read when the stack leaves and reaches
  // empty: the ticks (wall) are scaled by it, so a thread preempted by another process does not
  // count the time it waited.
  int64_t cpu_nanos = 0;
  int64_t cpu_at_entry = 0;
  uint64_t ticks_in_scopes = 0;
  uint64_t ticks_at_entry = 0;
};

namespace {

std::atomic<bool> g_enabled{false};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<ThreadState>> states;
  uint64_t start_ticks = 0;
  std::chrono::steady_clock::time_point start_time;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: threads may outlive main's end
  return *registry;
}

thread_local ThreadState* t_state = nullptr;

// REQUIRES: r.mutex held.
ThreadState* CurrentThreadStateLocked(Registry& r) {
  if (t_state == nullptr) {
    r.states.push_back(std::make_unique<ThreadState>());
    t_state = r.states.back().get();
  }
  return t_state;
}

ThreadState* CurrentThreadState() {
  if (t_state == nullptr) {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return CurrentThreadStateLocked(r);
  }
  return t_state;
}

}  // namespace

void PhaseProfile::Enable() {
  Registry& r = GetRegistry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.start_ticks = Ticks();
    r.start_time = std::chrono::steady_clock::now();
  }
  g_enabled.store(true, std::memory_order_relaxed);
}

bool PhaseProfile::Enabled() {
  return g_enabled.load(std::memory_order_relaxed);
}

PhaseTotals PhaseProfile::Collect() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uint64_t end_ticks = Ticks();
  const double elapsed_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - r.start_time)
          .count();
  const uint64_t elapsed_ticks = end_ticks - r.start_ticks;
  const double ns_per_tick =
      elapsed_ticks == 0 ? 1.0 : elapsed_ns / static_cast<double>(elapsed_ticks);
  // The calling thread may still be inside scopes (the run's outermost one): count up to now.
  ThreadState* self = CurrentThreadStateLocked(r);
  if (self->depth > 0) {
    self->ticks[static_cast<size_t>(self->stack[self->depth - 1])] += end_ticks - self->last;
    self->last = end_ticks;
    const int64_t cpu = ThreadCpuNanos();
    self->cpu_nanos += cpu - self->cpu_at_entry;
    self->cpu_at_entry = cpu;
    self->ticks_in_scopes += end_ticks - self->ticks_at_entry;
    self->ticks_at_entry = end_ticks;
  }
  PhaseTotals totals;
  for (const auto& state : r.states) {
    bool used = false;
    // Wall ticks to this thread's CPU nanoseconds.
    const double wall_ns = static_cast<double>(state->ticks_in_scopes) * ns_per_tick;
    const double cpu_per_wall =
        wall_ns > 0 ? std::min(1.0, static_cast<double>(state->cpu_nanos) / wall_ns) : 1.0;
    for (size_t p = 0; p < kPhaseCount; ++p) {
      totals.nanos[p] +=
          static_cast<int64_t>(static_cast<double>(state->ticks[p]) * ns_per_tick * cpu_per_wall);
      totals.calls[p] += state->calls[p];
      used = used || state->calls[p] > 0;
    }
    totals.threads += used ? 1 : 0;
  }
  return totals;
}

PhaseScope::PhaseScope(Phase phase) {
  if (!g_enabled.load(std::memory_order_relaxed)) {
    return;
  }
  ThreadState* s = CurrentThreadState();
  state_ = s;
  const uint64_t now = Ticks();
  if (s->depth > 0) {
    s->ticks[static_cast<size_t>(s->stack[s->depth - 1])] += now - s->last;
  } else {
    s->cpu_at_entry = ThreadCpuNanos();
    s->ticks_at_entry = now;
  }
  s->last = now;
  ++s->calls[static_cast<size_t>(phase)];
  if (s->depth == ThreadState::kMaxDepth) {
    ++s->overflow;
    return;
  }
  s->stack[s->depth++] = phase;
}

PhaseScope::~PhaseScope() {
  ThreadState* s = state_;
  if (s == nullptr) {
    return;
  }
  if (s->overflow > 0) {
    --s->overflow;
    return;
  }
  const uint64_t now = Ticks();
  s->ticks[static_cast<size_t>(s->stack[s->depth - 1])] += now - s->last;
  s->last = now;
  if (--s->depth == 0) {
    s->cpu_nanos += ThreadCpuNanos() - s->cpu_at_entry;
    s->ticks_in_scopes += now - s->ticks_at_entry;
  }
}

}  // namespace engine
