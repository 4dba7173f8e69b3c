// File: replay/io/yaml_syntax.h
//
// A YAML text checked by libfyaml's event parser before yaml-cpp builds anything from it.
// yaml-cpp 0.7 (Debian 12) loops for ever, allocating, on a stray flow entry at the top of a
// document (`,` on a line of its own: robustness finding 04), and its recursive-descent parser
// recurses once per nesting level. libfyaml's parser is iterative, reads about 14 MB/s (yaml-cpp
// 3 MB/s, so the check adds a fifth to a load), and reports the first error with its line. Every
// text tally hands to yaml-cpp goes through here first: manifests, sweep overlays and `--set`
// values, Kueue perf generator configs, the audit-log generator's manifests.
//
//   if (std::optional<YamlSyntaxError> e = FindYamlSyntaxError(text)) {
//     // e->line 3, e->column 1, e->message "did not find expected node content"
//   }
//
// Nesting is limited too (mappings and sequences; InputLimits::yaml_max_depth levels, 256 unless
// --max-yaml-depth says otherwise): a Kubernetes object nests about a dozen; thousands of `[`
// would overflow yaml-cpp's stack.
// Thread safety: reentrant (one libfyaml parser per call).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "replay/io/input_limits.h"

#include <yaml-cpp/yaml.h>

namespace replay {

// The default depth limit (replay/io/input_limits.h).
inline constexpr size_t kYamlMaxDepth = InputLimits{}.yaml_max_depth;

struct YamlSyntaxError {
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
  std::string message;
};

// With the process's depth limit (CurrentInputLimits), or an explicit one.
std::optional<YamlSyntaxError> FindYamlSyntaxError(std::string_view text);
std::optional<YamlSyntaxError> FindYamlSyntaxError(std::string_view text, size_t max_depth);

// FindYamlSyntaxError, thrown as yaml-cpp would throw it (YAML::ParserException with a 0-based
// Mark), for callers that already report yaml-cpp's exceptions.
void ThrowIfNotYaml(std::string_view text);

}  // namespace replay
