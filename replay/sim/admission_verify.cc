#include "replay/sim/admission_verify.h"

#include <fmt/format.h>

#include <map>

#include <simdjson.h>

#include "replay/io/input_file.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

struct Admission {
  int64_t micros = 0;
  std::string cluster_queue;
  std::string flavors;  // "podset: resource=flavor, ..." in name order
};

using AdmissionsByWorkload = std::map<std::string, std::vector<Admission>>;

std::string_view Str(simdjson::dom::element e, std::string_view key) {
  std::string_view v;
  if (e[key].get_string().get(v) != simdjson::SUCCESS) {
    return {};
  }
  return v;
}

std::string FlavorsOf(simdjson::dom::element line) {
  std::map<std::string, std::map<std::string, std::string>> by_pod_set;
  simdjson::dom::array pod_sets;
  if (line["podSets"].get_array().get(pod_sets) == simdjson::SUCCESS) {
    for (simdjson::dom::element ps : pod_sets) {
      auto& flavors = by_pod_set[std::string(Str(ps, "name"))];
      simdjson::dom::object f;
      if (ps["flavors"].get_object().get(f) == simdjson::SUCCESS) {
        for (auto [resource, flavor] : f) {
          std::string_view name;
          if (flavor.get_string().get(name) == simdjson::SUCCESS) {
            flavors[std::string(resource)] = std::string(name);
          }
        }
      }
    }
  }
  std::string out;
  for (const auto& [pod_set, flavors] : by_pod_set) {
    out += fmt::format("{}{}:", out.empty() ? "" : "; ", pod_set);
    for (const auto& [resource, flavor] : flavors) {
      out += fmt::format(" {}={}", resource, flavor);
    }
  }
  return out;
}

// Reads the admissions of a JSON-lines file. `decisions`: tally's decisions.jsonl, where a
// reservation is QuotaReserved, or Admitted not preceded by its QuotaReserved.
engine::StatusOr<AdmissionsByWorkload> ReadAdmissions(const std::string& path, bool decisions,
                                                      int64_t& count) {
  engine::StatusOr<std::string> text = ReadPlainOrGzip(path);
  if (!text.ok()) {
    return text.status();
  }
  AdmissionsByWorkload out;
  std::map<std::string, std::string, std::less<>> last_type;
  simdjson::dom::parser parser;
  std::string_view rest = *text;
  int64_t line_number = 0;
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      continue;
    }
    simdjson::dom::element e;
    if (const auto error = parser.parse(line.data(), line.size(), true).get(e)) {
      return engine::InvalidArgument(
          fmt::format("{}:{}: not JSON ({})", path, line_number, simdjson::error_message(error)));
    }
    const std::string_view type = Str(e, "type");
    const std::string workload(Str(e, "workload"));
    if (workload.empty()) {
      return engine::InvalidArgument(fmt::format("{}:{}: workload: missing", path, line_number));
    }
    if (!decisions && type != "Admitted") {
      // A recorded file (tally import audit's admissions.jsonl, docs/import.md) holds only
      // admissions: any other record is a damaged line, not one to skip without a word.
      return engine::InvalidArgument(fmt::format(
          "{}:{}: type: \"{}\" is not \"Admitted\" (a recorded admissions file holds only "
          "Admitted records)",
          path, line_number, type));
    }
    bool reservation = type == "Admitted";
    if (decisions) {
      std::string& last = last_type[workload];
      reservation = type == "QuotaReserved" || (type == "Admitted" && last != "QuotaReserved");
      last = std::string(type);
    }
    if (!reservation) {
      continue;
    }
    engine::StatusOr<int64_t> micros = ParseRfc3339(Str(e, "time"));
    if (!micros.ok()) {
      return engine::InvalidArgument(
          fmt::format("{}:{}: time: {}", path, line_number, micros.status().message()));
    }
    out[workload].push_back(Admission{*micros, std::string(Str(e, "clusterQueue")), FlavorsOf(e)});
    ++count;
  }
  return out;
}

}  // namespace

engine::StatusOr<AdmissionVerification> VerifyAdmissions(const std::string& recorded_path,
                                                         const std::string& decisions_path) {
  AdmissionVerification v;
  engine::StatusOr<AdmissionsByWorkload> recorded =
      ReadAdmissions(recorded_path, false, v.recorded);
  if (!recorded.ok()) {
    return recorded.status();
  }
  engine::StatusOr<AdmissionsByWorkload> replayed =
      ReadAdmissions(decisions_path, true, v.replayed);
  if (!replayed.ok()) {
    return replayed.status();
  }
  std::map<std::string, int> workloads;
  for (const auto& [w, a] : *recorded) {
    workloads[w] = 0;
  }
  for (const auto& [w, a] : *replayed) {
    workloads[w] = 0;
  }
  const std::vector<Admission> none;
  for (const auto& [w, unused] : workloads) {
    auto r = recorded->find(w);
    auto t = replayed->find(w);
    const std::vector<Admission>& log = r == recorded->end() ? none : r->second;
    const std::vector<Admission>& tally = t == replayed->end() ? none : t->second;
    for (size_t i = 0; i < std::max(log.size(), tally.size()); ++i) {
      const std::string nth = fmt::format("admission {}", i + 1);
      if (i >= tally.size()) {
        v.differences.push_back(fmt::format("{}: {}: recorded at {} in {}, not made by tally", w,
                                            nth, FormatRfc3339(log[i].micros),
                                            log[i].cluster_queue));
        continue;
      }
      if (i >= log.size()) {
        v.differences.push_back(fmt::format("{}: {}: made by tally at {} in {}, not recorded", w,
                                            nth, FormatRfc3339(tally[i].micros),
                                            tally[i].cluster_queue));
        continue;
      }
      std::vector<std::string> what;
      if (log[i].micros != tally[i].micros) {
        const int64_t delta = tally[i].micros - log[i].micros;
        what.push_back(fmt::format("time: recorded {}, tally {} ({}{})",
                                   FormatRfc3339(log[i].micros), FormatRfc3339(tally[i].micros),
                                   delta > 0 ? "+" : "-",
                                   FormatDuration(delta > 0 ? delta : -delta)));
      }
      if (log[i].cluster_queue != tally[i].cluster_queue) {
        what.push_back(fmt::format("ClusterQueue: recorded {}, tally {}", log[i].cluster_queue,
                                   tally[i].cluster_queue));
      }
      if (log[i].flavors != tally[i].flavors) {
        what.push_back(
            fmt::format("flavors: recorded [{}], tally [{}]", log[i].flavors, tally[i].flavors));
      }
      if (what.empty()) {
        ++v.matched;
        continue;
      }
      std::string line = fmt::format("{}: {}:", w, nth);
      for (const std::string& part : what) {
        line += fmt::format(" {};", part);
      }
      line.pop_back();
      v.differences.push_back(std::move(line));
    }
  }
  return v;
}

std::string FormatVerification(const AdmissionVerification& v) {
  std::string out = fmt::format(
      "verify: {} admissions recorded, {} made by tally, {} identical, {} differences\n",
      v.recorded, v.replayed, v.matched, v.differences.size());
  for (const std::string& d : v.differences) {
    out += fmt::format("  {}\n", d);
  }
  return out;
}

}  // namespace replay
