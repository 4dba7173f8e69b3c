// File: replay/io/yaml_documents.h
//
// The documents of a multi-document manifests file (LoadAllYaml, replay/io/yaml_tree.h), on
// several threads when it is large. A line that starts with "---" followed by a blank or the end
// of the line always starts a document (YAML 1.2 §9.1.2: document markers are forbidden inside
// scalars), so the text is cut at such lines into one chunk per thread and the chunks are parsed
// concurrently. Each chunk is preceded by as many newlines as there are lines before it, so the
// line numbers of its nodes (YAML::Node::Mark) are those of the whole file.
//
//   std::vector<YAML::Node> docs = LoadYamlDocuments(text);   // throws YAML::ParserException
//
// Equivalence: the documents are those of LoadAllYaml(text), in order, and so is the exception
// of an invalid text (the whole text is parsed again to find its first error). A text with
// directives ('%' at the start of a line) or document-end markers ("...") is parsed whole.
// Threads: those of the caller's oneTBB arena (one with --threads 1).
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace replay {

std::vector<YAML::Node> LoadYamlDocuments(const std::string& text);

namespace internal {
// Where LoadYamlDocuments cuts `text` into at most `parts` chunks: the offsets of the lines that
// start each chunk after the first (ascending), or empty when it must not be cut.
std::vector<size_t> YamlCutPoints(const std::string& text, size_t parts);
// LoadYamlDocuments with the text cut into at most `parts` chunks (if large enough).
std::vector<YAML::Node> LoadYamlDocumentsInParts(const std::string& text, size_t parts);
}  // namespace internal

}  // namespace replay
