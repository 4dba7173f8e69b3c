// File: engine/base/parallel_loop.h
//
// How the engine asks for parallelism without depending on a thread library: the caller (the
// replay, a benchmark) hands the Scheduler a ParallelLoop, and the engine runs independent
// read-only work through it (today: the nomination of a cycle's heads).
//
//   loop.Run(n, [&](size_t slot, size_t i) { ... });   // i in [0, n), any order, maybe concurrent
//
// `slot` in [0, slots()) names the thread running the call, so per-thread scratch can be indexed
// by it; no two concurrent calls share a slot. Run returns when every call has returned.
#pragma once

#include <cstddef>
#include <functional>

namespace engine {

class ParallelLoop {
 public:
  ParallelLoop() = default;
  ParallelLoop(const ParallelLoop&) = delete;
  ParallelLoop& operator=(const ParallelLoop&) = delete;
  ParallelLoop(ParallelLoop&&) = delete;
  ParallelLoop& operator=(ParallelLoop&&) = delete;
  virtual ~ParallelLoop() = default;

  // Upper bound (exclusive) of the slots Run passes; 1 means Run is sequential.
  virtual size_t slots() const = 0;
  virtual void Run(size_t n, const std::function<void(size_t slot, size_t i)>& fn) = 0;
};

}  // namespace engine
