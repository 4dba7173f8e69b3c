// File: test/fuzz/manifest_yaml_fuzz.cc
//
// Manifest YAML as `tally validate`, `schedule` and `replay` read it: syntax pre-check, alias and
// depth limits, the field parsers and Kueue's validation. Every message must name the file.
#include <cstdint>

#include "replay/io/input_limits.h"
#include "replay/io/manifest_loader.h"
#include "test/fuzz/fuzz_support.h"

// Walking 10 million alias-expanded nodes takes about 15 s under ASan and coverage (1 s in a
// release build), past libFuzzer's timeout: the node limit is lowered, the check is the same code.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  replay::InputLimits limits;
  limits.yaml_max_nodes = 100'000;
  replay::SetInputLimits(limits);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const replay::LoadResult result =
      replay::LoadManifestString(tally_fuzz::AsText(data, size), "fuzz.yaml");
  for (const replay::LoadError& e : result.errors) {
    FUZZ_CHECK(e.ToString().starts_with("fuzz.yaml"));
  }
  for (const replay::LoadError& e : result.warnings) {
    FUZZ_CHECK(e.ToString().starts_with("fuzz.yaml"));
  }
  FUZZ_CHECK(result.empty_documents <= result.documents_read);
  return 0;
}
