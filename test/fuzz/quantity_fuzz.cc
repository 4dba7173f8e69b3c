// File: test/fuzz/quantity_fuzz.cc
//
// The number parsers: Kubernetes quantities (decimal, canonical request and quota amounts),
// RFC 3339 times (the fixed-layout fast path checked against the general parser), Go durations
// (the whole-number fast path likewise), decimal seconds and the importers' whole numbers. Beyond
// "no crash, no sanitizer report": every value that parses prints back to text that parses to the
// same value (the reports and messages print what the engine computed from these).
#include <cstdint>
#include <optional>
#include <string>

#include "engine/quantity.h"
#include "replay/import/import_common.h"
#include "replay/io/time_parse.h"
#include "test/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = tally_fuzz::AsText(data, size);

  (void)engine::ParseDecimalQuantity(text);
  for (const bool milli : {false, true}) {
    const std::string_view resource = milli ? "cpu" : "memory";
    if (engine::StatusOr<engine::Quantity> q = engine::ParseCanonicalQuantity(text, milli);
        q.ok()) {
      const std::string printed = engine::FormatQuantity(*q, resource);
      engine::StatusOr<engine::Quantity> again = engine::ParseCanonicalQuantity(printed, milli);
      FUZZ_CHECK(again.ok() && *again == *q);
    }
    if (engine::StatusOr<engine::Quantity> q = engine::ParseQuotaQuantity(text, milli); q.ok()) {
      (void)engine::FormatAmount(*q, resource);
    }
  }

  if (engine::StatusOr<int64_t> t = replay::ParseRfc3339(text); t.ok()) {
    engine::StatusOr<int64_t> again = replay::ParseRfc3339(replay::FormatRfc3339(*t));
    FUZZ_CHECK(again.ok() && *again == *t);
  }
  // The fixed-layout fast path answers only what the general parser answers the same way.
  if (const std::optional<int64_t> fast = replay::internal::ParseRfc3339Common(text)) {
    const engine::StatusOr<int64_t> general = replay::internal::ParseRfc3339General(text);
    FUZZ_CHECK(general.ok() && *general == *fast);
  }
  // The duration fast path likewise.
  if (const std::optional<int64_t> fast = replay::internal::ParseGoDurationCommon(text)) {
    const engine::StatusOr<int64_t> general = replay::internal::ParseGoDurationGeneral(text);
    FUZZ_CHECK(general.ok() && *general == *fast);
  }
  if (engine::StatusOr<int64_t> d = replay::ParseGoDuration(text); d.ok()) {
    FUZZ_CHECK(*d >= 0);
    engine::StatusOr<int64_t> again = replay::ParseGoDuration(replay::FormatDuration(*d));
    FUZZ_CHECK(again.ok() && *again == *d);
  }
  (void)replay::ParseDecimalSeconds(text);
  if (int64_t n = 0; replay::ParseWholeNumber(text, n)) {
    int64_t again = 0;
    FUZZ_CHECK(replay::ParseWholeNumber(std::to_string(n), again) && again == n);
  }
  return 0;
}
