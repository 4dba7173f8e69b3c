// File: replay/report/explain_eta.cc
#include "replay/report/explain_eta.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "replay/io/time_parse.h"

namespace replay {
namespace {

constexpr size_t kListed = 10;  // workloads named per list; the total is given too

void NameList(JsonWriter& out, const std::vector<std::string>& names) {
  out.BeginArray();
  for (size_t i = 0; i < names.size() && i < kListed; ++i) {
    out.String(names[i]);
  }
  out.EndArray();
}

void TimeOrNull(JsonWriter& out, const std::optional<engine::TimeMicros>& t) {
  if (t) {
    out.String(FormatRfc3339(*t));
  } else {
    out.Null();
  }
}

std::string Listed(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < kListed; ++i) {
    s += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kListed) {
    s += fmt::format(" and {} more", names.size() - kListed);
  }
  return s;
}

std::string Source(const EtaPrediction& p, std::string_view runtimes_file) {
  return p.has_report ? fmt::format("hold times at p10 / p90 of {}", runtimes_file)
                      : std::string("annotations and maximumExecutionTimeSeconds only");
}

}  // namespace

bool EtaApplies(std::string_view code) {
  static constexpr std::array<std::string_view, 5> kApplies = {
      "WaitingForQuota", "WaitingForPreemption", "Fits", "WaitingForDevices",
      "AdmissionCheckRejected"};
  return std::find(kApplies.begin(), kApplies.end(), code) != kApplies.end();
}

void WriteEtaJson(const EtaAnswer& answer, JsonWriter& out) {
  if (!answer.prediction) {
    out.BeginObject();
    out.Key("predicted");
    out.Null();
    out.Key("reason");
    out.String(fmt::format("{}: releases of quota do not change it", answer.reason_code));
    out.EndObject();
    return;
  }
  const EtaPrediction& p = *answer.prediction;
  const std::string_view runtimes_file = answer.runtimes_file;
  const EtaRun& mid = p.mid;
  out.BeginObject();
  out.Key("admittedAhead");
  NameList(out, mid.admitted_ahead);
  out.Key("admittedAheadTotal");
  out.Int(static_cast<int64_t>(mid.admitted_ahead.size()));
  out.Key("earliest");
  TimeOrNull(out, p.earliest());
  out.Key("latest");
  TimeOrNull(out, p.latest());
  out.Key("predicted");
  TimeOrNull(out, mid.admitted_at);
  out.Key("predictedInSeconds");
  if (mid.admitted_at) {
    out.RoundedNumber(static_cast<double>(*mid.admitted_at - p.now) / 1e6);
  } else {
    out.Null();
  }
  if (!mid.admitted_at) {
    out.Key("reason");
    out.String(mid.not_admitted_because);
  }
  out.Key("releasedBefore");
  NameList(out, mid.released_before);
  out.Key("releasedBeforeTotal");
  out.Int(static_cast<int64_t>(mid.released_before.size()));
  out.Key("runtimes");
  out.String(p.has_report ? std::string(runtimes_file) : std::string());
  out.Key("unknownRuntimes");
  out.Int(mid.unknown_holds);
  out.EndObject();
}

std::string FormatEtaText(const EtaAnswer& answer) {
  if (!answer.prediction) {
    return fmt::format("ETA: none: releases of quota do not change {}\n", answer.reason_code);
  }
  const EtaPrediction& p = *answer.prediction;
  const std::string_view runtimes_file = answer.runtimes_file;
  const EtaRun& mid = p.mid;
  std::string s;
  if (mid.admitted_at) {
    s += fmt::format("ETA: admitted at {} (in {})", FormatRfc3339(*mid.admitted_at),
                     FormatDuration(*mid.admitted_at - p.now));
    if (p.earliest() && p.latest() && *p.earliest() != *p.latest()) {
      s += fmt::format(", between {} and {} ({})", FormatRfc3339(*p.earliest()),
                       FormatRfc3339(*p.latest()), Source(p, runtimes_file));
    } else if (!p.earliest() || !p.latest()) {
      s += fmt::format(" (not admitted within the horizon in every run: {})",
                       Source(p, runtimes_file));
    }
    s += "\n";
  } else {
    s += fmt::format("ETA: not predicted within 30 days: {}\n", mid.not_admitted_because);
  }
  if (!mid.released_before.empty()) {
    s += fmt::format("  after {} release{} in its cohort tree: {}\n", mid.released_before.size(),
                     mid.released_before.size() == 1 ? "" : "s", Listed(mid.released_before));
  }
  if (!mid.admitted_ahead.empty()) {
    s += fmt::format("  behind {} workload{} of its cohort tree admitted first: {}\n",
                     mid.admitted_ahead.size(), mid.admitted_ahead.size() == 1 ? "" : "s",
                     Listed(mid.admitted_ahead));
  }
  if (mid.unknown_holds > 0) {
    s += fmt::format(
        "  {} admitted workload{} with no known runtime {} for ever here: annotate "
        "tally.dev/expected-runtime, set maximumExecutionTimeSeconds or give --runtimes "
        "REPORT.json\n",
        mid.unknown_holds, mid.unknown_holds == 1 ? "" : "s",
        mid.unknown_holds == 1 ? "holds its quota" : "hold their quota");
  }
  return s;
}

}  // namespace replay
