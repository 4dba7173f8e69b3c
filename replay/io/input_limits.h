// File: replay/io/input_limits.h
//
// The process-wide limits on hostile input that have a flag to raise them (docs/limits.md):
// YAML nesting depth, nodes a YAML document expands to through its aliases, and the size of an
// event object handed to the manifest parsers. The command line sets them once, before any input
// is read (replay/cli/input_limit_flags.cc); the parsers read them. Not for changing while
// parsers run: set, then read, from any thread.
//
//   replay::InputLimits limits;
//   limits.yaml_max_depth = 1024;   // --max-yaml-depth 1024
//   replay::SetInputLimits(limits);
#pragma once

#include <cstddef>

namespace replay {

struct InputLimits {
  // Kubernetes objects nest a dozen levels; deeper is an alias loop or an attack, and yaml-cpp's
  // parser recurses once per level (robustness findings 01, 13).
  size_t yaml_max_depth = 256;
  // Nodes visited with every alias followed: a `kind: List` of 20,000 objects of 200 nodes each
  // is 4 million (finding 13b).
  size_t yaml_max_nodes = 10'000'000;
  // An event object not read by the fast Workload reader goes to the manifest parsers, which
  // hold about 100 bytes per byte (finding 20).
  size_t max_object_bytes = size_t{4} << 20;
  // Containers (and, apart, init containers) in one pod template. Kubernetes sets no number; a
  // real pod has a few, and each costs the parsers about 150 bytes, so a 64 MiB event line of
  // 2 million empty containers held 300 MB.
  size_t max_containers = 10'000;
  // Objects in one YAML document: the items of a `List` (a document is otherwise one object).
  size_t max_objects_per_document = 100'000;
  // Cohorts from a root to the deepest Cohort (engine::ValidationLimits, which the loader is
  // given).
  size_t max_cohort_depth = 100'000;
  // An input read whole (`replay --verify`, the audit-log generator) or streamed (the CSV
  // importers), counted decompressed: a gzip bomb is an error at this size, not an exhausted
  // machine.
  size_t max_input_bytes = size_t{1} << 30;
};

const InputLimits& CurrentInputLimits();
void SetInputLimits(const InputLimits& limits);

}  // namespace replay
