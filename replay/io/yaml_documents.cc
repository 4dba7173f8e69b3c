#include "replay/io/yaml_documents.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>

#include <tbb/task_arena.h>

#include "replay/io/parallel_for.h"
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

namespace {

// The chunks of a text, parsed ahead on other threads while the caller visits them in order
// (ForEachYamlDocumentInParts). A chunk is claimed by one thread, in order of index, and only
// within `window` chunks of the one being visited, so that at most that many chunks' trees are
// held; the caller parses too when nothing it can visit is ready.
class ChunkPipeline {
 public:
  ChunkPipeline(const std::string& text, const std::vector<size_t>& bounds,
                const std::vector<int>& first_lines, size_t window)
      : text_(text),
        bounds_(bounds),
        first_lines_(first_lines),
        window_(window),
        chunks_(first_lines.size()) {}

  // On a helper thread: parses chunks until none is left to claim or the visit is over.
  void Help() {
    for (;;) {
      const size_t visited = visited_.load(std::memory_order_acquire);
      if (visited >= kOver) {
        return;
      }
      if (std::optional<size_t> k = Claim(visited)) {
        Parse(*k);
        continue;
      }
      if (next_.load(std::memory_order_acquire) >= chunks_.size()) {
        return;  // every chunk claimed
      }
      visited_.wait(visited, std::memory_order_acquire);  // the window is full: wait for a visit
    }
  }

  // On the caller's thread: visits every chunk's documents in order, parsing what no helper has
  // claimed. Returns false at the first chunk that failed to parse (nothing after it visited).
  // Does not throw: an exception of `visit` is kept for RethrowVisitError.
  bool VisitAll(const YamlDocumentVisitor& visit) {
    size_t index = 0;
    bool parsed_all = true;
    for (size_t k = 0; k < chunks_.size(); ++k) {
      Chunk& chunk = chunks_[k];
      // Parses ahead while a helper still parses chunk k (or is about to: claimed, not started).
      for (uint8_t state = chunk.state.load(std::memory_order_acquire); state != kParsed;
           state = chunk.state.load(std::memory_order_acquire)) {
        if (std::optional<size_t> claimed = Claim(k)) {
          Parse(*claimed);
        } else {
          chunk.state.wait(state, std::memory_order_acquire);
        }
      }
      if (chunk.failed) {
        parsed_all = false;
        break;
      }
      try {
        for (const YAML::Node& doc : chunk.documents) {
          visit(doc, index++);
        }
      } catch (...) {
        error_ = std::current_exception();
        break;
      }
      chunk.documents.clear();  // freed before more chunks are parsed
      visited_.store(k + 1, std::memory_order_release);
      visited_.notify_all();
    }
    visited_.store(kOver, std::memory_order_release);  // helpers stop claiming
    visited_.notify_all();
    return parsed_all;
  }

  void RethrowVisitError() const {
    if (error_) {
      std::rethrow_exception(error_);
    }
  }

 private:
  static constexpr size_t kOver = static_cast<size_t>(-1) / 2;
  enum State : uint8_t { kUnclaimed, kParsing, kParsed };
  struct Chunk {
    std::atomic<uint8_t> state{kUnclaimed};
    bool failed = false;
    std::vector<YAML::Node> documents;
  };

  // The next unclaimed chunk, claimed for the calling thread, if it lies within the window
  // after `visited` chunks have been visited.
  std::optional<size_t> Claim(size_t visited) {
    size_t k = next_.load(std::memory_order_relaxed);
    while (k < chunks_.size() && k < visited + window_) {
      if (next_.compare_exchange_weak(k, k + 1, std::memory_order_acq_rel)) {
        return k;
      }
    }
    return std::nullopt;
  }

  void Parse(size_t k) {
    Chunk& chunk = chunks_[k];
    chunk.state.store(kParsing, std::memory_order_relaxed);
    const std::string_view text(text_.data() + bounds_[k], bounds_[k + 1] - bounds_[k]);
    try {
      chunk.documents = internal::LoadAllYamlFromLine(text, first_lines_[k]);
    } catch (const std::exception&) {
      chunk.failed = true;
    }
    chunk.state.store(kParsed, std::memory_order_release);
    chunk.state.notify_all();
  }

  const std::string& text_;
  const std::vector<size_t>& bounds_;
  const std::vector<int>& first_lines_;
  const size_t window_;
  std::vector<Chunk> chunks_;
  std::atomic<size_t> next_{0};     // the first chunk not claimed
  std::atomic<size_t> visited_{0};  // chunks visited; kOver once the visit has ended
  std::exception_ptr error_;
};

}  // namespace

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
  // The caller visits chunk k while `wave` - 1 helpers parse the chunks after it, up to `wave`
  // chunks ahead (the trees of at most `wave` + 1 chunks held at once). Before 2026-12-02 a wave
  // of chunks was parsed in parallel and then visited on one thread while the others waited:
  // Kueue's large-scale manifests loaded in 65 ms on 2 threads as on 1 (docs/replay.md).
  wave = std::max<size_t>(1, wave);
  const size_t helpers = std::min(wave, count) - 1;
  ChunkPipeline pipeline(text, bounds, first_lines, helpers == 0 ? 1 : wave + 1);
  bool parsed_all = true;
  if (helpers == 0) {
    parsed_all = pipeline.VisitAll(visit);
  } else {
    RunWithHelpersHere(
        helpers, [&] { parsed_all = pipeline.VisitAll(visit); }, [&] { pipeline.Help(); });
  }
  pipeline.RethrowVisitError();
  if (!parsed_all) {
    LoadAllYaml(text);  // throws the whole text's first error, with its position
  }
}

}  // namespace replay
