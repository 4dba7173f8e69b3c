// Reading `tally replay` outputs back. report.json is small (a few hundred KB at most) and read
// whole with simdjson's DOM, which allows looking keys up in any order; decisions.jsonl is streamed
// in 4 MiB blocks, one On-Demand parse per line into the blocks' own (padded) buffer.
#include "replay/report/replay_outputs.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <simdjson.h>

#include "replay/io/content_digest.h"
#include "replay/io/json_field_reader.h"
#include "replay/io/time_parse.h"
#include "replay/report/report_writers.h"
#include "replay/report/run_id_check.h"

namespace replay {
namespace {

constexpr size_t kBlockSize = size_t{4} << 20;  // decisions.jsonl read size

WaitFigures ReadWaits(JsonFieldReader& r, simdjson::dom::element e, std::string_view path) {
  WaitFigures w;
  w.count = r.Int(e, "count", fmt::format("{}.count", path));
  w.max = r.Num(e, "max", fmt::format("{}.max", path));
  w.mean = r.Num(e, "mean", fmt::format("{}.mean", path));
  w.p50 = r.Num(e, "p50", fmt::format("{}.p50", path));
  w.p90 = r.Num(e, "p90", fmt::format("{}.p90", path));
  w.p99 = r.Num(e, "p99", fmt::format("{}.p99", path));
  return w;
}

std::vector<NamedWaitFigures> ReadNamedWaits(JsonFieldReader& r, simdjson::dom::element tta,
                                             std::string_view key) {
  std::vector<NamedWaitFigures> out;
  const std::string path = fmt::format("timeToAdmission.{}", key);
  simdjson::dom::array groups = r.Array(tta, key, path);
  if (r.failed()) {
    return out;
  }
  for (simdjson::dom::element g : groups) {
    NamedWaitFigures n;
    n.name = r.Str(g, "name", path + "[].name");
    n.stats = ReadWaits(r, g, path + "[]");
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

engine::StatusOr<ReportFigures> ParseReportFigures(std::string_view json, std::string_view name) {
  VersionedJson parsed;
  if (engine::Status st =
          ParseVersionedJson(json, name, kReportSchemaVersion, "docs/report.md", parsed);
      !st.ok()) {
    return st;
  }
  const simdjson::dom::element doc = parsed.doc;
  if (bool complete = true; doc["complete"].get(complete) == simdjson::SUCCESS && !complete) {
    return engine::InvalidArgument(
        fmt::format("{}: the replay was interrupted (\"complete\": false): its figures cover "
                    "only part of the trace and are not compared",
                    name));
  }
  JsonFieldReader r(name);
  ReportFigures f;
  if (std::string_view run_id; doc["runId"].get(run_id) == simdjson::SUCCESS) {
    f.run_id = std::string(run_id);
  }
  simdjson::dom::element model = r.Get(doc, "model", "model");
  f.mode = r.Str(model, "mode", "model.mode");
  simdjson::dom::element input = r.Get(doc, "input", "input");
  f.events_file = r.Str(input, "eventsFile", "input.eventsFile");
  simdjson::dom::element time = r.Get(doc, "time", "time");
  f.start = r.Str(time, "start", "time.start");
  f.duration_seconds = r.Num(time, "durationSeconds", "time.durationSeconds");

  simdjson::dom::element o = r.Get(doc, "outcomes", "outcomes");
  f.admissions = r.Int(o, "admissions", "outcomes.admissions");
  f.preemptions = r.Int(o, "preemptions", "outcomes.preemptions");
  f.finished = r.Int(o, "finished", "outcomes.finished");
  f.pending_at_end = r.Int(o, "pendingAtEnd", "outcomes.pendingAtEnd");
  f.running_at_end = r.Int(o, "runningAtEnd", "outcomes.runningAtEnd");
  f.deleted = r.Int(o, "deleted", "outcomes.deleted");
  f.deactivated = r.Int(o, "deactivated", "outcomes.deactivated");
  f.workloads_created = r.Int(o, "workloadsCreated", "outcomes.workloadsCreated");
  f.workloads_admitted = r.Int(o, "workloadsAdmitted", "outcomes.workloadsAdmitted");
  if (!r.failed()) {
    simdjson::dom::object by_reason;
    if (o["evictionsByReason"].get_object().get(by_reason) != simdjson::SUCCESS) {
      r.Fail("outcomes.evictionsByReason", "missing or not an object");
    } else {
      for (auto [key, value] : by_reason) {
        int64_t n = 0;
        if (value.get_int64().get(n) != simdjson::SUCCESS) {
          r.Fail("outcomes.evictionsByReason", "not an integer");
        }
        f.evictions += n;
      }
    }
  }

  simdjson::dom::element fallbacks;
  if (!r.failed() && o["fallbacks"].get(fallbacks) == simdjson::SUCCESS) {
    simdjson::dom::element start;
    if (fallbacks["timeToStart"].get(start) == simdjson::SUCCESS) {
      f.has_time_to_start = true;
      f.time_to_start = ReadWaits(r, start, "outcomes.fallbacks.timeToStart");
    }
  }

  simdjson::dom::element tta = r.Get(doc, "timeToAdmission", "timeToAdmission");
  if (!r.failed()) {
    f.overall =
        ReadWaits(r, r.Get(tta, "overall", "timeToAdmission.overall"), "timeToAdmission.overall");
  }
  if (!r.failed()) {
    f.by_cluster_queue = ReadNamedWaits(r, tta, "byClusterQueue");
  }
  if (!r.failed()) {
    f.by_class = ReadNamedWaits(r, tta, "byClass");
  }
  simdjson::dom::array usage = r.Array(doc, "usage", "usage");
  if (!r.failed()) {
    for (simdjson::dom::element u : usage) {
      UsageFigures uf;
      uf.cluster_queue = r.Str(u, "clusterQueue", "usage[].clusterQueue");
      uf.flavor = r.Str(u, "flavor", "usage[].flavor");
      uf.resource = r.Str(u, "resource", "usage[].resource");
      uf.nominal = r.Int(u, "nominal", "usage[].nominal");
      uf.utilisation = r.Num(u, "utilisation", "usage[].utilisation");
      f.usage.push_back(std::move(uf));
    }
  }
  simdjson::dom::array cqs = r.Array(doc, "clusterQueues", "clusterQueues");
  if (!r.failed()) {
    for (simdjson::dom::element c : cqs) {
      ClusterQueueFigures cf;
      cf.name = r.Str(c, "name", "clusterQueues[].name");
      cf.admitted = r.Int(c, "admitted", "clusterQueues[].admitted");
      cf.pending_at_end = r.Int(c, "pendingAtEnd", "clusterQueues[].pendingAtEnd");
      cf.preempted = r.Int(c, "preempted", "clusterQueues[].preempted");
      cf.running_at_end = r.Int(c, "runningAtEnd", "clusterQueues[].runningAtEnd");
      f.cluster_queues.push_back(std::move(cf));
    }
  }
  if (r.failed()) {
    return engine::InvalidArgument(r.error());
  }
  return f;
}

engine::StatusOr<ReportFigures> LoadReportFigures(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return engine::NotFound(
        fmt::format("{}: cannot open: {}", path, std::generic_category().message(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseReportFigures(text.str(), path);
}

const char* ToString(WorkloadFate fate) {
  switch (fate) {
    case WorkloadFate::kPending:
      return "pending";
    case WorkloadFate::kAdmitted:
      return "admitted";
    case WorkloadFate::kFinished:
      return "finished";
    case WorkloadFate::kDeleted:
      return "deleted";
    case WorkloadFate::kDeactivated:
      return "deactivated";
  }
  return "?";
}

std::string FateText(const WorkloadSummary& w) {
  if (w.preemptions == 0) {
    return ToString(w.fate);
  }
  return fmt::format("{}, preempted {}x", ToString(w.fate), w.preemptions);
}

namespace {

enum class LineType : uint8_t {
  kOther,
  kAdmitted,
  kQuotaReserved,
  kPreempted,
  kRequeued,
  kDeactivated,
  kFinished,
  kDeleted,
};

LineType ParseLineType(std::string_view t) {
  if (t == "Admitted") {
    return LineType::kAdmitted;
  }
  if (t == "QuotaReserved") {
    return LineType::kQuotaReserved;
  }
  if (t == "Preempted") {
    return LineType::kPreempted;
  }
  if (t == "Requeued") {
    return LineType::kRequeued;
  }
  if (t == "Deactivated") {
    return LineType::kDeactivated;
  }
  if (t == "Finished") {
    return LineType::kFinished;
  }
  if (t == "Deleted") {
    return LineType::kDeleted;
  }
  return LineType::kOther;  // Evicted, and types a later tally may add
}

uint32_t Intern(std::unordered_map<std::string, uint32_t>& index, std::vector<std::string>& names,
                std::string_view name) {
  auto it = index.find(std::string(name));
  if (it != index.end()) {
    return it->second;
  }
  auto id = static_cast<uint32_t>(names.size());
  names.emplace_back(name);
  index.emplace(std::string(name), id);
  return id;
}

// The pod sets' flavors as DecisionSummary::flavor_sets describes; false on malformed input.
bool FlavorText(simdjson::ondemand::array sets, std::string& out) {
  out.clear();
  std::string one;
  std::string single_flavor;
  bool all_same = true;
  bool first_flavor = true;
  int n_sets = 0;
  std::string per_set;
  for (auto set_result : sets) {
    simdjson::ondemand::object set;
    if (set_result.get_object().get(set) != simdjson::SUCCESS) {
      return false;
    }
    std::string set_name;
    one.clear();
    for (auto field_result : set) {
      simdjson::ondemand::field field;
      std::string_view key;
      if (std::move(field_result).get(field) != simdjson::SUCCESS
          || field.unescaped_key().get(key) != simdjson::SUCCESS) {
        return false;
      }
      if (key == "name") {
        std::string_view v;
        if (field.value().get_string().get(v) != simdjson::SUCCESS) {
          return false;
        }
        set_name = v;
      } else if (key == "flavors") {
        simdjson::ondemand::object flavors;
        if (field.value().get_object().get(flavors) != simdjson::SUCCESS) {
          return false;
        }
        for (auto fr : flavors) {
          simdjson::ondemand::field f;
          std::string_view resource;
          std::string_view flavor;
          if (std::move(fr).get(f) != simdjson::SUCCESS
              || f.unescaped_key().get(resource) != simdjson::SUCCESS
              || f.value().get_string().get(flavor) != simdjson::SUCCESS) {
            return false;
          }
          if (first_flavor) {
            single_flavor = flavor;
            first_flavor = false;
          } else if (flavor != single_flavor) {
            all_same = false;
          }
          if (!one.empty()) {
            one += ',';
          }
          one += resource;
          one += '=';
          one += flavor;
        }
      }
    }
    if (n_sets > 0) {
      per_set += ' ';
    }
    per_set += set_name;
    per_set += ':';
    per_set += one;
    ++n_sets;
    if (n_sets == 1) {
      out = one;
    }
  }
  if (all_same) {
    out = single_flavor;
  } else if (n_sets > 1) {
    out = per_set;
  }
  return true;
}

class DecisionParser {
 public:
  explicit DecisionParser(DecisionSummary& out) : out_(out) {}

  // `line` lies in a buffer readable SIMDJSON_PADDING bytes past its end.
  engine::Status Line(std::string_view line, int64_t line_number, const std::string& path) {
    simdjson::padded_string_view view(line.data(), line.size(),
                                      line.size() + simdjson::SIMDJSON_PADDING);
    simdjson::ondemand::document doc;
    simdjson::ondemand::object obj;
    auto fail = [&](std::string_view what) {
      return engine::InvalidArgument(fmt::format("{}:{}: {}", path, line_number, what));
    };
    if (parser_.iterate(view).get(doc) != simdjson::SUCCESS
        || doc.get_object().get(obj) != simdjson::SUCCESS) {
      return fail("not a JSON object");
    }
    LineType type = LineType::kOther;
    bool have_type = false;
    bool have_workload = false;
    std::string_view pod_sets;  // raw JSON, parsed only for a first admission
    std::string_view time;
    std::string_view cluster_queue;
    for (auto field_result : obj) {
      simdjson::ondemand::field field;
      std::string_view key;
      if (std::move(field_result).get(field) != simdjson::SUCCESS
          || field.unescaped_key().get(key) != simdjson::SUCCESS) {
        return fail("malformed JSON");
      }
      if (key == "type") {
        std::string_view t;
        if (field.value().get_string().get(t) != simdjson::SUCCESS) {
          return fail("type: expected a string");
        }
        type = ParseLineType(t);
        have_type = true;
      } else if (key == "workload") {
        std::string_view w;
        if (field.value().get_string().get(w) != simdjson::SUCCESS) {
          return fail("workload: expected a string");
        }
        workload_.assign(w);
        have_workload = true;
      } else if (key == "time") {
        if (field.value().get_string().get(time) != simdjson::SUCCESS) {
          return fail("time: expected a string");
        }
      } else if (key == "clusterQueue") {
        if (field.value().get_string().get(cluster_queue) != simdjson::SUCCESS) {
          return fail("clusterQueue: expected a string");
        }
      } else if (key == "podSets") {
        simdjson::ondemand::array sets;
        if (field.value().get_array().get(sets) != simdjson::SUCCESS
            || sets.raw_json().get(pod_sets) != simdjson::SUCCESS) {
          return fail("podSets: expected an array");
        }
      }
    }
    if (!have_type || !have_workload) {
      return fail(have_type ? "workload: missing" : "type: missing");
    }
    if (type == LineType::kOther) {
      return engine::Status::Ok();
    }
    WorkloadSummary& w = out_.workloads[workload_];
    switch (type) {
      case LineType::kAdmitted: {
        ++out_.admitted_lines;
        w.fate = WorkloadFate::kAdmitted;
        if (w.first_admitted == kNeverAdmitted) {
          engine::StatusOr<int64_t> t = ParseRfc3339(time);
          if (!t.ok()) {
            return fail(fmt::format("time: {}", t.status().message()));
          }
          w.first_admitted = *t;
          if (!pod_sets.empty()) {
            // `pod_sets` lies inside `line`, which is followed by SIMDJSON_PADDING bytes.
            simdjson::padded_string_view sets_view(pod_sets.data(), pod_sets.size(),
                                                   pod_sets.size() + simdjson::SIMDJSON_PADDING);
            simdjson::ondemand::document sets_doc;
            simdjson::ondemand::array sets;
            if (pod_sets_parser_.iterate(sets_view).get(sets_doc) != simdjson::SUCCESS
                || sets_doc.get_array().get(sets) != simdjson::SUCCESS
                || !FlavorText(sets, flavors_)) {
              return fail("podSets: malformed");
            }
            w.flavors = Intern(flavor_index_, out_.flavor_sets, flavors_);
          }
          w.cluster_queue = Intern(cq_index_, out_.cluster_queues, cluster_queue);
        }
        break;
      }
      case LineType::kQuotaReserved:
        w.fate = WorkloadFate::kAdmitted;
        break;
      case LineType::kPreempted:
        if (w.preemptions != std::numeric_limits<uint16_t>::max()) {
          ++w.preemptions;
        }
        break;
      case LineType::kRequeued:
        w.fate = WorkloadFate::kPending;
        break;
      case LineType::kDeactivated:
        w.fate = WorkloadFate::kDeactivated;
        break;
      case LineType::kFinished:
        w.fate = WorkloadFate::kFinished;
        break;
      case LineType::kDeleted:
        w.fate = WorkloadFate::kDeleted;
        break;
      case LineType::kOther:
        break;
    }
    return engine::Status::Ok();
  }

 private:
  DecisionSummary& out_;
  simdjson::ondemand::parser parser_;
  simdjson::ondemand::parser pod_sets_parser_;  // a line's podSets, while parser_'s line is live
  std::string workload_;                        // scratch, reused
  std::string flavors_;                         // scratch, reused
  std::unordered_map<std::string, uint32_t> flavor_index_;
  std::unordered_map<std::string, uint32_t> cq_index_;
};

}  // namespace

engine::StatusOr<DecisionSummary> LoadDecisionSummary(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return engine::NotFound(fmt::format(
        "{}: cannot open: {}", path, std::generic_category().message(errno != 0 ? errno : ENOENT)));
  }
  gzbuffer(file, 1 << 20);
  DecisionSummary out;
  DecisionParser parser(out);
  ContentDigest digest;
  // buffer_[0, filled) holds unparsed bytes; SIMDJSON_PADDING spare bytes always follow.
  std::string buffer(kBlockSize + simdjson::SIMDJSON_PADDING, '\0');
  size_t filled = 0;
  int64_t line_number = 0;
  bool eof = false;
  engine::Status status;
  while (status.ok() && (!eof || filled > 0)) {
    if (!eof) {
      if (buffer.size() - filled < kBlockSize / 2 + simdjson::SIMDJSON_PADDING) {
        buffer.resize(buffer.size() * 2);  // a line longer than the free space
      }
      int room = static_cast<int>(buffer.size() - filled - simdjson::SIMDJSON_PADDING);
      int n = gzread(file, buffer.data() + filled, static_cast<unsigned>(room));
      if (n < 0) {
        int errnum = 0;
        status = engine::InvalidArgument(fmt::format("{}: {}", path, gzerror(file, &errnum)));
        break;
      }
      digest.Update(std::string_view(buffer.data() + filled, static_cast<size_t>(n)));
      filled += static_cast<size_t>(n);
      eof = n == 0;
    }
    std::string_view data(buffer.data(), filled);
    size_t begin = 0;
    while (status.ok()) {
      size_t end = data.find('\n', begin);
      if (end == std::string_view::npos) {
        if (!eof) {
          break;  // incomplete last line: read more
        }
        end = data.size();
      }
      std::string_view line = data.substr(begin, end - begin);
      ++line_number;
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
        ++out.lines;
        status = parser.Line(line, line_number, path);
      }
      begin = std::min(end + 1, data.size());
      if (begin == data.size()) {
        break;
      }
    }
    if (eof) {
      filled = 0;
    } else {
      std::memmove(buffer.data(), buffer.data() + begin, filled - begin);
      filled -= begin;
    }
  }
  gzclose(file);
  if (!status.ok()) {
    return status;
  }
  out.digest = digest.Hex();
  return out;
}

engine::StatusOr<ReplayOutputs> LoadReplayOutputs(const std::string& dir, bool with_decisions) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return engine::NotFound(
        fmt::format("{}: not a directory (expected the --out directory of tally replay)", dir));
  }
  ReplayOutputs out;
  out.dir = dir;
  const std::string report = (fs::path(dir) / "report.json").string();
  if (!fs::exists(report, ec)) {
    return engine::NotFound(
        fmt::format("{}: no such file (is {} a tally replay output?)", report, dir));
  }
  engine::StatusOr<ReportFigures> figures = LoadReportFigures(report);
  if (!figures.ok()) {
    return figures.status();
  }
  out.report = std::move(figures).value();
  std::string decisions = (fs::path(dir) / "decisions.jsonl").string();
  if (!fs::exists(decisions, ec) && fs::exists(decisions + ".gz", ec)) {
    decisions += ".gz";
  }
  const bool have_decisions = fs::exists(decisions, ec);
  std::optional<std::string> decisions_digest;
  if (with_decisions) {
    if (!have_decisions) {
      return engine::NotFound(fmt::format("{}: no such file", decisions));
    }
    engine::StatusOr<DecisionSummary> d = LoadDecisionSummary(decisions);
    if (!d.ok()) {
      return d.status();
    }
    out.decisions = std::move(d).value();
    decisions_digest = out.decisions.digest;
  }
  if (engine::Status s = CheckRunIdsAgree(dir, out.report.run_id, decisions_digest); !s.ok()) {
    return s;
  }
  return out;
}

}  // namespace replay
