// File: replay/generate/audit_log_lines.h
//
// The lines of a synthetic audit log (replay/generate/audit_log_writer.h): one API request rendered
// as kube-apiserver's log backend writes it, an `audit.k8s.io/v1` (or `v1beta1`) Event per stage:
//
//   RequestReceived   at requestReceivedTimestamp: who, what, no outcome, no objects, no
//                     authorization annotations (the audit filter runs before the authorizer);
//   ResponseStarted   watches only, when the stream starts;
//   ResponseComplete  at the request's instant: responseStatus, the objects the level allows
//                     (Request: requestObject; RequestResponse: both), the annotations.
//
//   internal::AuditLineWriter w("audit.k8s.io/v1", /*seed=*/1);
//   internal::AuditRequest r;
//   r.micros = t; r.verb = "get"; r.level = "Metadata"; r.user = &internal::kKubeletUser; ...
//   w.Emit(r);
//   std::vector<std::string> lines = w.TakeLines();  // every stage, in stageTimestamp order
//
// Deterministic: auditIDs and receive latencies come from one std::mt19937_64 (its output is
// fixed by the C++ standard), drawn in call order. Thread safety: none; one writer per log.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace replay::internal {

// Who sends a request, as the authenticator reports it, and how the authorizer allows it.
struct AuditUser {
  std::string_view user;        // the Event's "user" object (JSON)
  std::string_view source_ip;   // sourceIPs[0]
  std::string_view user_agent;  // userAgent
  std::string_view reason;      // authorization.k8s.io/reason when allowed
};

// The cluster admin of kubeadm's admin.conf (x509: no uid) with kubectl; Kueue's controller
// manager (a service account: with uid); a kubelet, the scheduler, the controller manager and its
// garbage collector, an anonymous client.
inline constexpr AuditUser kAdminUser = {
    R"({"username":"kubernetes-admin","groups":["system:masters","system:authenticated"]})",
    "10.128.0.2", "kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46", ""};
inline constexpr AuditUser kKueueUser = {
    R"({"username":"system:serviceaccount:kueue-system:kueue-controller-manager",)"
    R"("uid":"4f1c2b7e-6a51-4e0e-9d3a-0c1f2e3d4b5a","groups":["system:serviceaccounts",)"
    R"("system:serviceaccounts:kueue-system","system:authenticated"],"extra":{)"
    R"("authentication.kubernetes.io/pod-name":["kueue-controller-manager-7d9f8c6b5d-x2x9q"],)"
    R"("authentication.kubernetes.io/pod-uid":["c0a8e2d4-1f3b-4c5d-8e7f-9a0b1c2d3e4f"]}})",
    "10.244.1.17", "kueue/v0.13.0 (linux/amd64) kubernetes/b5f27e8",
    R"(RBAC: allowed by ClusterRoleBinding \"kueue-manager-rolebinding\" of ClusterRole )"
    R"(\"kueue-manager-role\" to ServiceAccount \"kueue-controller-manager/kueue-system\")"};
inline constexpr AuditUser kKubeletUser = {
    R"({"username":"system:node:gpu-node-7","groups":["system:nodes","system:authenticated"]})",
    "10.128.0.27", "kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46", ""};
inline constexpr AuditUser kSchedulerUser = {
    R"({"username":"system:kube-scheduler","groups":["system:authenticated"]})", "10.128.0.3",
    "kube-scheduler/v1.31.2 (linux/amd64) kubernetes/5864a46/leader-election",
    R"(RBAC: allowed by ClusterRoleBinding \"system:kube-scheduler\" of ClusterRole )"
    R"(\"system:kube-scheduler\" to User \"system:kube-scheduler\")"};
inline constexpr AuditUser kControllerManagerUser = {
    R"({"username":"system:kube-controller-manager","groups":["system:authenticated"]})",
    "10.128.0.3",
    "kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/leader-election",
    R"(RBAC: allowed by ClusterRoleBinding \"system:kube-controller-manager\" of ClusterRole )"
    R"(\"system:kube-controller-manager\" to User \"system:kube-controller-manager\")"};
inline constexpr AuditUser kGarbageCollectorUser = {
    R"({"username":"system:serviceaccount:kube-system:generic-garbage-collector",)"
    R"("uid":"0d6f3a52-8c1e-4b7a-9e2d-5f4c3b2a1908","groups":["system:serviceaccounts",)"
    R"("system:serviceaccounts:kube-system","system:authenticated"]})",
    "10.128.0.3",
    "kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:"
    "kube-system:generic-garbage-collector",
    R"(RBAC: allowed by ClusterRoleBinding \"system:controller:generic-garbage-collector\" of )"
    R"(ClusterRole \"system:controller:generic-garbage-collector\" to ServiceAccount )"
    R"(\"generic-garbage-collector/kube-system\")"};
inline constexpr AuditUser kAnonymousUser = {
    R"({"username":"system:anonymous","groups":["system:unauthenticated"]})", "203.0.113.45",
    "curl/8.5.0", ""};

// One API request. Fields left empty are left out of objectRef.
struct AuditRequest {
  int64_t micros = 0;  // ResponseComplete's stageTimestamp (µs since the epoch); ResponseStarted
                       // for a watch
  std::string verb;
  std::string level = "RequestResponse";  // Metadata, Request or RequestResponse
  const AuditUser* user = nullptr;
  std::string resource;
  std::string group;    // objectRef.apiGroup; "" for the core group
  std::string version;  // objectRef.apiVersion
  std::string namespace_name;
  std::string name;
  std::string subresource;
  std::string uri;
  int code = 200;
  std::string failure;          // ,"status":"Failure",... in responseStatus of a failed request
  std::string request_object;   // JSON; logged at Request and RequestResponse level
  std::string response_object;  // JSON; logged at RequestResponse level
  // Requests on one object are serialised: a request with a key is received no earlier than the
  // previous request with that key completed (the controller saw the object first).
  std::string object_key;
  int64_t watch_micros = 0;  // > 0: a watch, ResponseComplete this long after ResponseStarted
};

class AuditLineWriter {
 public:
  // REQUIRES: api_version is audit.k8s.io/v1 or audit.k8s.io/v1beta1.
  AuditLineWriter(std::string api_version, uint64_t seed);
  ~AuditLineWriter() = default;
  AuditLineWriter(const AuditLineWriter&) = delete;
  AuditLineWriter& operator=(const AuditLineWriter&) = delete;
  AuditLineWriter(AuditLineWriter&&) = delete;
  AuditLineWriter& operator=(AuditLineWriter&&) = delete;

  // Renders every stage of `r`. Received 0.8 to 5 ms before r.micros (never before the last
  // request on the same object_key completed, never after r.micros).
  void Emit(const AuditRequest& r);

  // A random version 4 UUID (auditIDs).
  std::string NewUuid();
  // The writer's generator, shared with the noise so that one seed fixes the whole log.
  uint64_t Next() { return rng_(); }

  // When the last request with this object_key completed (µs), min() if none.
  int64_t LastComplete(const std::string& object_key) const;

  int64_t requests() const { return requests_; }
  // Every line so far, ordered by stageTimestamp (ties in emission order); the writer is empty
  // afterwards.
  std::vector<std::string> TakeLines();

 private:
  struct Pending {
    int64_t micros;  // stageTimestamp
    int64_t seq;     // emission order
    std::string line;
  };
  std::string Head(const AuditRequest& r, std::string_view audit_id, std::string_view stage,
                   int64_t stage_micros) const;

  std::string api_version_;
  bool v1beta1_ = false;
  std::mt19937_64 rng_;
  std::vector<Pending> pending_;
  std::map<std::string, int64_t> last_complete_;  // object_key -> micros
  int64_t requests_ = 0;
};

// A JSON string literal (quotes included), RFC 8259 escaping.
std::string JsonString(std::string_view s);
// The API server's MicroTime: "2026-01-05T09:00:01.250000Z", always six fractional digits.
std::string MicroTime(int64_t micros);
// metav1.Time: whole seconds, "2026-01-05T09:00:01Z" (the fraction is truncated).
std::string SecondTime(int64_t micros);

}  // namespace replay::internal
