#include "replay/generate/audit_log_noise.h"

#include <fmt/format.h>

#include <array>

namespace replay::internal {
namespace {

// Four kubelets, each renewing its own lease (the node authorizer allows nothing else).
constexpr std::array<AuditUser, 4> kKubelets = {{
    {R"({"username":"system:node:gpu-node-0","groups":["system:nodes","system:authenticated"]})",
     "10.128.0.20", "kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46", ""},
    {R"({"username":"system:node:gpu-node-1","groups":["system:nodes","system:authenticated"]})",
     "10.128.0.21", "kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46", ""},
    {R"({"username":"system:node:gpu-node-2","groups":["system:nodes","system:authenticated"]})",
     "10.128.0.22", "kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46", ""},
    kKubeletUser,
}};
constexpr std::array<std::string_view, 4> kNodes = {"gpu-node-0", "gpu-node-1", "gpu-node-2",
                                                    "gpu-node-7"};

// The pod suffix alphabet of Kubernetes' name generator, FNV-1a of the workload's name: the same
// workload always has the same pod.
std::string PodName(std::string_view workload) {
  constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = 1469598103934665603ULL;
  for (char c : workload) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  std::string suffix;
  for (int i = 0; i < 5; ++i) {
    suffix += kAlphabet[h % kAlphabet.size()];
    h /= kAlphabet.size();
  }
  return fmt::format("{}-{}", workload, suffix);
}

AuditRequest Base(int64_t micros, const AuditUser& user, std::string_view verb,
                  std::string_view level) {
  AuditRequest r;
  r.micros = micros;
  r.user = &user;
  r.verb = std::string(verb);
  r.level = std::string(level);
  r.version = "v1";
  return r;
}

}  // namespace

void AuditNoise::After(int64_t micros, const std::vector<std::string>& namespaces,
                       const NoiseSubject& subject) {
  const int64_t pick = Pick(20);
  const int64_t at = micros + 100 + Pick(500'000);
  const std::string ns =
      namespaces.empty()
          ? "default"
          : namespaces[static_cast<size_t>(Pick(static_cast<int64_t>(namespaces.size())))];
  const bool has_subject = !subject.name.empty();
  const std::string workload_version =
      has_subject ? std::string(subject.api_version.substr(subject.api_version.find('/') + 1))
                  : "v1beta2";
  if (pick < 6) {  // a kubelet renews its node lease
    const size_t node = static_cast<size_t>(Pick(4));
    AuditRequest r = Base(at, kKubelets[node], "update", "Metadata");
    r.resource = "leases";
    r.group = "coordination.k8s.io";
    r.namespace_name = "kube-node-lease";
    r.name = std::string(kNodes[node]);
    r.uri = fmt::format("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{}",
                        kNodes[node]);
    writer_.Emit(r);
  } else if (pick < 9) {  // leader election
    const AuditUser& user =
        pick == 6 ? kSchedulerUser : (pick == 7 ? kControllerManagerUser : kKueueUser);
    const std::string_view ns_name = pick == 8 ? "kueue-system" : "kube-system";
    const std::string_view lease = pick == 6   ? "kube-scheduler"
                                   : pick == 7 ? "kube-controller-manager"
                                               : "c1f6bfd2.kueue.x-k8s.io";
    AuditRequest r = Base(at, user, "update", "Metadata");
    r.resource = "leases";
    r.group = "coordination.k8s.io";
    r.namespace_name = std::string(ns_name);
    r.name = std::string(lease);
    r.uri = fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}?timeout=5s", ns_name,
                        lease);
    writer_.Emit(r);
  } else if (pick < 11) {  // a kubelet reads a pod of the workload
    const std::string pod = PodName(has_subject ? subject.name : "trainer");
    const std::string pod_ns = has_subject ? std::string(subject.namespace_name) : ns;
    AuditRequest r = Base(at, kKubelets[static_cast<size_t>(Pick(4))], "get", "Metadata");
    r.resource = "pods";
    r.namespace_name = pod_ns;
    r.name = pod;
    r.uri = fmt::format("/api/v1/namespaces/{}/pods/{}", pod_ns, pod);
    writer_.Emit(r);
  } else if (pick == 11 && has_subject) {  // the workload at Metadata level: objectRef only
    const bool gc = Pick(6) == 0;
    AuditRequest r =
        Base(at, gc ? kGarbageCollectorUser : kAdminUser, gc ? "patch" : "get", "Metadata");
    r.resource = "workloads";
    r.group = "kueue.x-k8s.io";
    r.version = workload_version;
    r.namespace_name = std::string(subject.namespace_name);
    r.name = std::string(subject.name);
    r.uri = fmt::format("/apis/kueue.x-k8s.io/{}/namespaces/{}/workloads/{}", workload_version,
                        subject.namespace_name, subject.name);
    writer_.Emit(r);
  } else if (pick <= 12) {  // kubectl get workloads
    AuditRequest r = Base(at, kAdminUser, "list", "Metadata");
    r.resource = "workloads";
    r.group = "kueue.x-k8s.io";
    r.version = workload_version;
    r.namespace_name = ns;
    r.uri = fmt::format("/apis/kueue.x-k8s.io/{}/namespaces/{}/workloads?limit=500",
                        workload_version, ns);
    writer_.Emit(r);
  } else if (pick == 13) {  // a watch, at Request level (a watch has no body)
    const bool pods = Pick(2) == 0;
    const int64_t seconds = 300 + Pick(300);
    AuditRequest r = Base(at, kKueueUser, "watch", "Request");
    r.resource = pods ? "pods" : "workloads";
    r.group = pods ? "" : "kueue.x-k8s.io";
    r.version = pods ? "v1" : workload_version;
    r.uri = fmt::format(
        "{}?allowWatchBookmarks=true&resourceVersion={}&timeout={}m{}s&timeoutSeconds={}&watch="
        "true",
        pods ? "/api/v1/pods" : fmt::format("/apis/kueue.x-k8s.io/{}/workloads", workload_version),
        resource_version_, seconds / 60, seconds % 60, seconds);
    r.watch_micros = seconds * 1'000'000;
    writer_.Emit(r);
  } else if (pick == 14 || pick == 15) {  // a Secret or ConfigMap with canary values
    const bool secret = pick == 14;
    std::vector<CanaryObject>& objects = secret ? secrets_ : config_maps_;
    const bool update = !objects.empty() && Pick(2) == 0;
    const size_t n =
        update ? static_cast<size_t>(Pick(static_cast<int64_t>(objects.size()))) : objects.size();
    if (!update) {
      objects.push_back(
          CanaryObject{fmt::format("{}-{}", secret ? "registry-token" : "trainer-config", n), ns,
                       writer_.NewUuid(), at});
    }
    const CanaryObject& o = objects[n];
    const std::string_view resource = secret ? "secrets" : "configmaps";
    AuditRequest r = Base(at, kAdminUser, update ? "update" : "create", "RequestResponse");
    r.code = update ? 200 : 201;
    r.resource = std::string(resource);
    r.namespace_name = o.namespace_name;
    r.name = update ? o.name : "";
    r.uri = update ? fmt::format("/api/v1/namespaces/{}/{}/{}?fieldManager=kubectl-replace",
                                 o.namespace_name, resource, o.name)
                   : fmt::format("/api/v1/namespaces/{}/{}?fieldManager=kubectl-create",
                                 o.namespace_name, resource);
    std::string data;
    if (secret) {
      // base64 of "tally-canary-secret-do-not-leak" and "tally-canary-token-do-not-leak".
      data = update ? R"({"password":"dGFsbHktY2FuYXJ5LXNlY3JldC1kby1ub3QtbGVhaw==",)"
                      R"("token":"dGFsbHktY2FuYXJ5LXRva2VuLWRvLW5vdC1sZWFr"})"
                    : R"({"password":"dGFsbHktY2FuYXJ5LXNlY3JldC1kby1ub3QtbGVhaw=="})";
    } else {
      data = fmt::format(R"({{"config.yaml":{}}})",
                         JsonString(fmt::format("endpoint: https://tracker.example.com\napiKey: "
                                                "tally-canary-configmap-do-not-leak-{}\n",
                                                n)));
    }
    const std::string annotations =
        secret ? R"(,"annotations":{"tally.dev/canary":"tally-canary-secret-annotation"})" : "";
    const std::string kind = secret ? "Secret" : "ConfigMap";
    const std::string type = secret ? R"(,"type":"Opaque")" : "";
    const std::string name_ns =
        fmt::format(R"("name":"{}","namespace":"{}")", o.name, o.namespace_name);
    const int64_t read_version = resource_version_;
    const int64_t new_version = ++resource_version_;
    r.request_object = fmt::format(
        R"({{"kind":"{}","apiVersion":"v1","metadata":{{{}{}{}}},"data":{}{}}})", kind, name_ns,
        update ? fmt::format(R"(,"uid":"{}","resourceVersion":"{}")", o.uid, read_version) : "",
        annotations, data, type);
    r.response_object = fmt::format(
        R"({{"kind":"{}","apiVersion":"v1","metadata":{{{},"uid":"{}","resourceVersion":"{}",)"
        R"("creationTimestamp":"{}"{}}},"data":{}{}}})",
        kind, name_ns, o.uid, new_version, SecondTime(o.created), annotations, data, type);
    writer_.Emit(r);
  } else if (pick == 16) {  // an anonymous client, denied
    const bool workloads = Pick(2) == 0;
    AuditRequest r = Base(at, kAnonymousUser, "list", "Metadata");
    r.resource = workloads ? "workloads" : "clusterqueues";
    r.group = "kueue.x-k8s.io";
    r.version = workload_version;
    r.uri = fmt::format("/apis/kueue.x-k8s.io/{}/{}", workload_version, r.resource);
    r.code = 403;
    r.failure = fmt::format(
        R"(,"status":"Failure","message":"{0}.kueue.x-k8s.io is forbidden: )"
        R"(User \"system:anonymous\" )"
        R"(cannot list resource \"{0}\" in API group \"kueue.x-k8s.io\" at the cluster scope",)"
        R"("reason":"Forbidden","details":{{"group":"kueue.x-k8s.io","kind":"{0}"}})",
        r.resource);
    writer_.Emit(r);
  } else if (pick == 17) {  // a kubelet reports a pod event, at Request level
    const std::string pod = PodName(has_subject ? subject.name : "trainer");
    const std::string pod_ns = has_subject ? std::string(subject.namespace_name) : ns;
    const size_t node = static_cast<size_t>(Pick(4));
    AuditRequest r = Base(at, kKubelets[node], "create", "Request");
    r.code = 201;
    r.resource = "events";
    r.namespace_name = pod_ns;
    r.uri = fmt::format("/api/v1/namespaces/{}/events", pod_ns);
    r.request_object = fmt::format(
        R"({{"kind":"Event","apiVersion":"v1","metadata":{{"name":"{0}.{1:x}","namespace":"{2}"}},)"
        R"("involvedObject":{{"kind":"Pod","namespace":"{2}","name":"{0}","apiVersion":"v1",)"
        R"("fieldPath":"spec.containers{{main}}"}},"reason":"Started",)"
        R"("message":"Started container )"
        R"(main","source":{{"component":"kubelet","host":"{3}"}},"firstTimestamp":"{4}",)"
        R"("lastTimestamp":"{4}","count":1,"type":"Normal","eventTime":null,"reportingComponent":)"
        R"("kubelet","reportingInstance":"{3}"}})",
        pod, static_cast<uint64_t>(at) * 1000 + static_cast<uint64_t>(events_++), pod_ns,
        kNodes[node], SecondTime(at));
    writer_.Emit(r);
  }
  // 18, 19: a quiet moment.
}

void AuditNoise::KueueEvent(int64_t micros, const NoiseSubject& subject, std::string_view reason,
                            std::string_view message) {
  const int64_t at = micros + 300 + Pick(1700);
  AuditRequest r = Base(at, kKueueUser, "create", "Request");
  r.code = 201;
  r.resource = "events";
  r.namespace_name = std::string(subject.namespace_name);
  r.uri = fmt::format("/api/v1/namespaces/{}/events", subject.namespace_name);
  r.request_object = fmt::format(
      R"({{"kind":"Event","apiVersion":"v1","metadata":{{"name":"{0}.{1:x}","namespace":"{2}"}},)"
      R"("involvedObject":{{"kind":"Workload","namespace":"{2}","name":"{0}","apiVersion":"{3}"}},)"
      R"("reason":"{4}","message":{5},"source":{{"component":"kueue-admission"}},)"
      R"("firstTimestamp":"{6}","lastTimestamp":"{6}","count":1,"type":"Normal","eventTime":null,)"
      R"("reportingComponent":"kueue-admission","reportingInstance":""}})",
      subject.name, static_cast<uint64_t>(at) * 1000 + static_cast<uint64_t>(events_++),
      subject.namespace_name, subject.api_version, reason, JsonString(message), SecondTime(at));
  writer_.Emit(r);
}

}  // namespace replay::internal
