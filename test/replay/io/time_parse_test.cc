// Tests for the RFC 3339 parser and formatter (replay/io/time_parse.h).
#include "replay/io/time_parse.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/replay/io/loader_test_support.h"

namespace replay {
namespace {

int64_t Micros(const std::string& text) {
  engine::StatusOr<int64_t> t = ParseRfc3339(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().message();
  return t.ok() ? *t : -1;
}

// What a parser with a fast path answers (`both`) is what its general path answers, value or
// error; and the fast path (`common`) answers only what the general path answers the same way.
// Counts the texts the fast path answered and those only the general path did.
struct FastPathTally {
  int fast = 0;
  int general_only = 0;
};
void CheckFastPath(const std::optional<int64_t>& common, const engine::StatusOr<int64_t>& general,
                   const engine::StatusOr<int64_t>& both, FastPathTally& tally) {
  ASSERT_EQ(both.ok(), general.ok());
  if (general.ok()) {
    ASSERT_EQ(*both, *general);
  } else {
    ASSERT_EQ(both.status().message(), general.status().message());
  }
  if (common.has_value()) {
    ASSERT_TRUE(general.ok());
    ASSERT_EQ(*common, *general);
    ++tally.fast;
  } else if (general.ok()) {
    ++tally.general_only;
  }
}

TEST(TimeParseTest, UtcAndFractions) {
  EXPECT_EQ(Micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Micros("2024-03-19T20:49:17Z"), 1710881357000000);
  EXPECT_EQ(Micros("2024-03-19T20:49:17.5Z"), 1710881357500000);
  EXPECT_EQ(Micros("2024-03-19T20:49:17.000001Z"), 1710881357000001);
  EXPECT_EQ(Micros("2024-03-19T20:49:17.123456789Z"), 1710881357123456);  // truncated
  EXPECT_EQ(Micros("2024-03-19t20:49:17z"), 1710881357000000);
}

TEST(TimeParseTest, Offsets) {
  EXPECT_EQ(Micros("2024-03-19T21:49:17+01:00"), 1710881357000000);
  EXPECT_EQ(Micros("2024-03-19T15:19:17.25-05:30"), 1710881357250000);
  EXPECT_EQ(Micros("2024-03-20T00:00:00+00:00"), Micros("2024-03-20T00:00:00Z"));
  EXPECT_EQ(Micros("2024-03-20T00:00:00-00:00"), Micros("2024-03-20T00:00:00Z"));
  // The offset crosses the day, the month and the year.
  EXPECT_EQ(Micros("2024-01-01T01:00:00+02:00"), Micros("2023-12-31T23:00:00Z"));
}

TEST(TimeParseTest, CalendarEdges) {
  EXPECT_EQ(Micros("2024-02-29T00:00:00Z"), 1709164800LL * 1000000);
  EXPECT_EQ(Micros("2000-02-29T00:00:00Z") + 86400LL * 1000000, Micros("2000-03-01T00:00:00Z"));
  EXPECT_EQ(Micros("1969-12-31T23:59:59Z"), -1000000);
  EXPECT_EQ(Micros("1969-12-31T23:59:59.5Z"), -500000);
  EXPECT_EQ(Micros("1600-03-01T00:00:00Z"), -11670912000LL * 1000000);
  EXPECT_EQ(Micros("9999-12-31T23:59:59Z"), 253402300799LL * 1000000);
  EXPECT_EQ(Micros("0001-01-01T00:00:00Z"), -62135596800LL * 1000000);
}

// The fast path (internal::ParseRfc3339Common) reads what the general parser reads, to the
// microsecond, and leaves everything else to it: random timestamps in and out of range, with 0 to
// 12 fraction digits, lower case, offsets, and one or two characters mutated.
TEST(TimeParseTest, FastPathAgreesWithTheGeneralParser) {
  std::mt19937_64 rng(20261205);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  // The NUL included (a plain literal stopped before it).
  const std::string noise("0123456789-:.TtZz+ xA\0", 22);
  FastPathTally tally;
  for (int i = 0; i < 200000; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", pick(0, 9999), pick(0, 13),
                  pick(0, 32), pick(0, 24), pick(0, 60), pick(0, 60));
    std::string text = buf;
    const int fraction = pick(-3, 12);  // below 1: none
    if (fraction > 0) {
      text += '.';
      for (int d = 0; d < fraction; ++d) {
        text += static_cast<char>('0' + pick(0, 9));
      }
    }
    switch (pick(0, 7)) {
      case 0:
        text += "+01:30";
        break;
      case 1:
        text += 'z';
        break;
      default:
        text += 'Z';
    }
    for (int m = pick(-6, 2); m > 0; --m) {  // mostly none
      text[static_cast<size_t>(pick(0, static_cast<int>(text.size()) - 1))] =
          noise[static_cast<size_t>(pick(0, static_cast<int>(noise.size()) - 1))];
    }
    if (pick(0, 20) == 0) {
      text.pop_back();
    }
    SCOPED_TRACE(text);
    const std::optional<int64_t> common = internal::ParseRfc3339Common(text);
    const engine::StatusOr<int64_t> general = internal::ParseRfc3339General(text);
    const engine::StatusOr<int64_t> both = ParseRfc3339(text);
    ASSERT_NO_FATAL_FAILURE(CheckFastPath(common, general, both, tally));
  }
  // Both kinds were met often: the comparison covered the fast path and what it declines.
  EXPECT_GT(tally.fast, 20000);
  EXPECT_GT(tally.general_only, 5000);
  EXPECT_EQ(internal::ParseRfc3339Common("2026-01-01T00:00:09.982462Z"),
            std::optional<int64_t>(Micros("2026-01-01T00:00:09.982462Z")));
}

// The duration fast path (internal::ParseGoDurationCommon) reads what the general loop reads and
// leaves everything else to it: random numbers of 0 to 12 digits, with and without a fraction, in
// every unit and none, one or two of them, and a character mutated now and then.
TEST(TimeParseTest, DurationFastPathAgreesWithTheGeneralLoop) {
  std::mt19937_64 rng(20261206);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<std::string> units = {"h", "m", "s", "ms", "us", "ns", "\u00b5s", "", "x"};
  const std::string noise = "0123456789.hmsun x";
  FastPathTally tally;
  for (int i = 0; i < 200000; ++i) {
    std::string text;
    for (int part = pick(-2, 1); part >= 0; --part) {  // mostly one number and unit, else two
      for (int d = pick(0, 12); d > 0; --d) {
        text += static_cast<char>('0' + pick(0, 9));
      }
      if (pick(0, 5) == 0) {
        text += '.';
        for (int d = pick(0, 3); d > 0; --d) {
          text += static_cast<char>('0' + pick(0, 9));
        }
      }
      text += units[static_cast<size_t>(pick(0, static_cast<int>(units.size()) - 1))];
    }
    if (!text.empty() && pick(0, 10) == 0) {
      text[static_cast<size_t>(pick(0, static_cast<int>(text.size()) - 1))] =
          noise[static_cast<size_t>(pick(0, static_cast<int>(noise.size()) - 1))];
    }
    SCOPED_TRACE(text);
    const std::optional<int64_t> common = internal::ParseGoDurationCommon(text);
    const engine::StatusOr<int64_t> general = internal::ParseGoDurationGeneral(text);
    const engine::StatusOr<int64_t> both = ParseGoDuration(text);
    ASSERT_NO_FATAL_FAILURE(CheckFastPath(common, general, both, tally));
  }
  // Both kinds were met often: the comparison covered the fast path and what it declines.
  EXPECT_GT(tally.fast, 10000);  // 15,798 with this seed
  EXPECT_GT(tally.general_only, 5000);
  // The generators' form, and the largest whole numbers on either side of the 9-digit bound.
  EXPECT_EQ(internal::ParseGoDurationCommon("65968ms"), std::optional<int64_t>(65968000));
  EXPECT_EQ(internal::ParseGoDurationCommon("999999999h"),
            std::optional<int64_t>(int64_t{999999999} * 3600000000));
  EXPECT_EQ(internal::ParseGoDurationCommon("1000000000h"), std::nullopt);
  EXPECT_EQ(*ParseGoDuration("1000000000h"), int64_t{1000000000} * 3600000000);
}

TEST(TimeParseTest, Errors) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"", "empty timestamp"},
      {"2024-03-19", "no time of day"},
      {"2024-03-19 20:49:17Z", "separated by 'T'"},
      {"2024-03-19T20:49:17", "no time zone"},
      {"2024-3-19T20:49:17Z", "YYYY-MM-DD"},
      {"24-03-19T20:49:17Z", "YYYY-MM-DD"},
      {"2024-03-19T20:49Z", "hh:mm:ss"},
      {"2024-13-01T00:00:00Z", "month out of range"},
      {"2024-00-01T00:00:00Z", "month out of range"},
      {"2023-02-29T00:00:00Z", "day out of range"},
      {"1900-02-29T00:00:00Z", "day out of range"},
      {"2024-04-31T00:00:00Z", "day out of range"},
      {"2024-03-00T00:00:00Z", "day out of range"},
      {"2024-03-19T24:00:00Z", "hour out of range"},
      {"2024-03-19T20:60:00Z", "minute out of range"},
      {"2024-03-19T20:49:60Z", "second out of range"},
      {"2024-03-19T20:49:17.Z", "no digits after the decimal point"},
      {"2024-03-19T20:49:17+0100", "+hh:mm"},
      {"2024-03-19T20:49:17+24:00", "offset out of range"},
      {"2024-03-19T20:49:17Q", "'Z' or an offset"},
      {"2024-03-19T20:49:17Z junk", "after the time zone"},
  };
  for (const Case& c : cases) {
    engine::StatusOr<int64_t> t = ParseRfc3339(c.text);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_TRUE(Contains(t.status().message(), c.why)) << c.text;
  }
}

TEST(TimeParseTest, FormatRoundTrips) {
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(1710881357000000), "2024-03-19T20:49:17Z");
  EXPECT_EQ(FormatRfc3339(1710881357250000), "2024-03-19T20:49:17.250000Z");
  EXPECT_EQ(FormatRfc3339(-500000), "1969-12-31T23:59:59.500000Z");
  for (const char* text : {"2024-02-29T12:34:56Z", "1999-12-31T23:59:59.999999Z",
                           "1960-06-15T08:00:00.000001Z", "2100-03-01T00:00:00Z"}) {
    EXPECT_EQ(FormatRfc3339(Micros(text)), text);
  }
}

// The digits are written by hand for years 0000-9999; outside that range the general path is
// taken, and both agree with the parser on random instants.
TEST(TimeParseTest, FormatAgreesWithParseOnRandomInstantsAndYearBounds) {
  std::mt19937_64 rng(42);
  const int64_t lo = Micros("0001-01-01T00:00:00Z");
  const int64_t hi = Micros("9999-12-31T23:59:59.999999Z");
  std::uniform_int_distribution<int64_t> any(lo, hi);
  for (int i = 0; i < 20000; ++i) {
    int64_t t = any(rng);
    if (i % 2 == 0) {
      t -= t % 1000000;  // whole seconds print no fraction
    }
    EXPECT_EQ(Micros(FormatRfc3339(t)), t) << FormatRfc3339(t);
  }
  EXPECT_EQ(FormatRfc3339(hi), "9999-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatRfc3339(hi + 1), "10000-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(Micros("0000-03-01T00:00:00Z")), "0000-03-01T00:00:00Z");
}

// Rfc3339Text keeps the date of its last call and rewrites only the time of day: over a walk
// that moves by steps from a microsecond to days, forwards and backwards, across midnights,
// before 1970 and past the year 9999, it prints what FormatRfc3339 prints.
TEST(TimeParseTest, CachedDateFormatterAgreesWithFormatRfc3339) {
  Rfc3339Text text;
  std::mt19937_64 rng(7);
  const int64_t day = int64_t{86'400} * 1'000'000;
  std::uniform_int_distribution<int64_t> step(-day / 2, 2 * day);
  std::uniform_int_distribution<int> pick(0, 9);
  int64_t t = Micros("2025-12-31T23:59:59.999000Z");
  const int64_t wide = Micros("9999-12-31T23:59:59.999999Z");
  for (int i = 0; i < 50000; ++i) {
    switch (pick(rng)) {
      case 0:
        t = -day + static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * day));  // around 1970
        break;
      case 1:
        t = wide - day + static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * day));
        break;
      case 2:
        t += 1;  // the next microsecond: midnight is crossed now and then
        break;
      case 3:
        t -= t % 1'000'000;  // a whole second: no fraction
        break;
      default:
        t += step(rng);
    }
    ASSERT_EQ(text.Format(t), FormatRfc3339(t)) << t;
  }
  EXPECT_EQ(text.Format(Micros("2024-03-19T23:59:59.999999Z")), "2024-03-19T23:59:59.999999Z");
  EXPECT_EQ(text.Format(Micros("2024-03-20T00:00:00Z")), "2024-03-20T00:00:00Z");
  EXPECT_EQ(text.Format(Micros("2024-03-19T00:00:00.000001Z")), "2024-03-19T00:00:00.000001Z");
  EXPECT_EQ(text.Format(-1), "1969-12-31T23:59:59.999999Z");
}

// Issue 23, finding 06: an exponent that scales past int64 is an error, never a wrap.
TEST(TimeParseTest, ExponentsBeyondInt64AreErrorsNotWraps) {
  EXPECT_EQ(ParseDecimalSeconds("1e12").value(), 1'000'000'000'000'000'000);
  EXPECT_EQ(ParseDecimalSeconds("9.2e12").value(), 9'200'000'000'000'000'000);
  for (const char* text : {"9.3e12", "1e13", "1e14", "1e18", "5.5e17", "100000000000000"}) {
    engine::StatusOr<int64_t> v = ParseDecimalSeconds(text);
    ASSERT_FALSE(v.ok()) << text << " = " << v.value();
    EXPECT_NE(v.status().message().find("is not a number of seconds"), std::string::npos) << text;
  }
  EXPECT_EQ(ParseDecimalSeconds("0e15").value(), 0);
  EXPECT_EQ(ParseDecimalSeconds("0.00e18").value(), 0);
  EXPECT_FALSE(ParseDecimalSeconds("0..0e15").ok());
  EXPECT_FALSE(ParseDecimalSeconds("e15").ok());
}

}  // namespace
}  // namespace replay
