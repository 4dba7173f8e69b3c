// File: replay/io/manifest_context.h
//
// Internal to the manifest loader: typed, non-throwing access to yaml-cpp nodes with error
// reporting by field path and line. Every accessor takes the node *and* its full field path
// ("spec.resourceGroups[0].flavors"), records the node's line under that path (so validation
// issues found later can point at the exact line), and reports a type mismatch as an error
// instead of throwing.
//
// yaml-cpp traps avoided here: `operator[]` on a non-const Node inserts keys, and on a const
// Node returns an "invalid" node for a missing key on which IsNull()/Mark() throw. All lookups
// go through `Get()` and `Present()`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/config.h"
#include "engine/quantity.h"
#include "replay/io/manifest_loader.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

// "a.b" / "a[3]"; an empty parent gives the bare key.
std::string Child(std::string_view path, std::string_view key);
std::string Index(std::string_view path, size_t i);

// The value of `key` in `map`, or an undefined node. REQUIRES: map.IsMap().
YAML::Node Get(const YAML::Node& map, std::string_view key);
// Defined and not null (`key:`, `key: null` and `key: ~` are absent, as in Kubernetes).
bool Present(const YAML::Node& node);
// 1-based line of `node`, 0 if unknown.
int LineOf(const YAML::Node& node);
// "a map", "a list", "a scalar", "null".
const char* ShapeName(const YAML::Node& node);

// A map key to look up without copies (Get). Not streamable on purpose: see Get.
struct FieldKey {
  std::string_view name;
  bool operator==(const FieldKey& other) const { return name == other.name; }
};

// Where parsed fields were found: key (file, document, object line, path) -> line.
class FieldLines {
 public:
  void Record(const engine::SourceRef& object, const std::string& path, int line);
  // Line of the longest recorded prefix of `path` ("a.b[2].c", then "a.b[2]", "a.b", "a").
  int Find(const engine::SourceRef& object, std::string path) const;
  // Adds the lines `other` recorded (for other objects than this one's: a path recorded in both
  // keeps this one's line, as a second Record would). `other` is left empty.
  void Merge(FieldLines&& other);

 private:
  using PathLines = std::unordered_map<std::string, int>;  // path -> line
  // file, document and line, separated by U+001F (never in a file name here).
  static std::string ObjectKey(const engine::SourceRef& object);
  PathLines& LinesOf(const engine::SourceRef& object);

  // Per object, then per path: an object's fields are recorded one after another, so the object
  // is looked up once per run of them (one flat map of "file/document/line/path" keys hashed or
  // compared the whole key for every field: a tenth of loading a large manifest).
  std::unordered_map<std::string, PathLines> objects_;
  PathLines* last_ = nullptr;  // the object recorded last (node-based map: stays valid)
  engine::SourceRef last_object_;
};

// Sinks shared by all objects of one load.
struct LoadSink {
  std::vector<LoadError>* errors = nullptr;
  std::vector<LoadError>* warnings = nullptr;
  FieldLines* lines = nullptr;
};

// One Kubernetes object being parsed: its identity for messages, plus typed accessors.
class ObjectContext {
 public:
  ObjectContext(LoadSink sink, engine::SourceRef source, std::string api_version, std::string kind);
  ObjectContext(const ObjectContext&) = delete;
  ObjectContext& operator=(const ObjectContext&) = delete;
  ObjectContext(ObjectContext&&) = delete;
  ObjectContext& operator=(ObjectContext&&) = delete;
  ~ObjectContext() = default;

  const std::string& api_version() const { return api_version_; }
  const std::string& kind() const { return kind_; }
  const engine::SourceRef& source() const { return source_; }
  void set_display_name(std::string name) { display_name_ = std::move(name); }
  int error_count() const { return error_count_; }

  void Error(const YAML::Node& at, const std::string& path, std::string message);
  void Warning(const YAML::Node& at, const std::string& path, std::string message);

  // Shape checks: false (and an error) when `node` is present with another shape. Callers test
  // Present() first when the field is optional.
  bool ExpectMap(const YAML::Node& node, const std::string& path);
  bool ExpectSequence(const YAML::Node& node, const std::string& path);

  // Scalars. nullopt when absent (no error) or malformed (error).
  std::optional<std::string> String(const YAML::Node& node, const std::string& path);
  std::optional<int32_t> Int32(const YAML::Node& node, const std::string& path);
  std::optional<bool> Bool(const YAML::Node& node, const std::string& path);
  // A Kubernetes quantity written as a string or a number, converted to canonical units of
  // `resource` (milli-units for cpu).
  std::optional<engine::Quantity> Quantity(const YAML::Node& node, const std::string& path,
                                           const std::string& resource);
  std::optional<engine::DecimalQuantity> Decimal(const YAML::Node& node, const std::string& path);
  // fairSharing.weight: a quantity, as a double (weights are never used in quota math).
  std::optional<double> Weight(const YAML::Node& node, const std::string& path);
  // One of `values` (by exact spelling); anything else is an "Unsupported value" error.
  template <typename E>
  std::optional<E> Enum(const YAML::Node& node, const std::string& path,
                        std::initializer_list<std::pair<std::string_view, E>> values);

  // Lists and maps of strings.
  std::optional<std::vector<std::string>> StringList(const YAML::Node& node,
                                                     const std::string& path);
  std::optional<std::map<std::string, std::string>> StringMap(const YAML::Node& node,
                                                              const std::string& path);

  // Warns about keys of `map` not in `known` (Kueue would reject them with strict field
  // validation, or ignore them) and errors on duplicate keys. REQUIRES: map.IsMap().
  void CheckKeys(const YAML::Node& map, const std::string& path,
                 std::initializer_list<std::string_view> known);

 private:
  LoadError MakeError(const YAML::Node& at, const std::string& path, std::string message) const;
  void Record(const YAML::Node& node, const std::string& path);

  LoadSink sink_;
  engine::SourceRef source_;
  std::string api_version_;
  std::string kind_;
  std::string display_name_;
  int error_count_ = 0;
};

template <typename E>
std::optional<E> ObjectContext::Enum(const YAML::Node& node, const std::string& path,
                                     std::initializer_list<std::pair<std::string_view, E>> values) {
  std::optional<std::string> text = String(node, path);
  if (!text.has_value()) {
    return std::nullopt;
  }
  for (const auto& [name, value] : values) {
    if (name == *text) {
      return value;
    }
  }
  std::string supported;
  for (const auto& entry : values) {
    supported += supported.empty() ? "\"" : ", \"";
    supported += entry.first;
    supported += "\"";
  }
  Error(node, path, "Unsupported value: \"" + *text + "\": supported values: " + supported);
  return std::nullopt;
}

}  // namespace replay::internal

// yaml-cpp compares a map's keys with a FieldKey by decoding each scalar key into one: the view
// points into the key node, which outlives the comparison.
template <>
struct YAML::convert<replay::internal::FieldKey> {
  static bool decode(const YAML::Node& node, replay::internal::FieldKey& key) {
    if (!node.IsScalar()) {
      return false;
    }
    key.name = node.Scalar();
    return true;
  }
};
