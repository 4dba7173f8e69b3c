// File: test/fuzz/runtimes_report_fuzz.cc
//
// `tally explain --runtimes REPORT.json` / `tally predict --runtimes`: the quotaHoldTime section
// of a report.json read into hold-time estimates (replay/report/eta.h, RuntimeModel). Whatever the
// file holds: no crash, an error that names the file, and estimates that are never negative.
#include <cstdint>
#include <string>

#include "replay/report/eta.h"
#include "test/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tally_fuzz::ScratchFile report("report.json");
  const std::string& path = report.Write(tally_fuzz::AsText(data, size));
  engine::StatusOr<replay::RuntimeModel> model = replay::RuntimeModel::FromReportJson(path);
  if (!model.ok()) {
    FUZZ_CHECK(model.status().message().find(path) != std::string::npos);
    return 0;
  }
  engine::WorkloadSpec spec;
  engine::Workload w;
  w.spec = &spec;
  for (const std::string cq : {"gpus", "cq-a", ""}) {
    for (auto run : {replay::RuntimeModel::Run::kLow, replay::RuntimeModel::Run::kMid,
                     replay::RuntimeModel::Run::kHigh}) {
      if (auto e = model->HoldOf(w, cq, run)) {
        FUZZ_CHECK(e->hold >= 0);
      }
    }
  }
  return 0;
}
