// Tests of `tally audit-log` (replay/generate/audit_log_writer.h): on a small inline scenario
// replayed with the harness, the log is what kube-apiserver writes (every line an audit Event, both
// stages of every request, stageTimestamp order, microsecond timestamps), the Workload requests
// come at the decisions' instants with the decisions' admission, no runtime hint leaks, rotation
// loses no line, two runs give the same bytes, and the v1beta1 form has its extra fields.
#include "replay/generate/audit_log_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/generate/audit_log_objects.h"
#include "replay/io/time_parse.h"
#include "test/testing/replay_harness.h"

namespace replay {
namespace {

using testing::Added;
using testing::Event;
using testing::ReplayHarness;
using testing::WorkloadJson;

// One audit line, the fields the tests look at.
struct Line {
  std::string text;
  std::string api_version;
  std::string level;
  std::string audit_id;
  std::string stage;
  std::string verb;
  std::string uri;
  std::string user;
  std::string resource;
  std::string namespace_name;
  std::string name;
  std::string subresource;
  bool has_namespace = false;
  bool has_request = false;
  bool has_response = false;
  int64_t code = 0;  // 0: no responseStatus
  std::string received;
  std::string stage_time;
  std::string response;  // minified responseObject
  std::string request;   // minified requestObject
};

std::string Field(simdjson::dom::element e, std::string_view key) {
  std::string_view v;
  return e[key].get_string().get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

// Parses every line; a line that is not an audit Event fails the test.
std::vector<Line> Parse(const std::vector<std::string>& lines) {
  simdjson::dom::parser parser;
  std::vector<Line> out;
  for (const std::string& text : lines) {
    simdjson::dom::element e;
    EXPECT_EQ(parser.parse(text).get(e), simdjson::SUCCESS) << text;
    if (!e.is_object()) {
      ADD_FAILURE() << "not an object: " << text;
      continue;
    }
    Line l;
    l.text = text;
    EXPECT_EQ(Field(e, "kind"), "Event");
    l.api_version = Field(e, "apiVersion");
    l.level = Field(e, "level");
    l.audit_id = Field(e, "auditID");
    l.stage = Field(e, "stage");
    l.verb = Field(e, "verb");
    l.uri = Field(e, "requestURI");
    l.user = Field(e["user"].value_unsafe(), "username");
    simdjson::dom::element ref;
    EXPECT_EQ(e["objectRef"].get(ref), simdjson::SUCCESS) << text;
    l.resource = Field(ref, "resource");
    l.has_namespace = ref["namespace"].error() == simdjson::SUCCESS;
    l.namespace_name = Field(ref, "namespace");
    l.name = Field(ref, "name");
    l.subresource = Field(ref, "subresource");
    simdjson::dom::element status;
    if (e["responseStatus"].get(status) == simdjson::SUCCESS) {
      EXPECT_EQ(status["code"].get_int64().get(l.code), simdjson::SUCCESS);
    }
    simdjson::dom::element object;
    l.has_request = e["requestObject"].get(object) == simdjson::SUCCESS;
    if (l.has_request) {
      l.request = simdjson::minify(object);
    }
    l.has_response = e["responseObject"].get(object) == simdjson::SUCCESS;
    if (l.has_response) {
      l.response = simdjson::minify(object);
    }
    l.received = Field(e, "requestReceivedTimestamp");
    l.stage_time = Field(e, "stageTimestamp");
    out.push_back(std::move(l));
  }
  return out;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// "2026-01-01T00:00:01.500000Z": the API server's MicroTime of kT0 + `micros`.
std::string Micro(int64_t micros) {
  std::string t = FormatRfc3339(testing::kT0 + micros);  // "...:00Z" for whole seconds
  if (t.size() == 20) {
    t.insert(19, ".000000");
  }
  return t;
}

constexpr int64_t kSecond = 1'000'000;

constexpr const char* kKueue = "system:serviceaccount:kueue-system:kueue-controller-manager";

// A ClusterQueue of 4 cpu that preempts lower priorities, a Namespace, a List with a spare
// flavor. a (3 cpu) is admitted at 0 and preempted at 1.5 by b (2 cpu, higher priority); the
// quota grows to 8 at 10 and a is admitted again; b is deleted at 20; c arrives at 30.25 (a
// numeric time) already admitted; the spare flavor is deleted at 200; a finishes at 110.
class AuditLogWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string more = R"(---
apiVersion: v1
kind: Namespace
metadata: {name: ns, labels: {team: a}}
---
apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ResourceFlavor
  metadata: {name: spare}
)";
    const std::string cq8 =
        R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq"},)"
        R"("spec":{"namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":)"
        R"([{"name":"default","resources":[{"name":"cpu","nominalQuota":"8"}]}]}],)"
        R"("preemption":{"withinClusterQueue":"LowerPriority"}}})";
    const std::string admitted_c =
        R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"c",)"
        R"("namespace":"ns"},"spec":{"queueName":"lq","podSets":[{"name":"main","count":1,)"
        R"("template":{"spec":{"containers":[{"name":"c","resources":{"requests":)"
        R"({"cpu":"1"}}}]}}}]},)"
        R"("status":{"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main",)"
        R"("flavors":{"cpu":"default"},"resourceUsage":{"cpu":"1"},"count":1}]},"conditions":[)"
        R"({"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"m",)"
        R"("lastTransitionTime":"2026-01-01T00:00:25Z"}]}})";
    const std::vector<std::string> events = {
        R"({"format":"tally.events","version":1})",
        Added(0, WorkloadJson("a", "3"), "100s"),
        Added(1.5, WorkloadJson("b", "2", 10), "1000s"),
        Event("MODIFIED", 10, cq8),
        Event("DELETED", 20, WorkloadJson("b", "2", 10)),
        fmt::format(R"({{"type":"ADDED","time":{}.25,"runtime":"50s","object":{}}})",
                    testing::kT0 / 1'000'000 + 30, admitted_c),
        Event("DELETED", 200,
              R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor",)"
              R"("metadata":{"name":"spare"}})"),
    };
    const testing::Outcome o = h_.Replay(
        testing::Manifests("4", "  preemption: {withinClusterQueue: LowerPriority}", more), events);
    ASSERT_TRUE(o.completed);
    ASSERT_EQ(o.report.events_rejected, 0);
    std::string decisions;
    for (const std::string& d : o.decisions) {
      decisions += d + "\n";
    }
    options_.manifests = {(h_.dir() / "manifests.yaml").string()};
    options_.events = (h_.dir() / "events.jsonl").string();
    options_.decisions = h_.Write("decisions.jsonl", decisions);
  }

  std::vector<std::string> Make(const AuditLogOptions& options) {
    engine::StatusOr<AuditLog> log = MakeAuditLog(options);
    EXPECT_TRUE(log.ok()) << log.status().message();
    return log.ok() ? log->lines : std::vector<std::string>();
  }

  // The ResponseComplete lines of one verb on one object.
  static std::vector<Line> Requests(const std::vector<Line>& lines, std::string_view verb,
                                    std::string_view resource, std::string_view name,
                                    std::string_view subresource = "") {
    std::vector<Line> out;
    for (const Line& l : lines) {
      if (l.stage == "ResponseComplete" && l.verb == verb && l.resource == resource
          && (l.name == name
              || (verb == "create"
                  && Contains(l.request, fmt::format(R"("metadata":{{"name":"{}")", name))))
          && l.subresource == subresource) {
        out.push_back(l);
      }
    }
    return out;
  }

  ReplayHarness h_;
  AuditLogOptions options_;
};

TEST_F(AuditLogWriterTest, EveryLineIsAnAuditEventWithBothStagesInTimeOrder) {
  const std::vector<Line> lines = Parse(Make(options_));
  ASSERT_FALSE(lines.empty());
  std::map<std::string, std::vector<const Line*>> by_id;
  std::string previous;
  for (const Line& l : lines) {
    EXPECT_EQ(l.api_version, "audit.k8s.io/v1");
    EXPECT_FALSE(l.user.empty());
    // Exactly six fractional digits and Z.
    ASSERT_EQ(l.stage_time.size(), 27u) << l.stage_time;
    EXPECT_EQ(l.stage_time[19], '.');
    EXPECT_EQ(l.stage_time.back(), 'Z');
    EXPECT_GE(l.stage_time, previous) << "lines out of stageTimestamp order";
    EXPECT_LE(l.received, l.stage_time);
    previous = l.stage_time;
    by_id[l.audit_id].push_back(&l);
  }
  int64_t complete = 0;
  for (const auto& [id, stages] : by_id) {
    ASSERT_GE(stages.size(), 2u) << id;
    const Line& first = *stages.front();
    const Line& last = *stages.back();
    EXPECT_EQ(first.stage, "RequestReceived");
    EXPECT_EQ(first.code, 0) << first.text;
    EXPECT_FALSE(first.has_response);
    EXPECT_FALSE(first.has_request);
    EXPECT_EQ(first.received, first.stage_time);
    EXPECT_EQ(last.stage, "ResponseComplete");
    EXPECT_NE(last.code, 0);
    EXPECT_EQ(last.received, first.received);
    EXPECT_EQ(last.verb, first.verb);
    EXPECT_EQ(last.uri, first.uri);
    if (stages.size() == 3) {
      EXPECT_EQ(stages[1]->stage, "ResponseStarted");
      EXPECT_EQ(last.verb, "watch");
    }
    ++complete;
  }
  engine::StatusOr<AuditLog> log = MakeAuditLog(options_);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->requests, complete);
}

TEST_F(AuditLogWriterTest, ManifestsAreCreatedByTheAdminAMinuteBeforeTheFirstEvent) {
  AuditLogOptions quiet = options_;
  quiet.noise = false;
  const std::vector<Line> lines = Parse(Make(quiet));
  std::vector<const Line*> creates;
  for (const Line& l : lines) {
    if (l.stage == "ResponseComplete" && l.user == "kubernetes-admin" && l.verb == "create") {
      creates.push_back(&l);
    }
  }
  // Flavor, ClusterQueue, LocalQueue, Namespace, the List's flavor: 1 ms apart from T0 - 60 s.
  ASSERT_EQ(creates.size(), 5u);
  const char* resources[] = {"resourceflavors", "clusterqueues", "localqueues", "namespaces",
                             "resourceflavors"};
  for (size_t i = 0; i < creates.size(); ++i) {
    EXPECT_EQ(creates[i]->resource, resources[i]);
    EXPECT_EQ(creates[i]->code, 201);
    EXPECT_EQ(creates[i]->stage_time, Micro(-60 * kSecond + 1000 * static_cast<int64_t>(i)));
  }
  EXPECT_EQ(creates[1]->uri,
            "/apis/kueue.x-k8s.io/v1beta2/"
            "clusterqueues?fieldManager=kubectl-client-side-apply&fieldValidation=Strict");
  EXPECT_FALSE(creates[1]->has_namespace);  // cluster-scoped
  EXPECT_EQ(creates[2]->uri,
            "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/"
            "localqueues?fieldManager=kubectl-client-side-apply&fieldValidation=Strict");
  EXPECT_EQ(creates[2]->namespace_name, "ns");
  EXPECT_TRUE(
      Contains(creates[3]->text, R"("objectRef":{"resource":"namespaces","apiVersion":"v1"})"))
      << creates[3]->text;
  EXPECT_TRUE(Contains(creates[3]->response, R"("kubernetes.io/metadata.name":"ns")"));
  // Server fields of a stored object.
  const std::string managed =
      R"("managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update")";
  for (const std::string& field :
       {std::string(R"("uid":")"), std::string(R"("resourceVersion":")"),
        std::string(R"("generation":1)"),
        std::string(R"("creationTimestamp":"2025-12-31T23:59:00Z")"), managed,
        std::string(R"("fieldsType":"FieldsV1","fieldsV1":{)")}) {
    EXPECT_TRUE(Contains(creates[1]->response, field)) << field << "\n" << creates[1]->response;
  }
  // The configuration events: an update of the ClusterQueue, a delete of the spare flavor.
  const std::vector<Line> update = Requests(lines, "update", "clusterqueues", "cq");
  ASSERT_EQ(update.size(), 1u);
  EXPECT_EQ(update[0].stage_time, Micro(10 * kSecond));
  EXPECT_EQ(update[0].user, "kubernetes-admin");
  EXPECT_TRUE(Contains(update[0].request, R"("nominalQuota":"8")"));
  EXPECT_TRUE(Contains(update[0].response, R"("generation":2)"));
  const std::vector<Line> del = Requests(lines, "delete", "resourceflavors", "spare");
  ASSERT_EQ(del.size(), 1u);
  EXPECT_EQ(del[0].stage_time, Micro(200 * kSecond));
  EXPECT_EQ(del[0].code, 200);
}

TEST_F(AuditLogWriterTest, WorkloadRequestsFollowTheEventsAndDecisions) {
  AuditLogOptions quiet = options_;
  quiet.noise = false;
  const std::vector<Line> lines = Parse(Make(quiet));
  // a: created by Kueue's service account at 0, no status in the create.
  const std::vector<Line> create = Requests(lines, "create", "workloads", "a");
  ASSERT_EQ(create.size(), 1u);
  EXPECT_EQ(create[0].user, kKueue);
  EXPECT_EQ(create[0].code, 201);
  EXPECT_EQ(create[0].stage_time, Micro(0));
  EXPECT_EQ(create[0].uri, "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/workloads");
  EXPECT_FALSE(Contains(create[0].request, R"("status")"));
  EXPECT_FALSE(Contains(create[0].response, R"("status")"));

  // a's status patches: admitted at 0, evicted and requeued at 1.5, admitted at 10, finished at
  // 110.
  const std::vector<Line> patches = Requests(lines, "patch", "workloads", "a", "status");
  ASSERT_EQ(patches.size(), 5u);
  const int64_t times[] = {0, 1'500'000, 1'500'000, 10 * kSecond, 110 * kSecond};
  for (size_t i = 0; i < patches.size(); ++i) {
    EXPECT_EQ(patches[i].stage_time, Micro(times[i]));
    EXPECT_EQ(patches[i].code, 200);
    EXPECT_EQ(patches[i].user, kKueue);
    EXPECT_EQ(patches[i].uri,
              "/apis/kueue.x-k8s.io/v1beta2/namespaces/ns/workloads/a/"
              "status?fieldManager=kueue-admission&force=true");
    EXPECT_TRUE(Contains(patches[i].request, R"("status":{)"));
  }
  const std::string admission =
      R"("admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":)"
      R"({"cpu":"default"},"resourceUsage":{"cpu":"3"},"count":1}]})";
  EXPECT_TRUE(Contains(patches[0].response, admission)) << patches[0].response;
  EXPECT_TRUE(Contains(patches[0].request, admission));
  EXPECT_TRUE(Contains(patches[0].response,
                       R"({"type":"QuotaReserved","status":"True","observedGeneration":1,)"
                       R"("lastTransitionTime":"2026-01-01T00:00:00Z","reason":"QuotaReserved",)"
                       R"("message":"Quota reserved in ClusterQueue cq"})"));
  EXPECT_TRUE(Contains(patches[0].response,
                       R"({"type":"Admitted","status":"True","observedGeneration":1,)"
                       R"("lastTransitionTime":"2026-01-01T00:00:00Z","reason":"Admitted")"));
  EXPECT_TRUE(Contains(patches[0].response, R"("manager":"kueue-admission","operation":"Apply")"));
  EXPECT_TRUE(Contains(patches[0].response, R"("subresource":"status")"));
  EXPECT_TRUE(Contains(patches[1].response, R"({"type":"Evicted","status":"True")"));
  EXPECT_TRUE(Contains(patches[1].response, R"("reason":"Preempted")"));
  EXPECT_TRUE(Contains(patches[1].response, admission));  // kept until the quota is released
  EXPECT_FALSE(Contains(patches[2].response, R"("admission")"));
  EXPECT_TRUE(Contains(patches[2].response,
                       R"({"type":"QuotaReserved","status":"False","observedGeneration":1,)"
                       R"("lastTransitionTime":"2026-01-01T00:00:01Z","reason":"Pending")"));
  EXPECT_TRUE(Contains(patches[2].response, R"({"type":"Admitted","status":"False")"));
  EXPECT_TRUE(Contains(patches[3].response, admission));
  EXPECT_TRUE(Contains(patches[3].response, R"({"type":"Evicted","status":"False")"));
  EXPECT_TRUE(Contains(patches[4].response,
                       R"({"type":"Finished","status":"True","observedGeneration":1,)"
                       R"("lastTransitionTime":"2026-01-01T00:01:50Z","reason":"Succeeded",)"
                       R"("message":"Job finished successfully"})"));
  // resourceVersions increase along the object's history.
  std::vector<int64_t> versions;
  for (const Line& l : patches) {
    const size_t at = l.response.find(R"("resourceVersion":")");
    ASSERT_NE(at, std::string::npos);
    versions.push_back(std::stoll(l.response.substr(at + 19)));
  }
  EXPECT_TRUE(std::is_sorted(versions.begin(), versions.end()));

  // b: admitted at 1.5 with 2 cpu, deleted at 20 with its last state and a deletionTimestamp.
  const std::vector<Line> b_patches = Requests(lines, "patch", "workloads", "b", "status");
  ASSERT_EQ(b_patches.size(), 1u);
  EXPECT_TRUE(Contains(b_patches[0].response, R"("resourceUsage":{"cpu":"2"})"));
  const std::vector<Line> del = Requests(lines, "delete", "workloads", "b");
  ASSERT_EQ(del.size(), 1u);
  EXPECT_EQ(del[0].stage_time, Micro(20 * kSecond));
  EXPECT_EQ(del[0].code, 200);
  EXPECT_TRUE(Contains(del[0].response, R"("deletionTimestamp":"2026-01-01T00:00:20Z")"));
  EXPECT_TRUE(Contains(del[0].response, R"("resourceUsage":{"cpu":"2"})"));

  // c was created admitted: the create has no status, a status patch 1 ms later carries it.
  const std::vector<Line> c_create = Requests(lines, "create", "workloads", "c");
  ASSERT_EQ(c_create.size(), 1u);
  EXPECT_EQ(c_create[0].stage_time, Micro(30'250'000));
  EXPECT_FALSE(Contains(c_create[0].request, R"("status")"));
  const std::vector<Line> c_patches = Requests(lines, "patch", "workloads", "c", "status");
  ASSERT_EQ(c_patches.size(), 2u);  // its admission, then Finished 50 s after its arrival
  EXPECT_EQ(c_patches[0].stage_time, Micro(30'251'000));
  EXPECT_TRUE(Contains(c_patches[0].response, R"("resourceUsage":{"cpu":"1"})"));
  EXPECT_TRUE(Contains(c_patches[0].response, R"("lastTransitionTime":"2026-01-01T00:00:25Z")"));
  EXPECT_EQ(c_patches[1].stage_time, Micro(80'250'000));

  // No runtime hint anywhere, and without noise only the admin and Kueue.
  for (const Line& l : lines) {
    EXPECT_FALSE(Contains(l.text, "runtime")) << l.text;
    EXPECT_TRUE(l.user == "kubernetes-admin" || l.user == kKueue) << l.text;
    EXPECT_NE(l.code, 409);
  }
}

// gpu-day replayed, and the log of its decisions (computed once).
const std::vector<Line>& GpuDayLog() {
  static const std::vector<Line> lines = [] {
    ReplayHarness h;
    const std::string dir = std::string(TALLY_SOURCE_DIR) + "/data/replay/gpu-day/";
    const testing::Outcome o =
        h.ReplayFiles(dir + "manifests.yaml", dir + "events.jsonl.gz", SimulatorOptions{});
    EXPECT_TRUE(o.completed);
    std::string decisions;
    for (const std::string& d : o.decisions) {
      decisions += d + "\n";
    }
    AuditLogOptions options;
    options.manifests = {dir + "manifests.yaml"};
    options.events = dir + "events.jsonl.gz";
    options.decisions = h.Write("decisions.jsonl", decisions);
    engine::StatusOr<AuditLog> log = MakeAuditLog(options);
    EXPECT_TRUE(log.ok()) << log.status().message();
    return log.ok() ? Parse(log->lines) : std::vector<Line>();
  }();
  return lines;
}

TEST_F(AuditLogWriterTest, NoiseAddsUnrelatedTrafficTheImporterMustSkip) {
  const std::vector<Line> lines = Parse(Make(options_));
  int64_t leases = 0;
  int64_t metadata_workloads = 0;
  int64_t canaries = 0;
  int64_t forbidden = 0;
  for (const Line& l : lines) {
    if (l.stage != "ResponseComplete") {
      continue;
    }
    if (l.resource == "leases") {
      ++leases;
      EXPECT_EQ(l.level, "Metadata");
      EXPECT_FALSE(l.has_request || l.has_response);
    }
    if (l.resource == "workloads" && l.level == "Metadata") {
      ++metadata_workloads;
      EXPECT_FALSE(l.has_request || l.has_response) << l.text;
    }
    if ((l.resource == "secrets" || l.resource == "configmaps")
        && Contains(l.text, "tally-canary")) {
      ++canaries;
      EXPECT_EQ(l.level, "RequestResponse");
    }
    if (l.code == 403) {
      ++forbidden;
      EXPECT_EQ(l.user, "system:anonymous");
      EXPECT_TRUE(Contains(l.text, R"("reason":"Forbidden")"));
    }
  }
  // Few requests in this scenario: the counts depend on the seed; at least the lease renewals.
  EXPECT_GT(leases, 0);
  EXPECT_GE(leases + metadata_workloads + canaries + forbidden, 3);
  // A long scenario has all of them.
  std::map<std::string, int64_t> seen;
  for (const Line& l : GpuDayLog()) {
    if (l.stage != "ResponseComplete") {
      continue;
    }
    seen[fmt::format("{} {} {}", l.verb, l.resource, l.code)]++;
    if (Contains(l.text, "tally-canary-secret") || Contains(l.text, "dGFsbHktY2FuYXJ5")) {
      seen["secret canary"]++;
    }
  }
  EXPECT_GT(seen["update leases 200"], 0);
  EXPECT_GT(seen["create secrets 201"], 0);
  EXPECT_GT(seen["create configmaps 201"], 0);
  EXPECT_GT(seen["secret canary"], 0);
  EXPECT_GT(seen["list clusterqueues 403"] + seen["list workloads 403"], 0);
  EXPECT_GT(seen["watch pods 200"] + seen["watch workloads 200"], 0);
  EXPECT_GT(seen["get workloads 200"], 0);
}

TEST_F(AuditLogWriterTest, AConflictPrecedesASuccessfulStatusPatch) {
  // Status patches of gpu-day's replay: about every tenth is preceded by a 409 on the same
  // workload.
  const std::vector<Line>& lines = GpuDayLog();
  int64_t conflicts = 0;
  std::map<std::string, const Line*> open;  // workload -> its unanswered 409
  for (const Line& l : lines) {
    if (l.stage != "ResponseComplete" || l.subresource != "status") {
      continue;
    }
    const std::string key = l.namespace_name + "/" + l.name;
    if (l.code == 409) {
      ++conflicts;
      EXPECT_TRUE(Contains(l.text, R"("status":"Failure")"));
      EXPECT_TRUE(Contains(l.text, R"("reason":"Conflict")"));
      EXPECT_FALSE(l.has_response);
      open[key] = &l;
    } else if (auto it = open.find(key); it != open.end()) {
      EXPECT_EQ(l.code, 200);
      EXPECT_LT(it->second->stage_time, l.stage_time);
      open.erase(it);
    }
  }
  EXPECT_GT(conflicts, 10);
  EXPECT_TRUE(open.empty());
}

TEST_F(AuditLogWriterTest, SameInputsAndSeedGiveTheSameBytes) {
  const std::vector<std::string> one = Make(options_);
  const std::vector<std::string> two = Make(options_);
  EXPECT_EQ(one, two);
  AuditLogOptions other = options_;
  other.seed = 2;
  EXPECT_NE(Make(other), one);
}

TEST_F(AuditLogWriterTest, RotationSplitsFilesAsTheApiServerNamesThemAndLosesNoLine) {
  engine::StatusOr<AuditLog> log = MakeAuditLog(options_);
  ASSERT_TRUE(log.ok());
  const std::filesystem::path dir = h_.dir() / "logs";
  std::filesystem::create_directories(dir);
  const size_t per_file = 7;
  engine::StatusOr<std::vector<std::string>> files =
      WriteAuditLog(*log, (dir / "audit.log").string(), static_cast<int64_t>(per_file));
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), (log->lines.size() + per_file - 1) / per_file);
  EXPECT_EQ(files->back(), (dir / "audit.log").string());
  // Older parts: audit-YYYY-MM-DDTHH-MM-SS.mmm.log, names in time order, all distinct.
  std::vector<std::string> names;
  for (size_t i = 0; i + 1 < files->size(); ++i) {
    const std::string name = std::filesystem::path((*files)[i]).filename().string();
    ASSERT_EQ(name.size(), std::string("audit-2026-01-01T00-00-00.000.log").size()) << name;
    EXPECT_TRUE(name.starts_with("audit-20")) << name;
    EXPECT_EQ(name[16], 'T');
    EXPECT_EQ(name.find(':'), std::string::npos);
    names.push_back(name);
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  std::string joined;
  for (const std::string& f : *files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    joined += text.str();
  }
  std::string whole;
  for (const std::string& l : log->lines) {
    whole += l + "\n";
  }
  EXPECT_EQ(joined, whole);
  // Without rotation: one file.
  files = WriteAuditLog(*log, (dir / "one.log").string(), 0);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 1u);
}

TEST_F(AuditLogWriterTest, V1beta1HasTimestampAndMetadata) {
  AuditLogOptions old = options_;
  old.api_version = "audit.k8s.io/v1beta1";
  const std::vector<Line> lines = Parse(Make(old));
  ASSERT_FALSE(lines.empty());
  for (const Line& l : lines) {
    EXPECT_EQ(l.api_version, "audit.k8s.io/v1beta1");
    const std::string seconds = l.stage_time.substr(0, 19) + "Z";
    EXPECT_TRUE(
        Contains(l.text, fmt::format(R"("metadata":{{"creationTimestamp":"{}"}})", seconds)))
        << l.text;
    EXPECT_TRUE(Contains(l.text, fmt::format(R"("timestamp":"{}")", seconds))) << l.text;
  }
  old.api_version = "audit.k8s.io/v2";
  EXPECT_FALSE(MakeAuditLog(old).ok());
}

TEST(AuditLogQuantityTest, UsageIsWrittenAsKubernetesQuantities) {
  EXPECT_EQ(internal::QuantityString("cpu", 16000), "16");
  EXPECT_EQ(internal::QuantityString("cpu", 500), "500m");
  EXPECT_EQ(internal::QuantityString("cpu", 1500), "1500m");
  EXPECT_EQ(internal::QuantityString("memory", 137438953472), "128Gi");
  EXPECT_EQ(internal::QuantityString("memory", 1610612736), "1536Mi");
  EXPECT_EQ(internal::QuantityString("memory", 1000), "1000");
  EXPECT_EQ(internal::QuantityString("nvidia.com/gpu", 2048), "2048");
  EXPECT_EQ(internal::QuantityString("memory", 0), "0");
}

}  // namespace
}  // namespace replay
