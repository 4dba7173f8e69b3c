// File: replay/io/yaml_syntax.h
//
// A YAML text checked by libfyaml's event parser. tally no longer lets yaml-cpp's scanner read
// any text: yaml-cpp 0.7 (Debian 12) loops for ever, allocating, on a stray flow entry at the
// top of a document (`,` on a line of its own: robustness finding 04) and on other texts the
// fuzzers found, its recursive-descent parser recurses once per nesting level, and it reads
// about 3 MB/s. libfyaml's parser is iterative, reads about 14 MB/s and reports the first error
// with its line. The same pass builds yaml-cpp trees (replay/io/yaml_tree.h, LoadAllYaml):
// manifests, sweep overlays and `--set` values, Kueue perf generator configs, the audit-log
// generator's manifests. FindYamlSyntaxError alone checks a text without building anything.
//
//   if (std::optional<YamlSyntaxError> e = FindYamlSyntaxError(text)) {
//     // e->line 3, e->column 1, e->message "did not find expected node content"
//   }
//
// Nesting is limited too (mappings and sequences; InputLimits::yaml_max_depth levels, 256 unless
// --max-yaml-depth says otherwise): a Kubernetes object nests about a dozen; what walks a tree
// (yaml-cpp's emitter and Clone among them) recurses per level.
// Thread safety: reentrant (one libfyaml parser per call).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "replay/io/input_limits.h"

#include <yaml-cpp/yaml.h>

struct fy_event;

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

namespace internal {
// FindYamlSyntaxError's pass, calling on_event with every event that passed the checks, in order,
// until the first error (returned). The event is libfyaml's and lives until on_event returns;
// what on_event throws propagates.
std::optional<YamlSyntaxError> ForEachYamlEvent(std::string_view text, size_t max_depth,
                                                const std::function<void(fy_event*)>& on_event);
}  // namespace internal

// FindYamlSyntaxError, thrown as yaml-cpp would throw it (YAML::ParserException with a 0-based
// Mark), for callers that already report yaml-cpp's exceptions.
void ThrowIfNotYaml(std::string_view text);

}  // namespace replay
