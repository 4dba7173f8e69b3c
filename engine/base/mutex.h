// File: engine/base/mutex.h
//
// A mutex and its scoped lock, annotated for clang's thread-safety analysis (-Wthread-safety):
// data declared TALLY_GUARDED_BY(mu) may only be touched with `mu` held, and clang proves it at
// compile time. With g++ the annotations compile to nothing and the types are plain std::mutex.
//
//   struct Shard {
//     engine::Mutex mu;
//     int64_t events TALLY_GUARDED_BY(mu) = 0;
//   };
//   { engine::MutexLock lock(shard.mu); ++shard.events; }
#pragma once

#include <mutex>

#if defined(__clang__)
#define TALLY_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define TALLY_THREAD_ANNOTATION(x)
#endif

#define TALLY_CAPABILITY(x) TALLY_THREAD_ANNOTATION(capability(x))
#define TALLY_SCOPED_CAPABILITY TALLY_THREAD_ANNOTATION(scoped_lockable)
#define TALLY_GUARDED_BY(x) TALLY_THREAD_ANNOTATION(guarded_by(x))
#define TALLY_PT_GUARDED_BY(x) TALLY_THREAD_ANNOTATION(pt_guarded_by(x))
#define TALLY_REQUIRES(...) TALLY_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define TALLY_ACQUIRE(...) TALLY_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define TALLY_RELEASE(...) TALLY_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TALLY_EXCLUDES(...) TALLY_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define TALLY_NO_THREAD_SAFETY_ANALYSIS TALLY_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace engine {

class TALLY_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  ~Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  Mutex(Mutex&&) = delete;
  Mutex& operator=(Mutex&&) = delete;

  void Lock() TALLY_ACQUIRE() { mu_.lock(); }
  void Unlock() TALLY_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

class TALLY_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) TALLY_ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() TALLY_RELEASE() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  MutexLock(MutexLock&&) = delete;
  MutexLock& operator=(MutexLock&&) = delete;

 private:
  Mutex& mu_;
};

}  // namespace engine
