#include "replay/audit_log_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <random>

#include <simdjson.h>

#include "replay/import_common.h"
#include "replay/manifest_loader.h"
#include "replay/text_file.h"
#include "replay/time_parse.h"

#include <yaml-cpp/yaml.h>

namespace replay {
namespace {

constexpr int64_t kMillis = 1000;
constexpr const char* kAdmin =
    R"({"username":"kubernetes-admin","groups":["kubeadm:cluster-admins","system:authenticated"]})";
constexpr const char* kKueue =
    R"({"username":"system:serviceaccount:kueue-system:kueue-controller-manager","uid":"4f1c2b7e-6a51-4e0e-9d3a-0c1f2e3d4b5a","groups":["system:serviceaccounts","system:serviceaccounts:kueue-system","system:authenticated"]})";

std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The API server's timestamps: microseconds, always six digits.
std::string MicroTime(int64_t micros) {
  std::string t = FormatRfc3339(micros - micros % 1'000'000);
  t.pop_back();  // 'Z'
  return fmt::format("{}.{:06d}Z", t, micros % 1'000'000);
}
// Conditions and creationTimestamp: whole seconds, as metav1.Time serialises.
std::string SecondTime(int64_t micros) {
  return FormatRfc3339(micros - micros % 1'000'000);
}

bool LooksLikeJsonLiteral(const std::string& s) {
  if (s == "true" || s == "false" || s == "null") {
    return true;
  }
  size_t i = s.empty() || s[0] != '-' ? 0 : 1;
  bool digits = false;
  bool dot = false;
  for (; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') {
      digits = true;
    } else if (s[i] == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digits && s[0] != '.' && s.back() != '.' && !(s.size() > 1 && s[0] == '0' && !dot);
}

// A YAML node as JSON: quoted scalars stay strings, plain numbers and booleans stay literals.
std::string YamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      std::string out = "{";
      for (const auto& kv : n) {
        out += fmt::format("{}{}:{}", out.size() > 1 ? "," : "", Quoted(kv.first.Scalar()),
                           YamlToJson(kv.second));
      }
      return out + "}";
    }
    case YAML::NodeType::Sequence: {
      std::string out = "[";
      for (const auto& item : n) {
        out += fmt::format("{}{}", out.size() > 1 ? "," : "", YamlToJson(item));
      }
      return out + "]";
    }
    case YAML::NodeType::Scalar:
      return n.Tag() != "!" && LooksLikeJsonLiteral(n.Scalar()) ? n.Scalar() : Quoted(n.Scalar());
    default:
      return "null";
  }
}

std::string_view Str(simdjson::dom::element e, std::string_view key) {
  std::string_view v;
  return e[key].get_string().get(v) == simdjson::SUCCESS ? v : std::string_view();
}

// The plural resource and API group of a kind, as in objectRef.
struct ResourceRef {
  std::string resource;
  std::string group;
  bool namespaced = false;
};
bool ResourceOf(std::string_view kind, ResourceRef& out) {
  static const std::map<std::string_view, ResourceRef, std::less<>> kinds = {
      {"Workload", {"workloads", "kueue.x-k8s.io", true}},
      {"ClusterQueue", {"clusterqueues", "kueue.x-k8s.io", false}},
      {"Cohort", {"cohorts", "kueue.x-k8s.io", false}},
      {"LocalQueue", {"localqueues", "kueue.x-k8s.io", true}},
      {"ResourceFlavor", {"resourceflavors", "kueue.x-k8s.io", false}},
      {"WorkloadPriorityClass", {"workloadpriorityclasses", "kueue.x-k8s.io", false}},
      {"AdmissionCheck", {"admissionchecks", "kueue.x-k8s.io", false}},
      {"Namespace", {"namespaces", "", false}}};
  auto it = kinds.find(kind);
  if (it == kinds.end()) {
    return false;
  }
  out = it->second;
  return true;
}

struct Condition {
  std::string status;
  std::string reason;
  std::string message;
  int64_t micros = 0;
};

// A stored object: what the API server returns.
struct StoredObject {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string namespace_name;
  std::string labels;  // JSON object or ""
  std::string body;    // the top-level fields besides apiVersion, kind, metadata, status: ",k:v..."
  std::string uid;
  int64_t created = 0;
  int64_t generation = 1;
  // Workloads.
  std::string admission;  // JSON or ""
  std::map<std::string, Condition> conditions;
};

class AuditLogBuilder {
 public:
  explicit AuditLogBuilder(const AuditLogOptions& options)
      : options_(options), rng_(options.seed) {}

  AuditLog& log() { return log_; }

  // An object from a manifest or an event: its JSON.
  engine::Status Parse(std::string_view json, StoredObject& o) {
    simdjson::dom::element e;
    if (parser_.parse(json).get(e) != simdjson::SUCCESS || !e.is_object()) {
      return engine::InvalidArgument("object is not JSON");
    }
    o.api_version = std::string(Str(e, "apiVersion"));
    o.kind = std::string(Str(e, "kind"));
    simdjson::dom::element meta = e["metadata"];
    o.name = std::string(Str(meta, "name"));
    o.namespace_name = std::string(Str(meta, "namespace"));
    simdjson::dom::object labels;
    o.labels = meta["labels"].get_object().get(labels) == simdjson::SUCCESS
                   ? simdjson::minify(labels)
                   : "";
    o.body.clear();
    simdjson::dom::object fields;
    if (e.get_object().get(fields) == simdjson::SUCCESS) {
      for (auto [key, value] : fields) {
        if (key != "apiVersion" && key != "kind" && key != "metadata" && key != "status") {
          o.body += fmt::format(",{}:{}", Quoted(key), simdjson::minify(value));
        }
      }
    }
    return engine::Status::Ok();
  }

  // The object as sent by a client (no server fields).
  static std::string ClientObject(const StoredObject& o) {
    std::string meta = fmt::format(R"("name":{})", Quoted(o.name));
    if (!o.namespace_name.empty()) {
      meta += fmt::format(R"(,"namespace":{})", Quoted(o.namespace_name));
    }
    if (!o.labels.empty()) {
      meta += fmt::format(R"(,"labels":{})", o.labels);
    }
    return fmt::format(R"({{"apiVersion":{},"kind":{},"metadata":{{{}}}{}}})",
                       Quoted(o.api_version), Quoted(o.kind), meta, o.body);
  }

  // The object as stored: uid, resourceVersion, generation, creationTimestamp, managedFields.
  std::string Stored(const StoredObject& o, int64_t now, const std::string& manager,
                     int64_t deleted = -1) {
    std::string meta = fmt::format(R"("name":{})", Quoted(o.name));
    if (!o.namespace_name.empty()) {
      meta += fmt::format(R"(,"namespace":{})", Quoted(o.namespace_name));
    }
    meta += fmt::format(
        R"(,"uid":"{}","resourceVersion":"{}","generation":{},"creationTimestamp":"{}")", o.uid,
        ++resource_version_, o.generation, SecondTime(o.created));
    if (deleted >= 0) {
      meta += fmt::format(R"(,"deletionTimestamp":"{}","deletionGracePeriodSeconds":0)",
                          SecondTime(deleted));
    }
    if (!o.labels.empty()) {
      meta += fmt::format(R"(,"labels":{})", o.labels);
    }
    meta += fmt::format(
        R"(,"managedFields":[{{"manager":"{}","operation":"Update","apiVersion":{},"time":"{}",)"
        R"("fieldsType":"FieldsV1","fieldsV1":{{"f:spec":{{".":{{}}}}}}}}])",
        manager, Quoted(o.api_version), SecondTime(now));
    std::string status;
    if (o.kind == "Workload") {
      std::string conditions;
      for (const auto& [type, c] : o.conditions) {
        conditions += fmt::format(
            R"({}{{"type":"{}","status":"{}","reason":"{}","message":{},"observedGeneration":{},"lastTransitionTime":"{}"}})",
            conditions.empty() ? "" : ",", type, c.status, c.reason, Quoted(c.message),
            o.generation, SecondTime(c.micros));
      }
      status = fmt::format(
          R"(,"status":{{{}"conditions":[{}]}})",
          o.admission.empty() ? "" : fmt::format(R"("admission":{},)", o.admission), conditions);
    }
    return fmt::format(R"({{"apiVersion":{},"kind":{},"metadata":{{{}}}{}{}}})",
                       Quoted(o.api_version), Quoted(o.kind), meta, o.body, status);
  }

  std::string NextId() {
    const uint64_t a = rng_();
    const uint64_t b = rng_();
    return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff,
                       a & 0xfff, 0x8000 | ((b >> 48) & 0x3fff), b & 0xffffffffffffULL);
  }

  struct Request {
    int64_t micros = 0;
    std::string verb;
    std::string level = "RequestResponse";
    std::string user;
    std::string user_agent;
    std::string resource;
    std::string group;
    std::string group_version;  // objectRef.apiVersion
    std::string namespace_name;
    std::string name;
    std::string subresource;
    std::string uri;
    int code = 200;
    std::string status_extra;  // ,"status":"Failure",... for failures
    std::string request_object;
    std::string response_object;
  };

  // Emits RequestReceived and ResponseComplete lines of one request.
  void Emit(const Request& r) {
    const std::string id = NextId();
    const int64_t received = r.micros - 1500 - static_cast<int64_t>(rng_() % 3000);
    std::string ref = fmt::format(R"("resource":"{}")", r.resource);
    if (!r.namespace_name.empty()) {
      ref += fmt::format(R"(,"namespace":{})", Quoted(r.namespace_name));
    }
    if (!r.name.empty()) {
      ref += fmt::format(R"(,"name":{})", Quoted(r.name));
    }
    if (!r.group.empty()) {
      ref += fmt::format(R"(,"apiGroup":"{}")", r.group);
    }
    ref += fmt::format(R"(,"apiVersion":"{}")", r.group_version);
    if (!r.subresource.empty()) {
      ref += fmt::format(R"(,"subresource":"{}")", r.subresource);
    }
    const bool v1beta1 = options_.api_version == "audit.k8s.io/v1beta1";
    auto head = [&](const char* stage, int64_t stage_micros) {
      std::string h = fmt::format(R"({{"kind":"Event","apiVersion":"{}",)", options_.api_version);
      if (v1beta1) {
        h += fmt::format(R"("metadata":{{"creationTimestamp":"{}"}},)", SecondTime(stage_micros));
      }
      h += fmt::format(
          R"("level":"{}",{}"auditID":"{}","stage":"{}","requestURI":{},"verb":"{}","user":{},)"
          R"("sourceIPs":["10.128.0.{}"],"userAgent":{},"objectRef":{{{}}},)",
          r.level, v1beta1 ? fmt::format(R"("timestamp":"{}",)", SecondTime(stage_micros)) : "", id,
          stage, Quoted(r.uri), r.verb, r.user, 2 + (rng_() % 40), Quoted(r.user_agent), ref);
      return h;
    };
    const bool with_request = r.level == "Request" || r.level == "RequestResponse";
    std::string rr = head("RequestReceived", received);
    if (with_request && !r.request_object.empty()) {
      rr += fmt::format(R"("requestObject":{},)", r.request_object);
    }
    rr += fmt::format(R"("requestReceivedTimestamp":"{}","stageTimestamp":"{}"}})",
                      MicroTime(received), MicroTime(received));
    Add(received, std::move(rr));
    std::string rc = head("ResponseComplete", r.micros);
    rc +=
        fmt::format(R"("responseStatus":{{"metadata":{{}}{},"code":{}}},)", r.status_extra, r.code);
    if (with_request && !r.request_object.empty()) {
      rc += fmt::format(R"("requestObject":{},)", r.request_object);
    }
    if (r.level == "RequestResponse" && !r.response_object.empty()) {
      rc += fmt::format(R"("responseObject":{},)", r.response_object);
    }
    rc += fmt::format(
        R"("requestReceivedTimestamp":"{}","stageTimestamp":"{}","annotations":{{"authorization.k8s.io/decision":"{}","authorization.k8s.io/reason":"{}"}}}})",
        MicroTime(received), MicroTime(r.micros), r.code == 403 ? "forbid" : "allow",
        r.code == 403 ? "" : "RBAC: allowed by ClusterRoleBinding");
    Add(r.micros, std::move(rc));
    ++log_.requests;
  }

  void Add(int64_t micros, std::string line) {
    pending_.push_back(Pending{micros, seq_++, std::move(line)});
  }

  Request ObjectRequest(const StoredObject& o, int64_t micros, const std::string& verb,
                        bool as_kueue) {
    ResourceRef ref;
    ResourceOf(o.kind, ref);
    Request r;
    r.micros = micros;
    r.verb = verb;
    r.user = as_kueue ? kKueue : kAdmin;
    r.user_agent = as_kueue ? "kueue/v0.13.0 (linux/amd64) kubernetes/b5f27e8"
                            : "kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46";
    r.resource = ref.resource;
    r.group = ref.group;
    const size_t slash = o.api_version.find('/');
    r.group_version = slash == std::string::npos ? o.api_version : o.api_version.substr(slash + 1);
    r.namespace_name = o.namespace_name;
    r.name = verb == "create" ? "" : o.name;
    const std::string base = ref.group.empty() ? fmt::format("/api/{}", o.api_version)
                                               : fmt::format("/apis/{}", o.api_version);
    const std::string ns_part =
        o.namespace_name.empty() ? "" : fmt::format("/namespaces/{}", o.namespace_name);
    r.uri = verb == "create" ? fmt::format("{}{}/{}?fieldManager={}", base, ns_part, ref.resource,
                                           as_kueue ? "kueue" : "kubectl-client-side-apply")
                             : fmt::format("{}{}/{}/{}", base, ns_part, ref.resource, o.name);
    r.code = verb == "create" ? 201 : 200;
    return r;
  }

  void Noise(int64_t micros) {
    if (!options_.noise) {
      return;
    }
    const uint64_t pick = rng_() % 10;
    Request r;
    r.micros = micros + 100 + static_cast<int64_t>(rng_() % 500'000);
    r.group_version = "v1";
    if (pick < 4) {
      r.verb = "update";
      r.level = "Metadata";
      r.user =
          R"({"username":"system:node:gpu-node-7","groups":["system:nodes","system:authenticated"]})";
      r.user_agent = "kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46";
      r.resource = "leases";
      r.group = "coordination.k8s.io";
      r.namespace_name = "kube-node-lease";
      r.name = "gpu-node-7";
      r.uri = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/gpu-node-7";
    } else if (pick < 7) {
      r.verb = pick == 6 ? "list" : "get";
      r.level = "Metadata";
      r.user = kKueue;
      r.user_agent = "kueue/v0.13.0 (linux/amd64) kubernetes/b5f27e8";
      r.resource = pick == 6 ? "workloads" : "pods";
      r.group = pick == 6 ? "kueue.x-k8s.io" : "";
      r.group_version = pick == 6 ? "v1beta2" : "v1";
      r.namespace_name = "team-ml";
      r.name = pick == 6 ? "" : "trainer-0";
      r.uri = pick == 6 ? "/apis/kueue.x-k8s.io/v1beta2/workloads?limit=500"
                        : "/api/v1/namespaces/team-ml/pods/trainer-0";
    } else if (pick < 9) {
      const bool secret = pick == 7;
      r.verb = "create";
      r.code = 201;
      r.user = kAdmin;
      r.user_agent = "kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46";
      r.resource = secret ? "secrets" : "configmaps";
      r.namespace_name = "team-ml";
      const std::string name =
          fmt::format("{}-{}", secret ? "registry-token" : "job-config", secret_counter_++);
      r.uri = fmt::format("/api/v1/namespaces/team-ml/{}", r.resource);
      r.request_object = fmt::format(
          R"({{"apiVersion":"v1","kind":"{}","metadata":{{"name":"{}","namespace":"team-ml"}},"data":{{"{}":"{}"}}}})",
          secret ? "Secret" : "ConfigMap", name, secret ? "password" : "workloads",
          secret ? "dGFsbHktY2FuYXJ5LXNlY3JldC1kby1ub3QtbGVhaw==" : "tally-canary-configmap");
      r.response_object = r.request_object;
    } else {
      r.verb = "list";
      r.level = "Metadata";
      r.user = R"({"username":"system:anonymous","groups":["system:unauthenticated"]})";
      r.user_agent = "curl/8.5.0";
      r.resource = "clusterqueues";
      r.group = "kueue.x-k8s.io";
      r.group_version = "v1beta2";
      r.uri = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues";
      r.code = 403;
      r.status_extra =
          R"(,"status":"Failure","message":"clusterqueues.kueue.x-k8s.io is forbidden: User \"system:anonymous\" cannot list resource \"clusterqueues\"","reason":"Forbidden")";
    }
    Emit(r);
  }

  // A status patch of a Workload by Kueue, optionally preceded by a 409 conflict.
  void PatchStatus(StoredObject& w, int64_t micros, const std::string& patch, bool conflict) {
    Request r = ObjectRequest(w, micros, "patch", true);
    r.subresource = "status";
    r.uri = fmt::format(
        "/apis/{}/namespaces/{}/workloads/{}/status?fieldManager=kueue-admission&force=true",
        w.api_version, w.namespace_name, w.name);
    r.request_object = fmt::format(
        R"({{"apiVersion":{},"kind":"Workload","metadata":{{"name":{},"namespace":{}}},"status":{}}})",
        Quoted(w.api_version), Quoted(w.name), Quoted(w.namespace_name), patch);
    if (conflict && options_.noise) {
      Request failed = r;
      failed.micros = micros - 700;
      failed.code = 409;
      failed.status_extra = fmt::format(
          R"(,"status":"Failure","message":"Operation cannot be fulfilled on workloads.kueue.x-k8s.io \"{}\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{{"name":"{}","group":"kueue.x-k8s.io","kind":"workloads"}})",
          w.name, w.name);
      Emit(failed);
    }
    r.response_object = Stored(w, micros, "kueue-admission");
    Emit(r);
  }

  engine::StatusOr<AuditLog> Build();

 private:
  struct Pending {
    int64_t micros;
    int64_t seq;
    std::string line;
  };
  const AuditLogOptions& options_;
  std::mt19937_64 rng_;
  simdjson::dom::parser parser_;
  AuditLog log_;
  std::vector<Pending> pending_;
  int64_t seq_ = 0;
  int64_t resource_version_ = 1000;
  int64_t secret_counter_ = 0;

 public:
  std::vector<Pending>& pending() { return pending_; }
};

std::string AdmissionJson(simdjson::dom::element d) {
  std::string assignments;
  simdjson::dom::array pod_sets;
  if (d["podSets"].get_array().get(pod_sets) == simdjson::SUCCESS) {
    for (simdjson::dom::element ps : pod_sets) {
      std::string usage;
      simdjson::dom::object u;
      if (ps["resourceUsage"].get_object().get(u) == simdjson::SUCCESS) {
        for (auto [resource, value] : u) {
          int64_t amount = 0;
          double real = 0;
          std::string q;
          if (value.get_int64().get(amount) == simdjson::SUCCESS) {
            // Decisions count cpu in millicores, everything else in base units.
            q = resource == "cpu" ? fmt::format("{}m", amount) : fmt::format("{}", amount);
          } else if (value.get_double().get(real) == simdjson::SUCCESS) {
            q = fmt::format("{}", real);
          }
          usage += fmt::format("{}{}:{}", usage.empty() ? "" : ",", Quoted(resource), Quoted(q));
        }
      }
      simdjson::dom::object flavors;
      int64_t count = 0;
      if (ps["count"].get_int64().get(count) != simdjson::SUCCESS) {
        count = 1;
      }
      assignments += fmt::format(
          R"({}{{"name":{},"flavors":{},"resourceUsage":{{{}}},"count":{}}})",
          assignments.empty() ? "" : ",", Quoted(Str(ps, "name")),
          ps["flavors"].get_object().get(flavors) == simdjson::SUCCESS ? simdjson::minify(flavors)
                                                                       : "{}",
          usage, count);
    }
  }
  return fmt::format(R"({{"clusterQueue":{},"podSetAssignments":[{}]}})",
                     Quoted(Str(d, "clusterQueue")), assignments);
}

}  // namespace

engine::StatusOr<AuditLog> MakeAuditLog(const AuditLogOptions& options) {
  if (options.api_version != "audit.k8s.io/v1" && options.api_version != "audit.k8s.io/v1beta1") {
    return engine::InvalidArgument(fmt::format(
        "--api-version \"{}\": want audit.k8s.io/v1 or audit.k8s.io/v1beta1", options.api_version));
  }
  AuditLogBuilder b(options);
  // Manifest objects, as JSON.
  std::vector<std::string> objects;
  std::vector<UnlistedDirectory> unlisted;
  const std::vector<std::string> paths = ExpandManifestPaths(options.manifests, unlisted);
  if (!unlisted.empty()) {
    return engine::InvalidArgument(
        fmt::format("{}: {}", unlisted.front().path, unlisted.front().reason));
  }
  for (const std::string& path : paths) {
    try {
      for (const YAML::Node& doc : YAML::LoadAllFromFile(path)) {
        if (doc.IsMap()) {
          objects.push_back(YamlToJson(doc));
        }
      }
    } catch (const YAML::Exception& e) {
      return engine::InvalidArgument(fmt::format("{}: {}", path, e.what()));
    }
  }
  engine::StatusOr<std::string> events = ReadPlainOrGzip(options.events);
  if (!events.ok()) {
    return events.status();
  }
  engine::StatusOr<std::string> decisions = ReadPlainOrGzip(options.decisions);
  if (!decisions.ok()) {
    return decisions.status();
  }
  auto lines_of = [](std::string_view text) {
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
  };
  const std::vector<std::string_view> event_lines = lines_of(*events);
  const std::vector<std::string_view> decision_lines = lines_of(*decisions);

  simdjson::dom::parser parser;
  // The first event's time: the manifests are applied a minute before.
  int64_t start = 0;
  for (std::string_view line : event_lines) {
    simdjson::dom::element e;
    if (parser.parse(line).get(e) == simdjson::SUCCESS && !Str(e, "type").empty()) {
      engine::StatusOr<int64_t> t = ParseRfc3339(Str(e, "time"));
      if (t.ok()) {
        start = *t;
        break;
      }
    }
  }
  std::map<std::string, StoredObject> live;  // kind/ns/name
  auto key_of = [](const StoredObject& o) {
    return fmt::format("{}/{}/{}", o.kind, o.namespace_name, o.name);
  };
  int64_t now = start - 60'000'000;
  int64_t uid_counter = 0;
  auto new_uid = [&]() {
    return fmt::format("7a11e{:03x}-0000-4000-8000-{:012x}", ++uid_counter % 4096, uid_counter);
  };
  for (const std::string& json : objects) {
    StoredObject o;
    if (engine::Status s = b.Parse(json, o); !s.ok()) {
      return s;
    }
    ResourceRef ref;
    if (!ResourceOf(o.kind, ref) || o.kind == "Workload") {
      ++b.log().skipped_events;
      continue;
    }
    o.uid = new_uid();
    o.created = now;
    auto r = b.ObjectRequest(o, now, "create", false);
    r.request_object = AuditLogBuilder::ClientObject(o);
    r.response_object = b.Stored(o, now, "kubectl-client-side-apply");
    b.Emit(r);
    live[key_of(o)] = std::move(o);
    now += kMillis;
  }

  // Events and decisions in one time order, an instant's events before its decisions (the
  // replay applies them, then runs its cycle): a status read back must be the one of its time.
  auto times_of = [&](const std::vector<std::string_view>& lines, const std::string& file,
                      std::vector<int64_t>& times) -> engine::Status {
    for (size_t i = 0; i < lines.size(); ++i) {
      simdjson::dom::element e;
      if (parser.parse(lines[i]).get(e) != simdjson::SUCCESS) {
        return engine::InvalidArgument(fmt::format("{}:{}: not JSON", file, i + 1));
      }
      if (Str(e, "type").empty()) {
        times.push_back(std::numeric_limits<int64_t>::min());  // a header
        continue;
      }
      engine::StatusOr<int64_t> t = ParseRfc3339(Str(e, "time"));
      if (!t.ok()) {
        return engine::InvalidArgument(
            fmt::format("{}:{}: time: {}", file, i + 1, t.status().message()));
      }
      times.push_back(*t);
    }
    return engine::Status::Ok();
  };
  std::vector<int64_t> event_times;
  std::vector<int64_t> decision_times;
  if (engine::Status s = times_of(event_lines, options.events, event_times); !s.ok()) {
    return s;
  }
  if (engine::Status s = times_of(decision_lines, options.decisions, decision_times); !s.ok()) {
    return s;
  }
  std::map<std::string, std::string> last_type;
  int64_t patches = 0;
  size_t next_event = 0;
  size_t next_decision = 0;
  while (next_event < event_lines.size() || next_decision < decision_lines.size()) {
    const bool take_event = next_event < event_lines.size()
                            && (next_decision >= decision_lines.size()
                                || event_times[next_event] <= decision_times[next_decision]);
    if (take_event) {
      const size_t i = next_event++;
      simdjson::dom::element e;
      if (parser.parse(event_lines[i]).get(e) != simdjson::SUCCESS) {
        return engine::InvalidArgument(fmt::format("{}:{}: not JSON", options.events, i + 1));
      }
      const std::string_view type = Str(e, "type");
      if (type.empty()) {
        continue;  // the header
      }
      engine::StatusOr<int64_t> t = ParseRfc3339(Str(e, "time"));
      if (!t.ok()) {
        return engine::InvalidArgument(
            fmt::format("{}:{}: time: {}", options.events, i + 1, t.status().message()));
      }
      StoredObject o;
      if (engine::Status s = b.Parse(simdjson::minify(e["object"]), o); !s.ok()) {
        return engine::InvalidArgument(fmt::format("{}:{}: object", options.events, i + 1));
      }
      ResourceRef ref;
      if (!ResourceOf(o.kind, ref)) {
        ++b.log().skipped_events;
        continue;
      }
      const bool workload = o.kind == "Workload";
      const std::string key = key_of(o);
      if (type == "ADDED") {
        o.uid = new_uid();
        o.created = *t;
        auto r = b.ObjectRequest(o, *t, "create", workload);
        r.request_object = AuditLogBuilder::ClientObject(o);
        r.response_object = b.Stored(o, *t, workload ? "kueue" : "kubectl-client-side-apply");
        b.Emit(r);
        live[key] = std::move(o);
      } else {
        auto it = live.find(key);
        if (it == live.end()) {
          ++b.log().skipped_events;
          continue;
        }
        if (type == "MODIFIED") {
          it->second.body = o.body;
          it->second.labels = o.labels;
          ++it->second.generation;
          auto r = b.ObjectRequest(it->second, *t, "update", workload);
          r.request_object = AuditLogBuilder::ClientObject(it->second);
          r.response_object = b.Stored(it->second, *t, workload ? "kueue" : "kubectl-edit");
          b.Emit(r);
        } else {
          auto r = b.ObjectRequest(it->second, *t, "delete", workload);
          r.request_object =
              R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})";
          r.response_object = b.Stored(it->second, *t, "kueue", *t);
          b.Emit(r);
          live.erase(it);
        }
      }
      b.Noise(*t);
    } else {
      const size_t i = next_decision++;
      simdjson::dom::element d;
      if (parser.parse(decision_lines[i]).get(d) != simdjson::SUCCESS) {
        return engine::InvalidArgument(fmt::format("{}:{}: not JSON", options.decisions, i + 1));
      }
      const std::string type(Str(d, "type"));
      const std::string workload(Str(d, "workload"));
      engine::StatusOr<int64_t> t = ParseRfc3339(Str(d, "time"));
      if (!t.ok()) {
        return engine::InvalidArgument(
            fmt::format("{}:{}: time: {}", options.decisions, i + 1, t.status().message()));
      }
      auto it = live.find(fmt::format("Workload/{}", workload));
      std::string& previous = last_type[workload];
      const std::string before = previous;
      previous = type;
      if (it == live.end()) {
        continue;  // deleted already
      }
      StoredObject& w = it->second;
      const std::string cq(Str(d, "clusterQueue"));
      std::string patch;
      if (type == "QuotaReserved" || (type == "Admitted" && before != "QuotaReserved")) {
        w.admission = AdmissionJson(d);
        w.conditions["QuotaReserved"] = Condition{
            "True", "QuotaReserved", fmt::format("Quota reserved in ClusterQueue {}", cq), *t};
        w.conditions.erase("Evicted");
        w.conditions.erase("Requeued");
        if (type == "Admitted") {
          w.conditions["Admitted"] = Condition{"True", "Admitted", "The workload is admitted", *t};
        }
        patch = fmt::format(R"({{"admission":{},"conditions":[]}})", w.admission);
      } else if (type == "Admitted") {
        w.conditions["Admitted"] = Condition{"True", "Admitted", "The workload is admitted", *t};
        patch = R"({"conditions":[]})";
      } else if (type == "Preempted" || type == "Evicted") {
        const std::string reason =
            type == "Preempted" ? "Preempted" : std::string(Str(d, "reason"));
        w.conditions["Evicted"] = Condition{"True", reason, fmt::format("Evicted: {}", reason), *t};
        patch = R"({"conditions":[]})";
      } else if (type == "Requeued" || type == "Deactivated") {
        w.admission.clear();
        w.conditions["QuotaReserved"] = Condition{"False", "Pending", "", *t};
        w.conditions["Admitted"] = Condition{"False", "NoReservation", "", *t};
        if (type == "Deactivated") {
          w.conditions["Evicted"] =
              Condition{"True", "Deactivated", "The workload is deactivated", *t};
        } else {
          w.conditions["Requeued"] = Condition{"True", std::string(Str(d, "reason")), "", *t};
        }
        patch = R"({"conditions":[]})";
      } else if (type == "Finished") {
        w.conditions["Finished"] = Condition{"True", "Succeeded", "Job finished successfully", *t};
        patch = R"({"conditions":[]})";
      } else {
        continue;
      }
      b.PatchStatus(w, *t, patch, ++patches % 10 == 0);
      b.Noise(*t);
    }
  }

  auto& pending = b.pending();
  std::stable_sort(pending.begin(), pending.end(), [](const auto& x, const auto& y) {
    return x.micros != y.micros ? x.micros < y.micros : x.seq < y.seq;
  });
  AuditLog out = std::move(b.log());
  out.lines.reserve(pending.size());
  for (auto& p : pending) {
    out.lines.push_back(std::move(p.line));
  }
  return out;
}

engine::StatusOr<std::vector<std::string>> WriteAuditLog(const AuditLog& log,
                                                         const std::string& path,
                                                         int64_t max_lines) {
  const size_t per_file =
      max_lines > 0 ? static_cast<size_t>(max_lines) : std::max<size_t>(log.lines.size(), 1);
  std::vector<std::string> written;
  const std::filesystem::path p(path);
  for (size_t begin = 0; begin < log.lines.size() || written.empty(); begin += per_file) {
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
      const size_t at = last.rfind("\"stageTimestamp\":\"");
      std::string stamp =
          at == std::string::npos ? "0000-00-00T00:00:00.000" : last.substr(at + 18, 23);
      std::replace(stamp.begin(), stamp.end(), ':', '-');
      target = (p.parent_path()
                / fmt::format("{}-{}{}", p.stem().string(), stamp, p.extension().string()))
                   .string();
    }
    if (!WriteTextFile(target, text)) {
      return engine::InvalidArgument(fmt::format("cannot write {}", target));
    }
    written.push_back(target);
    if (log.lines.empty()) {
      break;
    }
  }
  return written;
}

}  // namespace replay

namespace replay {

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
      "tally audit-log: %lld requests, %zu lines (%s), %lld events of kinds an audit log "
      "does not hold left out\n",
      static_cast<long long>(log->requests), log->lines.size(), options.api_version.c_str(),
      static_cast<long long>(log->skipped_events));
  for (const std::string& f : *files) {
    std::printf("wrote %s\n", f.c_str());
  }
  return 0;
}

}  // namespace replay
