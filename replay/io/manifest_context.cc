#include "replay/io/manifest_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace replay::internal {
namespace {

// yaml-cpp tags a quoted scalar "!" and a plain one "?".
bool IsQuoted(const YAML::Node& node) {
  return node.Tag() == "!";
}

// DecimalQuantity -> double with one rounding of the mantissa and exact powers of ten up to
// 1e22, so that "1e-9" compares equal to the literal 1e-9.
double ToDouble(const engine::DecimalQuantity& d) {
  auto mantissa = static_cast<double>(d.mantissa);
  double scale = std::pow(10.0, std::abs(d.exponent));
  double value = d.exponent >= 0 ? mantissa * scale : mantissa / scale;
  return d.negative ? -value : value;
}

}  // namespace

std::string Child(std::string_view path, std::string_view key) {
  if (path.empty()) {
    return std::string(key);
  }
  std::string out;  // not fmt::format: this runs for every field of every manifest object
  out.reserve(path.size() + 1 + key.size());
  out.append(path);
  out.push_back('.');
  out.append(key);
  return out;
}

std::string Index(std::string_view path, size_t i) {
  return fmt::format("{}[{}]", path, i);
}

YAML::Node Get(const YAML::Node& map, std::string_view key) {
  const YAML::Node& const_map = map;  // the const operator[] never inserts
  if (!map.IsMap()) {
    return const_map[std::string(key)];  // yaml-cpp's own result and errors for the other shapes
  }
  // A FieldKey, not a std::string: yaml-cpp names the undefined node of a missing key through a
  // std::stringstream (its key_to_string) unless the key type cannot be streamed, and most
  // lookups are of optional fields that are absent (a sixth of loading the Kueue large-scale
  // manifests); each key compared is not copied into a string either.
  return const_map[FieldKey{key}];
}

bool Present(const YAML::Node& node) {
  return node.IsDefined() && !node.IsNull();
}

int LineOf(const YAML::Node& node) {
  if (!node.IsDefined()) {
    return 0;
  }
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? mark.line + 1 : 0;
}

const char* ShapeName(const YAML::Node& node) {
  if (!node.IsDefined()) {
    return "nothing";
  }
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Undefined:
      return "nothing";
  }
  return "?";
}

// --- FieldLines --------------------------------------------------------------------------------

std::string FieldLines::ObjectKey(const engine::SourceRef& object) {
  std::string key = object.file;
  key += '\x1f';
  key += std::to_string(object.document);
  key += '\x1f';
  key += std::to_string(object.line);
  return key;
}

FieldLines::PathLines& FieldLines::LinesOf(const engine::SourceRef& object) {
  if (last_ == nullptr || object.line != last_object_.line
      || object.document != last_object_.document || object.file != last_object_.file) {
    last_ = &objects_[ObjectKey(object)];
    last_object_ = object;
  }
  return *last_;
}

void FieldLines::Record(const engine::SourceRef& object, const std::string& path, int line) {
  if (line > 0) {
    LinesOf(object).emplace(path, line);
  }
}

void FieldLines::Merge(FieldLines&& other) {
  for (auto& [object, lines] : other.objects_) {
    auto [it, inserted] = objects_.try_emplace(object, std::move(lines));
    if (!inserted) {
      it->second.merge(lines);  // this log's lines win (first recorded, as Record's emplace)
    }
  }
  other.objects_.clear();
  other.last_ = nullptr;
}

int FieldLines::Find(const engine::SourceRef& object, std::string path) const {
  const auto lines = objects_.find(ObjectKey(object));
  if (lines == objects_.end()) {
    return object.line;
  }
  while (!path.empty()) {
    auto it = lines->second.find(path);
    if (it != lines->second.end()) {
      return it->second;
    }
    size_t cut = path.find_last_of(".[");
    path.resize(cut == std::string::npos ? 0 : cut);
  }
  return object.line;
}

// --- ObjectContext -----------------------------------------------------------------------------

ObjectContext::ObjectContext(LoadSink sink, engine::SourceRef source, std::string api_version,
                             std::string kind)
    : sink_(sink),
      source_(std::move(source)),
      api_version_(std::move(api_version)),
      kind_(std::move(kind)) {}

LoadError ObjectContext::MakeError(const YAML::Node& at, const std::string& path,
                                   std::string message) const {
  const int line = LineOf(at);
  return LoadError{
      source_.file, source_.document,  line > 0 ? line : source_.line, kind_, display_name_,
      path,         std::move(message)};
}

void ObjectContext::Error(const YAML::Node& at, const std::string& path, std::string message) {
  ++error_count_;
  sink_.errors->push_back(MakeError(at, path, std::move(message)));
}

void ObjectContext::Warning(const YAML::Node& at, const std::string& path, std::string message) {
  sink_.warnings->push_back(MakeError(at, path, std::move(message)));
}

void ObjectContext::Record(const YAML::Node& node, const std::string& path) {
  sink_.lines->Record(source_, path, LineOf(node));
}

bool ObjectContext::ExpectMap(const YAML::Node& node, const std::string& path) {
  Record(node, path);
  if (node.IsDefined() && node.IsMap()) {
    return true;
  }
  Error(node, path, fmt::format("expected a map, found {}", ShapeName(node)));
  return false;
}

bool ObjectContext::ExpectSequence(const YAML::Node& node, const std::string& path) {
  Record(node, path);
  if (node.IsDefined() && node.IsSequence()) {
    return true;
  }
  Error(node, path, fmt::format("expected a list, found {}", ShapeName(node)));
  return false;
}

std::optional<std::string> ObjectContext::String(const YAML::Node& node, const std::string& path) {
  if (!Present(node)) {
    return std::nullopt;
  }
  Record(node, path);
  if (!node.IsScalar()) {
    Error(node, path, fmt::format("expected a string, found {}", ShapeName(node)));
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<int32_t> ObjectContext::Int32(const YAML::Node& node, const std::string& path) {
  std::optional<std::string> text = String(node, path);
  if (!text.has_value()) {
    return std::nullopt;
  }
  int64_t value = 0;
  const std::string_view digits = *text;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (IsQuoted(node) || ec != std::errc() || ptr != digits.data() + digits.size()
      || digits.empty()) {
    Error(node, path,
          fmt::format("expected an integer, found {}\"{}\"", IsQuoted(node) ? "the string " : "",
                      *text));
    return std::nullopt;
  }
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    Error(node, path, fmt::format("value {} does not fit in int32", *text));
    return std::nullopt;
  }
  return static_cast<int32_t>(value);
}

std::optional<bool> ObjectContext::Bool(const YAML::Node& node, const std::string& path) {
  std::optional<std::string> text = String(node, path);
  if (!text.has_value()) {
    return std::nullopt;
  }
  if (!IsQuoted(node)) {
    if (*text == "true" || *text == "True" || *text == "TRUE") {
      return true;
    }
    if (*text == "false" || *text == "False" || *text == "FALSE") {
      return false;
    }
  }
  Error(node, path, fmt::format("expected true or false, found \"{}\"", *text));
  return std::nullopt;
}

std::optional<engine::Quantity> ObjectContext::Quantity(const YAML::Node& node,
                                                        const std::string& path,
                                                        const std::string& resource) {
  std::optional<std::string> text = String(node, path);
  if (!text.has_value()) {
    return std::nullopt;
  }
  engine::StatusOr<engine::Quantity> q =
      engine::ParseQuotaQuantity(*text, engine::IsMilliResource(resource));
  if (!q.ok()) {
    Error(node, path, q.status().message());
    return std::nullopt;
  }
  return *q;
}

std::optional<engine::DecimalQuantity> ObjectContext::Decimal(const YAML::Node& node,
                                                              const std::string& path) {
  std::optional<std::string> text = String(node, path);
  if (!text.has_value()) {
    return std::nullopt;
  }
  engine::StatusOr<engine::DecimalQuantity> d = engine::ParseDecimalQuantity(*text);
  if (!d.ok()) {
    Error(node, path, d.status().message());
    return std::nullopt;
  }
  return *d;
}

std::optional<double> ObjectContext::Weight(const YAML::Node& node, const std::string& path) {
  std::optional<engine::DecimalQuantity> d = Decimal(node, path);
  if (!d.has_value()) {
    return std::nullopt;
  }
  return ToDouble(*d);
}

std::optional<std::vector<std::string>> ObjectContext::StringList(const YAML::Node& node,
                                                                  const std::string& path) {
  if (!Present(node)) {
    return std::nullopt;
  }
  if (!ExpectSequence(node, path)) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    std::optional<std::string> s = String(item, Index(path, i));
    if (!s.has_value() && !Present(item)) {
      Error(item, Index(path, i), "expected a string, found null");
    }
    out.push_back(s.value_or(""));  // a bad item stays as "" to keep the indices aligned
  }
  return out;
}

std::optional<std::map<std::string, std::string>> ObjectContext::StringMap(
    const YAML::Node& node, const std::string& path) {
  if (!Present(node)) {
    return std::nullopt;
  }
  if (!ExpectMap(node, path)) {
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const auto& entry : node) {  // read once: each `it->` builds two Nodes
    if (!entry.first.IsScalar()) {
      Error(entry.first, path,
            fmt::format("expected a string key, found {}", ShapeName(entry.first)));
      continue;
    }
    const std::string& key = entry.first.Scalar();
    std::optional<std::string> value = String(entry.second, Child(path, key));
    out[key] = value.value_or("");
  }
  return out;
}

void ObjectContext::CheckKeys(const YAML::Node& map, const std::string& path,
                              std::initializer_list<std::string_view> known) {
  std::vector<std::string_view> seen;  // a Kubernetes map has a few keys: no set to allocate
  // Each entry is read once: every `it->` builds a pair of Nodes anew (shared pointers copied),
  // which was half of this function's cost over Kueue's large-scale manifests.
  for (const auto& entry : map) {
    const YAML::Node& key_node = entry.first;
    if (!key_node.IsScalar()) {
      Error(key_node, path,
            fmt::format("expected a string key, found {} (an unrendered template?)",
                        ShapeName(key_node)));
      continue;
    }
    const std::string& key = key_node.Scalar();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      Error(key_node, Child(path, key),
            fmt::format("duplicate key \"{}\": Kubernetes rejects repeated fields", key));
      continue;
    }
    seen.push_back(key);  // the key's text lives in the map's node, which outlives this loop
    bool is_known = false;
    for (std::string_view k : known) {
      is_known |= k == key;
    }
    if (!is_known) {
      Warning(key_node, Child(path, key), fmt::format("unknown field \"{}\" (ignored)", key));
    }
  }
}

}  // namespace replay::internal
