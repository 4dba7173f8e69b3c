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

// Below this a text is parsed on one thread (a thread costs more than it saves).
constexpr size_t kMinParallelBytes = size_t{128} << 10;

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

std::vector<YAML::Node> LoadYamlDocuments(const std::string& text) {
  const auto threads = static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  return internal::LoadYamlDocumentsInParts(text, threads);
}

std::vector<YAML::Node> internal::LoadYamlDocumentsInParts(const std::string& text, size_t parts) {
  std::vector<size_t> cuts;
  if (parts > 1 && text.size() >= kMinParallelBytes) {
    cuts = internal::YamlCutPoints(text, parts);
  }
  if (cuts.empty()) {
    return LoadAllYaml(text);
  }
  std::vector<size_t> bounds = {0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(text.size());
  const size_t chunks = bounds.size() - 1;
  std::vector<std::vector<YAML::Node>> parsed(chunks);
  std::vector<char> failed(chunks, 0);
  tbb::parallel_for(size_t{0}, chunks, [&](size_t k) {
    const size_t begin = bounds[k];
    const size_t end = bounds[k + 1];
    const std::string_view before(text.data(), begin);
    std::string chunk(static_cast<size_t>(std::count(before.begin(), before.end(), '\n')), '\n');
    chunk.append(text, begin, end - begin);
    try {
      parsed[k] = LoadAllYaml(chunk);
    } catch (const std::exception&) {
      failed[k] = 1;
    }
  });
  if (std::find(failed.begin(), failed.end(), 1) != failed.end()) {
    return LoadAllYaml(text);  // throws the whole text's first error, with its position
  }
  std::vector<YAML::Node> documents;
  for (std::vector<YAML::Node>& part : parsed) {
    std::move(part.begin(), part.end(), std::back_inserter(documents));
  }
  return documents;
}

}  // namespace replay
