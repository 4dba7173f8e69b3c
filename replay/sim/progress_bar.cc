// File: replay/sim/progress_bar.cc
#include "replay/sim/progress_bar.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "replay/io/time_parse.h"

namespace replay {

ProgressBar::ProgressBar(bool enabled, bool tty, const std::string& path)
    : enabled_(enabled), tty_(tty) {
  if (enabled_) {
    std::error_code ec;
    uintmax_t size = std::filesystem::file_size(path, ec);
    file_size_ = ec ? 0 : static_cast<int64_t>(size);
  }
}

void ProgressBar::Show(int64_t file_bytes, int64_t events, engine::TimeMicros now, bool final,
                       const char* phase) {
  if (!enabled_) {
    return;
  }
  auto wall = std::chrono::steady_clock::now();
  if (!final && wall - last_ < (tty_ ? std::chrono::milliseconds(500) : std::chrono::seconds(10))) {
    return;
  }
  last_ = wall;
  double seconds = std::chrono::duration<double>(wall - start_).count();
  double rate = seconds > 0 ? static_cast<double>(events) / seconds : 0;
  double fraction =
      file_size_ > 0 ? static_cast<double>(file_bytes) / static_cast<double>(file_size_) : 0;
  fraction = std::clamp(fraction, 0.0, 1.0);
  double eta = fraction > 0 ? seconds * (1 - fraction) / fraction : 0;
  if (!tty_) {
    std::fprintf(stderr,
                 "tally replay: %s %3.0f%%, %lld events, %.0f ev/s, ETA %.0fs, virtual %s\n",
                 final ? "done" : phase, fraction * 100, static_cast<long long>(events), rate,
                 final ? 0.0 : eta, FormatRfc3339(now).c_str());
    return;
  }
  constexpr int kWidth = 30;
  int filled = static_cast<int>(fraction * kWidth);
  std::fprintf(stderr, "\r%-9s [%-*s] %3.0f%%  %lld events  %.0f ev/s  ETA %.0fs  virtual %s ",
               final ? "done" : phase, kWidth,
               std::string(static_cast<size_t>(filled), '#').c_str(), fraction * 100,
               static_cast<long long>(events), rate, eta, FormatRfc3339(now).c_str());
  if (final) {
    std::fprintf(stderr, "\n");
  }
}

}  // namespace replay
