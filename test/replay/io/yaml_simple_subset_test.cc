// The simple-subset YAML reader (replay/io/yaml_simple_subset.h) against libfyaml's
// (LoadAllYamlWithLibfyaml): wherever it accepts a text, the trees are the same, node for node,
// marks (line, column and byte offset) included, and libfyaml accepts the text too. Checked on
// every YAML file shipped in data/ and test/, whole and cut into documents at file lines, on
// random manifest-like texts and on random mutations of them; it must accept the manifests tally
// generates, and decline each construct outside the subset (which LoadAllYaml still reads).
#include "replay/io/yaml_simple_subset.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/io/input_limits.h"
#include "replay/io/yaml_tree.h"
#include "test/replay/io/shipped_yaml_files.h"
#include "test/replay/io/yaml_dump.h"

namespace replay {
namespace {

using testing_yaml::DumpAll;

constexpr size_t kDepth = InputLimits{}.yaml_max_depth;

// What the fast reader made of `text`, or nullopt when it declined it. Fails the test when it
// accepted a text libfyaml reads otherwise (or refuses).
std::optional<std::string> CompareReaders(const std::string& text, int first_line = 0,
                                          size_t max_depth = kDepth) {
  std::optional<std::vector<YAML::Node>> fast =
      internal::LoadSimpleYaml(text, first_line, max_depth);
  if (!fast) {
    return std::nullopt;
  }
  const std::string fast_dump = DumpAll(*fast, /*offsets=*/true);
  std::string slow_dump;
  try {
    slow_dump = DumpAll(internal::LoadAllYamlWithLibfyaml(text, first_line), /*offsets=*/true);
  } catch (const YAML::Exception& e) {
    ADD_FAILURE() << "accepted a text libfyaml refuses (" << e.what() << "):\n" << text;
    return fast_dump;
  }
  EXPECT_EQ(fast_dump, slow_dump) << "text:\n" << text;
  return fast_dump;
}

bool Accepts(const std::string& text) {
  return CompareReaders(text).has_value();
}

TEST(YamlSimpleSubset, EveryShippedYamlFileReadsAsLibfyamlReadsIt) {
  size_t files = 0;
  size_t accepted = 0;
  size_t documents_accepted = 0;
  testing_yaml::ForEachShippedYamlFile([&](const std::string& name, const std::string& text) {
    SCOPED_TRACE(name);
    ++files;
    accepted += CompareReaders(text) ? 1 : 0;
    // Cut at every `---` line, as the manifest loader's chunks are (replay/io/yaml_documents.h).
    size_t start = 0;
    int line = 0;
    int start_line = 0;
    for (size_t pos = 0; pos <= text.size();) {
      const size_t end = std::min(text.find('\n', pos), text.size());
      if (text.compare(pos, end - pos, "---") == 0 || end == text.size()) {
        const size_t cut = end == text.size() ? end : pos;
        if (cut > start) {
          documents_accepted += CompareReaders(text.substr(start, cut - start), start_line) ? 1 : 0;
        }
        start = cut;
        start_line = line;
      }
      pos = end + 1;
      ++line;
    }
  });
  std::printf("accepted %zu of %zu shipped files, %zu documents cut from them\n", accepted, files,
              documents_accepted);
  // The subset is what manifests are written in: most shipped files are in it.
  EXPECT_GT(files, 100U);
  EXPECT_GT(accepted * 2, files) << accepted << " of " << files;
  EXPECT_GT(documents_accepted, files);
}

TEST(YamlSimpleSubset, ReadsTheManifestsTallyGenerates) {
  for (const char* shipped :
       {"data/replay/gpu-day/manifests.yaml", "data/transformations/manifests.yaml",
        "data/kueue-examples/test/performance/scheduler/configs/baseline/"
        "generator.yaml"}) {
    EXPECT_TRUE(
        Accepts(testing_yaml::ReadWholeFile(std::filesystem::path(TALLY_SOURCE_DIR) / shipped)))
        << shipped;
  }
  const std::string object = R"(# Generated
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq-0
  labels:
    kueue.x-k8s.io/performance-scheduler-cleanup: "true"
spec:
  cohortName: cohort-0   # a comment
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, "memory", nvidia.com/gpu]
    flavors:
    - name: rf
      resources:
      - name: cpu
        nominalQuota: "20"
        borrowingLimit: '1''0'
    -   name: spot
        resources: []
  admissionChecks:
    - a
    - -1
    - ~
    - null
    - a#b
    - 'it''s'
---
apiVersion: v1
kind: Namespace
metadata:
  name: ns
)";
  // Nested flow collections, and tabs and UTF-8 text in comments.
  EXPECT_TRUE(
      Accepts("# \xC2\xA7 4.3: caf\xC3\xA9\tnote\nspec:\n  namespaceSelector: {matchExpressions: "
              "[{key: dep, "
              "operator: In, values: [sales, \"x\"]}]}  # \xE2\x88\x92 7%\n  a: [[], [b, {}], {c: "
              "[d]}]\n"));
  const std::optional<std::string> dump = CompareReaders(object, 40);
  ASSERT_TRUE(dump.has_value());
  EXPECT_NE(dump->find("'1'0'"), std::string::npos) << *dump;
  EXPECT_NE(dump->find("@49:21<?>+"), std::string::npos) << *dump;  // `{}`, line 40 + 9, column 21
}

TEST(YamlSimpleSubset, DeclinesWhatLibfyamlAloneReads) {
  const std::vector<std::string> outside = {
      "a: &x 1\nb: *x\n",                        // anchors and aliases
      "a: !!str 1\n",                            // tags
      "a: |\n  text\n",                          // block scalars
      "a: >\n  text\n",                          //
      "a: one\n  two\n",                         // a multi-line plain scalar
      "a: \"one\n  two\"\n",                     // a multi-line quoted scalar
      "a: \"\\t\"\n",                            // an escape
      "a:\n",                                    // an empty value
      "a:\nb: 1\n",                              //
      "\"a\": 1\n",                              // a quoted key
      "? a\n: 1\n",                              // an explicit key
      "a:\tb\n",                                 // a tab
      "a: 1\r\nb: 2\r\n",                        // CR LF
      "a: caf\xC3\xA9\n",                        // not ASCII
      "%YAML 1.2\n---\na: 1\n",                  // a directive
      "a: 1\n...\n",                             // a document end
      "--- a\n",                                 // a value on the marker's line
      "---\n---\na: 1\n",                        // an empty document
      "a: [b, [c], ]\n",                         //
      "a: {b: [c], d}\n",                        //
      "# caf\xC3\n",                             // invalid UTF-8 in a comment
      std::string("# a\xC2\x85") + "b\na: 1\n",  // a NEL in a comment (YAML 1.1: a line break)
      std::string("\xEF\xBB\xBF") + "a: 1\n",    // a byte order mark
      "\t# note\na: 1\n",                        // a tab before a comment
      "a: it's # caf\xC3\xA9\n",  // a quote left open before a comment holding non-ASCII text
      "a: b\t# note\n",           // a tab before a comment on a value's line
      "a: {b}\n",                 // a flow mapping entry without a value
      "a: {b:c}\n",               //
      "a: [b,]\n",                // a trailing comma
      "- - a\n",                  // a sequence on an item's line
      "-\n  a: 1\n",              // an item on the next line
      "a: b: c\n",                // a mapping where a scalar belongs (an error)
      "a: 1\n  b: 2\n",           // more indented after a value (an error)
      "a:\n    b: 1\n  c: 2\n",   // between two indentations (an error)
      "# only a comment\n",       // no document
  };
  for (const std::string& text : outside) {
    EXPECT_FALSE(internal::LoadSimpleYaml(text, 0, kDepth).has_value()) << text;
    // LoadAllYaml still reads them, with libfyaml.
    std::string all;
    std::string slow;
    try {
      all = DumpAll(LoadAllYaml(text), true);
    } catch (const YAML::Exception& e) {
      all = e.what();
    }
    try {
      slow = DumpAll(internal::LoadAllYamlWithLibfyaml(text, 0), true);
    } catch (const YAML::Exception& e) {
      slow = e.what();
    }
    EXPECT_EQ(all, slow) << text;
  }
}

TEST(YamlSimpleSubset, NestingBeyondTheDepthLimitIsLeftToLibfyaml) {
  std::string text;
  for (int level = 0; level < 6; ++level) {
    text += std::string(static_cast<size_t>(2 * level), ' ') + fmt::format("k{}:\n", level);
  }
  text += std::string(12, ' ') + "leaf: [x]\n";  // 7 mappings and a flow sequence: depth 8
  EXPECT_TRUE(CompareReaders(text, 0, 8).has_value());
  EXPECT_FALSE(internal::LoadSimpleYaml(text, 0, 7).has_value());
  EXPECT_FALSE(internal::LoadSimpleYaml("a: {}\n", 0, 1).has_value());
  EXPECT_TRUE(internal::LoadSimpleYaml("a: {}\n", 0, 2).has_value());
}

// Random manifest-like texts: block mappings and sequences (indented or at their key's column),
// the scalar styles of the subset, comments and blank lines.
class TextMaker {
 public:
  explicit TextMaker(uint32_t seed) : rng_(seed) {}

  std::string Documents() {
    std::string out;
    const int documents = Pick(1, 3);
    for (int d = 0; d < documents; ++d) {
      if (d > 0 || Pick(0, 1) == 1) {
        out += "---\n";
      }
      Mapping(out, 0, 0);
    }
    return out;
  }

 private:
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::string Word() {
    static const std::vector<std::string> words = {
        "name", "spec", "cpu", "kueue.x-k8s.io/class", "a_b", "x-1", "nominalQuota", "9", "null"};
    return words[static_cast<size_t>(Pick(0, static_cast<int>(words.size()) - 1))];
  }

  std::string Scalar() {
    static const std::vector<std::string> scalars = {
        "rf",
        "\"20\"",
        "'it''s'",
        "-1",
        "~",
        "Null",
        "a#b",
        "10Gi",
        "\"a: #b\"",
        "''",
        "\"\"",
        "{}",
        "[]",
        "[cpu, \"mem\"]",
        "[ a , b ]",
        "x y  ",
        "https://a/b?c=d",
        "1.5",
        "a]b",
        "{name: cpu, nominalQuota: \"16\"}",
        "{ a: b }",
        "{a: ~, b: 'c'}",
        "{matchExpressions: [{key: dep, operator: In, values: [sales]}]}",
        "[[], [a, {}], {b: [c, \"d\"]}]"};
    std::string s = scalars[static_cast<size_t>(Pick(0, static_cast<int>(scalars.size()) - 1))];
    if (Pick(0, 4) == 0) {
      s += Pick(0, 1) == 0 ? "  # note" : "  # \xE2\x88\x92 7%\tnote";
    }
    return s;
  }

  void Noise(std::string& out, int indent) {
    if (Pick(0, 6) == 0) {
      out += std::string(static_cast<size_t>(Pick(0, indent + 2)), ' ')
             + (Pick(0, 1) == 0 ? "# comment\n" : "# \xC2\xA7 caf\xC3\xA9\tnote\n");
    }
    if (Pick(0, 8) == 0) {
      out += "\n";
    }
  }

  void Value(std::string& out, int indent, int depth) {
    const int kind = depth > 4 ? 0 : Pick(0, 4);
    if (kind <= 1) {
      out += " " + Scalar() + "\n";
    } else if (kind == 2) {
      out += "\n";
      Mapping(out, indent + Pick(1, 3), depth + 1);
    } else {
      out += "\n";
      Sequence(out, Pick(0, 1) == 0 ? indent : indent + 2, depth + 1);
    }
  }

  void Mapping(std::string& out, int indent, int depth, bool first_on_line = false) {
    const int entries = Pick(1, 4);
    for (int e = 0; e < entries; ++e) {
      if (!(first_on_line && e == 0)) {
        Noise(out, indent);
        out += std::string(static_cast<size_t>(indent), ' ');
      }
      out += Word() + ":";
      Value(out, indent, depth);
    }
  }

  void Sequence(std::string& out, int indent, int depth) {
    const int items = Pick(1, 3);
    for (int i = 0; i < items; ++i) {
      Noise(out, indent);
      const int gap = Pick(1, 3);
      out += std::string(static_cast<size_t>(indent), ' ') + "-"
             + std::string(static_cast<size_t>(gap), ' ');
      if (depth < 5 && Pick(0, 1) == 0) {
        Mapping(out, indent + 1 + gap, depth + 1, /*first_on_line=*/true);
      } else {
        out += Scalar() + "\n";
      }
    }
  }

  std::mt19937 rng_;
};

TEST(YamlSimpleSubset, RandomTextsAndTheirMutationsReadAsLibfyamlReadsThem) {
  const std::string mutations = " -:#\"'[]{},\n\ta&*!|>?.%\xC3\xA7";
  size_t mutated_accepted = 0;
  size_t mutated = 0;
  for (uint32_t seed = 1; seed <= 600; ++seed) {
    TextMaker maker(seed);
    const std::string text = maker.Documents();
    SCOPED_TRACE(seed);
    ASSERT_TRUE(Accepts(text)) << text;  // everything the maker writes is in the subset
    std::mt19937 rng(seed);
    for (int m = 0; m < 12; ++m) {
      std::string copy = text;
      const size_t at = std::uniform_int_distribution<size_t>(0, copy.size() - 1)(rng);
      const char c = mutations[std::uniform_int_distribution<size_t>(0, mutations.size() - 1)(rng)];
      switch (rng() % 3) {
        case 0:
          copy[at] = c;
          break;
        case 1:
          copy.insert(copy.begin() + static_cast<ptrdiff_t>(at), c);
          break;
        default:
          copy.erase(at, 1);
      }
      ++mutated;
      mutated_accepted += CompareReaders(copy, static_cast<int>(seed % 7)) ? 1 : 0;
    }
  }
  std::printf("accepted %zu of %zu mutated texts\n", mutated_accepted, mutated);
  // Many mutations stay in the subset (a changed word, a moved comment), many leave it.
  EXPECT_GT(mutated_accepted, mutated / 10);
  EXPECT_LT(mutated_accepted, mutated);
}

}  // namespace
}  // namespace replay
