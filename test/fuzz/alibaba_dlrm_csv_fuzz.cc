// File: test/fuzz/alibaba_dlrm_csv_fuzz.cc
//
// `tally import alibaba-dlrm`: the DLRM inference trace's CSV (instance_sn,role,app_name,...).
// The seeds carry the header, so most mutations reach the row parser.
#include <cstdint>

#include "replay/import/alibaba_dlrm_import.h"
#include "test/fuzz/import_output_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tally_fuzz::ScratchFile file("dlrm.csv");
  replay::AlibabaDlrmImportOptions options;
  options.path = file.Write(tally_fuzz::AsText(data, size));
  tally_fuzz::CheckImportOutput(replay::ImportAlibabaDlrm(options));
  return 0;
}
