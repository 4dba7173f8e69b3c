// File: replay/sim/admission_verify.h
//
// `tally replay --verify ADMISSIONS`: the fidelity check of an imported audit log
// (docs/import.md#the-fidelity-check). Compares the admissions the log recorded (the importer's
// admissions.jsonl) with the admissions of tally's decisions.jsonl, workload by workload and in
// order: the n-th recorded admission of a workload with tally's n-th quota reservation of it
// (QuotaReserved, or Admitted when no check was pending). A difference is an admission only one
// side made, or one made at another instant, in another ClusterQueue or on other flavors.
//
// Thread safety: reentrant; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"

namespace replay {

struct AdmissionVerification {
  int64_t recorded = 0;  // admissions in the log
  int64_t replayed = 0;  // quota reservations in the decisions
  int64_t matched = 0;   // pairs identical in time, ClusterQueue and flavors
  // One line per difference, "ns/name: ...", in workload order then admission order.
  std::vector<std::string> differences;
};

engine::StatusOr<AdmissionVerification> VerifyAdmissions(const std::string& recorded_path,
                                                         const std::string& decisions_path);

// The report: a summary line, then every difference.
std::string FormatVerification(const AdmissionVerification& v);

}  // namespace replay
