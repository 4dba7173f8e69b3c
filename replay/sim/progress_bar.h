// File: replay/sim/progress_bar.h
//
// The replay's progress on stderr: on a terminal a bar redrawn every 0.5 s; in a log one plain
// line every 10 s, so that CI logs show a long replay moving without a carriage-return mess.
// Phases: "replaying" while the trace is read and replayed, "draining" once it is read and the
// shards run to the end, "done" on the last line (docs/replay.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "engine/workload_spec.h"

namespace replay {

class ProgressBar {
 public:
  // Disabled: Show does nothing. `path` sizes the bar (the share of the file read).
  ProgressBar(bool enabled, bool tty, const std::string& path);
  // At most every 0.5 s (tty) or 10 s, and always when `final`.
  void Show(int64_t file_bytes, int64_t events, engine::TimeMicros now, bool final,
            const char* phase = "replaying");

 private:
  bool enabled_;
  bool tty_;
  int64_t file_size_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
};

}  // namespace replay
