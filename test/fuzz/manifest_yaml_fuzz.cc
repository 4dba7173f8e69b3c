// File: test/fuzz/manifest_yaml_fuzz.cc
//
// Manifest YAML as `tally validate`, `schedule` and `replay` read it: syntax pre-check, alias and
// depth limits, the field parsers and Kueue's validation. Every message must name the file.
// Where the simple-subset reader (replay/io/yaml_simple_subset.h) accepts the text, libfyaml must
// accept it too and build the same trees, marks included.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/io/input_limits.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/yaml_simple_subset.h"
#include "replay/io/yaml_tree.h"
#include "test/fuzz/fuzz_support.h"
#include "test/replay/io/yaml_dump.h"

// Walking 10 million alias-expanded nodes takes about 15 s under ASan and coverage (1 s in a
// release build), past libFuzzer's timeout: the node limit is lowered, the check is the same code.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  replay::InputLimits limits;
  limits.yaml_max_nodes = 100'000;
  replay::SetInputLimits(limits);
  return 0;
}

namespace {

void CheckSimpleSubsetReader(const std::string& text) {
  const std::optional<std::vector<YAML::Node>> fast =
      replay::internal::LoadSimpleYaml(text, 3, replay::CurrentInputLimits().yaml_max_depth);
  if (!fast) {
    return;
  }
  std::string slow;
  try {
    slow = replay::testing_yaml::DumpAll(replay::internal::LoadAllYamlWithLibfyaml(text, 3), true);
  } catch (const YAML::Exception&) {
    FUZZ_CHECK(false);  // the subset reader accepted a text libfyaml refuses
  }
  FUZZ_CHECK(replay::testing_yaml::DumpAll(*fast, true) == slow);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(tally_fuzz::AsText(data, size));
  CheckSimpleSubsetReader(text);
  const replay::LoadResult result = replay::LoadManifestString(text, "fuzz.yaml");
  for (const replay::LoadError& e : result.errors) {
    FUZZ_CHECK(e.ToString().starts_with("fuzz.yaml"));
  }
  for (const replay::LoadError& e : result.warnings) {
    FUZZ_CHECK(e.ToString().starts_with("fuzz.yaml"));
  }
  FUZZ_CHECK(result.empty_documents <= result.documents_read);
  return 0;
}
