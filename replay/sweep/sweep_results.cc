// sweep.json and the comparison table of `tally sweep` / `tally merge` (docs/sweep.md).
#include "replay/sweep/sweep_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <simdjson.h>

#include "replay/io/json_field_reader.h"
#include "replay/io/json_writer.h"
#include "replay/report/report_writers.h"
#include "replay/sweep/gate.h"

namespace replay {
namespace {

using internal::FormatSecondsShort;

void StringList(JsonWriter& w, const std::vector<std::string>& items) {
  w.BeginArray();
  for (const std::string& s : items) {
    w.String(s);
  }
  w.EndArray();
}

void StringMap(JsonWriter& w, const std::map<std::string, std::string>& items) {
  w.BeginObject();
  for (const auto& [k, v] : items) {
    w.Key(k);
    w.String(v);
  }
  w.EndObject();
}

void WaitsJson(JsonWriter& w, const WaitFigures& f) {
  w.BeginObject();
  w.Key("count");
  w.Int(f.count);
  w.Key("max");
  w.RoundedNumber(f.max);
  w.Key("mean");
  w.RoundedNumber(f.mean);
  w.Key("p50");
  w.RoundedNumber(f.p50);
  w.Key("p90");
  w.RoundedNumber(f.p90);
  w.Key("p99");
  w.RoundedNumber(f.p99);
  w.EndObject();
}

std::string Percent(double fraction) {
  return std::isfinite(fraction) ? fmt::format("{:.1f}%", fraction * 100) : "-";
}

}  // namespace

const char* ToString(VariantStatus status) {
  switch (status) {
    case VariantStatus::kOk:
      return "ok";
    case VariantStatus::kFailed:
      return "failed";
    case VariantStatus::kOtherShard:
      return "otherShard";
  }
  return "?";
}

std::string SweepRecord::Mode() const {
  auto it = settings.find("control-plane");
  return it != settings.end() && it->second == "true" ? "control-plane" : "policy-only";
}

std::string FormatSweepJson(const SweepRecord& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("events");
  w.String(r.events);
  w.Key("fingerprint");
  w.String(r.fingerprint);
  w.Key("fingerprints");
  StringMap(w, r.part_fingerprints);
  w.Key("manifests");
  StringList(w, r.manifests);
  w.Key("mergedFrom");
  StringList(w, r.merged_from);
  w.Key("overlays");
  StringList(w, r.overlays);
  w.Key("schemaVersion");
  w.Int(kSweepSchemaVersion);
  w.Key("sets");
  StringList(w, r.sets);
  w.Key("settings");
  StringMap(w, r.settings);
  w.Key("shard");
  w.BeginObject();
  w.Key("count");
  w.Int(r.shard.count);
  w.Key("index");
  w.Int(r.shard.index);
  w.EndObject();
  w.Key("variants");
  w.BeginArray();
  for (const SweepVariantRecord& v : r.variants) {
    w.BeginObject();
    if (v.status == VariantStatus::kFailed) {
      w.Key("exitCode");
      w.Int(v.exit_code);
    }
    w.Key("id");
    w.String(v.id);
    w.Key("index");
    w.Int(v.index);
    w.Key("label");
    w.String(v.label);
    w.Key("overlay");
    w.String(v.overlay);
    w.Key("sets");
    StringList(w, v.sets);
    w.Key("status");
    w.String(ToString(v.status));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take() + "\n";
}

engine::StatusOr<SweepRecord> ParseSweepJson(std::string_view json, std::string_view name) {
  VersionedJson parsed;
  if (engine::Status st =
          ParseVersionedJson(json, name, kSweepSchemaVersion, "docs/sweep.md", parsed);
      !st.ok()) {
    return st;
  }
  const simdjson::dom::element doc = parsed.doc;
  JsonFieldReader r(name);
  SweepRecord rec;
  rec.events = r.Str(doc, "events", "events");
  rec.fingerprint = r.Str(doc, "fingerprint", "fingerprint");
  rec.part_fingerprints = r.StringMap(doc, "fingerprints", "fingerprints");
  rec.manifests = r.Strings(doc, "manifests", "manifests");
  rec.merged_from = r.Strings(doc, "mergedFrom", "mergedFrom");
  rec.overlays = r.Strings(doc, "overlays", "overlays");
  rec.sets = r.Strings(doc, "sets", "sets");
  rec.settings = r.StringMap(doc, "settings", "settings");
  simdjson::dom::element shard = r.Get(doc, "shard", "shard");
  rec.shard.count = static_cast<int>(r.Int(shard, "count", "shard.count"));
  rec.shard.index = static_cast<int>(r.Int(shard, "index", "shard.index"));
  simdjson::dom::array variants;
  if (!r.failed() && doc["variants"].get_array().get(variants) != simdjson::SUCCESS) {
    r.Fail("variants", "missing or not an array");
  }
  if (!r.failed()) {
    for (simdjson::dom::element e : variants) {
      const std::string path = fmt::format("variants[{}]", rec.variants.size());
      SweepVariantRecord v;
      v.id = r.Str(e, "id", path + ".id");
      v.index = static_cast<int>(r.Int(e, "index", path + ".index"));
      v.label = r.Str(e, "label", path + ".label");
      v.overlay = r.Str(e, "overlay", path + ".overlay");
      v.sets = r.Strings(e, "sets", path + ".sets");
      const std::string status = r.Str(e, "status", path + ".status");
      if (status == "ok") {
        v.status = VariantStatus::kOk;
      } else if (status == "failed") {
        v.status = VariantStatus::kFailed;
        v.exit_code = static_cast<int>(r.Int(e, "exitCode", path + ".exitCode"));
      } else if (status == "otherShard") {
        v.status = VariantStatus::kOtherShard;
      } else if (!r.failed()) {
        r.Fail(path + ".status", fmt::format("unknown status \"{}\"", status));
      }
      rec.variants.push_back(std::move(v));
    }
  }
  if (!r.failed()
      && (rec.shard.count < 1 || rec.shard.index < 0 || rec.shard.index >= rec.shard.count)) {
    r.Fail("shard", fmt::format("{} is not a slice", rec.shard.ToString()));
  }
  if (r.failed()) {
    return engine::InvalidArgument(r.error());
  }
  return rec;
}

engine::StatusOr<SweepRecord> LoadSweepRecord(const std::string& dir) {
  const std::filesystem::path path = std::filesystem::path(dir) / "sweep.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return engine::NotFound(
        fmt::format("{}: not a tally sweep output directory (no sweep.json)", dir));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseSweepJson(text.str(), path.string());
}

engine::StatusOr<SweepRow> LoadSweepRow(const std::string& dir, const SweepVariantRecord& v) {
  SweepRow row;
  row.variant = v;
  if (v.status != VariantStatus::kOk) {
    return row;
  }
  const std::string report =
      (std::filesystem::path(dir) / "variants" / v.id / "report.json").string();
  engine::StatusOr<ReportFigures> figures = LoadReportFigures(report);
  if (!figures.ok()) {
    return figures.status();
  }
  row.figures = std::move(figures).value();
  engine::StatusOr<double> u = GateMetricValue(row.figures, GateMetric::kUtilisation, "");
  row.utilisation = u.ok() ? *u : 0.0;
  return row;
}

std::string FormatSweepTable(const SweepRecord& r, const std::vector<SweepRow>& rows) {
  const size_t total = r.variants.size();
  std::string out;
  if (r.shard.count == 1) {
    out = fmt::format("tally sweep: {} variants, trace {}, {}\n", total, r.events, r.Mode());
  } else {
    out = fmt::format("tally sweep: slice {} ({} of {} variants), trace {}, {}\n",
                      r.shard.ToString(), rows.size(), total, r.events, r.Mode());
  }
  // A --set variant is shown by its values, in flag order; the flags are listed below.
  std::vector<std::string> set_names;
  for (const std::string& spec : r.sets) {
    engine::StatusOr<SetFlag> f = ParseSetFlag(spec);
    set_names.push_back(f.ok() ? fmt::format("{}/{}:{}", f->kind, f->name, f->path) : spec);
  }
  auto what = [&set_names](const SweepVariantRecord& v) {
    if (v.sets.empty() || v.sets.size() != set_names.size()) {
      return v.label;
    }
    std::string values;
    for (size_t i = 0; i < v.sets.size(); ++i) {
      const std::string prefix = set_names[i] + "=";
      values += i == 0 ? "" : ", ";
      values += v.sets[i].starts_with(prefix) ? v.sets[i].substr(prefix.size()) : v.sets[i];
    }
    return values;
  };
  size_t width = 7;
  for (const SweepRow& row : rows) {
    width = std::max(width, row.variant.id.size());
  }
  out += fmt::format("{:<{}} {:>10} {:>11} {:>7}  {:>7} {:>7} {:>7} {:>7}  {:>11}  {}\n", "variant",
                     width, "admissions", "preemptions", "pending", "mean", "p50", "p90", "p99",
                     "utilisation", "what");
  for (const SweepRow& row : rows) {
    if (row.variant.status != VariantStatus::kOk) {
      out += fmt::format("{:<{}} FAILED (tally replay exit status {})  {}\n", row.variant.id, width,
                         row.variant.exit_code, what(row.variant));
      continue;
    }
    const ReportFigures& f = row.figures;
    out += fmt::format("{:<{}} {:>10} {:>11} {:>7}  {:>7} {:>7} {:>7} {:>7}  {:>11}  {}\n",
                       row.variant.id, width, f.admissions, f.preemptions, f.pending_at_end,
                       FormatSecondsShort(f.overall.mean), FormatSecondsShort(f.overall.p50),
                       FormatSecondsShort(f.overall.p90), FormatSecondsShort(f.overall.p99),
                       Percent(row.utilisation), what(row.variant));
  }
  if (!set_names.empty()) {
    out += "\nset-NNNN values, in this order:\n";
    for (const std::string& name : set_names) {
      out += fmt::format("  {}\n", name);
    }
  }
  return out;
}

std::string FormatSweepTableJson(const SweepRecord& r, const std::vector<SweepRow>& rows) {
  JsonWriter w;
  w.BeginObject();
  w.Key("events");
  w.String(r.events);
  w.Key("mode");
  w.String(r.Mode());
  w.Key("shard");
  w.String(r.shard.ToString());
  w.Key("variants");
  w.BeginArray();
  for (const SweepRow& row : rows) {
    const SweepVariantRecord& v = row.variant;
    const ReportFigures& f = row.figures;
    const bool ok = v.status == VariantStatus::kOk;
    w.BeginObject();
    if (ok) {
      w.Key("admissions");
      w.Int(f.admissions);
    } else {
      w.Key("exitCode");
      w.Int(v.exit_code);
    }
    w.Key("id");
    w.String(v.id);
    w.Key("index");
    w.Int(v.index);
    w.Key("label");
    w.String(v.label);
    w.Key("overlay");
    w.String(v.overlay);
    if (ok) {
      w.Key("pendingAtEnd");
      w.Int(f.pending_at_end);
      w.Key("preemptions");
      w.Int(f.preemptions);
    }
    w.Key("sets");
    StringList(w, v.sets);
    w.Key("status");
    w.String(ToString(v.status));
    if (ok) {
      w.Key("timeToAdmission");
      WaitsJson(w, f.overall);
      w.Key("utilisation");
      w.RoundedNumber(row.utilisation);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("variantsTotal");
  w.Int(static_cast<int64_t>(r.variants.size()));
  w.EndObject();
  return w.Take() + "\n";
}

}  // namespace replay
