// Tests of `tally import audit` (replay/import/audit_import.h) and `tally replay --verify`
// (replay/sim/admission_verify.h): what is kept and what is skipped (by reason, counts
// reconciling), that nothing of other resources leaks, the derived runtimes, rotated files, and a
// log that replays with zero differences from the admissions it recorded.
#include "replay/import/audit_import.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "replay/sim/admission_verify.h"
#include "test/testing/replay_harness.h"

#include <yaml-cpp/yaml.h>

namespace replay {
namespace {

using testing::ReplayHarness;

// 2026-01-05T09:00:00Z + seconds, as the API server writes stageTimestamp.
std::string Stamp(double seconds) {
  const int64_t micros = 1767603600LL * 1'000'000 + static_cast<int64_t>(seconds * 1e6);
  const int64_t s = micros / 1'000'000;
  const int64_t us = micros % 1'000'000;
  const int64_t day_s = s % 86400;
  return fmt::format("2026-01-05T{:02d}:{:02d}:{:02d}.{:06d}Z", day_s / 3600, (day_s / 60) % 60,
                     day_s % 60, us);
}

int audit_id_counter = 0;

struct Line {
  double t = 0;
  std::string verb = "create";
  std::string resource = "workloads";
  std::string group = "kueue.x-k8s.io";
  std::string ns;
  std::string name;
  std::string subresource;
  int code = 201;
  std::string level = "RequestResponse";
  std::string stage = "ResponseComplete";
  std::string request_object;
  std::string response_object;
  std::string api_version = "audit.k8s.io/v1";
  std::string audit_id;  // default: a fresh one
};

std::string Render(const Line& l) {
  std::string ref = fmt::format(R"("resource":"{}","apiGroup":"{}","apiVersion":"{}")", l.resource,
                                l.group, l.group.empty() ? "v1" : "v1beta2");
  if (!l.ns.empty()) {
    ref += fmt::format(R"(,"namespace":"{}")", l.ns);
  }
  if (!l.name.empty() && l.verb != "create") {
    ref += fmt::format(R"(,"name":"{}")", l.name);
  }
  if (!l.subresource.empty()) {
    ref += fmt::format(R"(,"subresource":"{}")", l.subresource);
  }
  std::string out = fmt::format(
      R"({{"kind":"Event","apiVersion":"{}","level":"{}","auditID":"{}","stage":"{}",)"
      R"("requestURI":"/apis/{}/v1beta2/...","verb":"{}","user":{{"username":"system:serviceaccount:kueue-system:kueue-controller-manager","groups":["system:serviceaccounts","system:authenticated"]}},)"
      R"("sourceIPs":["10.0.0.7"],"userAgent":"kueue/v0.13.0","objectRef":{{{}}},)",
      l.api_version, l.level,
      l.audit_id.empty() ? fmt::format("a-{:06d}", ++audit_id_counter) : l.audit_id, l.stage,
      l.group, l.verb, ref);
  if (l.stage == "ResponseComplete") {
    out += fmt::format(R"("responseStatus":{{"metadata":{{}},"code":{}}},)", l.code);
  }
  if (!l.request_object.empty()) {
    out += fmt::format(R"("requestObject":{},)", l.request_object);
  }
  if (!l.response_object.empty()) {
    out += fmt::format(R"("responseObject":{},)", l.response_object);
  }
  out += fmt::format(R"("requestReceivedTimestamp":"{}","stageTimestamp":"{}"}})", Stamp(l.t),
                     Stamp(l.t));
  return out;
}

std::string WorkloadObject(const std::string& name, const std::string& cpu,
                           const std::string& status = "") {
  return fmt::format(
      R"({{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{{"name":"{}",)"
      R"("namespace":"ns","uid":"u-{}","resourceVersion":"7","creationTimestamp":"2026-01-05T08:00:00Z",)"
      R"("managedFields":[{{"manager":"kueue","operation":"Update"}}],)"
      R"("annotations":{{"kubectl.kubernetes.io/last-applied-configuration":"leak-me-not"}}}},)"
      R"("spec":{{"queueName":"lq","podSets":[{{"name":"main","count":1,"template":{{"spec":)"
      R"({{"containers":[{{"name":"c","resources":{{"requests":{{"cpu":"{}"}}}}}}]}}}}}}]}}{}}})",
      name, name, cpu, status.empty() ? "" : fmt::format(",\"status\":{}", status));
}

std::string AdmittedStatus(const std::string& cpu, const std::string& when, bool finished = false) {
  return fmt::format(
      R"({{"admission":{{"clusterQueue":"cq","podSetAssignments":[{{"name":"main",)"
      R"("flavors":{{"cpu":"default"}},"resourceUsage":{{"cpu":"{}"}},"count":1}}]}},)"
      R"("conditions":[{{"type":"QuotaReserved","status":"True","reason":"QuotaReserved",)"
      R"("message":"","lastTransitionTime":"{}"}},{{"type":"Admitted","status":"True",)"
      R"("reason":"Admitted","message":"","lastTransitionTime":"{}"}}{}]}})",
      cpu, when, when,
      finished ? fmt::format(R"(,{{"type":"Finished","status":"True","reason":"Succeeded",)"
                             R"("message":"","lastTransitionTime":"{}"}})",
                             when)
               : "");
}

std::string ConfigLines(double t) {
  const std::string flavor =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":"default","uid":"f1"},"spec":{}})";
  const std::string cq =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq","managedFields":[]},"spec":{"namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":"4"}]}]}]},"status":{"pendingWorkloads":0}})";
  const std::string lq =
      R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"lq","namespace":"ns"},"spec":{"clusterQueue":"cq"}})";
  std::string out;
  for (const auto& [resource, ns, object] :
       {std::tuple<std::string, std::string, std::string>{"resourceflavors", "", flavor},
        {"clusterqueues", "", cq},
        {"localqueues", "ns", lq}}) {
    Line l;
    l.t = t;
    l.resource = resource;
    l.ns = ns;
    l.request_object = object;
    l.response_object = object;
    out += Render(l) + "\n";
    t += 0.001;
  }
  return out;
}

// A log of a 4-cpu queue (BestEffortFIFO) as Kueue records it: a (3 cpu) runs 0..100 s; b (2 cpu)
// waits for it; c (1 cpu) runs 10..40 s and is deleted at 200 s, after finishing; d (1 cpu),
// created at 20 s, is inadmissible until c's quota is released. Kueue requeues inadmissible
// workloads one batch period (1 s) after a release: d is admitted at 41 s (b does not fit) and
// runs until deleted at 150 s; b at 101 s, running until 131 s.
std::string WorkloadLines() {
  std::string out;
  auto add = [&](Line l) { out += Render(l) + "\n"; };
  auto create = [&](double t, const std::string& name, const std::string& cpu) {
    Line l;
    l.t = t;
    l.ns = "ns";
    l.name = name;
    l.request_object = WorkloadObject(name, cpu);
    l.response_object = l.request_object;
    Line received = l;
    received.stage = "RequestReceived";
    received.response_object.clear();
    received.audit_id = fmt::format("rr-{}", name);
    add(received);
    add(l);
  };
  auto status = [&](double t, const std::string& name, const std::string& cpu,
                    const std::string& s) {
    Line l;
    l.t = t;
    l.verb = "patch";
    l.ns = "ns";
    l.name = name;
    l.subresource = "status";
    l.code = 200;
    l.request_object = R"({"status":{}})";
    l.response_object = WorkloadObject(name, cpu, s);
    add(l);
  };
  create(0, "a", "3");
  status(0, "a", "3", AdmittedStatus("3", Stamp(0)));
  create(5, "b", "2");
  create(10, "c", "1");
  status(10, "c", "1", AdmittedStatus("1", Stamp(10)));
  create(20, "d", "1");
  status(40, "c", "1", AdmittedStatus("1", Stamp(10), true));
  status(41, "d", "1", AdmittedStatus("1", Stamp(41)));
  status(100, "a", "3", AdmittedStatus("3", Stamp(0), true));
  status(101, "b", "2", AdmittedStatus("2", Stamp(101)));
  status(131, "b", "2", AdmittedStatus("2", Stamp(101), true));
  Line del;
  del.t = 150;
  del.verb = "delete";
  del.ns = "ns";
  del.name = "d";
  del.code = 200;
  del.response_object = R"({"kind":"Status","apiVersion":"v1","status":"Success"})";
  add(del);
  del.t = 200;
  del.name = "c";
  add(del);
  return out;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

const std::string& AdmissionsFile(const ImportOutput& out) {
  for (const auto& [name, text] : out.extra_files) {
    if (name == kRecordedAdmissionsFile) {
      return text;
    }
  }
  static const std::string kNone;
  ADD_FAILURE() << "no " << kRecordedAdmissionsFile;
  return kNone;
}

TEST(AuditImportTest, WorkloadsGetRuntimesFromAdmissionAndFinish) {
  ReplayHarness h;
  const std::string log = h.Write("audit.log", ConfigLines(-60) + WorkloadLines());
  engine::StatusOr<ImportOutput> out = ImportAuditLogs({{log}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // 3 config + 4 creates (+4 RequestReceived) + 7 status patches + 2 deletes.
  EXPECT_EQ(out->counts.read, 20);
  EXPECT_EQ(out->counts.used, 16);
  EXPECT_EQ(out->counts.skipped_by_reason.at("stage not ResponseComplete"), 4);
  EXPECT_EQ(out->counts.read, out->counts.used + out->counts.skipped());
  // Manifests: the three objects, status and managedFields dropped.
  EXPECT_TRUE(Contains(out->manifests, R"("kind":"ClusterQueue","metadata":{"name":"cq"})"))
      << out->manifests;
  EXPECT_FALSE(Contains(out->manifests, "pendingWorkloads"));
  EXPECT_FALSE(Contains(out->manifests, "managedFields"));
  // a ran 0..100 s, b 101..131 s, c 10..40 s; d never finished: no runtime, DELETED at 150 s.
  EXPECT_TRUE(Contains(out->events, R"("time":"2026-01-05T09:00:00Z","runtime":"100000000us")"))
      << out->events;
  EXPECT_TRUE(Contains(out->events, R"("time":"2026-01-05T09:00:05Z","runtime":"30000000us")"))
      << out->events;
  EXPECT_TRUE(Contains(out->events, R"("time":"2026-01-05T09:00:10Z","runtime":"30000000us")"))
      << out->events;
  EXPECT_TRUE(Contains(out->events, R"({"type":"ADDED","time":"2026-01-05T09:00:20Z","object")"))
      << out->events;
  EXPECT_TRUE(Contains(out->events, R"({"type":"DELETED","time":"2026-01-05T09:02:30Z")"))
      << out->events;
  // c's delete came after it finished: dropped, so a later admission also ends later.
  EXPECT_FALSE(Contains(out->events, R"("time":"2026-01-05T09:03:20Z")")) << out->events;
  // No server-side metadata, no foreign annotation in the events.
  EXPECT_FALSE(Contains(out->events, "leak-me-not"));
  EXPECT_FALSE(Contains(out->events, "managedFields"));
  EXPECT_FALSE(Contains(out->events, "resourceVersion"));
  EXPECT_FALSE(Contains(out->events, "creationTimestamp"));
  const std::string& admissions = AdmissionsFile(*out);
  EXPECT_EQ(std::count(admissions.begin(), admissions.end(), '\n'), 4) << admissions;
  EXPECT_TRUE(
      Contains(admissions,
               R"({"time":"2026-01-05T09:01:41Z","type":"Admitted","workload":"ns/b",)"
               R"("clusterQueue":"cq","podSets":[{"name":"main","flavors":{"cpu":"default"}}]})"))
      << admissions;
}

TEST(AuditImportTest, ImportedLogReplaysWithZeroDifferences) {
  ReplayHarness h;
  const std::string log = h.Write("audit.log", ConfigLines(-60) + WorkloadLines());
  engine::StatusOr<ImportOutput> out = ImportAuditLogs({{log}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::string manifests = h.Write("manifests.yaml", out->manifests);
  const std::string events = h.Write("events.jsonl", out->events);
  const std::string recorded = h.Write("admissions.jsonl", AdmissionsFile(*out));
  const testing::Outcome o = h.ReplayFiles(manifests, events, {});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_rejected, 0);
  EXPECT_EQ(o.report.workloads_admitted, 4);
  std::string decisions;
  for (const std::string& line : o.decisions) {
    decisions += line + "\n";
  }
  const std::string decisions_path = h.Write("decisions.jsonl", decisions);
  engine::StatusOr<AdmissionVerification> v = VerifyAdmissions(recorded, decisions_path);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->recorded, 4);
  EXPECT_EQ(v->replayed, 4);
  EXPECT_EQ(v->matched, 4);
  EXPECT_TRUE(v->differences.empty()) << FormatVerification(*v);

  // A bigger quota admits b at once: the check names the workload, the instants and the delta.
  std::string bigger = out->manifests;
  const size_t quota = bigger.find(R"("nominalQuota":"4")");
  ASSERT_NE(quota, std::string::npos);
  bigger.replace(quota, 18, R"("nominalQuota":"5")");
  const testing::Outcome o2 = h.ReplayFiles(h.Write("bigger.yaml", bigger), events, {});
  std::string decisions2;
  for (const std::string& line : o2.decisions) {
    decisions2 += line + "\n";
  }
  v = VerifyAdmissions(recorded, h.Write("decisions2.jsonl", decisions2));
  ASSERT_TRUE(v.ok());
  ASSERT_FALSE(v->differences.empty());
  EXPECT_TRUE(Contains(FormatVerification(*v),
                       "ns/b: admission 1: time: recorded 2026-01-05T09:01:41Z, tally "
                       "2026-01-05T09:00:05Z (-1m36s)"))
      << FormatVerification(*v);
}

// A name reused: "x" runs 0..30 s, finishes, is deleted at 60 s (dropped: a finished workload's
// end follows its runtime), and is created again at 90 s (admitted at once, runs 20 s). The replay
// forgets a workload once it finished and released its quota, so the second "x" is no duplicate.
// (Kueue's own Workload names carry a hash of the owner's UID: a recreated Job gets a new name.)
TEST(AuditImportTest, ANameCreatedAgainAfterItsFinishedWorkloadWasDeletedReplays) {
  std::string lines = ConfigLines(-60);
  auto add = [&](Line l) { lines += Render(l) + "\n"; };
  auto create = [&](double t) {
    Line l;
    l.t = t;
    l.ns = "ns";
    l.name = "x";
    l.request_object = WorkloadObject("x", "1");
    l.response_object = l.request_object;
    add(l);
  };
  auto status = [&](double t, double admitted_at, bool finished) {
    Line l;
    l.t = t;
    l.verb = "patch";
    l.ns = "ns";
    l.name = "x";
    l.subresource = "status";
    l.code = 200;
    l.request_object = R"({"status":{}})";
    l.response_object = WorkloadObject("x", "1", AdmittedStatus("1", Stamp(admitted_at), finished));
    add(l);
  };
  create(0);
  status(0, 0, false);
  status(30, 0, true);
  Line del;
  del.t = 60;
  del.verb = "delete";
  del.ns = "ns";
  del.name = "x";
  del.code = 200;
  add(del);
  create(90);
  status(90, 90, false);
  status(110, 90, true);

  ReplayHarness h;
  engine::StatusOr<ImportOutput> out = ImportAuditLogs({{h.Write("audit.log", lines)}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, out->counts.used + out->counts.skipped());
  EXPECT_FALSE(Contains(out->events, R"("type":"DELETED")")) << out->events;
  EXPECT_TRUE(Contains(out->events,
                       R"({"type":"ADDED","time":"2026-01-05T09:00:00Z","runtime":"30000000us")"))
      << out->events;
  EXPECT_TRUE(Contains(out->events,
                       R"({"type":"ADDED","time":"2026-01-05T09:01:30Z","runtime":"20000000us")"))
      << out->events;
  EXPECT_TRUE(std::any_of(out->notes.begin(), out->notes.end(), [](const std::string& n) {
    return Contains(n, "1 deletions of finished workloads dropped");
  }));

  const testing::Outcome o = h.ReplayFiles(h.Write("manifests.yaml", out->manifests),
                                           h.Write("events.jsonl", out->events), {});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_rejected, 0) << out->events;
  std::string decisions;
  for (const std::string& line : o.decisions) {
    decisions += line + "\n";
  }
  engine::StatusOr<AdmissionVerification> v = VerifyAdmissions(
      h.Write("admissions.jsonl", AdmissionsFile(*out)), h.Write("decisions.jsonl", decisions));
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->recorded, 2);
  EXPECT_EQ(v->matched, 2);
  EXPECT_TRUE(v->differences.empty()) << FormatVerification(*v);
}

TEST(AuditImportTest, OtherResourcesAreCountedButNeverCopied) {
  ReplayHarness h;
  Line secret;
  secret.resource = "secrets";
  secret.group = "";
  secret.ns = "ns";
  secret.request_object =
      R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"ns"},"data":{"password":"dGFsbHktY2FuYXJ5"},"stringData":{"token":"tally-canary-secret"}})";
  secret.response_object = secret.request_object;
  Line config_map = secret;
  config_map.resource = "configmaps";
  config_map.request_object =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"workloads","namespace":"ns"},"data":{"k":"tally-canary-configmap"}})";
  config_map.response_object = config_map.request_object;
  Line ns;
  ns.resource = "namespaces";
  ns.group = "";
  ns.request_object =
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns","labels":{"team":"a"},"annotations":{"secret":"tally-canary-annotation"}}})";
  ns.response_object = ns.request_object;
  const std::string log =
      h.Write("audit.log", Render(secret) + "\n" + Render(config_map) + "\n" + Render(ns) + "\n");
  engine::StatusOr<ImportOutput> out = ImportAuditLogs({{log}});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->counts.read, 3);
  EXPECT_EQ(out->counts.used, 1);
  EXPECT_EQ(out->counts.skipped_by_reason.at("other resource"), 2);
  EXPECT_TRUE(out->counts.first_errors.empty());
  for (const std::string* text : {&out->manifests, &out->events, &AdmissionsFile(*out)}) {
    EXPECT_FALSE(Contains(*text, "canary")) << *text;
    EXPECT_FALSE(Contains(*text, "dGFsbHktY2FuYXJ5")) << *text;
  }
  for (const std::string& note : out->notes) {
    EXPECT_FALSE(Contains(note, "canary")) << note;
  }
  // The namespace keeps its name and labels (namespaceSelectors match them), nothing else.
  EXPECT_TRUE(Contains(out->manifests,
                       R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns",)"
                       R"("labels":{"team":"a"}}})"))
      << out->manifests;
}

// Issue 23, finding 17: a line that is JSON but not an object (an array, a string, a number,
// null) is counted as "not JSON", as docs/import.md says, with the message that says so.
TEST(AuditImportTest, ArraysAndScalarsAreNotJsonObjects) {
  engine::StatusOr<ImportOutput> out =
      ImportAuditLogs({{"test/robustness/17-audit-array-or-scalar-line-skip-reason.log"}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 4);
  EXPECT_EQ(out->counts.skipped_by_reason, (std::map<std::string, int64_t>{{"not JSON", 4}}));
  ASSERT_FALSE(out->counts.first_errors.empty());
  EXPECT_NE(out->counts.first_errors[0].find(":1: not a JSON object"), std::string::npos)
      << out->counts.first_errors[0];
}

TEST(AuditImportTest, BadAndUselessLinesAreSkippedByReason) {
  ReplayHarness h;
  std::string log;
  Line ok;
  ok.ns = "ns";
  ok.name = "w";
  ok.request_object = WorkloadObject("w", "1");
  ok.response_object = ok.request_object;
  Line metadata_level = ok;
  metadata_level.level = "Metadata";
  metadata_level.request_object.clear();
  metadata_level.response_object.clear();
  Line failed = ok;
  failed.code = 409;
  Line get = ok;
  get.verb = "get";
  get.code = 200;
  Line unknown_version = ok;
  unknown_version.api_version = "audit.k8s.io/v2";
  Line nameless = ok;
  nameless.request_object = R"({"kind":"Workload","metadata":{}})";
  nameless.response_object = nameless.request_object;
  Line patch_request_level = ok;
  patch_request_level.verb = "patch";
  patch_request_level.code = 200;
  patch_request_level.level = "Request";
  patch_request_level.request_object = R"({"spec":{"active":false}})";
  patch_request_level.response_object.clear();
  Line cq_status = ok;
  cq_status.resource = "clusterqueues";
  cq_status.subresource = "status";
  cq_status.ns.clear();
  cq_status.name = "cq";
  cq_status.verb = "update";
  cq_status.code = 200;
  log += Render(ok) + "\n";
  Line duplicate = ok;
  duplicate.audit_id = fmt::format("a-{:06d}", audit_id_counter);  // the line just rendered
  log += Render(duplicate) + "\n";
  log += Render(metadata_level) + "\n" + Render(failed) + "\n" + Render(get) + "\n";
  log += Render(unknown_version) + "\n" + Render(nameless) + "\n";
  log += Render(patch_request_level) + "\n" + Render(cq_status) + "\n";
  log += "this is not json\n";
  log += R"({"kind":"Policy","apiVersion":"audit.k8s.io/v1"})"
         "\n";
  log += R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"x","stage":"ResponseCo)";
  engine::StatusOr<ImportOutput> out = ImportAuditLogs({{h.Write("audit.log", log)}});
  ASSERT_TRUE(out.ok());
  const std::map<std::string, int64_t> want = {
      {"duplicate event", 1},   {"no object", 2},          {"failed request", 1},
      {"read-only request", 1}, {"unknown apiVersion", 1}, {"object without name", 1},
      {"other subresource", 1}, {"not JSON", 2},           {"not an audit Event", 1}};
  EXPECT_EQ(out->counts.skipped_by_reason, want);
  EXPECT_EQ(out->counts.read, 12);
  EXPECT_EQ(out->counts.used, 1);
  EXPECT_EQ(out->counts.read, out->counts.used + out->counts.skipped());
  // Errors name file and line; the truncated last line is called out.
  bool truncated_named = false;
  bool metadata_named = false;
  for (const std::string& e : out->counts.first_errors) {
    truncated_named =
        truncated_named
        || (Contains(e, "audit.log:12: not a JSON object") && Contains(e, "truncated file"));
    metadata_named = metadata_named
                     || (Contains(e,
                                  "audit.log:3: create workloads: no "
                                  "responseObject or requestObject"));
  }
  EXPECT_TRUE(truncated_named);
  EXPECT_TRUE(metadata_named);
}

// Robustness finding 19: the logs are streamed; a line above the limit is counted as skipped
// (with its file:line) and never held, and the lines after it are read as usual.
TEST(AuditImportTest, ALineAboveTheLimitIsSkippedAndTheRestIsRead) {
  ReplayHarness h;
  Line ok;
  ok.ns = "ns";
  ok.name = "w";
  ok.request_object = WorkloadObject("w", "1");
  ok.response_object = ok.request_object;
  const std::string log = std::string(3 << 20, ' ') + "x\n" + Render(ok) + "\n";
  AuditImportOptions options{{h.Write("audit.log", log)}};
  options.max_line_bytes = size_t{1} << 20;
  engine::StatusOr<ImportOutput> out = ImportAuditLogs(options);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->counts.read, 2);
  EXPECT_EQ(out->counts.used, 1);
  EXPECT_EQ(out->counts.skipped_by_reason, (std::map<std::string, int64_t>{{"line too long", 1}}));
  ASSERT_EQ(out->counts.first_errors.size(), 1U);
  EXPECT_TRUE(Contains(out->counts.first_errors[0],
                       "audit.log:1: line longer than 1048576 bytes, skipped (--max-line-bytes)"))
      << out->counts.first_errors[0];
}

// Rotated files given newest first, with the older file's clock a little ahead: one order by
// stageTimestamp, and a truncated gzip file keeps the lines before the damage.
TEST(AuditImportTest, RotatedFilesAreMergedInTimeOrderAndTruncatedGzipIsKept) {
  ReplayHarness h;
  const std::string all = ConfigLines(-60) + WorkloadLines();
  std::vector<std::string> lines;
  for (size_t start = 0; start < all.size();) {
    const size_t nl = all.find('\n', start);
    lines.push_back(all.substr(start, nl + 1 - start));
    start = nl + 1;
  }
  ASSERT_EQ(lines.size(), 20u);
  std::string older;
  std::string newer;
  for (size_t i = 0; i < lines.size(); ++i) {
    (i < 12 ? older : newer) += lines[i];
  }
  const std::string one = h.Write("one.log", all);
  const std::string older_path = h.Write("audit-2026-01-05T09-01-00.000.log", older);
  const std::string newer_path = h.Write("audit.log", newer);
  engine::StatusOr<ImportOutput> whole = ImportAuditLogs({{one}});
  engine::StatusOr<ImportOutput> rotated = ImportAuditLogs({{newer_path, older_path}});
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE(rotated.ok());
  EXPECT_EQ(rotated->events, whole->events);
  EXPECT_EQ(rotated->manifests, whole->manifests);
  EXPECT_EQ(rotated->counts.used, whole->counts.used);
  bool noted = false;
  for (const std::string& n : rotated->notes) {
    noted = noted || Contains(n, "sorted by stageTimestamp");
  }
  EXPECT_TRUE(noted);
  // The same file twice: every line of the second copy is a duplicate, nothing doubles.
  engine::StatusOr<ImportOutput> twice = ImportAuditLogs({{one, one}});
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->events, whole->events);
  EXPECT_EQ(twice->counts.skipped_by_reason.at("duplicate event"), whole->counts.used);

  // gzip, cut in the middle of the stream.
  const std::filesystem::path gz = h.dir() / "audit.log.gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string big;
  for (int i = 0; i < 50; ++i) {
    big += all;
  }
  gzwrite(f, big.data(), static_cast<unsigned>(big.size()));
  gzclose(f);
  const auto size = std::filesystem::file_size(gz);
  std::filesystem::resize_file(gz, size / 2);
  engine::StatusOr<ImportOutput> cut = ImportAuditLogs({{gz.string()}});
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_GT(cut->counts.read, 20);
  EXPECT_EQ(cut->counts.read, cut->counts.used + cut->counts.skipped());
  bool damage_noted = false;
  for (const std::string& n : cut->notes) {
    damage_noted = damage_noted || Contains(n, "audit.log.gz:");
  }
  EXPECT_TRUE(damage_noted);
}

TEST(AuditImportTest, AWorkloadAlreadyAdmittedWhenFirstSeenStartsHoldingItsQuota) {
  ReplayHarness h;
  Line l;
  l.t = 30;
  l.verb = "patch";
  l.ns = "ns";
  l.name = "old";
  l.subresource = "status";
  l.code = 200;
  l.response_object = WorkloadObject("old", "4", AdmittedStatus("4", "2026-01-05T08:30:00Z"));
  Line finish = l;
  finish.t = 90;
  finish.response_object =
      WorkloadObject("old", "4", AdmittedStatus("4", "2026-01-05T08:30:00Z", true));
  const std::string log =
      h.Write("audit.log", ConfigLines(-60) + Render(l) + "\n" + Render(finish) + "\n");
  engine::StatusOr<ImportOutput> out = ImportAuditLogs({{log}});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(Contains(out->events, R"("runtime":"60000000us")")) << out->events;
  EXPECT_TRUE(Contains(out->events, R"("status":{"admission":{"clusterQueue":"cq")"))
      << out->events;
  // Its creation before the log is kept: queue order depends on it.
  EXPECT_TRUE(Contains(out->events, R"("creationTimestamp":"2026-01-05T08:00:00Z")"))
      << out->events;
  EXPECT_TRUE(AdmissionsFile(*out).empty());  // not an admission the replay makes
  const testing::Outcome o =
      h.ReplayFiles(h.Write("m.yaml", out->manifests), h.Write("e.jsonl", out->events), {});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_rejected, 0);
  EXPECT_EQ(o.report.workloads_initially_admitted, 1);
}

// The public real samples (test/audit/real/SOURCE.md): format variants of three API server
// generations. None holds a Kueue object; the counts are those of the files, by stage and kind.
TEST(AuditImportTest, RealPublicSamplesImportWithTheirCounts) {
  const std::string dir = std::string(TALLY_SOURCE_DIR) + "/test/audit/real/";
  engine::StatusOr<ImportOutput> v1 = ImportAuditLogs({{dir + "audit2rbac-demo-v1.log"}});
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  EXPECT_EQ(v1->counts.read, 37);
  EXPECT_EQ(v1->counts.used, 0);
  EXPECT_EQ(v1->counts.skipped_by_reason, (std::map<std::string, int64_t>{{"other resource", 37}}));

  engine::StatusOr<ImportOutput> v1beta1 =
      ImportAuditLogs({{dir + "audit2rbac-demo-v1beta1-full.log.gz"}});
  ASSERT_TRUE(v1beta1.ok()) << v1beta1.status().message();
  EXPECT_EQ(v1beta1->counts.read, 757);
  EXPECT_EQ(v1beta1->counts.skipped_by_reason,
            (std::map<std::string, int64_t>{{"other resource", 437},
                                            {"stage not ResponseComplete", 320}}));

  std::vector<std::string> falco;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "falco-k8s_audit")) {
    falco.push_back(entry.path().string());
  }
  std::sort(falco.begin(), falco.end());
  ASSERT_EQ(falco.size(), 46u);
  engine::StatusOr<ImportOutput> f = ImportAuditLogs({falco});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->counts.read, 51);
  // Namespace foo: created by three users (one auditID recorded twice) and deleted once.
  EXPECT_EQ(f->counts.used, 3);
  EXPECT_EQ(f->counts.skipped_by_reason.at("duplicate event"), 1);
  EXPECT_EQ(f->counts.read, f->counts.used + f->counts.skipped());
  bool missing_noted = false;
  for (const std::string& n : f->notes) {
    missing_noted = missing_noted || Contains(n, "38 lines without apiVersion");
  }
  EXPECT_TRUE(missing_noted);
  // The ConfigMaps' and Secrets' values never reach an output.
  for (const std::string* text : {&f->manifests, &f->events}) {
    EXPECT_FALSE(Contains(*text, "aws_secret_access_key")) << *text;
    EXPECT_FALSE(Contains(*text, "MY-KEY")) << *text;
  }
  EXPECT_TRUE(
      Contains(f->manifests, R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"foo"}})"))
      << f->manifests;
}

// The shipped audit policy records every resource the importer follows, with bodies, and no
// Secret or ConfigMap body.
TEST(AuditImportTest, ShippedAuditPolicyRecordsWhatTheImporterFollows) {
  const YAML::Node policy =
      YAML::LoadFile(std::string(TALLY_SOURCE_DIR) + "/data/audit/audit-policy.yaml");
  ASSERT_EQ(policy["kind"].as<std::string>(), "Policy");
  ASSERT_EQ(policy["apiVersion"].as<std::string>(), "audit.k8s.io/v1");
  // The level of the first rule matching (group, resource) for a write, as the API server does.
  auto level_of = [&](const std::string& group, const std::string& resource) {
    for (const YAML::Node& rule : policy["rules"]) {
      if (rule["verbs"]) {
        bool writes = false;
        for (const YAML::Node& v : rule["verbs"]) {
          writes = writes || v.as<std::string>() == "create";
        }
        if (!writes) {
          continue;
        }
      }
      if (!rule["resources"]) {
        return rule["level"].as<std::string>();
      }
      for (const YAML::Node& g : rule["resources"]) {
        if (g["group"].as<std::string>() != group) {
          continue;
        }
        for (const YAML::Node& r : g["resources"]) {
          if (r.as<std::string>() == resource) {
            return rule["level"].as<std::string>();
          }
        }
      }
    }
    return std::string("None");
  };
  const auto followed = FollowedAuditResources();
  ASSERT_EQ(followed.size(), 8u);
  for (const auto& [group, resource] : followed) {
    EXPECT_EQ(level_of(group, resource), "RequestResponse") << group << "/" << resource;
  }
  EXPECT_EQ(level_of("", "secrets"), "Metadata");
  EXPECT_EQ(level_of("", "configmaps"), "Metadata");
  EXPECT_EQ(level_of("", "pods"), "None");
}

// The shipped synthetic logs of gpu-day (test/audit/gpu-day/README.md), rotated, gzip, given
// newest first: the counts of the files, and zero differences between tally's decisions on the
// import and the admissions the logs recorded.
TEST(AuditImportTest, ShippedSyntheticLogOfGpuDayReplaysWithZeroDifferences) {
  const std::string dir = std::string(TALLY_SOURCE_DIR) + "/test/audit/gpu-day/";
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().string().ends_with(".log.gz")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.rbegin(), files.rend());
  ASSERT_EQ(files.size(), 3u);
  engine::StatusOr<ImportOutput> out = ImportAuditLogs({files});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->counts.read, 4431);
  EXPECT_EQ(out->counts.used, 942);
  EXPECT_EQ(out->counts.skipped_by_reason.at("stage not ResponseComplete"), 2239);
  EXPECT_EQ(out->counts.skipped_by_reason.at("failed request"), 64);
  EXPECT_EQ(out->counts.read, out->counts.used + out->counts.skipped());
  ReplayHarness h;
  const testing::Outcome o =
      h.ReplayFiles(h.Write("m.yaml", out->manifests), h.Write("e.jsonl", out->events), {});
  ASSERT_TRUE(o.completed);
  EXPECT_EQ(o.report.events_rejected, 0);
  std::string decisions;
  for (const std::string& line : o.decisions) {
    decisions += line + "\n";
  }
  engine::StatusOr<AdmissionVerification> v = VerifyAdmissions(
      h.Write("admissions.jsonl", AdmissionsFile(*out)), h.Write("d.jsonl", decisions));
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->recorded, 305);
  EXPECT_EQ(v->matched, 305);
  EXPECT_TRUE(v->differences.empty()) << FormatVerification(*v);
}

// Issue 23, finding 14: a recorded record whose type is not exactly "Admitted" is an error with
// its file:line, not a record skipped without a word.
TEST(AuditImportTest, ARecordedRecordOfAnotherTypeIsAnError) {
  ReplayHarness h;
  const std::string decisions = h.Write("d.jsonl", "");
  engine::StatusOr<AdmissionVerification> v = VerifyAdmissions(
      h.Write("a.jsonl",
              R"({"time":"2026-01-05T09:00:00Z","type":"Admitted","workload":"default/v"})"
              "\n"
              R"({"time":"2026-01-05T09:00:00Z","type":"admitted","workload":"default/w"})"
              "\n"),
      decisions);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(Contains(std::string(v.status().message()),
                       "a.jsonl:2: type: \"admitted\" is not \"Admitted\""))
      << v.status().message();
}

}  // namespace
}  // namespace replay
