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

namespace {

size_t Threads() {
  return static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
}

size_t ChunksFor(const std::string& text) {
  return std::max(Threads(), (text.size() + kStreamChunkBytes - 1) / kStreamChunkBytes);
}

// ForEachYamlDocument as a chunk visitor: a chunk's documents are kept as parsed and visited, in
// order, on the caller's thread (where they are freed).
class DocumentVisits final : public YamlChunkVisitor {
 public:
  explicit DocumentVisits(const YamlDocumentVisitor& visit) : visit_(visit) {}

  void Begin(size_t chunks) override { chunks_.resize(chunks); }
  void Convert(size_t chunk, std::vector<YAML::Node>& documents, size_t first_index) override {
    chunks_[chunk].documents = std::move(documents);
    chunks_[chunk].first_index = first_index;
  }
  void Take(size_t chunk) override {
    Chunk& c = chunks_[chunk];
    for (size_t i = 0; i < c.documents.size(); ++i) {
      visit_(c.documents[i], c.first_index + i);
    }
    c.documents.clear();  // freed before more chunks are parsed
  }

 private:
  struct Chunk {
    std::vector<YAML::Node> documents;
    size_t first_index = 0;
  };
  const YamlDocumentVisitor& visit_;
  std::vector<Chunk> chunks_;
};

}  // namespace

void ForEachYamlDocument(const std::string& text, const YamlDocumentVisitor& visit) {
  DocumentVisits visits(visit);
  internal::ForEachYamlChunkInParts(text, ChunksFor(text), Threads(), visits);
}

void ForEachYamlChunk(const std::string& text, YamlChunkVisitor& visitor) {
  internal::ForEachYamlChunkInParts(text, ChunksFor(text), Threads(), visitor);
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
  DocumentVisits visits(visit);
  ForEachYamlChunkInParts(text, chunks, wave, visits);
}

namespace {

// The chunks of a text, parsed and converted ahead on other threads while the caller takes them
// in order (ForEachYamlChunkInParts). A chunk is claimed by one thread, in order of index, and
// only within `window` chunks of the one being taken, so that at most that many chunks'
// conversions are held; the caller parses too when nothing it can take is ready. A chunk's first
// document index is the previous chunk's plus its document count: a thread that parsed chunk k
// waits for chunk k - 1's parse (not its conversion) before converting.
class ChunkPipeline {
 public:
  ChunkPipeline(const std::string& text, const std::vector<size_t>& bounds,
                const std::vector<int>& first_lines, size_t window, YamlChunkVisitor& visitor)
      : text_(text),
        bounds_(bounds),
        first_lines_(first_lines),
        window_(window),
        visitor_(visitor),
        chunks_(first_lines.size()) {}

  // On a helper thread: parses chunks until none is left to claim or the visit is over.
  void Help() {
    for (;;) {
      const size_t taken = taken_.load(std::memory_order_acquire);
      if (taken >= kOver) {
        return;
      }
      if (std::optional<size_t> k = Claim(taken)) {
        Parse(*k);
        continue;
      }
      if (next_.load(std::memory_order_acquire) >= chunks_.size()) {
        return;  // every chunk claimed
      }
      taken_.wait(taken, std::memory_order_acquire);  // the window is full: wait for a take
    }
  }

  // On the caller's thread: takes every chunk in order, parsing what no helper has claimed.
  // Returns false at the first chunk that failed to parse (nothing after it taken). Does not
  // throw: an exception of Convert or Take is kept for RethrowVisitError.
  bool TakeAll() {
    bool parsed_all = true;
    for (size_t k = 0; k < chunks_.size(); ++k) {
      Chunk& chunk = chunks_[k];
      // Parses ahead while a helper still parses chunk k (or is about to: claimed, not started).
      for (uint8_t state = chunk.state.load(std::memory_order_acquire); state != kConverted;
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
      if (chunk.convert_error) {
        error_ = chunk.convert_error;
        break;
      }
      try {
        visitor_.Take(k);
      } catch (...) {
        error_ = std::current_exception();
        break;
      }
      taken_.store(k + 1, std::memory_order_release);
      taken_.notify_all();
    }
    taken_.store(kOver, std::memory_order_release);  // helpers stop claiming
    taken_.notify_all();
    return parsed_all;
  }

  void RethrowVisitError() const {
    if (error_) {
      std::rethrow_exception(error_);
    }
  }

 private:
  static constexpr size_t kOver = static_cast<size_t>(-1) / 2;
  static constexpr int64_t kUnknown = -1;
  enum State : uint8_t { kUnclaimed, kParsing, kConverted };
  struct Chunk {
    std::atomic<uint8_t> state{kUnclaimed};
    // The index of the first document after this chunk's, once it is parsed.
    std::atomic<int64_t> documents_end{kUnknown};
    bool failed = false;
    std::exception_ptr convert_error;
  };

  // The next unclaimed chunk, claimed for the calling thread, if it lies within the window
  // after `taken` chunks have been taken.
  std::optional<size_t> Claim(size_t taken) {
    size_t k = next_.load(std::memory_order_relaxed);
    while (k < chunks_.size() && k < taken + window_) {
      if (next_.compare_exchange_weak(k, k + 1, std::memory_order_acq_rel)) {
        return k;
      }
    }
    return std::nullopt;
  }

  // The index of chunk k's first document: waits for chunk k - 1's parse. Every claimed chunk is
  // parsed by its claimer at once, and its end is published before its conversion, so the chain
  // of waits always ends.
  int64_t FirstIndex(size_t k) const {
    if (k == 0) {
      return 0;
    }
    const std::atomic<int64_t>& end = chunks_[k - 1].documents_end;
    for (int64_t e = end.load(std::memory_order_acquire); e == kUnknown;
         e = end.load(std::memory_order_acquire)) {
      end.wait(kUnknown, std::memory_order_acquire);
    }
    return end.load(std::memory_order_acquire);
  }

  void Parse(size_t k) {
    Chunk& chunk = chunks_[k];
    chunk.state.store(kParsing, std::memory_order_relaxed);
    const std::string_view text(text_.data() + bounds_[k], bounds_[k + 1] - bounds_[k]);
    std::vector<YAML::Node> documents;
    try {
      documents = internal::LoadAllYamlFromLine(text, first_lines_[k]);
    } catch (const std::exception&) {
      chunk.failed = true;  // the chunks after it are not taken: their indices do not matter
    }
    const int64_t first = FirstIndex(k);
    chunk.documents_end.store(first + static_cast<int64_t>(documents.size()),
                              std::memory_order_release);
    chunk.documents_end.notify_all();
    if (!chunk.failed) {
      try {
        visitor_.Convert(k, documents, static_cast<size_t>(first));
      } catch (...) {
        chunk.convert_error = std::current_exception();
      }
    }
    documents.clear();  // on this thread, where the trees were built
    chunk.state.store(kConverted, std::memory_order_release);
    chunk.state.notify_all();
  }

  const std::string& text_;
  const std::vector<size_t>& bounds_;
  const std::vector<int>& first_lines_;
  const size_t window_;
  YamlChunkVisitor& visitor_;
  std::vector<Chunk> chunks_;
  std::atomic<size_t> next_{0};   // the first chunk not claimed
  std::atomic<size_t> taken_{0};  // chunks taken; kOver once the visit has ended
  std::exception_ptr error_;
};

}  // namespace

void internal::ForEachYamlChunkInParts(const std::string& text, size_t chunks, size_t wave,
                                       YamlChunkVisitor& visitor) {
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
  visitor.Begin(count);
  // The caller takes chunk k while `wave` - 1 helpers parse and convert the chunks after it, up
  // to `wave` chunks ahead (the conversions of at most `wave` + 1 chunks held at once). Before
  // 2026-12-02 a wave of chunks was parsed in parallel and then visited on one thread while the
  // others waited: Kueue's large-scale manifests loaded in 65 ms on 2 threads as on 1
  // (docs/replay.md).
  wave = std::max<size_t>(1, wave);
  const size_t helpers = std::min(wave, count) - 1;
  ChunkPipeline pipeline(text, bounds, first_lines, helpers == 0 ? 1 : wave + 1, visitor);
  bool parsed_all = true;
  if (helpers == 0) {
    parsed_all = pipeline.TakeAll();
  } else {
    RunWithHelpersHere(
        helpers, [&] { parsed_all = pipeline.TakeAll(); }, [&] { pipeline.Help(); });
  }
  pipeline.RethrowVisitError();
  if (!parsed_all) {
    LoadAllYaml(text);  // throws the whole text's first error, with its position
  }
}

}  // namespace replay
