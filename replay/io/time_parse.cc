#include "replay/io/time_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <optional>

namespace replay {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kSecondsPerDay = 86'400;

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm).
constexpr int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;                                    // [0, 399]
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + doe - 719468;
}

struct Civil {
  int64_t year;
  int64_t month;
  int64_t day;
};

// The inverse of DaysFromCivil.
constexpr Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  return Civil{yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

static_assert(DaysFromCivil(1970, 1, 1) == 0);
static_assert(DaysFromCivil(2000, 3, 1) == 11017);
static_assert(CivilFromDays(11017).year == 2000 && CivilFromDays(11017).month == 3);

constexpr bool IsLeap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

constexpr int DaysInMonth(int64_t y, int64_t m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Reads exactly `n` digits at `pos`; advances `pos`.
bool Digits(std::string_view s, size_t& pos, int n, int64_t& out) {
  if (pos + n > s.size()) {
    return false;
  }
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (!IsDigit(c)) {
      return false;
    }
    v = v * 10 + (c - '0');
  }
  pos += n;
  out = v;
  return true;
}

bool Expect(std::string_view s, size_t& pos, char c) {
  if (pos < s.size() && s[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

engine::Status Bad(std::string_view text, std::string_view why) {
  return engine::InvalidArgument(fmt::format(
      "timestamp \"{}\" is not RFC 3339 ({}; want e.g. \"2024-03-19T20:49:17Z\")", text, why));
}

}  // namespace

namespace {

// The digits of text[from, from + n) as a number, or -1 when one of them is not a digit. Not
// Digits(): the caller has checked the length once, and Digits' bounds check and cursor per field
// took back 1.5 M of the fast path's 3.6 M instructions saved (callgrind, moderate 50k).
constexpr int64_t FixedDigits(std::string_view text, size_t from, size_t n) {
  int64_t v = 0;
  for (size_t i = from; i < from + n; ++i) {
    const auto d = static_cast<unsigned>(text[i] - '0');
    if (d > 9) {
      return -1;
    }
    v = v * 10 + d;
  }
  return v;
}

}  // namespace

std::optional<int64_t> internal::ParseRfc3339Common(std::string_view text) {
  // "YYYY-MM-DDThh:mm:ssZ" or "YYYY-MM-DDThh:mm:ss.f...Z" (1 to 9 fraction digits), upper case.
  const size_t n = text.size();
  if ((n != 20 && (n < 22 || n > 30)) || text[4] != '-' || text[7] != '-' || text[10] != 'T'
      || text[13] != ':' || text[16] != ':' || text[n - 1] != 'Z' || (n != 20 && text[19] != '.')) {
    return std::nullopt;
  }
  const int64_t year = FixedDigits(text, 0, 4);
  const int64_t month = FixedDigits(text, 5, 2);
  const int64_t day = FixedDigits(text, 8, 2);
  const int64_t hour = FixedDigits(text, 11, 2);
  const int64_t minute = FixedDigits(text, 14, 2);
  const int64_t second = FixedDigits(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0
      || minute > 59 || second < 0 || second > 59 || day > DaysInMonth(year, month)) {
    return std::nullopt;  // the general parser names what is wrong
  }
  int64_t fraction_micros = 0;
  if (n != 20) {
    const size_t digits = n - 21;  // between the '.' and the 'Z'
    const int64_t used = FixedDigits(text, 20, std::min<size_t>(digits, 6));
    if (used < 0 || (digits > 6 && FixedDigits(text, 26, digits - 6) < 0)) {
      return std::nullopt;
    }
    fraction_micros = used;
    for (size_t i = digits; i < 6; ++i) {
      fraction_micros *= 10;
    }
  }
  const int64_t seconds =
      DaysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600 + minute * 60 + second;
  return seconds * kMicrosPerSecond + fraction_micros;
}

engine::StatusOr<int64_t> ParseRfc3339(std::string_view text) {
  // The layout every trace tally writes and most exporters use, read by position (a third of
  // the general parser's instructions: about 377 a trace line's time before).
  if (const std::optional<int64_t> common = internal::ParseRfc3339Common(text)) {
    return *common;
  }
  return internal::ParseRfc3339General(text);
}

engine::StatusOr<int64_t> internal::ParseRfc3339General(std::string_view text) {
  if (text.empty()) {
    return engine::InvalidArgument("empty timestamp (want e.g. \"2024-03-19T20:49:17Z\")");
  }
  size_t pos = 0;
  int64_t year = 0;
  int64_t month = 0;
  int64_t day = 0;
  int64_t hour = 0;
  int64_t minute = 0;
  int64_t second = 0;
  if (!Digits(text, pos, 4, year) || !Expect(text, pos, '-') || !Digits(text, pos, 2, month)
      || !Expect(text, pos, '-') || !Digits(text, pos, 2, day)) {
    return Bad(text, "the date must be YYYY-MM-DD");
  }
  if (pos == text.size()) {
    return Bad(text, "no time of day");
  }
  if (text[pos] != 'T' && text[pos] != 't') {
    return Bad(text, "date and time must be separated by 'T'");
  }
  ++pos;
  if (!Digits(text, pos, 2, hour) || !Expect(text, pos, ':') || !Digits(text, pos, 2, minute)
      || !Expect(text, pos, ':') || !Digits(text, pos, 2, second)) {
    return Bad(text, "the time must be hh:mm:ss");
  }
  int64_t fraction_micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && IsDigit(text[pos])) {
      if (digits < 6) {
        fraction_micros = fraction_micros * 10 + (text[pos] - '0');
      }
      ++digits;
      ++pos;
    }
    if (digits == 0) {
      return Bad(text, "no digits after the decimal point");
    }
    for (int i = digits; i < 6; ++i) {
      fraction_micros *= 10;
    }
  }
  if (pos == text.size()) {
    return Bad(text, "no time zone: add 'Z' or an offset such as +02:00");
  }
  int64_t offset_seconds = 0;
  const char zone = text[pos++];
  if (zone == '+' || zone == '-') {
    int64_t oh = 0;
    int64_t om = 0;
    if (!Digits(text, pos, 2, oh) || !Expect(text, pos, ':') || !Digits(text, pos, 2, om)) {
      return Bad(text, "the offset must be +hh:mm or -hh:mm");
    }
    if (oh > 23 || om > 59) {
      return Bad(text, "offset out of range");
    }
    offset_seconds = (oh * 3600 + om * 60) * (zone == '-' ? -1 : 1);
  } else if (zone != 'Z' && zone != 'z') {
    return Bad(text, "the time zone must be 'Z' or an offset such as +02:00");
  }
  if (pos != text.size()) {
    return Bad(text, "unexpected text after the time zone");
  }
  if (month < 1 || month > 12) {
    return Bad(text, "month out of range");
  }
  if (day < 1 || day > DaysInMonth(year, month)) {
    return Bad(text, "day out of range");
  }
  if (hour > 23) {
    return Bad(text, "hour out of range");
  }
  if (minute > 59) {
    return Bad(text, "minute out of range");
  }
  if (second > 59) {
    return Bad(text, "second out of range");
  }
  const int64_t seconds = DaysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600
                          + minute * 60 + second - offset_seconds;
  return seconds * kMicrosPerSecond + fraction_micros;
}

namespace {

// An instant as a civil date, the second of its day and the microseconds of its second (floored,
// so that times before 1970 split the same way).
struct Instant {
  Civil date;
  int64_t second_of_day;
  int64_t fraction;
};

Instant SplitMicros(int64_t micros) {
  int64_t seconds = micros / kMicrosPerSecond;
  int64_t fraction = micros % kMicrosPerSecond;
  if (fraction < 0) {
    fraction += kMicrosPerSecond;
    --seconds;
  }
  int64_t days = seconds / kSecondsPerDay;
  int64_t in_day = seconds % kSecondsPerDay;
  if (in_day < 0) {
    in_day += kSecondsPerDay;
    --days;
  }
  return Instant{CivilFromDays(days), in_day, fraction};
}

}  // namespace

namespace {

// `value`'s last `width` decimal digits at out[at...]: digits written directly, no format string
// (every decision line carries a time).
void PutDigits(char* out, size_t at, int64_t value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[at + static_cast<size_t>(i)] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

// "00" to "99": two digits a copy. Every decision line's time is formatted (Rfc3339Text), and
// digit by digit it was 1.5 % of the moderate trace's instructions (issue 22).
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (size_t i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// `value` (0 to 99) as two digits at out[at], out[at + 1].
void PutPair(char* out, size_t at, uint32_t value) {
  std::memcpy(out + at, &kDigitPairs[2 * static_cast<size_t>(value)], 2);
}

// "hh:mm:ss[.ffffff]Z" at out[11...] (after "YYYY-MM-DDT"); returns the whole text's length.
// `second_of_day` is below 86,400 and `fraction` below 1,000,000.
size_t PutTimeOfDay(char* out, int64_t second_of_day, int64_t fraction, bool always_fraction) {
  const auto seconds = static_cast<uint32_t>(second_of_day);
  PutPair(out, 11, seconds / 3600);
  out[13] = ':';
  PutPair(out, 14, seconds / 60 % 60);
  out[16] = ':';
  PutPair(out, 17, seconds % 60);
  size_t size = 19;
  if (fraction != 0 || always_fraction) {
    const auto micros = static_cast<uint32_t>(fraction);
    out[size++] = '.';
    PutPair(out, size, micros / 10000);
    PutPair(out, size + 2, micros / 100 % 100);
    PutPair(out, size + 4, micros % 100);
    size += 6;
  }
  out[size++] = 'Z';
  out[size] = '\0';
  return size;
}

}  // namespace

size_t WriteRfc3339(int64_t micros, bool always_fraction, char (&out)[32]) {
  const Instant t = SplitMicros(micros);
  const Civil& c = t.date;
  if (c.year < 0 || c.year > 9999) {
    return 0;
  }
  PutDigits(out, 0, c.year, 4);
  out[4] = '-';
  PutDigits(out, 5, c.month, 2);
  out[7] = '-';
  PutDigits(out, 8, c.day, 2);
  out[10] = 'T';
  return PutTimeOfDay(out, t.second_of_day, t.fraction, always_fraction);
}

std::string_view Rfc3339Text::Format(int64_t micros) {
  constexpr int64_t kMicrosPerDay = kSecondsPerDay * kMicrosPerSecond;
  if (day_start_ != kNoDay && micros >= day_start_ && micros - day_start_ < kMicrosPerDay) {
    const int64_t in_day_micros = micros - day_start_;
    size_ = PutTimeOfDay(text_, in_day_micros / kMicrosPerSecond, in_day_micros % kMicrosPerSecond,
                         false);
    return {text_, size_};
  }
  size_ = WriteRfc3339(micros, false, text_);
  if (size_ == 0) {
    day_start_ = kNoDay;
    wide_ = FormatRfc3339(micros);
    return wide_;
  }
  // Floored to the day, as SplitMicros splits it (times before 1970 included).
  int64_t days = micros / kMicrosPerDay;
  if (micros % kMicrosPerDay < 0) {
    --days;
  }
  day_start_ = days * kMicrosPerDay;
  return {text_, size_};
}

std::string FormatRfc3339(int64_t micros) {
  char text[32];
  if (const size_t size = WriteRfc3339(micros, false, text); size > 0) {
    return std::string(text, size);
  }
  const Instant t = SplitMicros(micros);
  const Civil& c = t.date;
  const int64_t in_day = t.second_of_day;
  const int64_t fraction = t.fraction;
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", c.year, c.month, c.day,
                                in_day / 3600, in_day / 60 % 60, in_day % 60);
  if (fraction != 0) {
    out += fmt::format(".{:06}", fraction);
  }
  out += "Z";
  return out;
}

namespace {

// Parses "<digits>[.<digits>]" at `pos` into micro-units of `unit_micros` per unit (the
// fraction is truncated below a microsecond). Returns false on no digits or overflow.
bool ScaledDecimal(std::string_view s, size_t& pos, int64_t unit_micros, int64_t& out) {
  size_t start = pos;
  __int128 whole = 0;
  while (pos < s.size() && IsDigit(s[pos])) {
    whole = whole * 10 + (s[pos] - '0');
    if (whole > INT64_MAX) {
      return false;
    }
    ++pos;
  }
  bool any = pos > start;
  __int128 value = whole * unit_micros;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    __int128 scale = unit_micros;
    __int128 numerator = 0;
    __int128 denominator = 1;
    while (pos < s.size() && IsDigit(s[pos])) {
      any = true;
      if (denominator < 1'000'000'000'000'000'000LL) {
        numerator = numerator * 10 + (s[pos] - '0');
        denominator *= 10;
      }
      ++pos;
    }
    value += numerator * scale / denominator;
  }
  if (!any || value > INT64_MAX) {
    return false;
  }
  out = static_cast<int64_t>(value);
  return true;
}

}  // namespace

namespace internal {

std::optional<int64_t> ParseGoDurationCommon(std::string_view text) {
  // At most 9 digits: 999,999,999 h is 3.6e18 us, inside int64, so no overflow check.
  constexpr size_t kMaxDigits = 9;
  size_t digits = 0;
  int64_t whole = 0;
  while (digits < text.size() && digits <= kMaxDigits && IsDigit(text[digits])) {
    whole = whole * 10 + (text[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits > kMaxDigits) {
    return std::nullopt;
  }
  const std::string_view unit = text.substr(digits);
  int64_t unit_micros = 0;
  if (unit == "ms") {
    unit_micros = 1'000;
  } else if (unit == "s") {
    unit_micros = 1'000'000;
  } else if (unit == "m") {
    unit_micros = 60'000'000;
  } else if (unit == "h") {
    unit_micros = 3'600'000'000;
  } else if (unit == "us") {
    unit_micros = 1;
  } else {
    return std::nullopt;  // no unit, ns, µs, a fraction, several numbers: the general loop
  }
  return whole * unit_micros;
}

}  // namespace internal

engine::StatusOr<int64_t> ParseGoDuration(std::string_view text) {
  // Every runtime of a generated or imported trace ("65968ms") in one pass: the general loop
  // below took 368 instructions for it (callgrind, the issue-22 moderate trace: 0.9 % of the
  // replay's).
  if (std::optional<int64_t> micros = internal::ParseGoDurationCommon(text)) {
    return *micros;
  }
  return internal::ParseGoDurationGeneral(text);
}

engine::StatusOr<int64_t> internal::ParseGoDurationGeneral(std::string_view text) {
  if (text == "0") {
    return int64_t{0};
  }
  if (text.empty()) {
    return engine::InvalidArgument("empty duration");
  }
  size_t pos = 0;
  __int128 total = 0;
  while (pos < text.size()) {
    int64_t per_unit = 0;
    size_t number_start = pos;
    // Parse the number in nanosecond-free form first: find the unit, then scale.
    size_t unit_start = pos;
    while (unit_start < text.size() && (IsDigit(text[unit_start]) || text[unit_start] == '.')) {
      ++unit_start;
    }
    size_t unit_end = unit_start;
    while (unit_end < text.size() && !IsDigit(text[unit_end]) && text[unit_end] != '.') {
      ++unit_end;
    }
    std::string_view unit = text.substr(unit_start, unit_end - unit_start);
    int64_t unit_micros = 0;
    bool nanos = false;
    if (unit == "h") {
      unit_micros = 3'600'000'000LL;
    } else if (unit == "m") {
      unit_micros = 60'000'000LL;
    } else if (unit == "s") {
      unit_micros = 1'000'000LL;
    } else if (unit == "ms") {
      unit_micros = 1'000LL;
    } else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") {
      unit_micros = 1;
    } else if (unit == "ns") {
      unit_micros = 1;
      nanos = true;
    } else {
      return engine::InvalidArgument(
          unit.empty() ? fmt::format("duration \"{}\" has a number without a unit", text)
                       : fmt::format("duration \"{}\" has an unknown unit \"{}\"", text, unit));
    }
    std::string_view number = text.substr(number_start, unit_start - number_start);
    size_t npos = 0;
    if (!ScaledDecimal(number, npos, unit_micros, per_unit) || npos != number.size()) {
      return engine::InvalidArgument(fmt::format("duration \"{}\" is not valid", text));
    }
    total += nanos ? per_unit / 1000 : per_unit;
    if (total > INT64_MAX) {
      return engine::InvalidArgument(fmt::format("duration \"{}\" is too large", text));
    }
    pos = unit_end;
  }
  return static_cast<int64_t>(total);
}

engine::StatusOr<int64_t> ParseDecimalSeconds(std::string_view text) {
  size_t pos = 0;
  int64_t out = 0;
  if (!text.empty() && text[0] == '-') {
    return engine::InvalidArgument(fmt::format("\"{}\" is negative", text));
  }
  // Exponent notation (1.7e9) is valid JSON: accept it through the exact integer path when it
  // yields a whole number of microseconds, else reject rather than round.
  size_t e = text.find_first_of("eE");
  if (e != std::string_view::npos) {
    std::string_view mantissa = text.substr(0, e);
    std::string_view exponent_text = text.substr(e + 1);
    int exponent = 0;
    auto [p, ec] = std::from_chars(exponent_text.data(),
                                   exponent_text.data() + exponent_text.size(), exponent);
    if (ec != std::errc() || p != exponent_text.data() + exponent_text.size() || exponent > 18
        || exponent < -6) {
      return engine::InvalidArgument(fmt::format("\"{}\" is not a number of seconds", text));
    }
    // 10^6 x 10^exponent fits in int64 up to exponent 12; above, every non-zero mantissa is at
    // least 10^19 microseconds, more than int64 holds (checked, never wrapped: issue 23).
    if (exponent > 12) {
      const bool digits = mantissa.find_first_of("0123456789") != std::string_view::npos;
      if (digits && mantissa.find_first_not_of("0.") == std::string_view::npos
          && std::count(mantissa.begin(), mantissa.end(), '.') <= 1) {
        return 0;
      }
      return engine::InvalidArgument(fmt::format("\"{}\" is not a number of seconds", text));
    }
    int64_t scale = 1'000'000;
    int64_t divide = 1;
    for (int i = 0; i < exponent; ++i) {
      scale *= 10;
    }
    for (int i = 0; i > exponent; --i) {
      divide *= 10;
    }
    if (!ScaledDecimal(mantissa, pos, scale, out) || pos != mantissa.size()) {
      return engine::InvalidArgument(fmt::format("\"{}\" is not a number of seconds", text));
    }
    return out / divide;
  }
  if (!ScaledDecimal(text, pos, 1'000'000, out) || pos != text.size()) {
    return engine::InvalidArgument(fmt::format("\"{}\" is not a number of seconds", text));
  }
  return out;
}

std::string FormatDuration(int64_t micros) {
  if (micros == 0) {
    return "0s";
  }
  std::string out;
  int64_t hours = micros / 3'600'000'000LL;
  micros %= 3'600'000'000LL;
  int64_t minutes = micros / 60'000'000LL;
  micros %= 60'000'000LL;
  if (hours > 0) {
    out += fmt::format("{}h", hours);
  }
  if (minutes > 0) {
    out += fmt::format("{}m", minutes);
  }
  if (micros > 0) {
    int64_t seconds = micros / 1'000'000;
    int64_t fraction = micros % 1'000'000;
    if (fraction == 0) {
      out += fmt::format("{}s", seconds);
    } else {
      std::string f = fmt::format("{:06d}", fraction);
      while (f.back() == '0') {
        f.pop_back();
      }
      out += fmt::format("{}.{}s", seconds, f);
    }
  }
  return out;
}

}  // namespace replay
