#include "replay/import/audit_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <simdjson.h>

#include "engine/base/check.h"
#include "replay/io/json_writer.h"
#include "replay/io/line_reader.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

// The resources tally follows. Everything else is skipped unread.
enum class Followed { kWorkload, kConfig, kNamespace };

std::optional<Followed> Classify(std::string_view group, std::string_view resource) {
  if (group == "kueue.x-k8s.io") {
    if (resource == "workloads") {
      return Followed::kWorkload;
    }
    if (resource == "clusterqueues" || resource == "cohorts" || resource == "localqueues"
        || resource == "resourceflavors" || resource == "workloadpriorityclasses") {
      return Followed::kConfig;
    }
    return std::nullopt;
  }
  if (group.empty() && resource == "namespaces") {
    return Followed::kNamespace;
  }
  return std::nullopt;
}

// The kind of a followed resource, for objects without one (a Request-level create's body always
// has it; this covers hand-made logs).
std::string_view KindOf(std::string_view resource) {
  constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
      {"workloads", "Workload"},
      {"clusterqueues", "ClusterQueue"},
      {"cohorts", "Cohort"},
      {"localqueues", "LocalQueue"},
      {"resourceflavors", "ResourceFlavor"},
      {"workloadpriorityclasses", "WorkloadPriorityClass"},
      {"namespaces", "Namespace"}};
  for (const auto& [plural, kind] : kKinds) {
    if (plural == resource) {
      return kind;
    }
  }
  return {};
}

// One audit line kept for the second pass.
struct AuditRecord {
  int64_t micros = 0;
  size_t file = 0;
  int64_t line = 0;
  std::string verb;
  std::string resource;
  Followed followed = Followed::kConfig;
  bool status_subresource = false;
  std::string namespace_name;
  std::string name;
  std::string object;       // minified JSON; empty for a delete
  std::string api_version;  // objectRef's group/version, for objects without apiVersion
};

std::string_view Str(simdjson::dom::element e, std::string_view key) {
  std::string_view v;
  if (e[key].get_string().get(v) != simdjson::SUCCESS) {
    return {};
  }
  return v;
}

bool IsObject(simdjson::dom::element e, std::string_view key, simdjson::dom::element& out) {
  return e[key].get(out) == simdjson::SUCCESS && out.is_object();
}

// An object of a followed kind: it has metadata (a delete's Status or a patch body without
// metadata does not qualify; a missing name is reported as such, later).
bool IsFullObject(simdjson::dom::element o) {
  simdjson::dom::element meta;
  return IsObject(o, "metadata", meta) && Str(o, "kind") != "Status";
}

// Reads all lines of one file into `records`, counting every line.
void ReadAuditFile(const std::string& path, size_t file_index, std::vector<AuditRecord>& records,
                   ImportCounts& counts, std::unordered_set<std::string>& audit_ids,
                   int64_t& missing_api_version, std::vector<std::string>& notes,
                   size_t max_line_bytes) {
  // Streamed: memory holds one line (at most max_line_bytes) and the records kept, whatever the
  // size of the log (robustness finding 19: a gzip bomb was read into one string).
  LineReader reader(max_line_bytes);
  if (engine::Status s = reader.Open(path); !s.ok()) {
    counts.Skip("unreadable file", std::string(s.message()));
    notes.push_back(std::string(s.message()));
    return;
  }
  simdjson::dom::parser parser;
  LineReader::Line next;
  bool have_next = reader.Next(next);
  std::string line_copy;  // the current line: the reader reads one ahead (for the last-line hint)
  while (have_next) {
    const LineReader::Line current = next;
    if (!current.too_long && current.text.find_first_not_of(" \t\r") == std::string_view::npos) {
      have_next = reader.Next(next);
      continue;
    }
    const int64_t line_number = current.number;
    ++counts.read;
    auto skip = [&](const char* reason, std::string_view message) {
      counts.Skip(reason, fmt::format("{}:{}: {}", path, line_number, message));
    };
    if (current.too_long) {
      skip("line too long",
           fmt::format("line longer than {} bytes, skipped (--max-line-bytes)", max_line_bytes));
      have_next = reader.Next(next);
      continue;
    }
    line_copy.assign(current.text);
    have_next = reader.Next(next);
    const std::string_view line = line_copy;
    simdjson::dom::element ev;
    if (const auto error = parser.parse(line.data(), line.size(), true).get(ev)) {
      skip("not JSON", fmt::format("not a JSON object ({}){}", simdjson::error_message(error),
                                   !have_next ? "; the last line: a truncated file?" : ""));
      continue;
    }
    if (!ev.is_object()) {
      skip("not JSON", "not a JSON object (an array or a scalar)");  // docs/import.md
      continue;
    }
    const std::string_view kind = Str(ev, "kind");
    if (kind != "Event" && !(kind.empty() && !Str(ev, "auditID").empty())) {
      skip("not an audit Event", fmt::format("kind: \"{}\" is not Event", kind));
      continue;
    }
    const std::string_view api_version = Str(ev, "apiVersion");
    if (api_version.empty()) {
      ++missing_api_version;
    } else if (api_version != "audit.k8s.io/v1" && api_version != "audit.k8s.io/v1beta1") {
      skip("unknown apiVersion",
           fmt::format("apiVersion: \"{}\" is not audit.k8s.io/v1 or v1beta1", api_version));
      continue;
    }
    const std::string_view stage = Str(ev, "stage");
    if (stage != "ResponseComplete") {
      // RequestReceived, ResponseStarted (watches) and Panic carry no final outcome.
      counts.Skip("stage not ResponseComplete", {});
      continue;
    }
    simdjson::dom::element ref;
    if (!IsObject(ev, "objectRef", ref)) {
      counts.Skip("other resource", {});  // a non-resource URL
      continue;
    }
    const std::string_view resource = Str(ref, "resource");
    const std::optional<Followed> followed = Classify(Str(ref, "apiGroup"), resource);
    if (!followed) {
      counts.Skip("other resource", {});  // never read further: may be a Secret
      continue;
    }
    const std::string_view subresource = Str(ref, "subresource");
    const bool status_subresource = subresource == "status";
    if (!subresource.empty() && !(status_subresource && *followed == Followed::kWorkload)) {
      counts.Skip("other subresource", {});
      continue;
    }
    const std::string_view verb = Str(ev, "verb");
    if (verb == "get" || verb == "list" || verb == "watch") {
      counts.Skip("read-only request", {});
      continue;
    }
    if (verb != "create" && verb != "update" && verb != "patch" && verb != "delete") {
      skip("other verb", fmt::format("verb: \"{}\" is not followed", verb));
      continue;
    }
    int64_t code = 0;
    simdjson::dom::element response_status;
    if (!IsObject(ev, "responseStatus", response_status)
        || response_status["code"].get_int64().get(code) != simdjson::SUCCESS) {
      skip("no response code", "responseStatus.code: missing");
      continue;
    }
    if (code < 200 || code >= 300) {
      counts.Skip("failed request", {});
      continue;
    }
    std::string_view time_text = Str(ev, "stageTimestamp");
    if (time_text.empty()) {
      time_text = Str(ev, "timestamp");  // v1beta1 logs before stageTimestamp existed
    }
    engine::StatusOr<int64_t> micros = ParseRfc3339(time_text);
    if (!micros.ok()) {
      skip("bad timestamp", fmt::format("stageTimestamp: {}", micros.status().message()));
      continue;
    }
    AuditRecord r;
    r.micros = *micros;
    r.file = file_index;
    r.line = line_number;
    r.verb = std::string(verb);
    r.resource = std::string(resource);
    r.followed = *followed;
    r.status_subresource = status_subresource;
    r.namespace_name = std::string(Str(ref, "namespace"));
    r.name = std::string(Str(ref, "name"));
    r.api_version = Str(ref, "apiGroup").empty()
                        ? std::string(Str(ref, "apiVersion"))
                        : fmt::format("{}/{}", Str(ref, "apiGroup"), Str(ref, "apiVersion"));
    simdjson::dom::element object;
    const bool response_usable = IsObject(ev, "responseObject", object) && IsFullObject(object);
    if (response_usable
        || ((verb == "create" || verb == "update") && IsObject(ev, "requestObject", object)
            && IsFullObject(object))) {
      r.object = simdjson::minify(object);
    } else if (verb != "delete") {
      skip("no object",
           fmt::format("{} {}: no responseObject{} (a log at Metadata level has neither; "
                       "docs/import.md#what-a-metadata-level-log-lacks)",
                       verb, resource, verb == "patch" ? "" : " or requestObject"));
      continue;
    }
    if (!r.object.empty()) {
      simdjson::dom::element meta = object["metadata"];
      if (r.name.empty()) {
        r.name = std::string(Str(meta, "name"));
      }
      if (r.namespace_name.empty()) {
        r.namespace_name = std::string(Str(meta, "namespace"));
      }
    }
    if (r.name.empty()) {
      skip("object without name", "objectRef.name and metadata.name: missing");
      continue;
    }
    const std::string_view audit_id = Str(ev, "auditID");
    if (!audit_id.empty() && !audit_ids.emplace(audit_id).second) {
      skip("duplicate event", fmt::format("auditID {} was already read", audit_id));
      continue;
    }
    records.push_back(std::move(r));
  }
  if (!reader.damage().empty()) {
    notes.push_back(fmt::format("{} (the lines before the damage were read)", reader.damage()));
  }
}

// --- second pass: objects over time ----------------------------------------------------------

struct OutEvent {
  int64_t micros = 0;
  const char* type = "ADDED";
  std::string object;
  int64_t runtime_micros = -1;
};

struct WorkloadTrack {
  size_t added_event = 0;  // index into the events
  std::string spec;        // minified, as last emitted
  bool reserved = false;
  int64_t reserved_at = 0;
  bool finished = false;
  bool initially_admitted = false;
};

// metadata reduced to what admission reads: name, namespace, labels, Kueue's annotations, and
// (for objects that existed before the log) creationTimestamp. Never managedFields, never other
// annotations (kubectl's last-applied-configuration can hold anything).
std::string CleanMetadata(simdjson::dom::element meta, bool keep_creation) {
  std::string out = "{";
  auto add = [&](std::string_view key, const std::string& value) {
    out += fmt::format("{}\"{}\":{}", out.size() > 1 ? "," : "", key, value);
  };
  add("name", JsonQuoted(Str(meta, "name")));
  if (!Str(meta, "namespace").empty()) {
    add("namespace", JsonQuoted(Str(meta, "namespace")));
  }
  simdjson::dom::object labels;
  if (meta["labels"].get_object().get(labels) == simdjson::SUCCESS && labels.size() > 0) {
    add("labels", simdjson::minify(labels));
  }
  simdjson::dom::object annotations;
  if (meta["annotations"].get_object().get(annotations) == simdjson::SUCCESS) {
    std::string kept;
    for (auto [key, value] : annotations) {
      if (key.starts_with("kueue.x-k8s.io/") && value.is_string()) {
        kept += fmt::format("{}{}:{}", kept.empty() ? "" : ",", JsonQuoted(key),
                            simdjson::minify(value));
      }
    }
    if (!kept.empty()) {
      add("annotations", "{" + kept + "}");
    }
  }
  if (keep_creation && !Str(meta, "creationTimestamp").empty()) {
    add("creationTimestamp", JsonQuoted(Str(meta, "creationTimestamp")));
  }
  return out + "}";
}

// The object as tally reads it: apiVersion, kind, clean metadata, and every top-level field but
// status (a WorkloadPriorityClass keeps value and description; others spec).
std::string CleanObject(simdjson::dom::element o, const AuditRecord& r, bool keep_creation,
                        std::string_view status = {}) {
  std::string_view api_version = Str(o, "apiVersion");
  std::string_view kind = Str(o, "kind");
  std::string out =
      fmt::format("{{\"apiVersion\":{},\"kind\":{},\"metadata\":{}",
                  JsonQuoted(api_version.empty() ? std::string_view{r.api_version} : api_version),
                  JsonQuoted(kind.empty() ? KindOf(r.resource) : kind),
                  CleanMetadata(o["metadata"], keep_creation));
  if (r.followed != Followed::kNamespace) {
    simdjson::dom::object fields;
    if (o.get_object().get(fields) != simdjson::SUCCESS) {
      return out + "}";
    }
    for (auto [key, value] : fields) {
      if (key != "apiVersion" && key != "kind" && key != "metadata" && key != "status") {
        out += fmt::format(",{}:{}", JsonQuoted(key), simdjson::minify(value));
      }
    }
  }
  if (!status.empty()) {
    out += fmt::format(",\"status\":{}", status);
  }
  return out + "}";
}

bool ConditionTrue(simdjson::dom::element status, std::string_view type) {
  simdjson::dom::array conditions;
  if (status["conditions"].get_array().get(conditions) != simdjson::SUCCESS) {
    return false;
  }
  for (simdjson::dom::element c : conditions) {
    if (Str(c, "type") == type) {
      return Str(c, "status") == "True";
    }
  }
  return false;
}

// One line of admissions.jsonl: what --verify compares with tally's decisions.
std::string AdmissionLine(int64_t micros, const std::string& workload,
                          simdjson::dom::element admission) {
  std::string pod_sets;
  simdjson::dom::array assignments;
  if (admission["podSetAssignments"].get_array().get(assignments) == simdjson::SUCCESS) {
    for (simdjson::dom::element a : assignments) {
      simdjson::dom::element flavors;
      pod_sets += fmt::format("{}{{\"name\":{},\"flavors\":{}}}", pod_sets.empty() ? "" : ",",
                              JsonQuoted(Str(a, "name")),
                              IsObject(a, "flavors", flavors) ? simdjson::minify(flavors) : "{}");
    }
  }
  return fmt::format(
      "{{\"time\":\"{}\",\"type\":\"Admitted\",\"workload\":{},\"clusterQueue\":{},\"podSets\":[{}]"
      "}}"
      "\n",
      FormatRfc3339(micros), JsonQuoted(workload), JsonQuoted(Str(admission, "clusterQueue")),
      pod_sets);
}

class AuditReplayBuilder {
 public:
  explicit AuditReplayBuilder(ImportOutput& out) : out_(out) {}

  void Apply(const AuditRecord& r) {
    if (r.followed == Followed::kWorkload) {
      ApplyWorkload(r);
    } else {
      ApplyConfig(r);
    }
  }

  void Finish() {
    out_.manifests = fmt::format(
        "# Generated by `tally import audit` (docs/import.md#kubernetes-audit-logs): the Kueue\n"
        "# objects as they were before the log's first Workload; {} objects.\n",
        manifest_order_.size());
    if (manifest_order_.empty()) {
      out_.notes.push_back(
          "warning: no configuration object was created before the first Workload: "
          "manifests.yaml is empty, give the replay the cluster's manifests as well");
    }
    std::set<std::string> written;
    for (const std::string& key : manifest_order_) {
      auto it = manifests_.find(key);
      if (it != manifests_.end() && written.insert(key).second) {
        out_.manifests += "---\n" + it->second + "\n";
      }
    }
    out_.extra_files.emplace_back(kRecordedAdmissionsFile, std::move(admissions_text_));
    out_.events += kEventsHeader;
    out_.events += '\n';
    for (const OutEvent& e : events_) {
      out_.events += fmt::format(R"({{"type":"{}","time":"{}")", e.type, FormatRfc3339(e.micros));
      if (e.runtime_micros >= 0) {
        out_.events += fmt::format(R"(,"runtime":"{}us")", e.runtime_micros);
      }
      out_.events += fmt::format(",\"object\":{}}}\n", e.object);
    }
    out_.notes.push_back(fmt::format(
        "{} workloads ({} with a recorded runtime, {} already admitted when first seen, {} first "
        "seen after their creation); {} admissions and {} quota releases before finishing "
        "recorded; {} configuration objects in the manifests, {} configuration events",
        workloads_.size() + deleted_workloads_, with_runtime_, initially_admitted_, seen_late_,
        admissions_, releases_, manifests_.size(), config_events_));
    if (deletes_after_finish_ > 0) {
      out_.notes.push_back(fmt::format(
          "{} deletions of finished workloads dropped: a workload's end follows its runtime, so a "
          "policy that admits it later also finishes it later",
          deletes_after_finish_));
    }
  }

 private:
  // A workload that never finished in the log has no runtime: it runs until deleted or the end.
  void ApplyWorkload(const AuditRecord& r) {
    const std::string key = fmt::format("{}/{}", r.namespace_name, r.name);
    auto it = workloads_.find(key);
    if (r.verb == "delete") {
      if (it == workloads_.end()) {
        ++out_.counts.used;
        ++unknown_deletes_;
        return;
      }
      if (it->second.finished) {
        ++deletes_after_finish_;
      } else {
        events_.push_back(OutEvent{r.micros, "DELETED",
                                   fmt::format(R"({{"apiVersion":{},"kind":"Workload",)"
                                               R"("metadata":{{"name":{},"namespace":{}}}}})",
                                               JsonQuoted(r.api_version), JsonQuoted(r.name),
                                               JsonQuoted(r.namespace_name)),
                                   -1});
      }
      workloads_.erase(it);
      ++deleted_workloads_;
      ++out_.counts.used;
      return;
    }
    simdjson::dom::element o;
    if (parser_.parse(r.object).get(o) != simdjson::SUCCESS) {
      out_.counts.Skip("not JSON", fmt::format("{}: object does not parse", key));
      return;
    }
    ++out_.counts.used;
    simdjson::dom::element status;
    const bool has_status = IsObject(o, "status", status);
    simdjson::dom::element admission;
    const bool reserved_now = has_status && IsObject(status, "admission", admission)
                              && ConditionTrue(status, "QuotaReserved");
    simdjson::dom::element spec;
    const std::string spec_text = IsObject(o, "spec", spec) ? simdjson::minify(spec) : "";
    if (it == workloads_.end()) {
      WorkloadTrack t;
      const bool late = r.verb != "create";
      seen_late_ += late ? 1 : 0;
      std::string kept_status;
      if (reserved_now) {
        // Admitted before the log began (or created admitted): ADDED holding its quota.
        simdjson::dom::element conditions;
        kept_status = fmt::format(
            "{{\"admission\":{},\"conditions\":{}}}", simdjson::minify(admission),
            status["conditions"].get(conditions) == simdjson::SUCCESS ? simdjson::minify(conditions)
                                                                      : "[]");
        t.initially_admitted = true;
        t.reserved = true;
        t.reserved_at = r.micros;
        ++initially_admitted_;
      }
      t.added_event = events_.size();
      t.spec = spec_text;
      events_.push_back(OutEvent{r.micros, "ADDED", CleanObject(o, r, late, kept_status), -1});
      it = workloads_.emplace(key, std::move(t)).first;
      if (reserved_now) {
        UpdateFinish(it->second, status, r.micros);
        return;
      }
    } else if (spec_text != it->second.spec && !r.status_subresource) {
      it->second.spec = spec_text;
      events_.push_back(OutEvent{r.micros, "MODIFIED", CleanObject(o, r, false), -1});
    }
    WorkloadTrack& t = it->second;
    if (!t.reserved && reserved_now) {
      t.reserved = true;
      t.reserved_at = r.micros;
      ++admissions_;
      admissions_text_ += AdmissionLine(r.micros, key, admission);
    } else if (t.reserved && !reserved_now && !t.finished) {
      t.reserved = false;
      ++releases_;
    }
    if (has_status) {
      UpdateFinish(t, status, r.micros);
    }
  }

  void UpdateFinish(WorkloadTrack& t, simdjson::dom::element status, int64_t micros) {
    if (t.finished || !ConditionTrue(status, "Finished")) {
      return;
    }
    t.finished = true;
    if (t.reserved) {
      events_[t.added_event].runtime_micros = micros - t.reserved_at;
      ++with_runtime_;
    }
  }

  void ApplyConfig(const AuditRecord& r) {
    const std::string key = fmt::format("{}/{}/{}", r.resource, r.namespace_name, r.name);
    ++out_.counts.used;
    const bool before_workloads = !saw_workload_event_;
    if (r.verb == "delete") {
      if (before_workloads) {
        manifests_.erase(key);
        live_config_.erase(key);
      } else if (live_config_.erase(key) > 0) {
        events_.push_back(OutEvent{
            r.micros, "DELETED",
            fmt::format(R"({{"apiVersion":{},"kind":{},"metadata":{{"name":{}{}}}}})",
                        JsonQuoted(r.api_version), JsonQuoted(KindOf(r.resource)),
                        JsonQuoted(r.name),
                        r.namespace_name.empty()
                            ? std::string()
                            : fmt::format(",\"namespace\":{}", JsonQuoted(r.namespace_name))),
            -1});
        ++config_events_;
      }
      return;
    }
    simdjson::dom::element o;
    if (parser_.parse(r.object).get(o) != simdjson::SUCCESS) {
      return;
    }
    std::string clean = CleanObject(o, r, false);
    if (before_workloads) {
      if (manifests_.find(key) == manifests_.end()) {
        manifest_order_.push_back(key);
      }
      live_config_[key] = clean;
      manifests_[key] = std::move(clean);
      return;
    }
    auto it = live_config_.find(key);
    if (it != live_config_.end() && it->second == clean) {
      return;  // a write that changed nothing tally reads (status, managedFields, ...)
    }
    events_.push_back(
        OutEvent{r.micros, it == live_config_.end() ? "ADDED" : "MODIFIED", clean, -1});
    ++config_events_;
    live_config_[key] = std::move(clean);
  }

 public:
  void StartWorkloads() { saw_workload_event_ = true; }

 private:
  ImportOutput& out_;
  std::string admissions_text_;
  simdjson::dom::parser parser_;
  std::vector<OutEvent> events_;
  std::unordered_map<std::string, WorkloadTrack> workloads_;
  std::map<std::string, std::string> manifests_;
  std::vector<std::string> manifest_order_;
  std::map<std::string, std::string> live_config_;
  bool saw_workload_event_ = false;
  int64_t with_runtime_ = 0;
  int64_t initially_admitted_ = 0;
  int64_t seen_late_ = 0;
  int64_t admissions_ = 0;
  int64_t releases_ = 0;
  int64_t config_events_ = 0;
  int64_t deleted_workloads_ = 0;
  int64_t deletes_after_finish_ = 0;
  int64_t unknown_deletes_ = 0;

 public:
  int64_t unknown_deletes() const { return unknown_deletes_; }
};

}  // namespace

std::vector<std::pair<std::string, std::string>> FollowedAuditResources() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* r : {"workloads", "workloads/status", "clusterqueues", "cohorts", "localqueues",
                        "resourceflavors", "workloadpriorityclasses"}) {
    out.emplace_back("kueue.x-k8s.io", r);
  }
  out.emplace_back("", "namespaces");
  for (const auto& [group, resource] : out) {
    const size_t slash = resource.find('/');
    TALLY_CHECK(Classify(group, resource.substr(0, slash)).has_value());
  }
  return out;
}

engine::StatusOr<ImportOutput> ImportAuditLogs(const AuditImportOptions& options) {
  if (options.paths.empty()) {
    return engine::InvalidArgument("no audit log given");
  }
  ImportOutput out;
  std::vector<AuditRecord> records;
  std::unordered_set<std::string> audit_ids;
  int64_t missing_api_version = 0;
  for (size_t i = 0; i < options.paths.size(); ++i) {
    ReadAuditFile(options.paths[i], i, records, out.counts, audit_ids, missing_api_version,
                  out.notes, options.max_line_bytes);
  }
  if (missing_api_version > 0) {
    out.notes.push_back(fmt::format(
        "{} lines without apiVersion read as audit.k8s.io/v1 (their kind is Event or missing)",
        missing_api_version));
  }
  // Rotated files may be given in any order and a file's clock may be skewed against the next:
  // one global order by stageTimestamp, ties in file and line order.
  int64_t out_of_order = 0;
  for (size_t i = 1; i < records.size(); ++i) {
    out_of_order += records[i].micros < records[i - 1].micros ? 1 : 0;
  }
  if (out_of_order > 0) {
    out.notes.push_back(fmt::format(
        "{} lines were earlier than the line before them (files out of order, or clock skew "
        "between rotated files): all lines were sorted by stageTimestamp",
        out_of_order));
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const AuditRecord& a, const AuditRecord& b) { return a.micros < b.micros; });
  AuditReplayBuilder builder(out);
  for (const AuditRecord& r : records) {
    if (r.followed == Followed::kWorkload) {
      builder.StartWorkloads();
    }
    builder.Apply(r);
  }
  builder.Finish();
  if (builder.unknown_deletes() > 0) {
    out.notes.push_back(fmt::format(
        "{} deletions of workloads the log never showed (created before it began) were ignored",
        builder.unknown_deletes()));
  }
  return out;
}

}  // namespace replay
