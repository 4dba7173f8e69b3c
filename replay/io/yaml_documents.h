// File: replay/io/yaml_documents.h
//
// The documents of a multi-document manifests file (LoadAllYaml, replay/io/yaml_tree.h), on
// several threads when it is large. A line that starts with "---" followed by a blank or the end
// of the line always starts a document (YAML 1.2 §9.1.2: document markers are forbidden inside
// scalars), so the text is cut at such lines into chunks, parsed one per thread at a time. Each
// chunk's lines are numbered from the line it starts on, so the line numbers of its nodes
// (YAML::Node::Mark) are those of the whole file.
//
//   std::vector<YAML::Node> docs = LoadYamlDocuments(text);   // throws YAML::ParserException
//   ForEachYamlDocument(text, [](const YAML::Node& doc, size_t i) { ... });  // a few at a time
//
// Equivalence: the documents are those of LoadAllYaml(text), in order, and so is the exception
// of an invalid text (the whole text is parsed again to find its first error). A text with
// directives ('%' at the start of a line), document-end markers ("...") or a line break that is
// a lone '\r' is parsed whole.
// Threads: those of the caller's oneTBB arena (one with --threads 1).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace replay {

std::vector<YAML::Node> LoadYamlDocuments(const std::string& text);

// Called with each document and its 0-based index, in order.
using YamlDocumentVisitor = std::function<void(const YAML::Node& document, size_t index)>;

// The documents of LoadYamlDocuments(text), one at a time, without holding them all: a text above
// 128 KiB is parsed in chunks of about 64 KiB (at document starts), and a chunk's trees are
// dropped once `visit` has seen them (a 0.9 MB manifests file held about 50 MB of yaml-cpp nodes
// at once). `visit` runs on the calling thread, in order, while the arena's other threads parse
// the chunks after the one it visits (at most one chunk per thread ahead); the caller parses too
// when nothing it can visit is ready. Throws YAML::ParserException, as LoadAllYaml(text), when
// the text is not valid YAML — possibly after `visit` has seen the documents of the chunks before
// the broken one: a caller that keeps what it saw undoes it. An exception of `visit` is rethrown
// once the other threads have stopped.
void ForEachYamlDocument(const std::string& text, const YamlDocumentVisitor& visit);

// ForEachYamlDocument with the work on a chunk's documents done on the thread that parsed them:
// what a visitor makes of them (Convert) can then run on several threads at once, and the trees
// are built and freed by one thread (freed on another, each node was a cross-thread free). What
// needs the documents' order happens in Take, on the caller's thread. Kueue's large-scale
// manifests (3,010 objects, 0.9 MB): the manifest loader converting on the caller's thread kept
// the second thread half idle (docs/replay.md, "Manifests converted where they are parsed").
class YamlChunkVisitor {
 public:
  YamlChunkVisitor() = default;
  YamlChunkVisitor(const YamlChunkVisitor&) = delete;
  YamlChunkVisitor& operator=(const YamlChunkVisitor&) = delete;
  YamlChunkVisitor(YamlChunkVisitor&&) = delete;
  YamlChunkVisitor& operator=(YamlChunkVisitor&&) = delete;
  virtual ~YamlChunkVisitor() = default;

  // Once, before the others: how many chunks the text was cut into (at least one).
  virtual void Begin(size_t chunks) = 0;
  // The documents of chunk `chunk`, of which the first is the text's document `first_index`, on
  // the thread that parsed them: the caller's or a helper's, possibly while other chunks are
  // converted, in any order. What is left in `documents` is freed on this thread when it returns.
  // An exception stops the visit; it is rethrown (as Take's) when this chunk's turn comes.
  virtual void Convert(size_t chunk, std::vector<YAML::Node>& documents, size_t first_index) = 0;
  // On the caller's thread, once per chunk, in order of chunk, after its Convert.
  virtual void Take(size_t chunk) = 0;
};

// Every chunk converted and taken in order, or, when the text is not valid YAML,
// YAML::ParserException after the chunks before the broken one were taken (as
// ForEachYamlDocument).
void ForEachYamlChunk(const std::string& text, YamlChunkVisitor& visitor);

namespace internal {
// Where LoadYamlDocuments cuts `text` into at most `parts` chunks: the offsets of the lines that
// start each chunk after the first (ascending), or empty when it must not be cut.
std::vector<size_t> YamlCutPoints(const std::string& text, size_t parts);
// LoadYamlDocuments with the text cut into at most `parts` chunks (if large enough).
std::vector<YAML::Node> LoadYamlDocumentsInParts(const std::string& text, size_t parts);
// ForEachYamlDocument with the text cut into at most `chunks` chunks, parsed on at most `wave`
// threads (the caller and `wave` - 1 helpers), up to `wave` chunks ahead of the one visited.
void ForEachYamlDocumentInParts(const std::string& text, size_t chunks, size_t wave,
                                const YamlDocumentVisitor& visit);
// ForEachYamlChunk with the same cut and threads as ForEachYamlDocumentInParts.
void ForEachYamlChunkInParts(const std::string& text, size_t chunks, size_t wave,
                             YamlChunkVisitor& visitor);
}  // namespace internal

}  // namespace replay
