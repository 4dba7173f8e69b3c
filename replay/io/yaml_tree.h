// File: replay/io/yaml_tree.h
//
// yaml-cpp trees (YAML::Node) built from libfyaml's parser: YAML::LoadAll and YAML::Load without
// yaml-cpp's scanner. yaml-cpp reads about 3 MB/s and loops for ever on some invalid texts that
// its own scanner accepts (robustness finding 04, and two more found by the fuzzers); libfyaml's
// event parser reads about 14 MB/s, is iterative, and already checks every text tally reads
// (replay/io/yaml_syntax.h). Here the same pass also builds the tree, so a text is parsed once.
//
//   std::vector<YAML::Node> docs = LoadAllYaml(text);  // throws YAML::ParserException
//   YAML::Node doc = LoadYaml("a: [1, 2]");            // the first document, or a null node
//
// Equivalence with yaml-cpp 0.7: the tree is the one yaml-cpp's NodeBuilder makes from the same
// events (yaml-cpp src/nodebuilder.cpp and src/singledocparser.cpp): a plain, untagged scalar
// that is empty, `~`, `null`, `Null` or `NULL` is a null node; other scalars keep their tag, or
// "?" when plain and "!" when quoted or block; collections keep their style (flow or block); an
// alias is a second reference to the anchored node (so `&a [*a]` contains itself, as in yaml-cpp:
// replay/io/yaml_expansion.h bounds what walks it); a node's Mark is the position of its first
// token (its anchor or tag, if any), 0-based. test/replay/io/yaml_tree_test.cc checks this
// against YAML::LoadAll on every YAML file shipped in data/ and test/ and on generated texts.
// Where yaml-cpp and libfyaml read the same valid text differently, this reads it as libfyaml,
// which follows YAML 1.2; text libfyaml refuses throws, with libfyaml's message and position.
// A text in the plain block subset of replay/io/yaml_simple_subset.h (what manifests are written
// in) is read by that reader instead, about three times faster; it builds the same trees.
// Thread safety: reentrant; each document owns its nodes (as with yaml-cpp).
#pragma once

#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace replay {

// Every document of `text`, in order (as YAML::LoadAll). Limits: those of FindYamlSyntaxError
// (CurrentInputLimits().yaml_max_depth).
std::vector<YAML::Node> LoadAllYaml(std::string_view text);

// The first document (as YAML::Load): a null node for a text without documents. The whole text
// is parsed, so an error in a later document throws.
YAML::Node LoadYaml(std::string_view text);

namespace internal {
// LoadAllYaml of a text cut from a file at its 0-based line `first_line`: the nodes' marks (and
// an exception's) are the file's lines.
std::vector<YAML::Node> LoadAllYamlFromLine(std::string_view text, int first_line);
// The same, always with libfyaml's parser: LoadAllYamlFromLine first tries the reader of
// replay/io/yaml_simple_subset.h, which gives the same trees for the texts it accepts (tests
// compare the two).
std::vector<YAML::Node> LoadAllYamlWithLibfyaml(std::string_view text, int first_line);
}  // namespace internal

}  // namespace replay
