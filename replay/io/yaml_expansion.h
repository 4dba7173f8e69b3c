// File: replay/io/yaml_expansion.h
//
// Bounds on what a parsed YAML document expands to once its aliases are followed. yaml-cpp keeps
// an alias as a second reference to the anchored node, so `&a [*a]` is a node that contains
// itself and nine nested lists of nine aliases each are 9^9 nodes for whoever walks them: code
// that walks a whole document (emitting, cloning, merging a `tally sweep` variant) recursed
// without end or allocated gigabytes (robustness findings 13 and 13b). Checked right after a
// parse, before anything walks the document.
//
//   engine::Status s = CheckYamlExpansion(doc, "overlay.yaml");
//   // "overlay.yaml:3: YAML nested deeper than 256 levels once aliases are followed (an alias
//   //  inside its own anchor nests without end)"
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "replay/io/input_limits.h"

#include <yaml-cpp/yaml.h>

namespace replay {

// OK, or an InvalidArgument "FILE:LINE: ..." at the node where a limit was crossed: deeper than
// limits.yaml_max_depth or more than limits.yaml_max_nodes nodes (replay/io/input_limits.h).
// Iterative: never recurses, and stops at the first node beyond a limit.
engine::Status CheckYamlExpansion(const YAML::Node& document, std::string_view file,
                                  const InputLimits& limits = CurrentInputLimits());

// The same check, for callers that format their own errors: the 1-based line of the node where a
// limit was crossed (0 if unknown) and the message without file or line; nullopt when within.
struct YamlExpansionIssue {
  int line = 0;
  std::string message;
};
std::optional<YamlExpansionIssue> FindYamlExpansionIssue(
    const YAML::Node& document, const InputLimits& limits = CurrentInputLimits());

}  // namespace replay
