// File: replay/io/time_parse.h
//
// RFC 3339 timestamps as Kubernetes writes them (metav1.Time, metav1.MicroTime), converted to
// microseconds since the Unix epoch (the engine's TimeMicros):
//
//   ParseRfc3339("2024-03-19T20:49:17Z")              // 1710881357000000
//   ParseRfc3339("2024-03-19T21:49:17.25+01:00")      // 1710881357250000
//
// Accepted: `YYYY-MM-DD` `T` `hh:mm:ss`, optional fraction `.d+` (digits beyond microseconds are
// truncated), then `Z` or `+hh:mm` / `-hh:mm`. `t` and `z` are accepted as RFC 3339 allows. Fields
// are range-checked (month 1-12, day within the month with leap years, hour 0-23, minute and
// second 0-59 — Go's time.Parse, which Kubernetes uses, rejects a leap second 60). Everything
// else ("2024-03-19 20:49:17Z", a missing offset, a bare date) is an error naming the problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace replay {

engine::StatusOr<int64_t> ParseRfc3339(std::string_view text);

namespace internal {
// ParseRfc3339's fast path: text in the layout YYYY-MM-DDThh:mm:ss[.d{1,9}]Z (upper case, in
// range) as ParseRfc3339 reads it; nullopt for any other text, valid or not, which the general
// parser then reads. Exposed for the test that compares the two.
std::optional<int64_t> ParseRfc3339Common(std::string_view text);
// ParseRfc3339 without the fast path: every layout RFC 3339 allows, and the errors.
engine::StatusOr<int64_t> ParseRfc3339General(std::string_view text);
}  // namespace internal

// The inverse, for messages and round trips: "2024-03-19T20:49:17Z", with a 6-digit fraction
// only when the value has one ("...:17.250000Z").
std::string FormatRfc3339(int64_t micros);
// The same into a buffer, without allocating: "YYYY-MM-DDThh:mm:ss[.ffffff]Z", the fraction
// always when `always_fraction` (the generators' fixed 27 characters), else only when non-zero.
// Returns the length, or 0 when the year is outside 0000-9999 (FormatRfc3339 handles those).
size_t WriteRfc3339(int64_t micros, bool always_fraction, char (&out)[32]);

// FormatRfc3339's text for a clock that moves forward a little at a time (a replay's decision
// lines): the date of the last call is kept, and a time on the same day only rewrites
// "hh:mm:ss[.ffffff]Z". The civil-date arithmetic was a third of a line's time formatting on the
// issue-22 moderate trace, whose every arrival and finish is an instant of its own.
class Rfc3339Text {
 public:
  // The view is valid until the next call.
  std::string_view Format(int64_t micros);

 private:
  static constexpr int64_t kNoDay = INT64_MIN;
  int64_t day_start_ = kNoDay;  // the first microsecond of the cached date's day
  char text_[32] = {};          // "YYYY-MM-DDT" kept; the rest rewritten per call
  size_t size_ = 0;
  std::string wide_;  // a year outside 0000-9999 (FormatRfc3339's fmt path)
};

// A Go duration string (time.ParseDuration) in microseconds: a sequence of decimal numbers with
// optional fraction and a unit each — "300ms", "1.5h", "2h45m", "10us" (also "µs"), "0". Units:
// ns (rounded down to microseconds), us, ms, s, m, h. No sign (durations here are never
// negative); overflow is an error.
engine::StatusOr<int64_t> ParseGoDuration(std::string_view text);

namespace internal {
// ParseGoDuration's fast path: a whole number of at most 9 digits and one unit of h, m, s, ms or
// us ("65968ms", the generators' and importers' form), as ParseGoDuration reads it; nullopt for
// any other text, valid or not, which the general loop then reads. Exposed for the test that
// compares the two.
std::optional<int64_t> ParseGoDurationCommon(std::string_view text);
// ParseGoDuration without the fast path: every form, and the errors.
engine::StatusOr<int64_t> ParseGoDurationGeneral(std::string_view text);
}  // namespace internal

// Seconds as a number (events' `time` and durations): exact to the microsecond for the decimal
// text ("1767603601.25"), so that no floating-point rounding reaches the virtual clock.
engine::StatusOr<int64_t> ParseDecimalSeconds(std::string_view text);

// "1h2m3.5s" style, the inverse of ParseGoDuration for messages and reports ("0s" for 0).
std::string FormatDuration(int64_t micros);

}  // namespace replay
