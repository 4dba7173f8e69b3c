// Tests of JsonToYaml (replay/io/json_to_yaml.h), behind every command's `-o yaml`: the YAML,
// read back by the project's YAML reader, is the same tree as the JSON, scalars included —
// strings that YAML would take for numbers, booleans or null stay strings (quoted), numbers and
// booleans stay what they were.
#include "replay/io/json_to_yaml.h"

#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "replay/io/yaml_tree.h"

#include <yaml-cpp/yaml.h>

namespace replay {
namespace {

// A plain scalar that a YAML reader resolves to something other than a string: YAML 1.2's core
// schema (null, booleans, integers, floats), and YAML 1.1's yes/no/on/off, which PyYAML and others
// still read as booleans.
bool ResolvesToNonString(const std::string& s) {
  static const std::regex kNonString(
      "~|null|Null|NULL|true|True|TRUE|false|False|FALSE|"
      "[yY]|[nN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|"
      "[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|"
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|"
      "[-+]?\\.(inf|Inf|INF)|\\.nan|\\.NaN|\\.NAN");
  return s.empty() || std::regex_match(s, kNonString);
}

// The JSON value and the YAML node hold the same data. A YAML plain scalar is resolved as YAML
// 1.2's core schema would (yaml-cpp keeps its tag "?" and the text; a quoted one has tag "!").
::testing::AssertionResult Same(simdjson::dom::element j, const YAML::Node& y,
                                const std::string& at) {
  using simdjson::dom::element_type;
  auto fail = [&](const std::string& what) {
    return ::testing::AssertionFailure() << at << ": " << what;
  };
  switch (j.type()) {
    case element_type::OBJECT: {
      if (!y.IsMap()) {
        return fail("not a map");
      }
      simdjson::dom::object o = j.get_object().value_unsafe();
      if (o.size() != y.size()) {
        return fail("map size");
      }
      for (simdjson::dom::key_value_pair f : o) {
        const std::string key(f.key);
        if (ResolvesToNonString(key)) {
          // A key YAML would read as a number, boolean or null must be quoted.
          bool quoted = false;
          for (auto it = y.begin(); it != y.end(); ++it) {
            quoted |= it->first.Scalar() == key && it->first.Tag() == "!";
          }
          if (!quoted) {
            return fail("key \"" + key + "\" not quoted");
          }
        }
        const YAML::Node v = y[key];
        if (!v.IsDefined()) {
          return fail("missing key " + std::string(f.key));
        }
        if (auto r = Same(f.value, v, at + "." + std::string(f.key)); !r) {
          return r;
        }
      }
      return ::testing::AssertionSuccess();
    }
    case element_type::ARRAY: {
      if (!y.IsSequence()) {
        return fail("not a list");
      }
      simdjson::dom::array a = j.get_array().value_unsafe();
      if (a.size() != y.size()) {
        return fail("list size");
      }
      size_t i = 0;
      for (simdjson::dom::element item : a) {
        if (auto r = Same(item, y[i], at + "[" + std::to_string(i) + "]"); !r) {
          return r;
        }
        ++i;
      }
      return ::testing::AssertionSuccess();
    }
    case element_type::STRING:
      if (!y.IsScalar() || y.Scalar() != j.get_string().value_unsafe()
          || (y.Tag() != "!" && ResolvesToNonString(y.Scalar()))) {
        return fail("string \"" + std::string(j.get_string().value_unsafe()) + "\" became "
                    + (y.IsScalar() ? y.Scalar() + " tag " + y.Tag() : "not a scalar"));
      }
      return ::testing::AssertionSuccess();
    case element_type::INT64:
      return y.IsScalar() && y.Tag() == "?" && y.as<int64_t>() == j.get_int64().value_unsafe()
                 ? ::testing::AssertionSuccess()
                 : fail("integer");
    case element_type::UINT64:
      return y.IsScalar() && y.as<uint64_t>() == j.get_uint64().value_unsafe()
                 ? ::testing::AssertionSuccess()
                 : fail("unsigned integer");
    case element_type::DOUBLE:
      return y.IsScalar() && y.Tag() == "?" && y.as<double>() == j.get_double().value_unsafe()
                 ? ::testing::AssertionSuccess()
                 : fail("double " + (y.IsScalar() ? y.Scalar() : ""));
    case element_type::BOOL:
      return y.IsScalar() && y.Tag() == "?" && y.as<bool>() == j.get_bool().value_unsafe()
                 ? ::testing::AssertionSuccess()
                 : fail("bool");
    case element_type::NULL_VALUE:
      return y.IsNull() ? ::testing::AssertionSuccess() : fail("null");
  }
  return fail("type");
}

void ExpectSameTree(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  ASSERT_EQ(parser.parse(json).get(j), simdjson::SUCCESS) << json;
  const std::string yaml = JsonToYaml(json);
  ASSERT_FALSE(yaml.empty());
  EXPECT_EQ(yaml.back(), '\n');
  const YAML::Node y = LoadYaml(yaml);
  EXPECT_TRUE(Same(j, y, "$")) << yaml;
}

TEST(JsonToYamlTest, TheYamlReadsBackAsTheSameTree) {
  ExpectSameTree(R"({"counts":{"files":1,"loaded":{"ClusterQueue":4}},"errors":[],"forest":null,
    "valid":true,"ratio":0.125,"big":1e+300,"neg":-3,"u":18446744073709551615,
    "list":[1,"two",{"three":3},[],{}],"empty":""})");
}

TEST(JsonToYamlTest, StringsThatLookLikeOtherScalarsStayStrings) {
  ExpectSameTree(R"({"a":"123","b":"true","c":"null","d":"~","e":"yes","f":"No","g":"-",
    "h":"1.5e3","i":".inf","j":" padded ","k":"2026-01-01T00:00:00Z","l":"a: b","m":"# c",
    "n":"[x]","o":"{y}","p":"line\nbreak","q":"quote \" and \\ back","r":"caf\u00e9",
    "s":"*alias","t":"&anchor","u":"!tag","v":"%d","w":"@at","x":"`tick","y":"|","z":">"})");
  // Keys too.
  ExpectSameTree(R"({"1":"x","true":"y","null":"z","":"e","a/b":"f/cpu"})");
}

TEST(JsonToYamlTest, TextThatIsNotJsonIsReturnedUnchanged) {
  EXPECT_EQ(JsonToYaml("not json"), "not json");
  EXPECT_EQ(ToOutputFormat("{\"a\":1}\n", "json"), "{\"a\":1}\n");
  EXPECT_EQ(ToOutputFormat("{\"a\":1}\n", "yaml"), "a: 1\n");
}

}  // namespace
}  // namespace replay
