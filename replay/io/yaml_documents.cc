#include "replay/io/yaml_documents.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <string_view>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "replay/io/yaml_tree.h"

namespace replay {
namespace {

// Below this a text is parsed whole, on one thread (a thread costs more than it saves).
constexpr size_t kMinParallelBytes = size_t{128} << 10;
// Above it, in chunks of about this much, a few at a time (one per thread): a chunk's trees take
// some 70 bytes per byte of YAML, and are freed once visited.
constexpr size_t kStreamChunkBytes = size_t{64} << 10;

bool IsDocumentStart(const std::string& text, size_t line) {
  if (text.compare(line, 3, "---") != 0) {
    return false;
  }
  const size_t after = line + 3;
  return after == text.size() || text[after] == ' ' || text[after] == '\t' || text[after] == '\n'
         || text[after] == '\r';
}

}  // namespace

namespace internal {

std::vector<size_t> YamlCutPoints(const std::string& text, size_t parts) {
  // A chunk's lines are numbered from the count of '\n' before it; a lone '\r' is a line break
  // to YAML too, so such a text is not cut (its lines would be numbered differently).
  for (size_t cr = text.find('\r'); cr != std::string::npos; cr = text.find('\r', cr + 1)) {
    if (cr + 1 == text.size() || text[cr + 1] != '\n') {
      return {};
    }
  }
  std::vector<size_t> starts;  // every document-start line after the first byte
  for (size_t line = 0; line < text.size();) {
    const char c = text[line];
    if (c == '%' || text.compare(line, 3, "...") == 0) {
      return {};  // directives or document ends: not cut
    }
    if (line > 0 && c == '-' && IsDocumentStart(text, line)) {
      starts.push_back(line);
    }
    const size_t end = text.find('\n', line);
    if (end == std::string::npos) {
      break;
    }
    line = end + 1;
  }
  std::vector<size_t> cuts;
  if (parts < 2 || starts.empty()) {
    return cuts;
  }
  // The document start nearest above each k/parts of the text.
  for (size_t k = 1; k < parts; ++k) {
    const size_t target = text.size() * k / parts;
    auto it = std::lower_bound(starts.begin(), starts.end(), target);
    if (it == starts.end()) {
      break;
    }
    if (cuts.empty() || *it > cuts.back()) {
      cuts.push_back(*it);
    }
  }
  return cuts;
}

}  // namespace internal

void ForEachYamlDocument(const std::string& text, const YamlDocumentVisitor& visit) {
  const auto threads = static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const size_t chunks =
      std::max(threads, (text.size() + kStreamChunkBytes - 1) / kStreamChunkBytes);
  internal::ForEachYamlDocumentInParts(text, chunks, threads, visit);
}

std::vector<YAML::Node> LoadYamlDocuments(const std::string& text) {
  std::vector<YAML::Node> documents;
  ForEachYamlDocument(text,
                      [&documents](const YAML::Node& doc, size_t) { documents.push_back(doc); });
  return documents;
}

std::vector<YAML::Node> internal::LoadYamlDocumentsInParts(const std::string& text, size_t parts) {
  std::vector<YAML::Node> documents;
  ForEachYamlDocumentInParts(text, parts, parts, [&documents](const YAML::Node& doc, size_t) {
    documents.push_back(doc);
  });
  return documents;
}

void internal::ForEachYamlDocumentInParts(const std::string& text, size_t chunks, size_t wave,
                                          const YamlDocumentVisitor& visit) {
  std::vector<size_t> cuts;
  if (chunks > 1 && text.size() >= kMinParallelBytes) {
    cuts = internal::YamlCutPoints(text, chunks);
  }
  std::vector<size_t> bounds = {0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(text.size());
  const size_t count = bounds.size() - 1;
  // The 0-based line each chunk starts on: the '\n' before it.
  std::vector<int> first_lines(count, 0);
  for (size_t k = 1; k < count; ++k) {
    first_lines[k] =
        first_lines[k - 1]
        + static_cast<int>(std::count(text.begin() + static_cast<ptrdiff_t>(bounds[k - 1]),
                                      text.begin() + static_cast<ptrdiff_t>(bounds[k]), '\n'));
  }
  wave = std::max<size_t>(1, wave);
  size_t index = 0;
  for (size_t first = 0; first < count; first += wave) {
    const size_t last = std::min(count, first + wave);
    std::vector<std::vector<YAML::Node>> parsed(last - first);
    std::vector<char> failed(last - first, 0);
    auto parse = [&](size_t k) {
      const std::string_view chunk(text.data() + bounds[k], bounds[k + 1] - bounds[k]);
      try {
        parsed[k - first] = internal::LoadAllYamlFromLine(chunk, first_lines[k]);
      } catch (const std::exception&) {
        failed[k - first] = 1;
      }
    };
    if (last - first == 1) {
      parse(first);
    } else {
      tbb::parallel_for(first, last, parse);
    }
    if (std::find(failed.begin(), failed.end(), 1) != failed.end()) {
      LoadAllYaml(text);  // throws the whole text's first error, with its position
    }
    for (std::vector<YAML::Node>& part : parsed) {
      for (YAML::Node& doc : part) {
        visit(doc, index++);
      }
      part.clear();  // this chunk's trees are freed before the next wave is parsed
    }
  }
}

}  // namespace replay
