// File: test/fuzz/overlay_fuzz.cc
//
// What `tally sweep` reads besides manifests: an overlay document (alias and expansion limits,
// deep merge into a base) and a `--set KIND/NAME:path=values` flag (its first line). An overlay
// that applies must leave manifests that print and parse back to as many documents.
#include <cstdint>
#include <cstdio>
#include <string>

#include "replay/io/input_limits.h"
#include "replay/io/manifest_overlay.h"
#include "test/fuzz/fuzz_support.h"

namespace {

constexpr std::string_view kBase = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohort: all
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 8
      - name: memory
        nominalQuota: 32Gi
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: a
  namespace: team-a
spec:
  clusterQueue: team-a
)";

const replay::Manifests& Base() {
  static const replay::Manifests base = [] {
    engine::StatusOr<replay::Manifests> m = replay::Manifests::Parse(kBase, "base.yaml");
    FUZZ_CHECK(m.ok());
    return std::move(m).value();
  }();
  return base;
}

// On failure the error and the emitted text go to stderr first: the finding is in that text,
// which the saved input only reproduces.
void CheckRoundTrip(const replay::Manifests& m) {
  const std::string emitted = m.Emit();
  engine::StatusOr<replay::Manifests> again = replay::Manifests::Parse(emitted, "emitted.yaml");
  if (!again.ok()) {
    std::fprintf(stderr, "%s\n--- emitted.yaml:\n%s\n---\n", again.status().message().c_str(),
                 emitted.c_str());
  }
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->documents() == m.documents());
}

}  // namespace

// The alias-expansion limit is lowered from 10 million nodes to 100,000: the check is the same,
// but walking 10 million nodes takes 15 s under ASan and coverage (0.6 s in a release build),
// which libFuzzer would report as a timeout.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  replay::InputLimits limits;
  limits.yaml_max_nodes = 100'000;
  replay::SetInputLimits(limits);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = tally_fuzz::AsText(data, size);

  if (engine::StatusOr<replay::SetFlag> flag =
          replay::ParseSetFlag(text.substr(0, text.find('\n')));
      flag.ok()) {
    FUZZ_CHECK(!flag->values.empty());
    replay::Manifests edited = Base().Clone();
    if (edited.Set(flag->Assignment(0)).ok()) {
      CheckRoundTrip(edited);
    }
  }

  engine::StatusOr<replay::Manifests> overlay = replay::Manifests::Parse(text, "overlay.yaml");
  if (!overlay.ok()) {
    FUZZ_CHECK(overlay.status().message().find("overlay.yaml") != std::string::npos);
    return 0;
  }
  CheckRoundTrip(*overlay);
  replay::Manifests merged = Base().Clone();
  if (merged.ApplyOverlay(*overlay).ok()) {
    FUZZ_CHECK(merged.documents() == Base().documents());
    CheckRoundTrip(merged);
  }
  return 0;
}
