// LoadYamlDocuments (replay/io/yaml_documents.h) against YAML::LoadAll: the same documents, in the
// same order, with the same line numbers, on texts cut into 2 to 8 chunks; the same exception on
// broken ones; uncut texts where a cut is not safe.
#include "replay/io/yaml_documents.h"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include "replay/io/yaml_syntax.h"
#include "test/replay/io/yaml_dump.h"

namespace replay {
namespace {

using testing_yaml::DumpAll;

// ~200 KB of manifests with comments, block scalars, flow maps, empty documents and "---" inside
// strings (not at the start of a line).
std::string BigText() {
  std::string text = "# leading comment\n";
  for (int i = 0; i < 1200; ++i) {
    if (i > 0) {
      text += i % 7 == 0 ? "--- # a comment after the marker\n" : "---\n";
    }
    if (i % 50 == 3) {
      continue;  // an empty document
    }
    text += fmt::format(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq-{}\n"
        "  annotations:\n    note: |\n      line one --- not a marker\n      ---indented\n"
        "spec:\n  cohort: c-{}\n  resourceGroups: [{{coveredResources: [cpu], flavors: "
        "[{{name: f, resources: [{{name: cpu, nominalQuota: {}}}]}}]}}]\n  text: \"a --- b\"\n",
        i, i % 10, i);
  }
  return text;
}

std::string InParts(size_t parts, const std::string& text) {
  return DumpAll(internal::LoadYamlDocumentsInParts(text, parts));
}

TEST(YamlDocumentsTest, TheDocumentsOfLoadAllWhateverTheThreads) {
  const std::string text = BigText();
  ASSERT_GT(text.size(), size_t{128} << 10);
  const std::string expected = DumpAll(YAML::LoadAll(text));
  ASSERT_EQ(internal::YamlCutPoints(text, 4).size(), 3u);
  for (size_t parts : {1, 2, 3, 8}) {
    EXPECT_EQ(InParts(parts, text), expected) << parts;
  }
  tbb::task_arena one(1);
  EXPECT_EQ(one.execute([&] { return DumpAll(LoadYamlDocuments(text)); }), expected);
}

// ForEachYamlDocument visits LoadAll's documents in order, with the file's line numbers, on one
// thread as on several; a text broken near its end has its first chunks' documents visited before
// the exception (what the manifest loader takes back), and the exception is the whole text's.
TEST(YamlDocumentsTest, DocumentsAreVisitedInOrderAChunkAtATime) {
  const std::string text = BigText();
  const std::string expected = DumpAll(YAML::LoadAll(text));
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    std::vector<YAML::Node> seen;
    size_t next = 0;
    arena.execute([&] {
      ForEachYamlDocument(text, [&](const YAML::Node& doc, size_t i) {
        EXPECT_EQ(i, next++);
        seen.push_back(doc);
      });
    });
    EXPECT_EQ(DumpAll(seen), expected) << threads;
  }
  const std::string broken = text + "---\nkind: [unclosed\n";
  size_t visited = 0;
  std::string error;
  try {
    ForEachYamlDocument(broken, [&](const YAML::Node&, size_t) { ++visited; });
  } catch (const YAML::Exception& e) {
    error = fmt::format("{}:{}", e.mark.line, e.msg);
  }
  int yaml_cpp_line = -1;
  try {
    YAML::LoadAll(broken);
  } catch (const YAML::Exception& e) {
    yaml_cpp_line = e.mark.line;
  }
  EXPECT_EQ(error, fmt::format("{}:flow sequence without a closing bracket", yaml_cpp_line));
  EXPECT_GT(visited, 0u);  // streamed: the first chunks were visited before the broken one
  EXPECT_LT(visited, 1200u);
}

// The caller visits chunk k while helpers parse the chunks after it (at most `wave` ahead): the
// documents still come in order, with a visitor slower than the parse, on 1 to 4 threads and
// with chunks finer than the threads.
TEST(YamlDocumentsTest, ChunksParsedAheadAreVisitedInOrder) {
  const std::string text = BigText();
  const std::string expected = DumpAll(YAML::LoadAll(text));
  for (size_t threads : {1, 2, 4}) {
    for (size_t chunks : {2, 7, 16}) {
      tbb::task_arena arena(static_cast<int>(threads));
      std::vector<YAML::Node> seen;
      size_t next = 0;
      arena.execute([&] {
        internal::ForEachYamlDocumentInParts(
            text, chunks, threads, [&](const YAML::Node& doc, size_t i) {
              EXPECT_EQ(i, next++);
              if (i % 100 == 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));  // helpers run ahead
              }
              seen.push_back(doc);
            });
      });
      EXPECT_EQ(DumpAll(seen), expected) << threads << " threads, " << chunks << " chunks";
    }
  }
}

// An exception of the visitor reaches the caller once the helpers have stopped, and no document
// after it is visited.
TEST(YamlDocumentsTest, AVisitorsExceptionStopsTheParse) {
  const std::string text = BigText();
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    size_t visited = 0;
    std::string error;
    arena.execute([&] {
      try {
        internal::ForEachYamlDocumentInParts(text, 8, static_cast<size_t>(threads),
                                             [&](const YAML::Node&, size_t i) {
                                               ++visited;
                                               if (i == 500) {
                                                 throw std::runtime_error("stop at 500");
                                               }
                                             });
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
    });
    EXPECT_EQ(error, "stop at 500") << threads;
    EXPECT_EQ(visited, 501u) << threads;
  }
}

// A chunk visitor's Convert gets each chunk's documents with the index of its first, on the
// threads that parse (several at once), and Take sees the chunks in order, after their Convert:
// the documents still come out as LoadAll's, on 1 to 4 threads and with chunks finer than the
// threads, with conversions slower than the parse.
class RecordingChunks final : public YamlChunkVisitor {
 public:
  void Begin(size_t chunks) override {
    ++begun;
    converted.assign(chunks, {});
    first_index.assign(chunks, 0);
    sizes.assign(chunks, 0);
  }
  void Convert(size_t chunk, std::vector<YAML::Node>& documents, size_t first) override {
    if (chunk == fail_at) {
      throw std::runtime_error(fmt::format("stop at chunk {}", chunk));
    }
    if (chunk % 3 == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // others convert meanwhile
    }
    converted[chunk] = DumpAll(documents);
    first_index[chunk] = first;
    sizes[chunk] = documents.size();
  }
  void Take(size_t chunk) override {
    EXPECT_EQ(chunk, taken.size());
    EXPECT_FALSE(converted[chunk].empty() && sizes[chunk] > 0);
    taken.push_back(chunk);
    all += converted[chunk];
    converted[chunk].clear();
  }

  size_t fail_at = static_cast<size_t>(-1);
  int begun = 0;
  std::vector<std::string> converted;
  std::vector<size_t> first_index;
  std::vector<size_t> sizes;
  std::vector<size_t> taken;
  std::string all;
};

TEST(YamlDocumentsTest, ChunksAreConvertedWhereParsedAndTakenInOrder) {
  const std::string text = BigText();
  const std::vector<YAML::Node> documents = YAML::LoadAll(text);
  const std::string expected = DumpAll(documents);
  for (size_t threads : {1, 2, 4}) {
    for (size_t chunks : {2, 7, 16}) {
      tbb::task_arena arena(static_cast<int>(threads));
      RecordingChunks visitor;
      arena.execute([&] { internal::ForEachYamlChunkInParts(text, chunks, threads, visitor); });
      const std::string where = fmt::format("{} threads, {} chunks", threads, chunks);
      EXPECT_EQ(visitor.begun, 1) << where;
      EXPECT_EQ(visitor.taken.size(), visitor.converted.size()) << where;
      EXPECT_GE(visitor.taken.size(), 2u) << where;
      EXPECT_EQ(visitor.all, expected) << where;
      size_t next = 0;
      for (size_t k = 0; k < visitor.sizes.size(); ++k) {
        EXPECT_EQ(visitor.first_index[k], next) << where << ", chunk " << k;
        next += visitor.sizes[k];
      }
      EXPECT_EQ(next, documents.size()) << where;
    }
  }
}

// An exception of Convert reaches the caller when its chunk's turn comes: the chunks before it
// are taken, none after it.
TEST(YamlDocumentsTest, AConversionsExceptionStopsTheVisitAtItsChunk) {
  const std::string text = BigText();
  for (size_t threads : {1, 2}) {
    tbb::task_arena arena(static_cast<int>(threads));
    RecordingChunks visitor;
    visitor.fail_at = 3;
    std::string error;
    arena.execute([&] {
      try {
        internal::ForEachYamlChunkInParts(text, 8, threads, visitor);
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
    });
    EXPECT_EQ(error, "stop at chunk 3") << threads;
    EXPECT_EQ(visitor.taken, (std::vector<size_t>{0, 1, 2})) << threads;
  }
}

// A lone carriage return is a line break to YAML but not to the count of '\n' a chunk's lines
// start from: such a text is not cut.
TEST(YamlDocumentsTest, ALoneCarriageReturnIsNotCut) {
  EXPECT_FALSE(internal::YamlCutPoints("a: 1\r\n---\r\nb: 2\r\n---\r\nc: 3\r\n", 4).empty());
  EXPECT_TRUE(internal::YamlCutPoints("a: 1\r---\nb: 2\n---\nc: 3\n", 4).empty());
}

TEST(YamlDocumentsTest, CutsOnlyAtDocumentMarkersAtTheStartOfALine) {
  const std::string text = "a: 1\n---\nb: 2\n--- \nc: 3\n---x\nd: '---'\n ---\n";
  std::vector<size_t> cuts = internal::YamlCutPoints(text, 8);
  for (size_t c : cuts) {
    EXPECT_EQ(text.compare(c, 3, "---"), 0);
    EXPECT_EQ(text[c - 1], '\n');
    EXPECT_NE(text[c + 3], 'x');
  }
  EXPECT_FALSE(cuts.empty());
  // Directives and document ends are not cut.
  EXPECT_TRUE(internal::YamlCutPoints("%YAML 1.2\n---\na: 1\n---\nb: 2\n", 4).empty());
  EXPECT_TRUE(internal::YamlCutPoints("a: 1\n...\n---\nb: 2\n", 4).empty());
  EXPECT_TRUE(internal::YamlCutPoints("a: 1\n---\nb: 2\n", 1).empty());
}

// Invalid text never reaches yaml-cpp: libfyaml's error, on the line yaml-cpp would name.
TEST(YamlDocumentsTest, ABrokenChunkIsReportedAtYamlCppsLine) {
  std::string text = BigText();
  text += "---\nkind: [unclosed\n";
  int yaml_cpp_line = -1;
  try {
    YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    yaml_cpp_line = e.mark.line;
  }
  ASSERT_GE(yaml_cpp_line, 0);
  std::string got;
  try {
    internal::LoadYamlDocumentsInParts(text, 4);
  } catch (const YAML::Exception& e) {
    got = fmt::format("{}:{}", e.mark.line, e.msg);
  }
  EXPECT_EQ(got, fmt::format("{}:flow sequence without a closing bracket", yaml_cpp_line));
}

// Issue 23, finding 04 (test/robustness/04-...): yaml-cpp's LoadAll appends empty documents for
// ever after a stray `,` at the top of a document. Such texts are refused before yaml-cpp runs.
TEST(YamlDocumentsTest, AStrayCommaIsAnErrorNotAnEndlessLoop) {
  for (const char* text : {",\n", " ,\n", "a: 1\n---\n,\n", "\"x\"\n,\n", "[a]\n,\n", ",,\n"}) {
    try {
      LoadYamlDocuments(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const YAML::ParserException& e) {
      // "did not find expected node content", or after a complete node "missing document start"
      EXPECT_TRUE(e.msg == "did not find expected node content"
                  || e.msg == "missing document start")
          << text << ": " << e.msg;
    }
  }
  std::optional<YamlSyntaxError> e = FindYamlSyntaxError("a: 1\n---\n,\n");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->line, 3);
  EXPECT_EQ(e->column, 1);
}

TEST(YamlDocumentsTest, NestingBeyondTheLimitIsAnError) {
  std::string deep(kYamlMaxDepth + 1, '[');
  deep += std::string(kYamlMaxDepth + 1, ']');
  std::optional<YamlSyntaxError> e = FindYamlSyntaxError(deep);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->message, "nested deeper than 256 levels (--max-yaml-depth)");
  EXPECT_EQ(e->line, 1);
  EXPECT_EQ(e->column, 257);
  std::string fine(kYamlMaxDepth, '[');
  fine += std::string(kYamlMaxDepth, ']');
  EXPECT_FALSE(FindYamlSyntaxError(fine).has_value());
  std::string very_deep(1'000'000, '[');  // would overflow yaml-cpp's recursive parser
  EXPECT_TRUE(FindYamlSyntaxError(very_deep).has_value());
}

// --max-yaml-depth: the process-wide limit moves, and the default comes back.
TEST(YamlDocumentsTest, TheDepthLimitCanBeRaised) {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  ASSERT_TRUE(FindYamlSyntaxError(deep).has_value());
  InputLimits raised;
  raised.yaml_max_depth = 1000;
  SetInputLimits(raised);
  EXPECT_FALSE(FindYamlSyntaxError(deep).has_value());
  std::string deeper(1001, '[');
  deeper += std::string(1001, ']');
  std::optional<YamlSyntaxError> e = FindYamlSyntaxError(deeper);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->message, "nested deeper than 1000 levels (--max-yaml-depth)");
  SetInputLimits(InputLimits{});
  EXPECT_TRUE(FindYamlSyntaxError(deep).has_value());
}

// Found by test/fuzz/overlay_fuzz: libfyaml let an invalid byte in a comment swallow the rest of
// the file, so a stray `,` below it reached yaml-cpp, which loops for ever on it (finding 04).
// Text that is not UTF-8 is refused first, at the line and column of the first bad byte.
TEST(YamlDocumentsTest, TextThatIsNotUtf8IsRefusedWhereItStops) {
  std::optional<YamlSyntaxError> e = FindYamlSyntaxError("a: 1\n# x \xc9\n---\n,\n");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->line, 2);
  EXPECT_EQ(e->column, 5);
  EXPECT_EQ(e->message, "invalid UTF-8 (byte 0xC9): YAML text is Unicode");
  e = FindYamlSyntaxError(
      "name: \"a\xff"
      "b\"\n");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->line, 1);
  EXPECT_EQ(e->column, 9);
  // Well-formed multi-byte characters are fine; overlong forms and surrogates are not.
  EXPECT_FALSE(FindYamlSyntaxError("name: caf\xc3\xa9 \xf0\x9f\x9a\x80\n").has_value());
  EXPECT_TRUE(FindYamlSyntaxError("name: \xc0\xaf\n").has_value());
  EXPECT_TRUE(FindYamlSyntaxError("name: \xed\xa0\x80\n").has_value());
  // Control characters other than tab and line breaks: a NUL among the first bytes made yaml-cpp
  // decode the text as UTF-32 (also found by overlay_fuzz).
  e = FindYamlSyntaxError(std::string_view("C\0\0\0erQueue: 1\n", 14));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->column, 2);
  EXPECT_EQ(e->message, "control character 0x00: not allowed in YAML");
  EXPECT_TRUE(FindYamlSyntaxError("a: b\x7f\n").has_value());
  EXPECT_FALSE(FindYamlSyntaxError("a:\tb\r\nc: d\n").has_value());
}

// Found by test/fuzz/manifest_yaml_fuzz in CI: a tag with a comma (`!a,b`) passes libfyaml
// 0.7.12 and made yaml-cpp loop for ever. Tag shorthands may not hold flow indicators; `!!str`
// (which resolves to tag:yaml.org,2002:str), plain local tags and verbatim tags, which YAML
// allows to hold them (and which the overlay emitter writes), are fine.
TEST(YamlDocumentsTest, ATagWithAFlowIndicatorIsRefused) {
  std::optional<YamlSyntaxError> e = FindYamlSyntaxError("!a,b c\n");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->line, 1);
  EXPECT_EQ(e->message, "a tag holds a flow indicator (, [ ] { })");
  EXPECT_FALSE(FindYamlSyntaxError("x: !<tag:a,b> c\n").has_value());
  EXPECT_FALSE(FindYamlSyntaxError("x: !!str 5\ny: !local z\n").has_value());
}

}  // namespace
}  // namespace replay
