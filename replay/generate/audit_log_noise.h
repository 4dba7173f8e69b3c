// File: replay/generate/audit_log_noise.h
//
// Unrelated traffic for a synthetic audit log (replay/generate/audit_log_writer.h), so that an
// importer is tested on a log that looks like a real cluster's and not only on Kueue's requests:
//
//   - lease renewals at Metadata level: kubelets in kube-node-lease, the scheduler's and the
//     controller manager's leader election in kube-system, Kueue's in kueue-system;
//   - reads at Metadata level: pods, workloads listed and read by kubectl; watches of pods and
//     workloads at Request level (RequestReceived, ResponseStarted, ResponseComplete);
//   - writes the importer must skip: core Events at Request level, Secrets and ConfigMaps at
//     RequestResponse level whose data holds canary values (kCanaryFragment) that must never
//     reach an importer's output, a Workload metadata patch at Metadata level (objectRef only),
//     an anonymous request denied with 403.
//
// Deterministic: every choice is drawn from the line writer's generator.
// Thread safety: none; used by one log builder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "replay/generate/audit_log_lines.h"

namespace replay::internal {

// Every canary value of the noise contains this; a test greps an importer's outputs for it.
inline constexpr std::string_view kCanaryFragment = "tally-canary";

// The workload a noise request may be about (the one the log just touched), or none.
struct NoiseSubject {
  std::string_view namespace_name;  // "" when there is none
  std::string_view name;
  std::string_view api_version;  // the Workload's, "kueue.x-k8s.io/v1beta2"
};

class AuditNoise {
 public:
  // `resource_version`: the cluster's resourceVersion counter, shared with the log's objects.
  AuditNoise(AuditLineWriter& writer, int64_t& resource_version)
      : writer_(writer), resource_version_(resource_version) {}
  ~AuditNoise() = default;
  AuditNoise(const AuditNoise&) = delete;
  AuditNoise& operator=(const AuditNoise&) = delete;
  AuditNoise(AuditNoise&&) = delete;
  AuditNoise& operator=(AuditNoise&&) = delete;

  // Zero or one unrelated request 0.1 ms to 0.5 s after `micros` (nine times in ten).
  // `namespaces`: where the scenario's workloads live (for pods, Secrets, ConfigMaps).
  void After(int64_t micros, const std::vector<std::string>& namespaces,
             const NoiseSubject& subject);

  // The core Event Kueue records for a workload's status change (Request level, 0.3 to 2 ms
  // after `micros`).
  void KueueEvent(int64_t micros, const NoiseSubject& subject, std::string_view reason,
                  std::string_view message);

 private:
  int64_t Pick(int64_t n) {
    return static_cast<int64_t>(writer_.Next() % static_cast<uint64_t>(n));
  }

  // A Secret or ConfigMap the noise created: updates keep its identity.
  struct CanaryObject {
    std::string name;
    std::string namespace_name;
    std::string uid;
    int64_t created = 0;  // µs
  };

  AuditLineWriter& writer_;
  int64_t& resource_version_;
  std::vector<CanaryObject> secrets_;
  std::vector<CanaryObject> config_maps_;
  int64_t events_ = 0;
};

}  // namespace replay::internal
