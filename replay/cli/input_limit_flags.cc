// File: replay/cli/input_limit_flags.cc
//
// The flags that raise (or lower) the input limits of replay/io/input_limits.h, shared by the
// commands that read manifests, overlays or traces (replay/cli/commands.h). Each sets the
// process-wide limit while the command line is parsed, before anything is read.
#include <cstddef>
#include <string>

#include "replay/cli/commands.h"
#include "replay/io/input_limits.h"

#include <CLI/CLI.hpp>

namespace replay::cli {
namespace {

// yaml-cpp 0.7 refuses documents nested about 500 levels deep itself (its DepthGuard, reported as
// "bad file"); up to this depth the clear message of the libfyaml pre-check comes first.
constexpr size_t kMaxYamlDepthFlag = 496;

template <typename Set>
void AddLimit(CLI::App* cmd, const std::string& name, const std::string& help, size_t low,
              size_t high, Set set) {
  cmd->add_option_function<size_t>(
         name,
         [set](const size_t& value) {
           InputLimits limits = CurrentInputLimits();
           set(limits, value);
           SetInputLimits(limits);
         },
         help)
      ->check(CLI::Range(low, high))
      ->type_name("N");
}

}  // namespace

void AddInputLimitFlags(CLI::App* cmd, InputLimitFlags which) {
  const InputLimits defaults;
  if (which.yaml) {
    AddLimit(cmd, "--max-yaml-depth",
             "YAML nesting allowed, aliases followed (default "
                 + std::to_string(defaults.yaml_max_depth) + "; docs/limits.md)",
             1, kMaxYamlDepthFlag, [](InputLimits& l, size_t v) { l.yaml_max_depth = v; });
    AddLimit(cmd, "--max-yaml-nodes",
             "Nodes a YAML document may expand to through its aliases (default "
                 + std::to_string(defaults.yaml_max_nodes) + ")",
             1, size_t{1} << 32, [](InputLimits& l, size_t v) { l.yaml_max_nodes = v; });
    AddLimit(cmd, "--max-containers",
             "Containers (and init containers) a pod template may list (default "
                 + std::to_string(defaults.max_containers) + ")",
             1, size_t{1} << 32, [](InputLimits& l, size_t v) { l.max_containers = v; });
    AddLimit(cmd, "--max-objects-per-document",
             "Objects one YAML document may hold, the items of a List (default "
                 + std::to_string(defaults.max_objects_per_document) + ")",
             1, size_t{1} << 32, [](InputLimits& l, size_t v) { l.max_objects_per_document = v; });
    AddLimit(cmd, "--max-cohort-depth",
             "Cohorts from a root to the deepest Cohort (default "
                 + std::to_string(defaults.max_cohort_depth) + ")",
             1, size_t{1} << 32, [](InputLimits& l, size_t v) { l.max_cohort_depth = v; });
  }
  if (which.whole_files) {
    AddLimit(cmd, "--max-input-bytes",
             "Largest input read whole, decompressed (default "
                 + std::to_string(defaults.max_input_bytes) + ")",
             1, size_t{1} << 40, [](InputLimits& l, size_t v) { l.max_input_bytes = v; });
  }
  if (which.events) {
    AddLimit(cmd, "--max-object-bytes",
             "Largest event object given to the manifest parsers (default "
                 + std::to_string(defaults.max_object_bytes) + ")",
             1, size_t{1} << 30, [](InputLimits& l, size_t v) { l.max_object_bytes = v; });
  }
}

}  // namespace replay::cli
