// File: test/fuzz/manifest_yaml_fuzz.cc
//
// Manifest YAML as `tally validate`, `schedule` and `replay` read it: syntax pre-check, alias and
// depth limits, the field parsers and Kueue's validation. Every message must name the file.
#include <cstdint>

#include "replay/io/manifest_loader.h"
#include "test/fuzz/fuzz_support.h"

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
