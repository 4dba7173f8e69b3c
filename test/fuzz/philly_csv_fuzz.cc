// File: test/fuzz/philly_csv_fuzz.cc
//
// `tally import philly`: the Philly trace's CSV (header, then timestamp,duration,num_gpus,...).
// The seeds carry the header, so most mutations reach the row parser.
#include <cstdint>

#include "replay/import/philly_import.h"
#include "test/fuzz/import_output_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tally_fuzz::ScratchFile file("philly.csv");
  replay::PhillyImportOptions options;
  options.path = file.Write(tally_fuzz::AsText(data, size));
  tally_fuzz::CheckImportOutput(replay::ImportPhilly(options));
  return 0;
}
