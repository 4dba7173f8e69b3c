#include "replay/generate/audit_log_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <simdjson.h>

#include "replay/generate/audit_log_lines.h"
#include "replay/generate/audit_log_noise.h"
#include "replay/generate/audit_log_objects.h"
#include "replay/io/input_file.h"
#include "replay/io/text_file.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

using internal::AdmissionJson;
using internal::AuditRequest;
using internal::ClientObject;
using internal::Condition;
using internal::FindCondition;
using internal::JsonString;
using internal::ReadWorkloadStatus;
using internal::SecondTime;
using internal::SetCondition;
using internal::StatusFields;
using internal::StatusJson;
using internal::StoredJson;
using internal::StoredObject;
using internal::Touch;

constexpr int64_t kMillisecond = 1000;                       // µs
constexpr int64_t kManifestLead = int64_t{60} * 1'000'000;   // manifests precede the first event
constexpr int64_t kDefaultStart = 1767603600LL * 1'000'000;  // 2026-01-05T09:00:00Z, no events
constexpr int64_t kConflictEvery = 10;                       // status patches per 409 Conflict
constexpr int64_t kConflictLead = 700;  // µs from the 409 to the successful patch

std::string_view Str(simdjson::dom::element e, std::string_view key) {
  return internal::StringField(e, key);
}

// An event's time: RFC 3339 or a number of seconds (docs/events.md).
engine::StatusOr<int64_t> TimeOf(simdjson::dom::element e) {
  simdjson::dom::element t;
  if (e["time"].get(t) != simdjson::SUCCESS) {
    return engine::InvalidArgument("time: Required value");
  }
  std::string_view text;
  if (t.get_string().get(text) == simdjson::SUCCESS) {
    return ParseRfc3339(text);
  }
  if (t.is_number()) {
    return ParseDecimalSeconds(simdjson::minify(t));
  }
  return engine::InvalidArgument("time: expected an RFC 3339 string or a number of seconds");
}

std::vector<std::string_view> NonBlankLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      lines.push_back(line);
    }
  }
  return lines;
}

// One JSON-lines input: its non-blank lines, their times (min() for a header line).
struct TimedLines {
  std::string text;
  std::vector<std::string_view> lines;
  std::vector<int64_t> times;
};

engine::StatusOr<TimedLines> ReadTimedLines(const std::string& path,
                                            simdjson::dom::parser& parser) {
  engine::StatusOr<std::string> text = ReadPlainOrGzip(path);
  if (!text.ok()) {
    return text.status();
  }
  TimedLines out;
  out.text = std::move(text).value();
  out.lines = NonBlankLines(out.text);
  for (size_t i = 0; i < out.lines.size(); ++i) {
    simdjson::dom::element e;
    if (parser.parse(out.lines[i]).get(e) != simdjson::SUCCESS || !e.is_object()) {
      return engine::InvalidArgument(fmt::format("{}: line {}: not a JSON object", path, i + 1));
    }
    if (Str(e, "type").empty()) {
      out.times.push_back(std::numeric_limits<int64_t>::min());  // the events header
      continue;
    }
    engine::StatusOr<int64_t> t = TimeOf(e);
    if (!t.ok()) {
      return engine::InvalidArgument(
          fmt::format("{}: line {}: {}", path, i + 1, t.status().message()));
    }
    out.times.push_back(*t);
  }
  return out;
}

// --- the log builder -------------------------------------------------------------------------

class AuditLogBuilder {
 public:
  explicit AuditLogBuilder(const AuditLogOptions& options)
      : options_(options),
        writer_(options.api_version, options.seed),
        noise_(writer_, resource_version_) {}

  int64_t skipped() const { return skipped_; }
  internal::AuditLineWriter& writer() { return writer_; }

  // A manifest object, created by the admin (a Workload: by Kueue) at `micros`.
  engine::Status AddManifestObject(simdjson::dom::element e, int64_t micros) {
    StoredObject o;
    if (engine::Status s = ParseObject(e, o); !s.ok()) {
      return s;
    }
    if (o.ref.resource.empty() || o.name.empty()) {
      ++skipped_;
      return engine::Status::Ok();
    }
    Create(std::move(o), e, micros);
    return engine::Status::Ok();
  }

  // One line of the events file.
  engine::Status ApplyEvent(simdjson::dom::element e, int64_t micros) {
    const std::string_view type = Str(e, "type");
    simdjson::dom::element object;
    if (e["object"].get(object) != simdjson::SUCCESS) {
      return engine::InvalidArgument("object: Required value");
    }
    StoredObject o;
    if (engine::Status s = ParseObject(object, o); !s.ok()) {
      return s;
    }
    if (o.ref.resource.empty() || o.name.empty()) {
      ++skipped_;
      return engine::Status::Ok();
    }
    if (type == "ADDED") {
      if (live_.count(o.Key()) > 0) {
        ++skipped_;  // the replay rejects a second ADDED too
        return engine::Status::Ok();
      }
      const std::string key = o.Key();
      Create(std::move(o), object, micros);
      Noise(micros, live_[key]);
      return engine::Status::Ok();
    }
    auto it = live_.find(o.Key());
    if (it == live_.end()) {
      ++skipped_;
      return engine::Status::Ok();
    }
    StoredObject& stored = it->second;
    const bool workload = stored.kind == "Workload";
    if (type == "MODIFIED") {
      AuditRequest r = ObjectRequest(stored, micros, "update");
      // The client sends the object it read back with its changes.
      stored.labels = o.labels;
      stored.meta_rest = o.meta_rest;
      r.request_object = ClientObjectWithIdentity(stored, o);
      if (o.body != stored.body) {
        stored.body = o.body;
        ++stored.generation;
      }
      stored.resource_version = ++resource_version_;
      Touch(stored, workload ? "kueue" : "kubectl-replace", "Update", "", o.fields, micros);
      r.response_object = StoredJson(stored);
      writer_.Emit(r);
      Noise(micros, stored);
    } else {
      AuditRequest r = ObjectRequest(stored, micros, "delete");
      r.request_object = R"({"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal",)"
                         R"("propagationPolicy":"Background"})";
      stored.resource_version = ++resource_version_;
      r.response_object = StoredJson(stored, micros);
      writer_.Emit(r);
      Noise(micros, stored);
      live_.erase(it);
    }
    return engine::Status::Ok();
  }

  // One line of decisions.jsonl: a status patch for the types that change a Workload's status.
  void ApplyDecision(simdjson::dom::element d, int64_t micros) {
    const std::string_view type = Str(d, "type");
    auto it = live_.find(fmt::format("Workload/{}", Str(d, "workload")));
    if (it == live_.end()) {
      return;  // deleted already (Deleted, or Finished after the deletion)
    }
    StoredObject& w = it->second;
    const std::string cq(Str(d, "clusterQueue"));
    const std::string_view reason = Str(d, "reason");
    std::string event_reason;
    std::string event_message;
    if (type == "QuotaReserved" || type == "Admitted") {
      if (w.admission.empty()) {
        w.admission = AdmissionJson(d);
        SetCondition(w, "QuotaReserved", "True", "QuotaReserved",
                     fmt::format("Quota reserved in ClusterQueue {}", cq), micros);
        for (const char* previous : {"Evicted", "Preempted"}) {
          if (Condition* c = FindCondition(w, previous); c != nullptr && c->status == "True") {
            SetCondition(w, previous, "False", "QuotaReserved",
                         fmt::format("Previously: {}", c->message), micros);
          }
        }
        event_reason = "QuotaReserved";
        event_message = fmt::format("Quota reserved in ClusterQueue {}", cq);
      }
      if (type == "Admitted") {
        SetCondition(w, "Admitted", "True", "Admitted", "The workload is admitted", micros);
        event_reason = "Admitted";
        event_message = fmt::format("Admitted by ClusterQueue {}", cq);
      }
    } else if (type == "Preempted") {
      const std::string_view why = reason == "InCohortReclamation" ? "reclamation within the cohort"
                                   : reason == "InCohortReclaimWhileBorrowing"
                                       ? "reclamation within the cohort while borrowing"
                                       : "prioritization in the ClusterQueue";
      const std::string message =
          fmt::format("Preempted to accommodate a workload (UID: {}) due to {}",
                      UidOf(Str(d, "preemptor")), why);
      SetCondition(w, "Evicted", "True", "Preempted", message, micros);
      SetCondition(w, "Preempted", "True", reason.empty() ? "InClusterQueue" : reason, message,
                   micros);
      event_reason = "Preempted";
      event_message = message;
    } else if (type == "Evicted") {
      const std::string message =
          reason == "PodsReadyTimeout"
              ? fmt::format("Exceeded the PodsReady timeout {}/{}", w.namespace_name, w.name)
              : fmt::format("Evicted: {}", reason);
      SetCondition(w, "Evicted", "True", reason, message, micros);
      event_reason = fmt::format("EvictedDueTo{}", reason);
      event_message = message;
    } else if (type == "Requeued" || type == "Deactivated") {
      const Condition* evicted = FindCondition(w, "Evicted");
      const std::string why = evicted != nullptr && evicted->status == "True"
                                  ? evicted->message
                                  : std::string("The workload was requeued");
      if (type == "Deactivated") {
        SetCondition(w, "Evicted", "True", "InactiveWorkload",
                     reason == "RequeuingLimitExceeded"
                         ? "The workload is deactivated due to exceeding the maximum number of "
                           "re-queuing retries"
                         : "The workload is deactivated",
                     micros);
      } else {
        SetCondition(w, "Requeued", "True", reason.empty() ? "Requeued" : reason,
                     "The workload was requeued after its eviction", micros);
      }
      if (!w.admission.empty()) {
        w.admission.clear();
        SetCondition(w, "QuotaReserved", "False", "Pending", why, micros);
        SetCondition(w, "Admitted", "False", "NoReservation", "The workload has no reservation",
                     micros);
      }
    } else if (type == "Pending") {
      // Misconfigured (namespace selector, requests above limits): the scheduler's condition.
      const std::string message(Str(d, "message"));
      SetCondition(w, "QuotaReserved", "False", std::string(reason), message, micros);
      event_reason = reason;
      event_message = message;
    } else if (type == "Finished") {
      SetCondition(w, "Finished", "True", "Succeeded", "Job finished successfully", micros);
    } else {
      return;  // Deleted: the events' DELETED made the request
    }
    PatchStatus(w, micros);
    if (options_.noise && !event_reason.empty()) {
      noise_.KueueEvent(micros, Subject(w), event_reason, event_message);
    }
    Noise(micros, w);
  }

  // Status patches of Workloads created with a status, due by `until` (inclusive).
  void FlushDeferred(int64_t until) {
    while (next_deferred_ < deferred_.size() && deferred_[next_deferred_].first <= until) {
      const auto& [micros, key] = deferred_[next_deferred_++];
      auto it = live_.find(key);
      if (it != live_.end()) {
        PatchStatus(it->second, micros);
      }
    }
  }
  int64_t NextDeferred() const {
    return next_deferred_ < deferred_.size() ? deferred_[next_deferred_].first
                                             : std::numeric_limits<int64_t>::max();
  }

 private:
  std::string NewObjectUid() {
    ++uid_counter_;
    return fmt::format("7a11e{:03x}-{:04x}-4{:03x}-8{:03x}-{:012x}", uid_counter_ % 4096,
                       (uid_counter_ * 40503) % 65536, (uid_counter_ * 2654435761) % 4096,
                       (uid_counter_ * 97) % 4096, uid_counter_);
  }

  // The uid of a live workload named "ns/name", for messages.
  std::string UidOf(std::string_view workload) const {
    auto it = live_.find(fmt::format("Workload/{}", workload));
    return it == live_.end() ? std::string() : it->second.uid;
  }

  static internal::NoiseSubject Subject(const StoredObject& w) {
    if (w.kind != "Workload") {
      return internal::NoiseSubject{"", "", ""};
    }
    return internal::NoiseSubject{w.namespace_name, w.name, w.api_version};
  }

  void Noise(int64_t micros, const StoredObject& about) {
    if (options_.noise) {
      noise_.After(micros, namespaces_, Subject(about));
    }
  }

  // A request on `o` by its usual client: Kueue for Workloads, the admin otherwise.
  AuditRequest ObjectRequest(const StoredObject& o, int64_t micros, std::string_view verb) const {
    const bool workload = o.kind == "Workload";
    AuditRequest r;
    r.micros = micros;
    r.verb = std::string(verb);
    r.user = workload ? &internal::kKueueUser : &internal::kAdminUser;
    r.resource = std::string(o.ref.resource);
    r.group = std::string(o.ref.group);
    const size_t slash = o.api_version.find('/');
    r.version = slash == std::string::npos ? o.api_version : o.api_version.substr(slash + 1);
    r.namespace_name = o.ref.namespaced ? o.namespace_name : "";
    r.name = verb == "create" ? "" : o.name;
    r.object_key = o.Key();
    const std::string base =
        fmt::format("/{}/{}{}", o.ref.group.empty() ? "api" : "apis", o.api_version,
                    o.ref.namespaced ? fmt::format("/namespaces/{}", o.namespace_name) : "");
    if (verb == "create") {
      r.uri = fmt::format(
          "{}/{}{}", base, o.ref.resource,
          workload ? "" : "?fieldManager=kubectl-client-side-apply&fieldValidation=Strict");
      r.code = 201;
    } else {
      r.uri = fmt::format("{}/{}/{}{}", base, o.ref.resource, o.name,
                          verb == "update" && !workload
                              ? "?fieldManager=kubectl-replace&fieldValidation=Strict"
                              : "");
    }
    return r;
  }

  // The object of an update: the stored identity (uid, the resourceVersion read) with the new
  // content.
  static std::string ClientObjectWithIdentity(const StoredObject& stored,
                                              const StoredObject& update) {
    StoredObject sent = stored;
    sent.body = update.body;
    return ClientObject(sent, true);
  }

  void Create(StoredObject o, simdjson::dom::element source, int64_t micros) {
    const bool workload = o.kind == "Workload";
    o.uid = NewObjectUid();
    o.created = micros;
    o.generation = 1;
    o.resource_version = ++resource_version_;
    Touch(o, workload ? "kueue" : "kubectl-client-side-apply", "Update", "", o.fields, micros);
    AuditRequest r = ObjectRequest(o, micros, "create");
    r.request_object = ClientObject(o, false);
    r.response_object = StoredJson(o);
    writer_.Emit(r);
    if (workload && seen_namespaces_.insert(o.namespace_name).second) {
      namespaces_.push_back(o.namespace_name);
    }
    if (workload && ReadWorkloadStatus(source, o, micros)) {
      deferred_.emplace_back(micros + kMillisecond, o.Key());
    }
    live_[o.Key()] = std::move(o);
  }

  // Kueue's server-side apply of the status. Every kConflictEvery patches (or the next one after
  // that on an object not written in the kConflictLead before it), a 409 Conflict precedes it.
  void PatchStatus(StoredObject& w, int64_t micros) {
    AuditRequest r = ObjectRequest(w, micros, "patch");
    r.subresource = "status";
    r.uri = fmt::format(
        "/apis/{}/namespaces/{}/workloads/{}/status?fieldManager=kueue-admission&force=true",
        w.api_version, w.namespace_name, w.name);
    auto patch = [&](int64_t resource_version) {
      return fmt::format(
          R"({{"apiVersion":{},"kind":"Workload","metadata":{{"name":{},"namespace":{},)"
          R"("resourceVersion":"{}"}},"status":{}}})",
          JsonString(w.api_version), JsonString(w.name), JsonString(w.namespace_name),
          resource_version, StatusJson(w).empty() ? "{}" : StatusJson(w));
    };
    if (options_.noise && ++patches_ >= kConflictEvery
        && writer_.LastComplete(w.Key()) < micros - kConflictLead) {
      patches_ = 0;
      AuditRequest failed = r;
      failed.micros = micros - kConflictLead;
      failed.code = 409;
      failed.request_object = patch(w.resource_version - 1);
      failed.failure = fmt::format(
          R"(,"status":"Failure","message":"Operation cannot be fulfilled on )"
          R"(workloads.kueue.x-k8s.io \"{}\": the object has been modified; please apply your )"
          R"(changes to the latest version )"
          R"(and try again","reason":"Conflict","details":{{"name":{},"group":"kueue.x-k8s.io",)"
          R"("kind":"workloads"}})",
          w.name, JsonString(w.name));
      writer_.Emit(failed);
    }
    r.request_object = patch(w.resource_version);
    w.resource_version = ++resource_version_;
    Touch(w, "kueue-admission", "Apply", "status", StatusFields(w), micros);
    r.response_object = StoredJson(w);
    writer_.Emit(r);
  }

  const AuditLogOptions& options_;
  int64_t resource_version_ = 48000;  // the cluster's: one counter for every object
  internal::AuditLineWriter writer_;
  internal::AuditNoise noise_;
  std::map<std::string, StoredObject> live_;  // Key() -> object
  std::vector<std::string> namespaces_;       // of Workloads, in order of appearance
  std::set<std::string> seen_namespaces_;
  std::vector<std::pair<int64_t, std::string>> deferred_;  // (micros, key), by time
  size_t next_deferred_ = 0;
  int64_t uid_counter_ = 0;
  int64_t patches_ = 0;
  int64_t skipped_ = 0;
};

}  // namespace

engine::StatusOr<AuditLog> MakeAuditLog(const AuditLogOptions& options) {
  if (options.api_version != "audit.k8s.io/v1" && options.api_version != "audit.k8s.io/v1beta1") {
    return engine::InvalidArgument(fmt::format(
        "--api-version \"{}\": want audit.k8s.io/v1 or audit.k8s.io/v1beta1", options.api_version));
  }
  std::vector<std::string> objects;
  if (engine::Status s = internal::LoadManifestObjects(options.manifests, objects); !s.ok()) {
    return s;
  }
  simdjson::dom::parser parser;
  engine::StatusOr<TimedLines> events = ReadTimedLines(options.events, parser);
  if (!events.ok()) {
    return events.status();
  }
  engine::StatusOr<TimedLines> decisions = ReadTimedLines(options.decisions, parser);
  if (!decisions.ok()) {
    return decisions.status();
  }
  int64_t start = kDefaultStart;
  for (const std::vector<int64_t>* times : {&events->times, &decisions->times}) {
    auto first = std::find_if(times->begin(), times->end(),
                              [](int64_t t) { return t != std::numeric_limits<int64_t>::min(); });
    if (first != times->end()) {
      start = *first;
      break;
    }
  }

  AuditLogBuilder b(options);
  int64_t now = start - kManifestLead;
  for (const std::string& json : objects) {
    simdjson::dom::element e;
    if (parser.parse(json).get(e) != simdjson::SUCCESS) {
      return engine::InvalidArgument("a manifest object does not convert to JSON");
    }
    if (engine::Status s = b.AddManifestObject(e, now); !s.ok()) {
      return s;
    }
    now += kMillisecond;
  }

  // Events, decisions and deferred status patches in one time order; at one instant the deferred
  // patches first, then the events, then the decisions (the replay applies an instant's events,
  // then runs its cycles).
  size_t next_event = 0;
  size_t next_decision = 0;
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  while (true) {
    const int64_t te = next_event < events->lines.size() ? events->times[next_event] : kNever;
    const int64_t td =
        next_decision < decisions->lines.size() ? decisions->times[next_decision] : kNever;
    const int64_t tp = b.NextDeferred();
    if (te == kNever && td == kNever && tp == kNever) {
      break;
    }
    if (tp <= te && tp <= td) {
      b.FlushDeferred(tp);
      continue;
    }
    const bool event = te <= td;
    const TimedLines& in = event ? *events : *decisions;
    const size_t i = event ? next_event++ : next_decision++;
    if (in.times[i] == std::numeric_limits<int64_t>::min()) {
      continue;  // the header
    }
    simdjson::dom::element e;
    if (parser.parse(in.lines[i]).get(e) != simdjson::SUCCESS) {
      return engine::InvalidArgument("a line no longer parses");  // parsed once already
    }
    if (event) {
      if (engine::Status s = b.ApplyEvent(e, in.times[i]); !s.ok()) {
        return engine::InvalidArgument(
            fmt::format("{}: line {}: {}", options.events, i + 1, s.message()));
      }
    } else {
      b.ApplyDecision(e, in.times[i]);
    }
  }
  AuditLog out;
  out.requests = b.writer().requests();
  out.skipped_events = b.skipped();
  out.lines = b.writer().TakeLines();
  return out;
}

engine::StatusOr<std::vector<std::string>> WriteAuditLog(const AuditLog& log,
                                                         const std::string& path,
                                                         int64_t max_lines) {
  const size_t per_file =
      max_lines > 0 ? static_cast<size_t>(max_lines) : std::max<size_t>(log.lines.size(), 1);
  const std::filesystem::path p(path);
  std::vector<std::string> written;
  int64_t last_stamp = std::numeric_limits<int64_t>::min();  // ms of the previous backup name
  size_t begin = 0;
  do {
    const size_t end = std::min(log.lines.size(), begin + per_file);
    std::string text;
    for (size_t i = begin; i < end; ++i) {
      text += log.lines[i];
      text += '\n';
    }
    std::string target = path;
    if (end < log.lines.size()) {
      // lumberjack's backup name: the rotation time, here the part's last stageTimestamp.
      const std::string& last = log.lines[end - 1];
      const size_t at = last.rfind(R"("stageTimestamp":")");
      int64_t ms = 0;
      if (at != std::string::npos) {
        const std::string_view view = last;
        engine::StatusOr<int64_t> micros = ParseRfc3339(view.substr(at + 18, 27));
        ms = micros.ok() ? *micros / 1000 : 0;
      }
      ms = std::max(ms, last_stamp + 1);
      last_stamp = ms;
      std::string stamp = SecondTime(ms * 1000);  // "2026-01-05T09:00:00Z"
      stamp.pop_back();
      std::replace(stamp.begin(), stamp.end(), ':', '-');
      target = (p.parent_path()
                / fmt::format("{}-{}.{:03d}{}", p.stem().string(), stamp, ms % 1000,
                              p.extension().string()))
                   .string();
    }
    if (!WriteTextFile(target, text)) {
      return engine::InvalidArgument(fmt::format("cannot write {}", target));
    }
    written.push_back(target);
    begin = end;
  } while (begin < log.lines.size());
  return written;
}

int RunAuditLog(const AuditLogOptions& options, const std::string& out, int64_t max_lines) {
  engine::StatusOr<AuditLog> log = MakeAuditLog(options);
  if (!log.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(log.status().message()).c_str());
    return 1;
  }
  engine::StatusOr<std::vector<std::string>> files = WriteAuditLog(*log, out, max_lines);
  if (!files.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(files.status().message()).c_str());
    return 1;
  }
  std::printf(
      "tally audit-log: %lld requests, %zu lines (%s), %lld objects or events an API server "
      "would not hold left out\n",
      static_cast<long long>(log->requests), log->lines.size(), options.api_version.c_str(),
      static_cast<long long>(log->skipped_events));
  for (const std::string& f : *files) {
    std::printf("wrote %s\n", f.c_str());
  }
  return 0;
}

}  // namespace replay
