// Policy variants of manifests as YAML edits (docs/sweep.md).
#include "replay/io/manifest_overlay.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <simdjson.h>

#include "replay/io/input_limits.h"
#include "replay/io/manifest_context.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/yaml_expansion.h"
#include "replay/io/yaml_tree.h"

#include <yaml-cpp/yaml.h>

namespace replay {

struct Manifests::Document {
  YAML::Node node;
  std::string file;
  int index = 0;  // 0-based document index in `file`
};

namespace {

// yaml-cpp trap: assigning one Node variable to another rebinds the *tree* node it refers to.
// Walks here only rebind variables with reset(), and subscript maps and lists only after checking
// their type (a non-const operator[] turns a list or null into a map).

// The value of `key` in `map` without inserting it; when missing, an undefined node that is still
// valid (yaml-cpp's own "zombie" node throws from Type(), reset() and assignment).
YAML::Node Lookup(const YAML::Node& map, const std::string& key) {
  if (!map.IsDefined() || !map.IsMap()) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
  const YAML::Node& const_map = map;
  YAML::Node value = const_map[key];
  if (!value.IsDefined()) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
  return value;
}

std::string ScalarOr(const YAML::Node& node, const std::string& fallback) {
  return node.IsDefined() && node.IsScalar() ? node.Scalar() : fallback;
}

std::string PathText(const std::vector<FieldPathStep>& steps, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < steps.size(); ++i) {
    const FieldPathStep& s = steps[i];
    if (s.is_index) {
      out += fmt::format("[{}]", s.index);
    } else if (s.key.find_first_of(".[]") != std::string::npos) {
      out += fmt::format("[\"{}\"]", s.key);
    } else {
      out += out.empty() ? s.key : "." + s.key;
    }
  }
  return out;
}

// A YAML scalar given on the command line; null for `null` / `~`.
engine::StatusOr<YAML::Node> ParseScalar(const std::string& text) {
  YAML::Node node;
  try {
    node = LoadYaml(text);
  } catch (const YAML::Exception& e) {
    return engine::InvalidArgument(fmt::format("value {} is not a YAML scalar: {}", text, e.msg));
  }
  if (!node.IsScalar() && !node.IsNull()) {
    return engine::InvalidArgument(
        fmt::format("value {} is {}, not a YAML scalar", text, internal::ShapeName(node)));
  }
  return node;
}

// Splits at commas outside single or double quotes.
std::vector<std::string> SplitValues(std::string_view text) {
  std::vector<std::string> out(1);
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      quote = c == quote ? '\0' : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ',') {
      out.emplace_back();
      continue;
    }
    out.back() += c;
  }
  return out;
}

// `---` or `...` followed by a blank or the end: a plain scalar reading so at the start of a
// line is a document marker, not text (found by test/fuzz/overlay_fuzz).
bool LooksLikeDocumentMarker(std::string_view scalar) {
  if (scalar.size() < 3 || (scalar.substr(0, 3) != "---" && scalar.substr(0, 3) != "...")) {
    return false;
  }
  return scalar.size() == 3 || scalar[3] == ' ' || scalar[3] == '\t' || scalar[3] == '\n'
         || scalar[3] == '\r';
}

// Below YAML's limit of 1024 characters for an implicit key, counted in bytes for safety.
constexpr size_t kMaxImplicitKeyBytes = 1000;

void EmitNode(YAML::Emitter& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out << YAML::Null;
      return;
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      if (tag == "!") {  // quoted in the source: a string even when it reads as a number
        out << YAML::DoubleQuoted << node.Scalar();
        return;
      }
      if (!tag.empty() && tag != "?") {
        out << YAML::VerbatimTag(tag);
      }
      if (LooksLikeDocumentMarker(node.Scalar())) {
        // yaml-cpp writes `---` plainly; at the root it would start one more document.
        out << YAML::DoubleQuoted;
      }
      out << node.Scalar();
      return;
    }
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const YAML::Node& item : node) {
        EmitNode(out, item);
      }
      out << YAML::EndSeq;
      return;
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (const auto& kv : node) {
        out << YAML::Key;
        if (kv.first.IsScalar() && kv.first.Scalar().size() > kMaxImplicitKeyBytes) {
          // YAML allows an implicit key of at most 1024 characters; yaml-cpp writes longer ones
          // that way all the same (found by test/fuzz/overlay_fuzz): an explicit `? key` instead.
          out << YAML::LongKey;
        } else {
          out << YAML::Auto;  // LongKey stays set for the map's next keys otherwise
        }
        EmitNode(out, kv.first);
        out << YAML::Value;
        EmitNode(out, kv.second);
      }
      out << YAML::EndMap;
      return;
  }
}

// An object of the manifests: a document, or an item of a `kind: List` document.
struct ObjectRef {
  YAML::Node node;
  std::string kind;
  std::string name;
  std::string name_space;  // "" when not namespaced
  std::string where;       // "manifests.yaml document 5"

  std::string Id() const { return name_space.empty() ? name : name_space + "/" + name; }
};

void CollectObject(const YAML::Node& node, const std::string& default_kind,
                   const std::string& where, std::vector<ObjectRef>& out) {
  if (!node.IsMap()) {
    return;
  }
  const std::string kind = ScalarOr(Lookup(node, "kind"), default_kind);
  YAML::Node items = Lookup(node, "items");
  if ((kind == "List" || kind.ends_with("List")) && items.IsSequence()) {
    const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    for (size_t i = 0; i < items.size(); ++i) {
      YAML::Node item;
      item.reset(items[i]);
      CollectObject(item, item_kind, fmt::format("{} items[{}]", where, i), out);
    }
    return;
  }
  const YAML::Node metadata = Lookup(node, "metadata");
  const std::string name = ScalarOr(Lookup(metadata, "name"), "");
  if (kind.empty() || name.empty()) {
    return;
  }
  ObjectRef ref;
  ref.node.reset(node);
  ref.kind = kind;
  ref.name = name;
  ref.name_space = ScalarOr(Lookup(metadata, "namespace"), "");
  ref.where = where;
  out.push_back(std::move(ref));
}

bool IsIdentityPath(const std::vector<FieldPathStep>& steps) {
  if (steps.empty() || steps[0].is_index) {
    return false;
  }
  if (steps[0].key == "apiVersion" || steps[0].key == "kind") {
    return true;
  }
  return steps[0].key == "metadata" && steps.size() >= 2 && !steps[1].is_index
         && (steps[1].key == "name" || steps[1].key == "namespace");
}

void MergeInto(YAML::Node target, const YAML::Node& source) {
  for (const auto& kv : source) {
    const YAML::Node& key = kv.first;
    YAML::Node existing = Lookup(target, key.Scalar());
    if (existing.IsDefined() && existing.IsMap() && kv.second.IsMap()) {
      MergeInto(existing, kv.second);
    } else {
      target[key.Scalar()] = YAML::Clone(kv.second);
    }
  }
}

}  // namespace

// --- field paths and --set ---------------------------------------------------------------------

engine::StatusOr<std::vector<FieldPathStep>> ParseFieldPath(std::string_view path) {
  auto bad = [&](std::string_view why) {
    return engine::InvalidArgument(fmt::format("field path \"{}\": {}", path, why));
  };
  if (path.empty()) {
    return bad("empty");
  }
  std::vector<FieldPathStep> steps;
  size_t i = 0;
  auto read_key = [&]() -> bool {
    const size_t end = std::min(path.find_first_of(".[", i), path.size());
    if (end == i) {
      return false;
    }
    FieldPathStep s;
    s.key = std::string(path.substr(i, end - i));
    steps.push_back(std::move(s));
    i = end;
    return true;
  };
  if (path[0] != '[' && !read_key()) {
    return bad("expected a key at the start");
  }
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      if (!read_key()) {
        return bad(fmt::format("empty key at offset {}", i));
      }
    } else if (path[i] == '[') {
      if (i + 1 < path.size() && path[i + 1] == '"') {
        const size_t close = path.find("\"]", i + 2);
        if (close == std::string_view::npos) {
          return bad("unterminated [\"key\"]");
        }
        FieldPathStep s;
        s.key = std::string(path.substr(i + 2, close - i - 2));
        if (s.key.empty()) {
          return bad("empty [\"\"] key");
        }
        steps.push_back(std::move(s));
        i = close + 2;
      } else {
        const size_t close = path.find(']', i);
        if (close == std::string_view::npos) {
          return bad("unterminated [index]");
        }
        const std::string_view digits = path.substr(i + 1, close - i - 1);
        FieldPathStep s;
        s.is_index = true;
        auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), s.index);
        if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size()) {
          return bad(fmt::format("[{}] is not a list index (a number; write [\"{}\"] for a key)",
                                 digits, digits));
        }
        steps.push_back(std::move(s));
        i = close + 1;
      }
    } else {
      return bad(fmt::format("expected '.' or '[' at offset {}", i));
    }
  }
  return steps;
}

std::string FieldAssignment::Label() const {
  return fmt::format("{}/{}:{}={}", kind, name, path, value);
}

FieldAssignment SetFlag::Assignment(size_t i) const {
  return FieldAssignment{kind, name, path, steps, values[i]};
}

engine::StatusOr<SetFlag> ParseSetFlag(std::string_view spec) {
  auto bad = [&](std::string_view why) {
    return engine::InvalidArgument(fmt::format("--set {}: {}", spec, why));
  };
  constexpr std::string_view kForm = "expected KIND/NAME:field.path=VALUE[,VALUE...]";
  // YAML is UTF-8: a key or value with other bytes would be set, then emitted as text that no
  // YAML parser reads back (found by test/fuzz/overlay_fuzz).
  if (!simdjson::validate_utf8(spec.data(), spec.size())) {
    return engine::InvalidArgument("--set: not valid UTF-8");
  }
  // Nor control characters, which YAML does not allow either (a NUL in a value was set, then
  // emitted as text no parser reads back: overlay_fuzz).
  for (const char ch : spec) {
    if (const auto c = static_cast<unsigned char>(ch); c < 0x20 || c == 0x7F) {
      return engine::InvalidArgument(
          fmt::format("--set: control character 0x{:02X} not allowed", static_cast<int>(c)));
    }
  }
  SetFlag flag;
  flag.spec = std::string(spec);
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return bad(kForm);
  }
  const std::string_view ref = spec.substr(0, colon);
  const size_t slash = ref.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == ref.size()) {
    return bad(
        fmt::format("{} (KIND/NAME like ClusterQueue/team-a, or "
                    "LocalQueue/NAMESPACE/NAME)",
                    kForm));
  }
  flag.kind = std::string(ref.substr(0, slash));
  flag.name = std::string(ref.substr(slash + 1));
  const std::string_view rest = spec.substr(colon + 1);
  // The first '=' outside a ["key"] step.
  size_t eq = std::string_view::npos;
  bool in_key = false;
  for (size_t i = 0; i < rest.size() && eq == std::string_view::npos; ++i) {
    if (rest[i] == '"') {
      in_key = !in_key;
    } else if (rest[i] == '=' && !in_key) {
      eq = i;
    }
  }
  if (eq == std::string_view::npos) {
    return bad(kForm);
  }
  flag.path = std::string(rest.substr(0, eq));
  engine::StatusOr<std::vector<FieldPathStep>> steps = ParseFieldPath(flag.path);
  if (!steps.ok()) {
    return bad(steps.status().message());
  }
  flag.steps = std::move(steps).value();
  // The object's own mapping is one level: a path of more steps than the depth limit would
  // create YAML that no tally command reads back (found by test/fuzz/overlay_fuzz).
  if (const size_t limit = CurrentInputLimits().yaml_max_depth; flag.steps.size() + 1 > limit) {
    return bad(fmt::format("the path has {} steps: deeper than {} levels (--max-yaml-depth)",
                           flag.steps.size(), limit));
  }
  if (IsIdentityPath(flag.steps)) {
    return bad(fmt::format("{} is part of the object's identity and cannot be set", flag.path));
  }
  for (std::string& value : SplitValues(rest.substr(eq + 1))) {
    if (value.empty()) {
      return bad("empty value (write null for a null, \"\" for an empty string)");
    }
    engine::StatusOr<YAML::Node> scalar = ParseScalar(value);
    if (!scalar.ok()) {
      return bad(scalar.status().message());
    }
    if (std::find(flag.values.begin(), flag.values.end(), value) != flag.values.end()) {
      return bad(fmt::format("value {} given twice", value));
    }
    flag.values.push_back(std::move(value));
  }
  return flag;
}

// --- Manifests ---------------------------------------------------------------------------------

Manifests::Manifests() = default;
Manifests::~Manifests() = default;
Manifests::Manifests(Manifests&&) noexcept = default;
Manifests& Manifests::operator=(Manifests&&) noexcept = default;

size_t Manifests::documents() const {
  return docs_.size();
}

engine::StatusOr<Manifests> Manifests::Parse(std::string_view yaml, std::string_view file_name) {
  Manifests m;
  std::vector<YAML::Node> nodes;
  try {
    nodes = LoadAllYaml(yaml);
  } catch (const YAML::Exception& e) {
    return engine::InvalidArgument(
        fmt::format("{}:{}: YAML syntax error: {}", file_name, e.mark.line + 1, e.msg));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].IsDefined() || nodes[i].IsNull()) {
      continue;
    }
    // Before anything walks it: Emit, Clone and MergeInto follow aliases.
    if (engine::Status s = CheckYamlExpansion(nodes[i], file_name); !s.ok()) {
      return s;
    }
    Document d;
    d.node.reset(nodes[i]);
    d.file = std::string(file_name);
    d.index = static_cast<int>(i);
    m.docs_.push_back(std::move(d));
  }
  return m;
}

engine::StatusOr<Manifests> Manifests::Load(const std::vector<std::string>& paths) {
  std::vector<UnlistedDirectory> unlisted;
  std::vector<std::string> files = ExpandManifestPaths(paths, unlisted);
  if (!unlisted.empty()) {
    return engine::InvalidArgument(
        fmt::format("{}: {}", unlisted.front().path, unlisted.front().reason));
  }
  Manifests all;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      return engine::InvalidArgument(fmt::format("{}: cannot read the file", file));
    }
    engine::StatusOr<Manifests> one = Parse(text.str(), file);
    if (!one.ok()) {
      return one.status();
    }
    for (Document& d : std::move(one).value().docs_) {
      all.docs_.push_back(std::move(d));
    }
  }
  return all;
}

Manifests Manifests::Clone() const {
  Manifests copy;
  for (const Document& d : docs_) {
    Document c;
    c.node = YAML::Clone(d.node);
    c.file = d.file;
    c.index = d.index;
    copy.docs_.push_back(std::move(c));
  }
  return copy;
}

namespace {

// The object `kind`/`name` ("name" or "namespace/name") of `docs`.
template <typename Docs>
engine::StatusOr<ObjectRef> FindObject(const Docs& docs, std::string_view kind,
                                       std::string_view name) {
  std::vector<ObjectRef> objects;
  for (const auto& d : docs) {
    CollectObject(d.node, "", fmt::format("{} document {}", d.file, d.index), objects);
  }
  std::vector<const ObjectRef*> found;
  std::vector<std::string> same_kind;
  for (const ObjectRef& o : objects) {
    if (o.kind != kind) {
      continue;
    }
    same_kind.push_back(o.Id());
    if (o.Id() == name || (name.find('/') == std::string_view::npos && o.name == name)) {
      found.push_back(&o);
    }
  }
  if (found.size() == 1) {
    return *found[0];
  }
  if (found.empty()) {
    std::string known;
    for (size_t i = 0; i < same_kind.size() && i < 12; ++i) {
      known += (i == 0 ? "" : ", ") + same_kind[i];
    }
    if (same_kind.size() > 12) {
      known += ", ...";
    }
    return engine::NotFound(fmt::format("no {} named \"{}\" in the manifests ({})", kind, name,
                                        same_kind.empty() ? fmt::format("there is no {}", kind)
                                                          : fmt::format("{}s: {}", kind, known)));
  }
  std::string where;
  for (const ObjectRef* o : found) {
    where += fmt::format("{}{}/{} ({})", where.empty() ? "" : ", ", kind, o->Id(), o->where);
  }
  return engine::InvalidArgument(
      fmt::format("{}/{} is ambiguous: {}{}", kind, name, where,
                  name.find('/') == std::string_view::npos ? "; write KIND/NAMESPACE/NAME" : ""));
}

}  // namespace

engine::Status Manifests::Set(const FieldAssignment& a) {
  if (a.steps.empty()) {
    return engine::InvalidArgument("empty field path");
  }
  if (IsIdentityPath(a.steps)) {
    return engine::InvalidArgument(
        fmt::format("{} is part of the object's identity and cannot be set", a.path));
  }
  engine::StatusOr<ObjectRef> obj = FindObject(docs_, a.kind, a.name);
  if (!obj.ok()) {
    return obj.status();
  }
  engine::StatusOr<YAML::Node> value = ParseScalar(a.value);
  if (!value.ok()) {
    return value.status();
  }
  YAML::Node cur;
  cur.reset(obj->node);
  for (size_t k = 0; k < a.steps.size(); ++k) {
    const FieldPathStep& step = a.steps[k];
    const bool last = k + 1 == a.steps.size();
    const std::string here = k == 0 ? std::string("the object") : PathText(a.steps, k);
    YAML::Node next;
    if (step.is_index) {
      if (!cur.IsSequence()) {
        return engine::InvalidArgument(fmt::format(
            "{}: {} is {}, not a list", PathText(a.steps, k + 1), here, internal::ShapeName(cur)));
      }
      if (step.index >= cur.size()) {
        return engine::NotFound(fmt::format(
            "{}: no such element ({} has {})", PathText(a.steps, k + 1), here,
            cur.size() == 1 ? std::string("1 element") : fmt::format("{} elements", cur.size())));
      }
      if (last) {
        cur[step.index] = value.value();
        return engine::Status::Ok();
      }
      const YAML::Node& const_cur = cur;
      next.reset(const_cur[step.index]);
    } else {
      if (cur.IsNull()) {
        cur = YAML::Node(YAML::NodeType::Map);  // rebinds the tree node: `spec:` -> `spec: {}`
      }
      if (!cur.IsMap()) {
        return engine::InvalidArgument(fmt::format(
            "{}: {} is {}, not a map", PathText(a.steps, k + 1), here, internal::ShapeName(cur)));
      }
      if (last) {
        cur[step.key] = value.value();
        return engine::Status::Ok();
      }
      next.reset(Lookup(cur, step.key));
      if (!next.IsDefined()) {
        cur[step.key] = YAML::Node(YAML::NodeType::Map);
        next.reset(Lookup(cur, step.key));
      }
    }
    cur.reset(next);
  }
  return engine::Status::Ok();
}

engine::Status Manifests::ApplyOverlay(const Manifests& overlay) {
  for (const Document& d : overlay.docs_) {
    const std::string where = fmt::format("{}:{}", d.file, d.node.Mark().line + 1);
    if (!d.node.IsMap()) {
      return engine::InvalidArgument(
          fmt::format("{}: an overlay document is one object (a map), found {}", where,
                      internal::ShapeName(d.node)));
    }
    const std::string kind = ScalarOr(Lookup(d.node, "kind"), "");
    const YAML::Node metadata = Lookup(d.node, "metadata");
    const std::string name = ScalarOr(Lookup(metadata, "name"), "");
    const std::string name_space = ScalarOr(Lookup(metadata, "namespace"), "");
    if (kind.empty() || name.empty()) {
      return engine::InvalidArgument(fmt::format(
          "{}: an overlay document names its object with kind and metadata.name", where));
    }
    if (kind == "List" || kind.ends_with("List")) {
      return engine::InvalidArgument(fmt::format(
          "{}: {}: an overlay document is one object; write one document per object", where, kind));
    }
    engine::StatusOr<ObjectRef> target =
        FindObject(docs_, kind, name_space.empty() ? name : fmt::format("{}/{}", name_space, name));
    if (!target.ok()) {
      return engine::InvalidArgument(
          fmt::format("{}: {} (an overlay edits objects, it does not add them)", where,
                      target.status().message()));
    }
    for (const auto& kv : d.node) {
      if (!kv.first.IsScalar()) {
        return engine::InvalidArgument(fmt::format("{}: a map key is not a scalar", where));
      }
      if (kv.first.Scalar() == "apiVersion") {
        continue;
      }
      YAML::Node existing = Lookup(target->node, kv.first.Scalar());
      if (existing.IsDefined() && existing.IsMap() && kv.second.IsMap()) {
        MergeInto(existing, kv.second);
      } else {
        YAML::Node object;
        object.reset(target->node);
        object[kv.first.Scalar()] = YAML::Clone(kv.second);
      }
    }
  }
  return engine::Status::Ok();
}

engine::StatusOr<std::string> Manifests::GetText(std::string_view kind, std::string_view name,
                                                 std::string_view path) const {
  engine::StatusOr<std::vector<FieldPathStep>> steps = ParseFieldPath(path);
  if (!steps.ok()) {
    return steps.status();
  }
  engine::StatusOr<ObjectRef> obj = FindObject(docs_, kind, name);
  if (!obj.ok()) {
    return obj.status();
  }
  YAML::Node cur;
  cur.reset(obj->node);
  for (const FieldPathStep& step : *steps) {
    YAML::Node next;
    if (step.is_index) {
      if (!cur.IsSequence() || step.index >= cur.size()) {
        return engine::NotFound(fmt::format("{}: no such field", path));
      }
      const YAML::Node& const_cur = cur;
      next.reset(const_cur[step.index]);
    } else {
      next.reset(Lookup(cur, step.key));
      if (!next.IsDefined()) {
        return engine::NotFound(fmt::format("{}: no such field", path));
      }
    }
    cur.reset(next);
  }
  YAML::Emitter out;
  EmitNode(out, cur);
  return std::string(out.c_str());
}

std::string Manifests::Emit() const {
  std::string text;
  for (const Document& d : docs_) {
    YAML::Emitter out;
    EmitNode(out, d.node);
    text += "---\n";
    text += out.c_str();
    text += "\n";
  }
  return text;
}

}  // namespace replay
