// File: replay/io/yaml_simple_subset.h
//
// A fast reader for the plain block YAML that manifests are written in, beside libfyaml's
// (replay/io/yaml_tree.h): Kubernetes objects as `kubectl`, Helm and tally's own generators
// write them. Loading Kueue's large-scale manifests (3,001 documents, 0.65 MB) spent 216 M of its
// 590 M instructions in libfyaml (callgrind, 2026-12-07): per document it sets up default tags
// (55 M in all), per plain scalar it decodes UTF-8 a character at a time; this reader reads the
// same text in a few instructions a byte and builds the same yaml-cpp nodes.
//
// It reads a text only when every line is in the subset, and otherwise declines (nullopt) and
// LoadAllYaml reads the text with libfyaml, so what it accepts reads exactly as before:
//   - printable ASCII and line feeds (no CR, control character or byte order mark); tabs and
//     UTF-8 text only inside comments (no C1 control, NEL, line or paragraph separator);
//   - whole-line comments, and ` #` comments after a value; documents split by `---` lines;
//   - block mappings whose keys are plain words (letters, digits, `. _ / -`), block sequences
//     (`- ` items, a mapping may start on the item's line), as deep as `max_depth` allows;
//   - values on the key's line: plain scalars, one-line quoted scalars (no backslash), and flow
//     collections on one line, nested as deep as `max_depth` allows: sequences of plain words,
//     such quoted scalars and flow collections, mappings from plain words to them
//     (`{matchExpressions: [{key: dep, operator: In, values: [sales]}]}`).
// Declined: anchors, aliases, tags, directives, block scalars (`|`, `>`), multi-line scalars,
// quoted keys, empty values and documents, `...`, and anything malformed (libfyaml reports it).
//
//   if (std::optional<std::vector<YAML::Node>> docs = internal::LoadSimpleYaml(text, 0, 256)) ...
//
// Equivalence: the trees are those LoadAllYaml builds from libfyaml's events, with the same marks
// (line, column and byte offset); test/replay/io/yaml_simple_subset_test.cc compares the two
// readers on every YAML file shipped in data/ and test/ and on generated and mutated texts, and
// test/fuzz/manifest_yaml_fuzz does on any input (CheckSimpleSubsetReader).
// Thread safety: reentrant; each document owns its nodes (as with yaml-cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace replay::internal {

// Every document of `text` (cut from a file at its 0-based line `first_line`), or nullopt when
// the text leaves the subset above or nests more than `max_depth` collections.
std::optional<std::vector<YAML::Node>> LoadSimpleYaml(std::string_view text, int first_line,
                                                      size_t max_depth);

}  // namespace replay::internal
